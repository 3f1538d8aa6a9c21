// Program sections through the real klaunch: a shell runs curl-like and
// pip-like stand-ins (the toucher program, built here and installed under
// those names), each narrowed by its own `[programs."NAME"]` while the shell
// and an unnamed program keep the policy's rights.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <string>

#include "tests/listener.h"
#include "tests/run_process.h"

namespace klaunch::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Piece(const std::string& s) { return s; }
std::string Piece(const char* s) { return s; }
std::string Piece(int n) { return std::to_string(n); }
template <typename... A>
std::string Cat(const A&... a) {
  std::string out;
  ((out += Piece(a)), ...);
  return out;
}

bool Exists(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + what.size())) {
    ++n;
  }
  return n;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string Slurp(const std::string& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class Sections : public ::testing::Test {
 protected:
  void SetUp() override {
    RunProcess({"/bin/mkdir", "-p", dir_.Path("ws/venv"), dir_.Path("ws/bin")});
    const std::string src = RequiredEnv("KLAUNCH_TEST_PROGRAMS") + "/toucher.c";
    const ProcessResult built = RunProcess(
        {"/usr/bin/gcc", "-O1", "-o", dir_.Path("ws/bin/toucher"), src});
    ASSERT_EQ(built.exit_code, 0) << built.err;
    for (const char* name : {"curl", "pip"}) {
      RunProcess({"/bin/cp", dir_.Path("ws/bin/toucher"),
                  dir_.Path("ws/bin/") + name});
    }
    ASSERT_TRUE(listener_.ok());
  }

  std::string Policy(const std::string& extra = "") const {
    return dir_.Write("policy.toml",
                      Cat("extends = \"workspace-write\"\n[network]\nallow = "
                          "[\"127.0.0.1:",
                          listener_.port(), "\"]\n",
                          "[programs.\"curl\"]\n"
                          "filesystem.workspace_writable = false\n"
                          "filesystem.write = []\n"
                          "[programs.\"pip\"]\n"
                          "filesystem.workspace_writable = false\n"
                          "filesystem.write = [\"",
                          dir_.Path("ws/venv"),
                          "\"]\n"
                          "network.allow = []\n"
                          "env.keep = [\"PATH\", \"PIP_*\"]\n"
                          "[env]\nkeep = [\"PIP_*\"]\n",
                          extra));
  }

  ProcessResult Run(const std::string& policy, const std::string& script,
                    const std::vector<std::string>& flags = {}) const {
    std::vector<std::string> argv = {RequiredEnv("KLAUNCH_BIN"), "--policy",
                                     policy, "--log", dir_.Path("audit.jsonl")};
    argv.insert(argv.end(), flags.begin(), flags.end());
    for (const char* a : {"--", "/bin/sh", "-c"}) argv.push_back(a);
    argv.push_back(script);
    ProcessOptions o;
    o.cwd = dir_.Path("ws");
    o.env = {"PATH=" + dir_.Path("ws/bin") + ":/usr/bin:/bin",
             "HOME=" + dir_.path(), "PIP_INDEX_URL=http://registry.pip.example",
             "AWS_SECRET_ACCESS_KEY=x", "XDG_STATE_HOME=" + dir_.Path("state")};
    return RunProcess(argv, o);
  }

  // klaunch [flags] -- python3 SCRIPT, with ws/bin first on PATH.
  ProcessResult RunPython(const std::string& policy, const std::string& script,
                          const std::vector<std::string>& flags = {}) const {
    std::vector<std::string> argv = {RequiredEnv("KLAUNCH_BIN"), "--policy",
                                     policy, "--log", dir_.Path("audit.jsonl")};
    argv.insert(argv.end(), flags.begin(), flags.end());
    for (const std::string& a :
         {std::string("--"), std::string("/usr/bin/python3"), script}) {
      argv.push_back(a);
    }
    ProcessOptions o;
    o.cwd = dir_.Path("ws");
    o.env = {"PATH=" + Ws("bin") + ":/usr/bin:/bin", "HOME=" + dir_.path(),
             "XDG_STATE_HOME=" + dir_.Path("state")};
    return RunProcess(argv, o);
  }

  // The toucher built static (no shim: the supervisor judges it) as
  // ws/static/NAME.
  void BuildStaticToucher(const std::string& name) const {
    RunProcess({"/bin/mkdir", "-p", Ws("static")});
    const ProcessResult built =
        RunProcess({"/usr/bin/gcc", "-O1", "-static", "-no-pie", "-o",
                    Ws("static/" + name),
                    RequiredEnv("KLAUNCH_TEST_PROGRAMS") + "/toucher.c"});
    ASSERT_EQ(built.exit_code, 0) << built.err;
  }

  // The seccomp layer's attacker (tests/programs/attacker.c), dynamic, as
  // ws/bin/curl (in curl's section) and ws/bin/attacker (in none).
  void BuildAttacker() const {
    const ProcessResult built =
        RunProcess({"/usr/bin/gcc", "-O1", "-o", Ws("bin/curl"),
                    RequiredEnv("KLAUNCH_TEST_PROGRAMS") + "/attacker.c"});
    ASSERT_EQ(built.exit_code, 0) << built.err;
    RunProcess({"/bin/cp", Ws("bin/curl"), Ws("bin/attacker")});
  }

  std::string Port() const { return std::to_string(listener_.port()); }
  std::string Ws(const std::string& n) const { return dir_.Path("ws/" + n); }
  std::string Log() const { return Slurp(dir_.Path("audit.jsonl")); }

  TempDir dir_;
  Listener listener_;
};

TEST_F(Sections, ACurlLikeToolReachesTheNetworkButWritesNothing) {
  const ProcessResult r =
      Run(Policy(),
          Cat("curl connect:", Port(), " create:", Ws("c.txt"),
              " read:/root; toucher create:", Ws("t.txt"), " read:/root"));
  EXPECT_THAT(r.out, HasSubstr("connect " + Port() + ": ok"));
  EXPECT_THAT(r.out, HasSubstr("create " + Ws("c.txt") + ": error"));
  EXPECT_FALSE(Exists(Ws("c.txt")));  // refused before it was created
  // A program no section names keeps the policy's rights.
  EXPECT_THAT(r.out, HasSubstr("create " + Ws("t.txt") + ": ok"));
  EXPECT_THAT(Log(), HasSubstr("\"rule\":\"programs.\\\"curl\\\"\""));
  // Every record made inside the section names it, the policy's own
  // refusals too; the unnamed program's records name none.
  int in_curl = 0, outside = 0;
  for (const std::string& line : Lines(Log())) {
    if (line.find("\"target\":\"/root\"") == std::string::npos) continue;
    if (line.find("\"program\":\"curl\"") != std::string::npos) {
      ++in_curl;
      EXPECT_THAT(line, HasSubstr("\"rule\":\"filesystem.unlisted\""));
    } else {
      ++outside;
      EXPECT_THAT(line, Not(HasSubstr("\"program\"")));
    }
  }
  EXPECT_EQ(in_curl, 1) << Log();
  EXPECT_EQ(outside, 1) << Log();
}

TEST_F(Sections, APipLikeToolWritesOnlyItsVenvAndStaysOffline) {
  const ProcessResult r =
      Run(Policy(), Cat("pip connect:", Port(), " create:", Ws("venv/ok"),
                        " create:", Ws("p.txt"), "; toucher connect:", Port()));
  EXPECT_THAT(r.out, HasSubstr("connect " + Port() + ": error"));
  EXPECT_THAT(r.out, HasSubstr("create " + Ws("venv/ok") + ": ok"));
  EXPECT_THAT(r.out, HasSubstr("create " + Ws("p.txt") + ": error"));
  EXPECT_FALSE(Exists(Ws("p.txt")));
  // The shell's next program is not narrowed by pip's section.
  EXPECT_EQ(listener_.Accepted(), 1) << r.out;
}

TEST_F(Sections, ASectionHoldsForEveryDescendantAndNests) {
  // pip runs a shell that runs curl: the chain pip > curl admits neither
  // the network (pip) nor the venv (curl).
  dir_.Write(
      "ws/inner.sh",
      Cat("toucher create:", Ws("venv/from-child"), " create:", Ws("child.txt"),
          "\ncurl connect:", Port(), " create:", Ws("venv/from-curl"), "\n"));
  const ProcessResult nested =
      Run(Policy(), Cat("pip exec:/bin/sh:", Ws("inner.sh")));
  EXPECT_THAT(nested.out,
              HasSubstr("create " + Ws("venv/from-child") + ": ok"));
  EXPECT_THAT(nested.out, HasSubstr("create " + Ws("child.txt") + ": error"));
  EXPECT_THAT(nested.out, HasSubstr("connect " + Port() + ": error"));
  EXPECT_THAT(nested.out,
              HasSubstr("create " + Ws("venv/from-curl") + ": error"));
  EXPECT_FALSE(Exists(Ws("venv/from-curl")));
  EXPECT_EQ(listener_.Accepted(), 0) << nested.out;
}

TEST_F(Sections, ASectionsEnvKeepNarrowsTheProgramsEnvironment) {
  const ProcessResult r =
      Run(Policy(), "pip exec:/usr/bin/env; toucher exec:/usr/bin/env");
  // pip's environment (printed first) keeps only PATH and PIP_*; the
  // unnamed program's keeps what the policy keeps.
  const size_t first = r.out.find("exec /usr/bin/env: ok");
  ASSERT_NE(first, std::string::npos) << r.out;
  const std::string pip_part = r.out.substr(0, first);
  const std::string rest = r.out.substr(first);
  EXPECT_THAT(pip_part, HasSubstr("PIP_INDEX_URL=http://registry.pip.example"));
  EXPECT_THAT(pip_part, Not(HasSubstr("HOME=")));
  EXPECT_THAT(rest, HasSubstr("HOME="));
  EXPECT_THAT(rest, HasSubstr("PIP_INDEX_URL="));
}

TEST_F(Sections, KlaunchNarrowsAProgramItStartsItself) {
  const std::string policy = Policy();
  std::vector<std::string> argv = {RequiredEnv("KLAUNCH_BIN"),
                                   "--policy",
                                   policy,
                                   "--",
                                   dir_.Path("ws/bin/curl"),
                                   "create:" + Ws("direct.txt")};
  ProcessOptions o;
  o.cwd = dir_.Path("ws");
  o.env = {"PATH=/usr/bin:/bin", "HOME=" + dir_.path(),
           "XDG_STATE_HOME=" + dir_.Path("state")};
  const ProcessResult r = RunProcess(argv, o);
  EXPECT_THAT(r.out, HasSubstr("create " + Ws("direct.txt") + ": error"));
  EXPECT_FALSE(Exists(Ws("direct.txt")));
  // A static CMD (no shim): the supervisor judges it under CMD's section,
  // and says which.
  ASSERT_NO_FATAL_FAILURE(BuildStaticToucher("curl"));
  const std::string log = dir_.Path("static.jsonl");
  const ProcessResult s =
      RunProcess({RequiredEnv("KLAUNCH_BIN"), "--policy", policy, "--log", log,
                  "--", Ws("static/curl"), "create:" + Ws("static.txt")},
                 o);
  EXPECT_THAT(s.out, HasSubstr("create " + Ws("static.txt") + ": error"));
  EXPECT_FALSE(Exists(Ws("static.txt")));
  EXPECT_THAT(Slurp(log),
              HasSubstr("\"layer\":\"seccomp\",\"program\":\"curl\""));
}

// A static program (no shim) inside a section entered below CMD: by the
// shell's exec (the shim asks klaunch to move it into its chain's cgroup),
// by a static parent's exec (the supervisor sees it), and as an orphan
// whose section's process is gone (cgroup membership outlives its parent).
TEST_F(Sections, AStaticProgramBelowCmdIsHeldToItsSectionEvenOnceOrphaned) {
  ASSERT_NO_FATAL_FAILURE(BuildStaticToucher("curl"));
  RunProcess({"/bin/cp", Ws("static/curl"), Ws("static/plain")});
  // Forks a child that outlives it, then exits: the child is reparented
  // to klaunch before it runs the static program.
  const std::string orphan = dir_.Write(
      "ws/orphan.py",
      Cat("import os, time\nif os.fork() == 0:\n    time.sleep(0.3)\n"
          "    os.execv('",
          Ws("static/plain"), "', ['plain', 'create:", Ws("orphan.txt"),
          "'])\n"));
  const ProcessResult r = Run(
      Policy(), Cat(Ws("static/curl"), " create:", Ws("by-shell.txt"), "; ",
                    Ws("static/plain"), " exec:", Ws("static/curl"),
                    ":create:", Ws("by-static.txt"),
                    "; curl exec:/usr/bin/python3:", orphan, "; sleep 1.5; ",
                    Ws("static/plain"), " create:", Ws("plain.txt")));
  if (Log().find("a cgroup per chain") == std::string::npos) {
    GTEST_SKIP() << "klaunch keeps no cgroup per chain here: " << Log();
  }
  for (const char* f : {"by-shell.txt", "by-static.txt", "orphan.txt"}) {
    EXPECT_FALSE(Exists(Ws(f))) << f << "\n" << r.out << r.err;
  }
  EXPECT_THAT(r.out, HasSubstr("create " + Ws("orphan.txt") + ": error"));
  // The shell itself is in no section.
  EXPECT_TRUE(Exists(Ws("plain.txt"))) << r.out;
  EXPECT_THAT(Log(), HasSubstr(Cat("\"target\":\"", Ws("orphan.txt"), "\"")));
}

// A static program a static parent starts into a section holds CMD's
// Landlock rulesets only (no shim stacks the section's); the supervisor
// alone narrows it. A second thread flipping the name it reads, after the
// supervisor judged it, must not reach a file the section denies and CMD
// may read: the supervisor opens such a process's reads itself rather than
// letting the kernel read the name again (supervise_open.cc).
TEST_F(Sections, ARewrittenNameInAStaticSectionProgramNeverReadsWhatItDenies) {
  ASSERT_NO_FATAL_FAILURE(BuildStaticToucher("curl"));
  RunProcess({"/bin/cp", Ws("static/curl"), Ws("static/plain")});
  const std::string ok = dir_.Write("ws/ok.txt", "harmless");
  const std::string denied = dir_.Write("ws/denied.txt", "SECTION-DENIED");
  const std::string policy = dir_.Write(
      "policy.toml", Cat("extends = \"workspace-write\"\n[programs.\"curl\"]\n"
                         "filesystem.deny = [\"",
                         denied, "\"]\n"));
  const ProcessResult r =
      Run(policy, Cat(Ws("static/plain"), " exec:", Ws("static/curl"),
                      ":reread:", ok, ":", denied));
  if (Log().find("a cgroup per chain") == std::string::npos) {
    GTEST_SKIP() << "klaunch keeps no cgroup per chain here: " << Log();
  }
  EXPECT_THAT(r.out, HasSubstr("leaked 0")) << r.out << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("opened 0 "))) << r.out << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("refused 0 "))) << r.out << r.err;
}

