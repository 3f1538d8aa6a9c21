// Dry-run fidelity: real workloads run twice under the real klaunch with
// every layer on, enforced and with --audit, each time in a freshly made
// world (audit mode performs what it records, so a second run must not see
// the first one's changes). The targets enforce mode refuses must be
// exactly those audit mode records as would_deny.
//
// That holds only for a workload whose calls do not depend on what earlier
// calls returned; every workload here is written so (errors caught and
// ignored, no listing walked), except the two whose control flow depends on
// a refusal by nature, where only the first refusal is compared.
//
// Owns the comparison only; what each refusal says is the other tests'.

#include <dirent.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/listener.h"
#include "tests/run_process.h"
#include "tests/sandbox.h"

namespace klaunch::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// One decision of a run, as compared: what was judged and what judged it.
std::string Key(const std::string& line) {
  return Field(line, "access") + " " + Field(line, "target") + " [" +
         Field(line, "rule") + ", " + Field(line, "layer") + "]";
}

struct Decisions {
  ProcessResult result;
  std::vector<std::string> keys;  // in the log's order
  std::string log;
  std::set<std::string> Set() const { return {keys.begin(), keys.end()}; }
};

// The binaries and scripts, made once: bin/ is readable by every policy
// below (the examples extend presets that read /tmp; Closed() lists it).
class Fidelity : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tools_ = new TempDir;
    const std::string programs = RequiredEnv("KLAUNCH_TEST_PROGRAMS");
    RunProcess({"/bin/mkdir", "-p", tools_->Path("bin")});
    for (const char* script : {"touch_paths.py", "stop_at_refusal.py"}) {
      RunProcess({"/bin/cp", programs + "/" + script, tools_->Path("bin")});
    }
    const std::string src = programs + "/toucher.c";
    build_error_ = RunProcess({"/usr/bin/gcc", "-O1", "-static", "-no-pie",
                               "-o", tools_->Path("bin/toucher-static"), src})
                       .err +
                   RunProcess({"/usr/bin/gcc", "-O1", "-o",
                               tools_->Path("bin/toucher"), src})
                       .err;
  }
  static void TearDownTestSuite() {
    delete tools_;
    tools_ = nullptr;
  }
  void SetUp() override {
    ASSERT_TRUE(Exists(Bin("toucher-static")) && Exists(Bin("toucher")))
        << build_error_;
  }

  static std::string Bin(const std::string& name) {
    return tools_->Path("bin/" + name);
  }
  std::string root() const { return dir_.path(); }
  std::string ws() const { return dir_.Path("ws"); }
  std::string home() const { return dir_.Path("home"); }
  std::string outside() const { return dir_.Path("outside"); }

  // A policy that opens nothing outside the workspace but the system's
  // read roots and bin/, denies secrets inside and outside it, and `rm`.
  std::string Closed() const {
    return dir_.Write("closed.toml",
                      "extends = \"read-only\"\n[filesystem]\nworkspace = \"" +
                          ws() + "\"\nworkspace_writable = true\nread = [\"" +
                          tools_->Path("bin") + "\"]\ndeny = [\"" + home() +
                          "/.ssh\", \"**/.env\", \"" + ws() +
                          "/private\"]\n[commands]\ndeny = [\"rm *\"]\n");
  }

  // The world every run starts from, made again before each run.
  void Populate() const {
    RunProcess({"/bin/rm", "-rf", ws(), home(), outside()});
    for (const char* f :
         {"ws/notes.txt", "ws/.env", "ws/sub/.env", "ws/key.pem",
          "ws/private/secret", "ws/victim", "home/.ssh/id_rsa",
          "home/.aws/credentials", "home/.npmrc", "outside/outside.txt",
          "outside/victim", "outside/dir/a", "outside/moved"}) {
      dir_.Write(f, std::string("SECRET of ") + f + "\n");
    }
    // Read by `git config --file`, so in git's config syntax.
    dir_.Write("home/.git-credentials", "[credential]\n\ttoken = SECRET\n");
    RunProcess({"/usr/bin/git", "init", "-q", ws()});
    RunProcess({"/usr/bin/git", "-C", ws(), "-c", "user.name=t", "-c",
                "user.email=t@example.com", "commit", "-q", "--allow-empty",
                "-m", "first"});
  }

  // Runs cmd under klaunch in a fresh world; `audit` adds --audit.
  Decisions Run(const std::string& policy, const std::vector<std::string>& cmd,
                bool audit) {
    Populate();
    Decisions d;
    const std::string log =
        dir_.Path("logs/" + std::to_string(++runs_) + ".jsonl");
    RunProcess({"/bin/mkdir", "-p", dir_.Path("logs"), dir_.Path("state")});
    std::vector<std::string> argv = {RequiredEnv("KLAUNCH_BIN"), "--policy",
                                     policy, "--log", log};
    if (audit) argv.push_back("--audit");
    argv.push_back("--");
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    ProcessOptions o;
    o.cwd = ws();
    o.env = std::vector<std::string>{"PATH=/usr/bin:/bin", "LANG=C.UTF-8",
                                     "HOME=" + home(),
                                     "XDG_STATE_HOME=" + dir_.Path("state")};
    o.timeout_seconds = 60;
    d.result = RunProcess(argv, o);
    d.log = ReadFile(log);
    std::istringstream in(d.log);
    const std::string verdict = audit ? "would_deny" : "deny";
    for (std::string line; std::getline(in, line);) {
      const std::string v = Field(line, "verdict");
      if (v == "info") continue;
      EXPECT_EQ(v, verdict) << line;
      d.keys.push_back(Key(line));
    }
    return d;
  }

  // The two runs of cmd, and their sets compared with a readable diff.
  // Each of `expected` (the start of a key: "read /path") must be among
  // them, so that two empty sets do not pass for the workload's refusals.
  void ExpectTheSameTargets(const std::string& policy,
                            const std::vector<std::string>& cmd,
                            const std::vector<std::string>& expected) {
    const Decisions enforced = Run(policy, cmd, false);
    const Decisions audited = Run(policy, cmd, true);
    ASSERT_THAT(enforced.result.err, Not(HasSubstr("[run_process: killed")));
    ASSERT_THAT(audited.result.err, Not(HasSubstr("[run_process: killed")));
    EXPECT_EQ(audited.result.exit_code, 0) << Show(audited.result);
    EXPECT_EQ(Diff(enforced.Set(), audited.Set()), "")
        << "enforce log:\n"
        << enforced.log << "audit log:\n"
        << audited.log;
    for (const std::string& e : expected) {
      bool found = false;
      for (const std::string& k : enforced.keys)
        found |= k.rfind(e + " [", 0) == 0;
      EXPECT_TRUE(found) << "no refusal of " << e << "\n" << enforced.log;
    }
  }

  static std::string Diff(const std::set<std::string>& enforced,
                          const std::set<std::string>& audited) {
    std::string out;
    for (const std::string& k : enforced) {
      if (!audited.count(k))
        out += "  refused, not recorded by the dry run: " + k + "\n";
    }
    for (const std::string& k : audited) {
      if (!enforced.count(k))
        out += "  recorded by the dry run, not refused: " + k + "\n";
    }
    return out;
  }

  TempDir dir_;
  // A loopback port no policy here admits; audit mode's connects land here.
  Listener listener_;
  int runs_ = 0;
  static TempDir* tools_;
  static std::string build_error_;
};