// Leaving the section's cgroup would put a process back under the policy
// alone. A shell inside a section whose own write list (and the policy's)
// holds klaunch's cgroup directory, the one the run's cgroups are made in,
// writes its pid into that cgroup's and the root's cgroup.procs, then a
// program starts a child in klaunch's cgroup with clone3
// (CLONE_INTO_CGROUP, the directory opened O_PATH, a mere look; the policy
// allows new namespaces, so clone3 itself is not refused for them): each
// child tries to create a file in the workspace, which the section keeps
// read-only.
TEST_F(Sections, AProgramCannotMoveItselfOutOfItsSectionsCgroup) {
  ASSERT_NO_FATAL_FAILURE(BuildStaticToucher("plain"));
  // klaunch makes its run's cgroup in its own, which is this test's.
  std::string own = Slurp("/proc/self/cgroup");
  own = own.substr(own.find("0::") + 3);
  own = own.substr(0, own.find('\n'));
  std::string mount;
  for (const std::string& line : Lines(Slurp("/proc/self/mountinfo"))) {
    if (line.find(" - cgroup2 ") == std::string::npos) continue;
    std::istringstream words(line);
    for (int i = 0; i < 5; ++i) words >> mount;
    break;
  }
  if (mount.empty()) GTEST_SKIP() << "no cgroup v2 here";
  const std::string klaunch_cgroup = mount + (own == "/" ? "" : own);
  const std::string policy = dir_.Write(
      "cg.toml", Cat("extends = \"workspace-write\"\n[filesystem]\nwrite = [\"",
                     klaunch_cgroup,
                     "\"]\n[system]\nallow = [\"namespaces\"]\n"
                     "[programs.\"curl\"]\n"
                     "filesystem.workspace_writable = false\n"
                     "filesystem.write = [\"",
                     klaunch_cgroup, "\"]\n"));
  const std::string escape = dir_.Write(
      "ws/escape.sh",
      Cat("echo $$ > '", klaunch_cgroup, "/cgroup.procs' && echo moved-up\n",
          "echo $$ > '", mount, "/cgroup.procs' && echo moved-to-root\n",
          Ws("static/plain"), " create:", Ws("escaped.txt"), "\n",
          // The shim opens the directory O_PATH (the supervisor cannot
          // hand a static program such a descriptor); the child's create
          // is a direct call, the supervisor's to judge.
          "toucher clone3cg:", klaunch_cgroup, ":", Ws("cloned.txt"), "\n"));
  // Without Landlock: the section's ruleset, stacked at curl's exec, would
  // hold the escaped child too; this is about the supervisor's hold.
  const ProcessResult r =
      Run(policy, "curl exec:/bin/sh:" + escape, {"--no-landlock"});
  if (Log().find("a cgroup per chain") == std::string::npos) {
    GTEST_SKIP() << "klaunch keeps no cgroup per chain here: " << Log();
  }
  EXPECT_THAT(r.out, Not(HasSubstr("moved"))) << r.out << r.err;
  EXPECT_FALSE(Exists(Ws("escaped.txt"))) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("create " + Ws("escaped.txt") + ": error"));
  EXPECT_THAT(r.out, HasSubstr(Cat("clone3cg ", klaunch_cgroup, ":",
                                   Ws("cloned.txt"), ": error")));
  EXPECT_FALSE(Exists(Ws("cloned.txt"))) << r.out << r.err;
}

// A process inside a section that execs a program by a direct system call,
// with the section taken out of the environment it hands over: the new
// program's shim still judges under the section, which its cgroup names;
// one that also drops the run's cgroup from its environment is refused the
// cookie, so the supervisor judges its calls under the section. (Without
// Landlock, whose section ruleset would hold them too.)
TEST_F(Sections, AProgramThatDropsItsSectionFromTheEnvironmentIsStillHeld) {
  const ProcessResult r =
      Run(Policy(),
          Cat("curl rawexec:", Ws("bin/toucher"), ":create:", Ws("dropped.txt"),
              " rawexec-bare:", Ws("bin/toucher"), ":create:", Ws("bare.txt"),
              "; toucher create:", Ws("outside.txt")),
          {"--no-landlock"});
  if (Log().find("a cgroup per chain") == std::string::npos) {
    GTEST_SKIP() << "klaunch keeps no cgroup per chain here: " << Log();
  }
  EXPECT_THAT(r.out, HasSubstr("create " + Ws("dropped.txt") + ": error"));
  EXPECT_FALSE(Exists(Ws("dropped.txt"))) << r.out << r.err;
  EXPECT_FALSE(Exists(Ws("bare.txt"))) << r.out << r.err;
  EXPECT_THAT(Log(), HasSubstr("it gets no cookie"));
  EXPECT_TRUE(Exists(Ws("outside.txt"))) << r.out << r.err;
}