TempDir* Fidelity::tools_ = nullptr;
std::string Fidelity::build_error_;

TEST_F(Fidelity, APythonScriptThatIgnoresItsErrorsIsJudgedAlikeInBothModes) {
  ExpectTheSameTargets(
      Closed(),
      {"/usr/bin/python3", Bin("touch_paths.py"), root(),
       std::to_string(listener_.port())},
      {"read " + ws() + "/.env", "read " + ws() + "/private",
       "read /etc/shadow", "read " + outside() + "/outside.txt",
       "stat " + home() + "/.ssh/id_rsa", "write " + outside() + "/made.txt",
       "write " + outside() + "/victim", "write " + outside() + "/link",
       "write " + ws() + "/private/newdir",
       "connect 127.0.0.1:" + std::to_string(listener_.port()),
       "exec /usr/bin/rm"});
}

TEST_F(Fidelity, AShellPipelineIsJudgedAlikeInBothModes) {
  // No `ls -l`, `find` or `grep -r`: they walk what they could stat, so a
  // refused stat changes what they open next.
  ExpectTheSameTargets(
      Closed(),
      {"/bin/sh", "-c",
       "cat notes.txt | grep S > out.txt; "
       "cat ../outside/outside.txt 2>/dev/null | wc -c > /dev/null; "
       "ls ../outside/dir > /dev/null 2>&1; "
       "echo hi > ../outside/made.txt; "
       "cat .env private/secret 2>/dev/null | wc -l > /dev/null; "
       "ls > /dev/null; "
       "sort < ../outside/outside.txt > /dev/null; "
       "mv ../outside/victim ./v2 2>/dev/null; "
       "read l < \"$HOME/.ssh/id_rsa\"; "
       "wc -c < sub/.env; true"},
      {"read " + outside() + "/outside.txt", "read " + outside() + "/dir",
       "write " + outside() + "/made.txt", "read " + ws() + "/.env",
       "read " + ws() + "/private/secret", "write " + outside() + "/victim",
       "read " + home() + "/.ssh/id_rsa", "read " + ws() + "/sub/.env"});
}