// The dynamic loader run as a program by a static parent (no shim to see
// it): the supervisor judges the program it runs and enters its section.
TEST_F(Sections, TheLoaderRunningASectionsProgramEntersTheSection) {
  ASSERT_NO_FATAL_FAILURE(BuildStaticToucher("plain"));
  const ProcessResult r =
      Run(Policy(),
          Cat(Ws("static/plain"), " ldexec:", Ws("bin/curl"),
              ":create:", Ws("by-loader.txt"), " ldexec:", Ws("bin/toucher"),
              ":create:", Ws("plain-by-loader.txt")));
  if (Log().find("a cgroup per chain") == std::string::npos) {
    GTEST_SKIP() << "klaunch keeps no cgroup per chain here: " << Log();
  }
  EXPECT_THAT(r.out, HasSubstr("create " + Ws("by-loader.txt") + ": error"))
      << r.out << r.err;
  EXPECT_FALSE(Exists(Ws("by-loader.txt")));
  EXPECT_TRUE(Exists(Ws("plain-by-loader.txt"))) << r.out << r.err;
}

// A section's Landlock layer scopes no signals: a program inside one may
// still signal its parent, as the policy lets it.
TEST_F(Sections, AProgramInsideASectionMaySignalItsParent) {
  if (LandlockAbiOfThisKernel() < 6) {
    GTEST_SKIP() << "this kernel's Landlock scopes no signals";
  }
  const ProcessResult r = Run(Policy(), "curl signal:parent");
  EXPECT_THAT(r.out, HasSubstr("signal parent: ok")) << r.out << r.err;
}

// A program that found the cookie in its memory gets past the shim and the
// supervisor
// (Seccomp.WithoutLandlockAForgedTagGetsPastTheShimAndTheSupervisor); the
// Landlock ruleset its section stacked at its exec still holds it to the
// section's files. The same attacker under a name no section has writes.
TEST_F(Sections, AForgedTagInsideASectionMeetsTheSectionsLandlockRuleset) {
  if (LandlockAbiOfThisKernel() == 0)
    GTEST_SKIP() << "this kernel has no Landlock";
  ASSERT_NO_FATAL_FAILURE(BuildAttacker());
  // The attacker finds the cookie by trying it on a file only a deny entry
  // keeps it from, and Landlock does not: a pattern (curl's section has a
  // read-only workspace, out of which Landlock keeps a literal entry).
  const std::string denied = dir_.Write("ws/denied.txt", "x");
  const std::string policy =
      Policy("[filesystem]\ndeny = [\"**/denied.txt\"]\n");
  const ProcessResult r =
      Run(policy, Cat("curl forge ", denied, " ", Ws("by-curl.txt"), " ",
                      Port(), "; attacker forge ", denied, " ",
                      Ws("by-attacker.txt"), " ", Port()));
  if (Log().find("a cgroup per chain") == std::string::npos) {
    GTEST_SKIP() << "klaunch keeps no cgroup per chain here: the supervisor "
                    "judges a process inside a section as CMD's and makes "
                    "its writes with klaunch's rights (SECURITY.md)";
  }
  ASSERT_EQ(Count(r.out, "forge: found the cookie"), 2u) << r.out << r.err;
  EXPECT_FALSE(Exists(Ws("by-curl.txt"))) << r.out;
  EXPECT_THAT(r.out, HasSubstr("forge write: Permission denied"));
  EXPECT_TRUE(Exists(Ws("by-attacker.txt"))) << r.out;
  // CMD itself in a section: klaunch stacks the ruleset before its exec.
  std::vector<std::string> argv = {RequiredEnv("KLAUNCH_BIN"),
                                   "--policy",
                                   policy,
                                   "--",
                                   Ws("bin/curl"),
                                   "forge",
                                   denied,
                                   Ws("as-cmd.txt"),
                                   Port()};
  ProcessOptions o;
  o.cwd = dir_.Path("ws");
  o.env = {"PATH=/usr/bin:/bin", "HOME=" + dir_.path(),
           "XDG_STATE_HOME=" + dir_.Path("state")};
  const ProcessResult cmd = RunProcess(argv, o);
  ASSERT_THAT(cmd.out, HasSubstr("forge: found the cookie")) << cmd.err;
  EXPECT_FALSE(Exists(Ws("as-cmd.txt"))) << cmd.out;
}