TEST_F(Fidelity, AStaticAndADynamicBinaryMakingTheSameCallsAreJudgedAlike) {
  const std::string port = std::to_string(listener_.port());
  const std::vector<std::string> calls = {
      "read:" + ws() + "/notes.txt", "read:" + ws() + "/.env",
      "read:" + ws() + "/private/secret", "read:" + outside() + "/outside.txt",
      "read:/etc/shadow", "read:" + home() + "/.ssh/id_rsa",
      "list:" + ws() + "/private", "list:" + outside() + "/dir",
      "stat:" + ws() + "/.env", "append:" + ws() + "/notes.txt",
      "append:" + outside() + "/outside.txt", "create:" + outside() + "/made",
      "create:" + ws() + "/private/made", "create:" + ws() + "/made",
      "mkdir:" + outside() + "/d", "unlink:" + outside() + "/victim",
      "rename:" + outside() + "/moved:" + ws() + "/moved",
      "rename:" + ws() + "/key.pem:" + ws() + "/private/k",
      "link:" + ws() + "/private/secret:" + ws() + "/s", "connect:" + port,
      "exec:/bin/rm:" + ws() + "/victim", "exec:/bin/true",
      // Last, since audit mode performs it: moving the workspace would move
      // the deny entry on private/ out from under it.
      "rename:" + ws() + ":" + root() + "/ws-moved"};
  const std::vector<std::string> expected = {"read " + ws() + "/.env",
                                             "read " + ws() + "/private",
                                             "read " + outside() + "/dir",
                                             "read /etc/shadow",
                                             "write " + outside() + "/made",
                                             "write " + ws() + "/private/made",
                                             "write " + outside() + "/d",
                                             "write " + outside() + "/victim",
                                             "write " + outside() + "/moved",
                                             "write " + ws() + "/private/k",
                                             "write " + root() + "/ws-moved",
                                             "write " + ws(),
                                             "link " + ws() + "/private/secret",
                                             "connect 127.0.0.1:" + port,
                                             "exec /usr/bin/rm"};
  // The static one is judged by the supervisor alone, the dynamic one by
  // the shim (its `stat` included: see stress_test.cc for the static's).
  for (const char* bin : {"toucher-static", "toucher"}) {
    SCOPED_TRACE(bin);
    std::vector<std::string> cmd = {Bin(bin)};
    cmd.insert(cmd.end(), calls.begin(), calls.end());
    ExpectTheSameTargets(Closed(), cmd, expected);
  }
}