// The same attacker started by posix_spawn (glibc execs inside the spawned
// child, where the shim cannot stack a ruleset), and under a shell that
// system() runs where the policy has a section for sh: the program's shim
// stacks the rulesets its chain lacks as it starts, before main, so the
// forged tag still meets Landlock.
TEST_F(Sections,
       AProgramStartedByPosixSpawnOrSystemStillMeetsItsSectionsRuleset) {
  if (LandlockAbiOfThisKernel() == 0)
    GTEST_SKIP() << "this kernel has no Landlock";
  ASSERT_NO_FATAL_FAILURE(BuildAttacker());
  // A pattern, as above: Landlock keeps a literal entry out of the
  // read-only workspace of curl's and sh's sections.
  const std::string denied = dir_.Write("ws/denied.txt", "x");
  const std::string policy = Policy(
      "[programs.\"sh\"]\nfilesystem.workspace_writable = false\n"
      "filesystem.write = []\n[filesystem]\ndeny = [\"**/denied.txt\"]\n");
  const std::string script = dir_.Write(
      "ws/spawn.py", Cat("import os\n"
                         "argv = ['curl', 'forge', '",
                         denied, "', '", Ws("by-spawn.txt"), "', '", Port(),
                         "']\n"
                         "os.waitpid(os.posix_spawn('",
                         Ws("bin/curl"),
                         "', argv, os.environ), 0)\n"
                         "os.system('attacker forge ",
                         denied, " ", Ws("by-system.txt"), " ", Port(),
                         "')\n"
                         "argv = ['attacker', 'forge', '",
                         denied, "', '", Ws("by-attacker.txt"), "', '", Port(),
                         "']\n"
                         "os.waitpid(os.posix_spawn('",
                         Ws("bin/attacker"), "', argv, os.environ), 0)\n"));
  // python3 is CMD: a shell as CMD would be in sh's section already.
  const ProcessResult r = RunPython(policy, script);
  if (Log().find("a cgroup per chain") == std::string::npos) {
    GTEST_SKIP() << "klaunch keeps no cgroup per chain here: the supervisor "
                    "judges a process inside a section as CMD's and makes "
                    "its writes with klaunch's rights (SECURITY.md)";
  }
  ASSERT_EQ(Count(r.out, "forge: found the cookie"), 3u) << r.out << r.err;
  EXPECT_FALSE(Exists(Ws("by-spawn.txt"))) << r.out;
  EXPECT_FALSE(Exists(Ws("by-system.txt"))) << r.out;
  EXPECT_EQ(Count(r.out, "forge write: Permission denied"), 2u) << r.out;
  EXPECT_TRUE(Exists(Ws("by-attacker.txt"))) << r.out;
}

// Landlock binds the thread that stacks a ruleset. A program started by
// posix_spawn into curl's section whose own library started a thread
// before the shim's constructor ran: that thread, holding none of the
// section's rulesets, hunts for the cookie. The shim checks for threads
// before the cookie is in memory and gives it none. The same program in no
// section finds the cookie and writes: the attack is real.
TEST_F(Sections, AThreadStartedBeforeTheShimCannotEscapeItsSection) {
  if (LandlockAbiOfThisKernel() == 0)
    GTEST_SKIP() << "this kernel has no Landlock";
  const std::string programs = RequiredEnv("KLAUNCH_TEST_PROGRAMS");
  const ProcessResult lib = RunProcess(
      {"/usr/bin/gcc", "-O1", "-DEARLY_LIB", "-shared", "-fPIC", "-o",
       Ws("bin/libearly.so"), programs + "/early_thread.c", "-lpthread"});
  ASSERT_EQ(lib.exit_code, 0) << lib.err;
  const ProcessResult built =
      RunProcess({"/usr/bin/gcc", "-O1", "-o", Ws("bin/curl"),
                  programs + "/early_thread.c", "-Dmain=attacker_main",
                  programs + "/attacker.c", "-L" + Ws("bin"), "-learly",
                  "-Wl,-rpath," + Ws("bin"), "-lpthread"});
  ASSERT_EQ(built.exit_code, 0) << built.err;
  RunProcess({"/bin/cp", Ws("bin/curl"), Ws("bin/attacker")});
  const std::string denied = dir_.Write("ws/denied.txt", "x");
  const std::string policy =
      Policy(Cat("[filesystem]\ndeny = [\"", denied, "\"]\n"));
  std::string script = "import os\n";
  for (const char* name : {"curl", "attacker"}) {
    script += Cat("os.waitpid(os.posix_spawn('", Ws(std::string("bin/") + name),
                  "', ['", name, "', 'forge', '", denied, "', '",
                  Ws(std::string("by-") + name + ".txt"), "', '", Port(),
                  "'], os.environ), 0)\n");
  }
  const ProcessResult r = RunPython(policy, dir_.Write("ws/early.py", script));
  EXPECT_TRUE(Exists(Ws("by-attacker.txt"))) << r.out << r.err;
  EXPECT_FALSE(Exists(Ws("by-curl.txt"))) << r.out << r.err;
  EXPECT_EQ(Count(r.out, "forge write: done"), 1u) << r.out;
  EXPECT_THAT(r.out + r.err,
              HasSubstr("started a thread before the shim could stack"));
}