// One call refused for two reasons: enforcement stops at the first (the
// source of the rename), the dry run judges both ends and records both.
TEST_F(Fidelity, ARenameWithBothEndsDeniedIsRecordedAlikeInBothModes) {
  for (const char* bin : {"toucher-static", "toucher"}) {
    SCOPED_TRACE(bin);
    ExpectTheSameTargets(
        Closed(),
        {Bin(bin), "rename:" + outside() + "/victim:" + ws() + "/private/v"},
        {"write " + outside() + "/victim"});
  }
}

// Each example policy, with programs it is meant for (as launcher_test.cc
// runs them), each written so that a refusal changes nothing it does next.
struct ExampleWorkload {
  std::string file;
  std::vector<std::string> cmd;
  std::vector<std::string> expected;
};

TEST_F(Fidelity, EachPolicyExamplesWorkloadsAreJudgedAlikeInBothModes) {
  const std::string dir = RequiredEnv("KLAUNCH_EXAMPLES");
  const std::string port = std::to_string(listener_.port());
  const std::vector<ExampleWorkload> workloads = {
      {"python-agent.toml",
       {"/usr/bin/python3", Bin("touch_paths.py"), root(), port},
       {"read " + home() + "/.ssh/id_rsa", "read " + ws() + "/key.pem",
        "write " + ws() + "/sub/.env", "connect 127.0.0.1:" + port,
        "exec /usr/bin/rm"}},
      {"code-reviewer.toml",
       {"/bin/cat", home() + "/.ssh/id_rsa", ".env", "notes.txt", "sub/.env"},
       {"read " + home() + "/.ssh/id_rsa", "read " + ws() + "/sub/.env"}},
      {"code-reviewer.toml",
       {"/usr/bin/grep", "-r", "-l", "SECRET", "."},
       {"read " + ws() + "/.env"}},
      {"code-reviewer.toml", {"/usr/bin/git", "log", "--oneline"}, {}},
      {"pip-venv.toml",
       {"/usr/bin/python3", "-c",
        "import json, os, venv\n"
        "for p in ['~/.ssh/id_rsa', '.env', 'sub/.env', 'notes.txt']:\n"
        "    try: open(os.path.expanduser(p)).read()\n"
        "    except OSError: pass\n"
        "venv.create('venv', with_pip=False)\n"
        "print(json.dumps(sorted(os.listdir('venv'))))\n"},
       {"read " + home() + "/.ssh/id_rsa", "read " + ws() + "/.env"}},
      {"npm-ci.toml",
       // Builtins only: npm-ci admits no other program under sh.
       {"/bin/sh", "-c",
        "read l < \"$HOME/.npmrc\"; echo ok > package-lock.json; "
        "read l < .env; echo x > sub/.env; read l < \"$HOME/.ssh/id_rsa\"; "
        "echo x >> \"$HOME/.npmrc\"; true"},
       {"read " + home() + "/.npmrc", "write " + home() + "/.npmrc",
        "write " + ws() + "/sub/.env", "read " + home() + "/.ssh/id_rsa"}},
      {"git-https.toml", {"/usr/bin/git", "status", "--short"}, {}},
      {"agent-git-one-host.toml",
       // git runs no program but git (its alias's shell is refused), and
       // python3 stays offline.
       {"/bin/sh", "-c",
        "git status --short; git -c 'alias.x=!true; true' x; "
        "python3 -c 'import socket; "
        "socket.socket().connect_ex((\"127.0.0.1\", " +
            port + "))'; true"},
       {"exec /usr/bin/sh", "connect 127.0.0.1:" + port}},
      {"git-https.toml",
       {"/usr/bin/git", "config", "--file", home() + "/.git-credentials",
        "--list"},
       {"read " + home() + "/.git-credentials"}},
  };
  std::set<std::string> covered = {"audit-everything.toml"};  // below
  for (const ExampleWorkload& w : workloads) {
    SCOPED_TRACE(w.file + ": " + w.cmd.back());
    covered.insert(w.file);
    ExpectTheSameTargets(dir + "/" + w.file, w.cmd, w.expected);
  }
  // A new example needs a workload here.
  DIR* d = opendir(dir.c_str());
  ASSERT_NE(d, nullptr);
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() > 5 && name.substr(name.size() - 5) == ".toml") {
      EXPECT_TRUE(covered.count(name)) << name << " has no workload here";
    }
  }
  closedir(d);
}