// libc's system() and popen() run /bin/sh in a child the shim never runs
// in: the shim enters the shell's section before libc starts it, so that
// the shell's own shim narrows it with no supervisor to say so
// (--no-seccomp) and no Landlock (--no-landlock). (Python's os.popen is
// subprocess; ctypes reaches libc's popen.)
TEST_F(Sections, TheShellSystemAndPopenRunEntersItsSection) {
  const std::string policy = Policy(
      "[programs.\"sh\"]\nfilesystem.workspace_writable = false\n"
      "filesystem.write = []\n");
  const std::string script = dir_.Write(
      "ws/shell.py",
      Cat("import ctypes, os\n"
          "os.system('toucher create:",
          Ws("by-system.txt"),
          "')\n"
          "libc = ctypes.CDLL(None)\n"
          "libc.popen.restype = ctypes.c_void_p\n"
          "libc.pclose.argtypes = [ctypes.c_void_p]\n"
          "libc.pclose(libc.popen(b'toucher create:",
          Ws("by-popen.txt"),
          "', b'w'))\n"
          "libc.getenv.restype = ctypes.c_char_p\n"
          "print('after the shell:', libc.getenv(b'KLAUNCH_PROGRAMS'))\n"
          "os.waitpid(os.posix_spawn('",
          Ws("bin/toucher"), "', ['toucher', 'create:", Ws("by-spawn.txt"),
          "'], os.environ), 0)\n"));
  const ProcessResult r =
      RunPython(policy, script, {"--no-seccomp", "--no-landlock"});
  EXPECT_FALSE(Exists(Ws("by-system.txt"))) << r.out << r.err;
  EXPECT_FALSE(Exists(Ws("by-popen.txt"))) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("create " + Ws("by-popen.txt") + ": error"));
  EXPECT_THAT(r.out, HasSubstr("create " + Ws("by-system.txt") + ": error"));
  EXPECT_EQ(Count(Log(), "\"rule\":\"programs.\\\"sh\\\"\""), 2u) << Log();
  // python3 itself is in no section, nor does its environment say so once
  // the shell has started.
  EXPECT_TRUE(Exists(Ws("by-spawn.txt"))) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("after the shell: None"));
}

// klaunch and its shim installed where only a write root of the policy
// admits reading them (the test's directory is under /tmp, which the
// preset makes writable), with sections whose own write lists drop it: the
// programs inside them must still load the shim.
TEST_F(Sections, ProgramsInsideASectionLoadTheShimWhereverItLies) {
  RunProcess({"/bin/mkdir", "-p", dir_.Path("kl/bin"), dir_.Path("kl/shim")});
  const std::string klaunch = dir_.Path("kl/bin/klaunch");
  RunProcess({"/bin/cp", RequiredEnv("KLAUNCH_BIN"), klaunch});
  RunProcess({"/bin/cp", RequiredEnv("KLAUNCH_SHIM"),
              dir_.Path("kl/shim/libklaunch-shim.so")});
  std::vector<std::string> argv = {klaunch,
                                   "--policy",
                                   Policy(),
                                   "--log",
                                   dir_.Path("kl.jsonl"),
                                   "--",
                                   "/bin/sh",
                                   "-c",
                                   "curl create:" + Ws("c.txt")};
  ProcessOptions o;
  o.cwd = dir_.Path("ws");
  o.env = {"PATH=" + dir_.Path("ws/bin") + ":/usr/bin:/bin",
           "HOME=" + dir_.path(), "XDG_STATE_HOME=" + dir_.Path("state")};
  const ProcessResult r = RunProcess(argv, o);
  EXPECT_THAT(r.err, Not(HasSubstr("cannot be preloaded"))) << r.err;
  EXPECT_FALSE(Exists(Ws("c.txt")));
  // Refused by the shim inside curl, which loaded.
  EXPECT_THAT(Slurp(dir_.Path("kl.jsonl")),
              HasSubstr("\"layer\":\"shim\",\"program\":\"curl\""));
}

TEST_F(Sections, ASectionThatWidensIsALoadErrorAndNothingRuns) {
  const std::string policy =
      Policy("[programs.\"git\"]\nnetwork.allow = [\"git.example.com:443\"]\n");
  const ProcessResult r = Run(policy, "toucher create:" + Ws("never.txt"));
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_THAT(r.err, HasSubstr("programs.\"git\".network.allow[0]"));
  EXPECT_THAT(r.err, HasSubstr("widens the policy"));
  EXPECT_FALSE(Exists(Ws("never.txt")));
}

}  // namespace
}  // namespace klaunch::testing