// audit-everything is a dry run by its own `mode`; enforced (the same file
// with mode = "enforce"), it refuses the command itself, since it admits no
// command, so the program never runs and its own calls are never judged.
// By nature only the first refusal, the exec, is common to both.
TEST_F(Fidelity, AuditEverythingEnforcedRefusesTheCommandItselfFirst) {
  const std::string dir = RequiredEnv("KLAUNCH_EXAMPLES");
  std::string text = ReadFile(dir + "/audit-everything.toml");
  const size_t at = text.find("mode = \"audit\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("mode = \"audit\"").size(),
               "mode = \"enforce\"");
  const std::string enforcing =
      dir_.Write("audit-everything-enforced.toml", text);
  const std::vector<std::string> cmd = {"/bin/sh", "-c",
                                        "read l < /etc/shadow; true"};
  const Decisions enforced = Run(enforcing, cmd, false);
  // Its own mode makes this run a dry run: no --audit.
  Populate();
  const std::string log = dir_.Path("audit-everything.jsonl");
  ProcessOptions o;
  o.cwd = ws();
  o.env = std::vector<std::string>{"PATH=/usr/bin:/bin", "LANG=C.UTF-8",
                                   "HOME=" + home(),
                                   "XDG_STATE_HOME=" + dir_.Path("state")};
  std::vector<std::string> argv = {RequiredEnv("KLAUNCH_BIN"),
                                   "--policy",
                                   dir + "/audit-everything.toml",
                                   "--log",
                                   log,
                                   "--"};
  argv.insert(argv.end(), cmd.begin(), cmd.end());
  ProcessResult dry = RunProcess(argv, o);
  EXPECT_EQ(dry.exit_code, 0) << Show(dry);
  std::vector<std::string> audited;
  std::istringstream in(ReadFile(log));
  for (std::string line; std::getline(in, line);) {
    if (Field(line, "verdict") == "would_deny") audited.push_back(Key(line));
  }
  EXPECT_EQ(enforced.result.exit_code, 126) << Show(enforced.result);
  ASSERT_EQ(enforced.keys.size(), 1u) << enforced.log;
  ASSERT_FALSE(audited.empty());
  EXPECT_EQ(enforced.keys[0], audited[0]);
  EXPECT_THAT(enforced.keys[0],
              HasSubstr("exec /usr/bin/sh [commands.unlisted"));
  // What only the dry run saw: the program's own refusal.
  EXPECT_THAT(audited, ::testing::Contains(HasSubstr("read /etc/shadow [")));
}

// The script stops when its first denied read fails and goes on to more
// denied paths when the dry run lets that read through: the sets differ by
// nature, the first refusal does not.
TEST_F(Fidelity, AProgramThatStopsAtItsFirstRefusalSharesOnlyThatRefusal) {
  const std::vector<std::string> cmd = {"/usr/bin/python3",
                                        Bin("stop_at_refusal.py"), root()};
  const Decisions enforced = Run(Closed(), cmd, false);
  const Decisions audited = Run(Closed(), cmd, true);
  EXPECT_THAT(enforced.result.out, HasSubstr("refused; stopping"));
  EXPECT_THAT(audited.result.out, HasSubstr("read the key; going on"));
  ASSERT_EQ(enforced.keys.size(), 1u) << enforced.log;
  ASSERT_EQ(audited.keys.size(), 4u) << audited.log;
  EXPECT_EQ(enforced.keys[0], audited.keys[0]);
  EXPECT_THAT(enforced.keys[0], HasSubstr("read " + home() + "/.ssh/id_rsa ["));
}

}  // namespace
}  // namespace klaunch::testing
