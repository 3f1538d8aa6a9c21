// The real klaunch binary running real programs: exit statuses, signals,
// orphans, the environment, audit against enforce, suggest, the examples.

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/shim_env.h"
#include "tests/run_process.h"

namespace klaunch::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// A workspace with its own state directory, so runs leave nothing in $HOME.
class Launcher {
 public:
  Launcher() {
    RunProcess({"/bin/mkdir", "-p", dir_.Path("ws"), dir_.Path("state")});
  }
  std::string ws() const { return dir_.Path("ws"); }
  std::string Path(const std::string& n) const { return dir_.Path(n); }
  std::string Write(const std::string& n, const std::string& t) const {
    return dir_.Write(n, t);
  }
  std::vector<std::string> Env() const {
    return {"PATH=/usr/bin:/bin", "HOME=" + dir_.path(), "LANG=C.UTF-8",
            "XDG_STATE_HOME=" + dir_.Path("state")};
  }
  ProcessResult Run(const std::vector<std::string>& args,
                    std::vector<std::string> extra_env = {}) const {
    std::vector<std::string> argv = {RequiredEnv("KLAUNCH_BIN")};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessOptions o;
    o.cwd = ws();
    o.env = Env();
    for (auto& e : extra_env) o.env->push_back(e);
    return RunProcess(argv, o);
  }

 private:
  TempDir dir_;
};

// The decisions an audit log holds (the launcher's "start" line is none).
int CountLines(const std::string& path) {
  std::ifstream in(path);
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    n +=
        !line.empty() && line.find("\"verdict\":\"info\"") == std::string::npos;
  }
  return n;
}

// The test's own directory is under /tmp, which workspace-write opens; this
// policy keeps everything outside the workspace closed.
constexpr char kClosed[] =
    "extends = \"read-only\"\n[filesystem]\nworkspace_writable = true\n";

TEST(Launcher, TheProgramsExitStatusIsKlaunchs) {
  Launcher l;
  EXPECT_EQ(l.Run({"--", "/bin/true"}).exit_code, 0);
  EXPECT_EQ(l.Run({"--", "/bin/sh", "-c", "exit 3"}).exit_code, 3);
}

// A program that ignores EACCES and exits 0: the latch makes it exit 1 and
// says why; without the latch its status is its own.
TEST(Launcher, FailOnRefusalTurnsASwallowedRefusalIntoExit1) {
  Launcher l;
  const std::vector<std::string> swallow = {
      "--", "/bin/sh", "-c", "cat /etc/shadow 2>/dev/null; echo done"};
  std::vector<std::string> args = {"--fail-on-refusal"};
  args.insert(args.end(), swallow.begin(), swallow.end());
  ProcessResult r = l.Run(args);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out, "done\n");
  EXPECT_THAT(r.err, HasSubstr("--fail-on-refusal: CMD exited 0, but 1 call "
                               "was refused; exiting 1"));
  EXPECT_EQ(l.Run(swallow).exit_code, 0);
}

// In a dry run nothing is refused, so the latch is on would-deny records:
// a check that a policy is enough for a workload.
TEST(Launcher, FailOnRefusalInAuditModeLatchesOnWhatWouldBeRefused) {
  Launcher l;
  ProcessResult r = l.Run({"--audit", "--fail-on-refusal", "--", "/bin/sh",
                           "-c", "cat /etc/shadow > /dev/null"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--fail-on-refusal: CMD exited 0, but 1 call "
                               "would have been refused (audit mode); "
                               "exiting 1"));
  r = l.Run(
      {"--audit", "--fail-on-refusal", "--", "/bin/cat", "/etc/hostname"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(Launcher, FailOnRefusalKeepsTheProgramsOwnFailure) {
  Launcher l;
  ProcessResult r = l.Run({"--fail-on-refusal", "--", "/bin/sh", "-c",
                           "cat /etc/shadow 2>/dev/null; exit 3"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_THAT(r.err, Not(HasSubstr("--fail-on-refusal")));
}

// True while `pid` (written by the program into `file`) is alive.
bool Alive(const std::string& file) {
  const std::string text = ReadFile(file);
  const int pid = text.empty() ? 0 : std::stoi(text);
  return pid > 0 && kill(pid, 0) == 0;
}

TEST(Launcher, ATimeoutEndsATreeThatIgnoresSigtermAndExits124) {
  Launcher l;
  const std::string pid = l.Path("pid");
  ProcessResult r =
      l.Run({"--timeout", "1s", "--kill-after", "1s", "--", "/bin/sh", "-c",
             "trap '' TERM; sleep 60 & echo $! > " + pid + "; wait"});
  EXPECT_EQ(r.exit_code, 124) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--timeout: 1 s passed; the whole tree got "
                               "SIGTERM, and 2 process(es) still running"));
  EXPECT_FALSE(Alive(pid)) << "a process that ignored SIGTERM outlived klaunch";
}

// A grandchild in a session of its own, holding klaunch's stdout open:
// still klaunch's to end (it is their subreaper), and the pipe then closes.
TEST(Launcher, ATimeoutEndsADoubleForkedDescendantHoldingTheOutputPipe) {
  Launcher l;
  const std::string pid = l.Path("pid");
  ProcessResult r =
      l.Run({"--timeout", "1s", "--", "/bin/sh", "-c",
             "setsid sh -c 'sleep 60 & echo $! > " + pid + "' & sleep 60"});
  EXPECT_EQ(r.exit_code, 124) << r.err;
  EXPECT_FALSE(Alive(pid)) << "the double-forked sleep outlived klaunch";
}

TEST(Launcher, AProgramThatEndsInTimeKeepsItsStatus) {
  Launcher l;
  EXPECT_EQ(
      l.Run({"--timeout", "30s", "--", "/bin/sh", "-c", "exit 3"}).exit_code,
      3);
}

TEST(Launcher, AProgramKilledBySignalNGivesStatus128PlusN) {
  Launcher l;
  EXPECT_EQ(l.Run({"--", "/bin/sh", "-c", "kill -9 $$"}).exit_code, 137);
  EXPECT_EQ(l.Run({"--", "/bin/sh", "-c", "kill -TERM $$"}).exit_code, 143);
}

TEST(Launcher, ABadPolicyIs125AndNeverStartsTheProgram) {
  Launcher l;
  const std::string bad = l.Write("bad.toml", "[filesystem]\nraed = []\n");
  const std::string marker = l.Path("ws/started");
  ProcessResult r = l.Run({"--policy", bad, "--", "/usr/bin/touch", marker});
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_THAT(r.err, HasSubstr("bad.toml:2:1: unknown key 'filesystem.raed'"));
  EXPECT_FALSE(Exists(marker));
  ProcessResult missing =
      l.Run({"--policy", l.Path("nope.toml"), "--", "/usr/bin/touch", marker});
  EXPECT_EQ(missing.exit_code, 125);
  EXPECT_THAT(missing.err, HasSubstr("nope.toml: cannot open the policy"));
  EXPECT_FALSE(Exists(marker));
}

TEST(Launcher, ABadOptionIs125WithTheOptionNamed) {
  Launcher l;
  ProcessResult r = l.Run({"--polcy", "x", "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_THAT(r.err, HasSubstr("unknown option '--polcy'"));
}

TEST(Launcher, AMissingProgramIs127AndAnUnexecutableOneIs126) {
  Launcher l;
  ProcessResult missing = l.Run({"--", "no-such-program-xyz"});
  EXPECT_EQ(missing.exit_code, 127);
  EXPECT_THAT(missing.err, HasSubstr("no-such-program-xyz: command not found"));
  const std::string plain = l.Write("ws/plain.txt", "not a program\n");
  ProcessResult cannot = l.Run({"--", plain});
  EXPECT_EQ(cannot.exit_code, 126);
  EXPECT_THAT(cannot.err, HasSubstr("plain.txt"));
}

TEST(Launcher, AProgramThePolicyRefusesIs126WithTheReason) {
  Launcher l;
  const std::string policy =
      l.Write("p.toml", "[commands]\nallow = [\"sh *\"]\n");
  const std::string marker = l.Path("ws/ran");
  ProcessResult r = l.Run({"--policy", policy, "--", "/usr/bin/touch", marker});
  EXPECT_EQ(r.exit_code, 126);
  EXPECT_THAT(r.err, HasSubstr("exec of `touch " + marker + "`"));
  EXPECT_THAT(r.err, HasSubstr("commands.allow"));
  EXPECT_FALSE(Exists(marker));
}

TEST(Launcher, AMissingShimIs125) {
  Launcher l;
  // klaunch alone, away from the build tree: no shim beside it.
  const std::string lone = l.Path("bin/klaunch");
  RunProcess({"/bin/mkdir", "-p", l.Path("bin")});
  RunProcess({"/bin/cp", RequiredEnv("KLAUNCH_BIN"), lone});
  ProcessOptions o;
  o.cwd = l.ws();
  o.env = l.Env();
  ProcessResult r = RunProcess({lone, "--", "/bin/true"}, o);
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_THAT(r.err, HasSubstr("libklaunch-shim.so is missing"));
}

TEST(Launcher, AnInstalledKlaunchFindsItsShimInTheLibraryDirectory) {
  Launcher l;
  // The layout `meson install` makes: PREFIX/bin/klaunch and the shim in
  // PREFIX/LIBDIR/klaunch.
  const std::string bin = l.Path("prefix/bin");
  const std::string lib = bin + "/" + RequiredEnv("KLAUNCH_SHIM_RELDIR");
  RunProcess({"/bin/mkdir", "-p", bin, lib});
  RunProcess({"/bin/cp", RequiredEnv("KLAUNCH_BIN"), bin + "/klaunch"});
  RunProcess(
      {"/bin/cp", RequiredEnv("KLAUNCH_SHIM"), lib + "/libklaunch-shim.so"});
  ProcessOptions o;
  o.cwd = l.ws();
  o.env = l.Env();
  const std::string secret = l.Write("secret", "x\n");
  const std::string policy = l.Write("p.toml", kClosed);
  ProcessResult r = RunProcess(
      {bin + "/klaunch", "--policy", policy, "--", "/bin/cat", secret}, o);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("klaunch: 1 call refused (read 1)"));
}

TEST(Launcher, TheEnvironmentHoldsOnlyWhatThePolicyKeepsOrSets) {
  Launcher l;
  const std::string policy =
      l.Write("p.toml", "[env]\nset = { KL_SET = \"yes\" }\n");
  ProcessResult r = l.Run({"--policy", policy, "--", "/usr/bin/env"},
                          {"AWS_SECRET_ACCESS_KEY=leak", "TERM=xterm"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("KL_SET=yes\n"));
  EXPECT_THAT(r.out, HasSubstr("TERM=xterm\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("AWS_SECRET_ACCESS_KEY")));
  EXPECT_THAT(r.out, HasSubstr("LD_PRELOAD="));
}

// The launcher and the shim agree through core/shim_env.h: every KLAUNCH_*
// variable CMD gets is one the contract names (a variable klaunch set that
// the shim never reads, or one it reads that klaunch spells otherwise, shows
// up here), and the ones every run needs are there.
TEST(Launcher, EveryKlaunchVariableCmdGetsIsOneTheShimContractNames) {
  Launcher l;
  const std::string policy =
      l.Write("p.toml", "extends = \"workspace-write\"\n");
  ProcessResult r =
      l.Run({"--policy", policy, "--trace", "--verbose", "--", "/usr/bin/env"},
            {"KLAUNCH_FROM_OUTSIDE=1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> named(std::begin(kShimVarNames),
                              std::end(kShimVarNames));
  std::set<std::string> seen;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("KLAUNCH_", 0) != 0) continue;
    const std::string name = line.substr(0, line.find('='));
    EXPECT_TRUE(named.count(name)) << name << " is in no ShimVar";
    seen.insert(name);
  }
  for (const char* need : {"KLAUNCH_POLICY_FILE", "KLAUNCH_SHIM",
                           "KLAUNCH_TRACE", "KLAUNCH_VERBOSE"}) {
    EXPECT_TRUE(seen.count(need)) << need << " missing\n" << r.out;
  }
}

TEST(Launcher, ARefusalIsSummarisedWithTheAuditLogsPath) {
  Launcher l;
  const std::string secret = l.Write("secret", "s3cret\n");
  const std::string policy = l.Write("p.toml", kClosed);
  ProcessResult r = l.Run({"--policy", policy, "--", "/bin/cat", secret});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, Not(HasSubstr("s3cret")));
  EXPECT_THAT(r.err, HasSubstr("klaunch: 1 call refused (read 1)"));
  EXPECT_THAT(r.err, HasSubstr(secret));
  EXPECT_THAT(
      r.err, HasSubstr("klaunch: audit log: " + l.Path("state/klaunch/runs/")));
}

TEST(Launcher, QuietSaysNothingAndVerboseNamesEachRefusal) {
  Launcher l;
  const std::string secret = l.Write("secret", "x\n");
  const std::string policy = l.Write("p.toml", kClosed);
  ProcessResult quiet =
      l.Run({"--quiet", "--policy", policy, "--", "/bin/cat", secret});
  EXPECT_EQ(quiet.exit_code, 1);
  EXPECT_THAT(quiet.err, Not(HasSubstr("klaunch:")));
  ProcessResult verbose =
      l.Run({"--verbose", "--policy", policy, "--", "/bin/cat", secret});
  EXPECT_THAT(verbose.err,
              HasSubstr("klaunch: read of " + secret +
                        " refused: no rule admits it; add \"" + secret +
                        "\" to filesystem.read to allow it"));
  ProcessResult clean = l.Run({"--", "/bin/true"});
  EXPECT_EQ(clean.err, "") << "nothing refused, nothing said";
}

TEST(Launcher, TheProgramCannotReadOrForgeItsOwnAuditLog) {
  Launcher l;
  const std::string log = l.Path("ws/audit.jsonl");
  const std::string secret = l.Write("secret", "x\n");
  const std::string policy = l.Write("p.toml", kClosed);
  ProcessResult r =
      l.Run({"--policy", policy, "--log", log, "--", "/bin/sh", "-c",
             "cat " + secret + "; echo forged >> " + log + "; cat " + log});
  EXPECT_THAT(r.out, Not(HasSubstr("forged")));
  // The launcher's start record quotes the command; no line is the forgery.
  EXPECT_THAT(ReadFile(log), Not(HasSubstr("forged\n")));
  EXPECT_THAT(ReadFile(log), HasSubstr("\"target\":\"" + secret + "\""));
}

TEST(Launcher, AProgramThatEditsItsEnvironmentFirstStillConfinesItsChildren) {
  Launcher l;
  const std::string secret = l.Write("secret", "TOPSECRET\n");
  const std::string policy = l.Write("p.toml", kClosed);
  // Before any judged call: point the shim elsewhere and drop the preload,
  // then run a child.
  const std::string src = l.Write("edit.c", R"C(
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char** argv) {
  setenv("KLAUNCH_POLICY_FILE", "/nonexistent", 1);
  unsetenv("LD_PRELOAD");
  unsetenv("KLAUNCH_SHIM");
  char* args[] = {"cat", argv[1], 0};
  execv("/bin/cat", args);
  return 99;
}
)C");
  const std::string prog = l.Path("ws/edit");
  ASSERT_EQ(RunProcess({"/usr/bin/cc", "-o", prog, src}).exit_code, 0);
  ProcessResult r = l.Run({"--policy", policy, "--", prog, secret});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("TOPSECRET")));
  EXPECT_THAT(r.err, HasSubstr("klaunch: 1 call refused (read 1)"));
}

TEST(Launcher, SignalsSentToKlaunchReachTheProgram) {
  Launcher l;
  const std::string marker = l.Path("ws/got-term");
  ProcessOptions o;
  o.cwd = l.ws();
  o.env = l.Env();
  AddLandlockCap(&*o.env);
  std::vector<std::string> argv = {RequiredEnv("KLAUNCH_BIN"), "--", "/bin/sh",
                                   "-c",
                                   "trap 'echo TERM > " + marker +
                                       "; exit 7' TERM; echo ready; "
                                       "while :; do sleep 0.05; done"};
  // Start klaunch ourselves so we can signal it.
  int out[2];
  ASSERT_EQ(pipe(out), 0);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    close(out[0]);
    std::vector<char*> a, e;
    for (auto& s : argv) a.push_back(s.data());
    a.push_back(nullptr);
    for (auto& s : *o.env) e.push_back(s.data());
    e.push_back(nullptr);
    if (chdir(o.cwd.c_str()) != 0) _exit(99);
    execve(a[0], a.data(), e.data());
    _exit(98);
  }
  close(out[1]);
  char buf[16];
  ASSERT_GT(read(out[0], buf, sizeof(buf)), 0);  // "ready"
  kill(pid, SIGTERM);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  close(out[0]);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7);
  EXPECT_EQ(ReadFile(marker), "TERM\n");
}

TEST(Launcher, DescendantsThatOutliveTheProgramAreEndedUnlessKept) {
  Launcher l;
  const std::string pidfile = l.Path("ws/orphan.pid");
  const std::string script =
      "(setsid sh -c 'echo $$ > " + pidfile +
      "; exec sleep 300 </dev/null >/dev/null 2>&1' &) ; "
      "while [ ! -s " +
      pidfile + " ]; do sleep 0.02; done";
  ProcessResult r = l.Run({"--", "/bin/sh", "-c", script});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const pid_t orphan = std::stoi(ReadFile(pidfile));
  EXPECT_NE(kill(orphan, 0), 0) << "the orphan outlived klaunch";

  RunProcess({"/bin/rm", "-f", pidfile});
  ProcessResult kept = l.Run({"--keep-orphans", "--", "/bin/sh", "-c", script});
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  const pid_t survivor = std::stoi(ReadFile(pidfile));
  EXPECT_EQ(kill(survivor, 0), 0) << "--keep-orphans ended the orphan";
  kill(survivor, SIGKILL);
}

TEST(Launcher, AuditModePerformsWhatEnforceRefusesAndLogsTheSameTargets) {
  Launcher l;
  const std::string policy =
      l.Write("p.toml", std::string(kClosed) +
                            "[commands]\nallow = [\"sh *\", \"cat *\"]\n");
  const std::string out_file = l.Path("outside.txt");
  const std::string secret = l.Write("secret", "x\n");
  const std::string cmd = "cat " + secret + " > /dev/null; echo hi > " +
                          out_file + "; /usr/bin/id -u > /dev/null; true";
  const std::string enforce_log = l.Path("enforce.jsonl");
  const std::string audit_log = l.Path("audit.jsonl");
  ProcessResult e = l.Run(
      {"--policy", policy, "--log", enforce_log, "--", "/bin/sh", "-c", cmd});
  EXPECT_FALSE(Exists(out_file));
  ProcessResult a = l.Run({"--audit", "--policy", policy, "--log", audit_log,
                           "--", "/bin/sh", "-c", cmd});
  EXPECT_EQ(ReadFile(out_file), "hi\n") << "audit mode refuses nothing";
  auto targets = [](const std::string& log) {
    std::vector<std::string> out;
    std::ifstream in(log);
    for (std::string line; std::getline(in, line);) {
      size_t t = line.find("\"target\":\"");
      size_t r = line.find("\"rule\":\"");
      if (t == std::string::npos || r == std::string::npos) continue;
      if (line.find("\"verdict\":\"info\"") != std::string::npos) continue;
      t += 10;
      r += 8;
      out.push_back(line.substr(t, line.find('"', t) - t) + " " +
                    line.substr(r, line.find('"', r) - r));
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(targets(enforce_log), targets(audit_log));
  EXPECT_EQ(targets(enforce_log).size(), 3u);
  EXPECT_THAT(ReadFile(audit_log), HasSubstr("\"verdict\":\"would_deny\""));
  EXPECT_THAT(ReadFile(audit_log), Not(HasSubstr("\"verdict\":\"deny\"")));
  EXPECT_THAT(a.err, HasSubstr("would have been refused"));
}

TEST(Launcher, ASuggestedPolicyLetsTheRecordedRunPassInEnforceMode) {
  Launcher l;
  const std::string base = l.Write(
      "base.toml", std::string(kClosed) + "[commands]\nallow = [\"sh *\"]\n");
  l.Write("data/a.txt", "a\n");
  l.Write("data/b.txt", "b\n");
  l.Write("data/c.txt", "c\n");
  const std::string cmd = "cat " + l.Path("data/a.txt") + " " +
                          l.Path("data/b.txt") + " " + l.Path("data/c.txt") +
                          " && echo out > " + l.Path("made.txt") +
                          " && /usr/bin/id -u";
  const std::string log = l.Path("dry.jsonl");
  ProcessResult dry = l.Run(
      {"--audit", "--policy", base, "--log", log, "--", "/bin/sh", "-c", cmd});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  ASSERT_GE(CountLines(log), 5);
  ProcessResult suggest = l.Run({"suggest", log, "--base", base});
  ASSERT_EQ(suggest.exit_code, 0) << suggest.err;
  EXPECT_THAT(suggest.out,
              HasSubstr(l.Path("data") + "\",  # covers 3 events"));
  EXPECT_THAT(suggest.out, HasSubstr("\"id -u\",  # covers 1 event"));
  const std::string learned = l.Write("learned.toml", suggest.out);
  EXPECT_EQ(l.Run({"check", learned}).exit_code, 0);
  RunProcess({"/bin/rm", "-f", l.Path("made.txt")});
  const std::string log2 = l.Path("enforce.jsonl");
  ProcessResult run =
      l.Run({"--policy", learned, "--log", log2, "--", "/bin/sh", "-c", cmd});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(CountLines(log2), 0) << ReadFile(log2);
  EXPECT_EQ(ReadFile(l.Path("made.txt")), "out\n");
}

TEST(Launcher, ExplainNamesTheDecisionAndTheRule) {
  Launcher l;
  const std::string policy =
      l.Write("p.toml",
              "[filesystem]\ndeny = [\"~/.ssh\"]\n[network]\nallow = "
              "[\"127.0.0.1:8080\"]\n");
  ProcessResult read =
      l.Run({"explain", "--policy", policy, "--read", "/usr/lib"});
  EXPECT_EQ(read.exit_code, 0);
  EXPECT_THAT(read.out, HasSubstr("allow: read of /usr/lib (filesystem.read["));
  ProcessResult ssh =
      l.Run({"explain", "--policy", policy, "--read", l.Path(".ssh/id_rsa")});
  EXPECT_EQ(ssh.exit_code, 1);
  EXPECT_THAT(ssh.out, HasSubstr("filesystem.deny[0]"));
  ProcessResult write =
      l.Run({"explain", "--policy", policy, "--write", "/etc/passwd"});
  EXPECT_EQ(write.exit_code, 1);
  EXPECT_THAT(write.out, HasSubstr("add \"/etc/passwd\" to filesystem.write"));
  ProcessResult net =
      l.Run({"explain", "--policy", policy, "--connect", "127.0.0.1:8080"});
  EXPECT_EQ(net.exit_code, 0);
  EXPECT_THAT(net.out, HasSubstr("network.allow[0]"));
  ProcessResult exec =
      l.Run({"explain", "--policy", policy, "--exec", "git status"});
  EXPECT_EQ(exec.exit_code, 0);
  EXPECT_THAT(exec.out, HasSubstr("commands.unlisted"));
}

// Each example policy, exercised by a real program it is meant for.
struct Example {
  const char* file;
  std::vector<std::string> ok;       // runs and exits 0
  std::vector<std::string> refused;  // a call the example refuses
};

TEST(PolicyExamples, EachRunsItsProgramAndRefusesWhatItShould) {
  const std::string dir = RequiredEnv("KLAUNCH_EXAMPLES");
  const std::string ssh_read = "cat \"$HOME/.ssh/id_rsa\"";
  const std::vector<Example> examples = {
      {"python-agent.toml",
       {"/usr/bin/python3", "-c",
        "open('notes.txt','w').write('x'); print(open('notes.txt').read())"},
       {"/bin/sh", "-c", ssh_read}},
      {"code-reviewer.toml",
       {"/usr/bin/git", "log", "--oneline"},
       {"/usr/bin/git", "commit", "--allow-empty", "-m", "x"}},
      {"pip-venv.toml",
       {"/usr/bin/python3", "-c", "import venv, json; print('ok')"},
       {"/usr/bin/python3", "-c",
        "import os; open(os.path.expanduser('~/.ssh/id_rsa'))"}},
      {"npm-ci.toml",
       {"/bin/sh", "-c", "echo ok > package-lock.json"},
       {"/bin/sh", "-c", "cat \"$HOME/.npmrc\""}},
      {"git-https.toml", {"/usr/bin/git", "status"}, {"/bin/sh", "-c", "true"}},
      {"agent-git-one-host.toml",
       {"/bin/sh", "-c", "git status && python3 -c 'print(1)'"},
       {"/usr/bin/git", "-c", "alias.x=!true; true", "x"}},
      {"audit-everything.toml",
       {"/bin/sh", "-c", "ls /root > /dev/null; true"},
       {}},
  };
  for (const Example& ex : examples) {
    SCOPED_TRACE(ex.file);
    Launcher l;
    l.Write(".ssh/id_rsa", "KEY\n");
    l.Write(".npmrc", "//registry.npm.example/:_authToken=T\n");
    RunProcess({"/usr/bin/git", "init", "-q", l.ws()});
    RunProcess({"/usr/bin/git", "-C", l.ws(), "-c", "user.name=t", "-c",
                "user.email=t@example.com", "commit", "-q", "--allow-empty",
                "-m", "first"});
    const std::string policy = std::string(dir) + "/" + ex.file;
    std::vector<std::string> ok = {"--policy", policy, "--"};
    ok.insert(ok.end(), ex.ok.begin(), ex.ok.end());
    ProcessResult r = l.Run(ok);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    if (std::string(ex.file) == "audit-everything.toml") {
      EXPECT_THAT(r.err, HasSubstr("would have been refused"));
      continue;
    }
    EXPECT_THAT(r.err, Not(HasSubstr("refused"))) << r.err;
    std::vector<std::string> bad = {"--policy", policy, "--"};
    bad.insert(bad.end(), ex.refused.begin(), ex.refused.end());
    ProcessResult b = l.Run(bad);
    EXPECT_NE(b.exit_code, 0) << b.out;
    EXPECT_THAT(b.err, HasSubstr("refused"));
    EXPECT_THAT(b.out, Not(HasSubstr("KEY")));
    EXPECT_THAT(b.out, Not(HasSubstr("_authToken")));
  }
}

TEST(Launcher, AProgramThatDoesNotExistIsNotFoundNotRefused) {
  Launcher l;
  for (const std::string& cmd :
       {std::string("no-such-command-here"), l.Path("no-such-file")}) {
    ProcessResult r = l.Run({"--", cmd});
    EXPECT_EQ(r.exit_code, 127) << cmd << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("command not found")) << r.err;
    EXPECT_THAT(r.err, Not(HasSubstr("filesystem.read"))) << r.err;
  }
}

TEST(Launcher, HelpAsAWordPrintsWhatDashDashHelpPrints) {
  Launcher l;
  ProcessResult help = l.Run({"help"});
  ProcessResult dashes = l.Run({"--help"});
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_EQ(help.out, dashes.out);
  EXPECT_THAT(help.out, HasSubstr("usage: klaunch"));
}

// Without --policy: the nearest .klaunch.toml up to the repository's root,
// else the user's default under $XDG_CONFIG_HOME, else the preset; each
// said on stderr. The policy found here is read-only, so a write the
// default preset admits is refused under it.
TEST(Launcher,
     WithoutPolicyTheNearestKlaunchTomlUpToTheRepositoryRootIsUsedAndSaid) {
  Launcher l;
  const std::string repo = l.Path("ws/repo");
  RunProcess({"/bin/mkdir", "-p", repo + "/.git", repo + "/sub/deeper",
              l.Path("config/klaunch"), l.Path("ws/loose")});
  const std::string found =
      l.Write("ws/repo/.klaunch.toml", "extends = \"read-only\"\n");
  l.Write("ws/.klaunch.toml", "extends = \"none\"\n");  // above the root
  auto run = [&](const std::string& cwd, std::vector<std::string> extra_env,
                 const std::string& script) {
    ProcessOptions o;
    o.cwd = cwd;
    o.env = l.Env();
    for (auto& e : extra_env) o.env->push_back(e);
    return RunProcess(
        {RequiredEnv("KLAUNCH_BIN"), "--", "/bin/sh", "-c", script}, o);
  };
  ProcessResult deep = run(repo + "/sub/deeper", {}, "echo x > out");
  EXPECT_THAT(deep.err, HasSubstr("klaunch: policy " + found +
                                  " (found above the working directory"))
      << deep.err;
  EXPECT_THAT(deep.err, HasSubstr("refused")) << deep.err;
  EXPECT_FALSE(Exists(repo + "/sub/deeper/out"));
  ProcessResult here = run(repo, {}, "true");
  EXPECT_THAT(here.err, HasSubstr("(found in the working directory"));
  // Outside a repository only the working directory itself is looked at;
  // then the user's default.
  const std::string mine =
      l.Write("config/klaunch/policy.toml", "extends = \"read-only\"\n");
  ProcessResult loose =
      run(l.Path("ws/loose"), {"XDG_CONFIG_HOME=" + l.Path("config")},
          "echo x > out");
  EXPECT_THAT(loose.err,
              HasSubstr("klaunch: policy " + mine + " (the user's default"))
      << loose.err;
  EXPECT_FALSE(Exists(l.Path("ws/loose/out")));
  // Nothing found: the default preset, which lets the workspace be written.
  RunProcess({"/bin/rm", mine});
  ProcessResult none = run(l.Path("ws/loose"), {}, "echo x > out");
  EXPECT_EQ(none.exit_code, 0) << none.err;
  EXPECT_THAT(none.err, Not(HasSubstr("klaunch: policy")));
  EXPECT_TRUE(Exists(l.Path("ws/loose/out")));
  // A file another user owns is passed over, and said.
  if (geteuid() != 0) return;  // only root gives a file away
  ASSERT_EQ(chown(found.c_str(), 4321, 4321), 0);
  ProcessResult planted = run(repo, {}, "true");
  EXPECT_THAT(planted.err,
              HasSubstr("klaunch: not using " + found + " (owned by uid 4321"))
      << planted.err;
  EXPECT_THAT(planted.err, Not(HasSubstr("klaunch: policy")));
}

// `n` run directories of 2020 under l's state directory, oldest first,
// each with an audit log, as old runs leave them.
std::vector<std::string> FakeOldRuns(Launcher& l, int n) {
  const std::string runs = l.Path("state/klaunch/runs");
  std::vector<std::string> fake;
  for (int i = 0; i < n; ++i) {
    fake.push_back(runs + "/2020010" + std::to_string(i + 1) +
                   "T000000Z-1-abcdef");
    l.Write("state/klaunch/runs/" + fake.back().substr(runs.size() + 1) +
                "/audit.jsonl",
            "{}\n");
  }
  return fake;
}

// The state directory keeps the last KLAUNCH_KEEP_RUNS runs (100 unless
// set); a run still holding its directory is kept however old.
TEST(Launcher, OldRunDirectoriesArePrunedButOneARunStillHoldsIsKept) {
  Launcher l;
  const std::string runs = l.Path("state/klaunch/runs");
  const std::vector<std::string> fake = FakeOldRuns(l, 6);
  // The oldest is held, as a run still going holds its own.
  const int held = open((fake[0] + "/lock").c_str(), O_RDONLY | O_CREAT, 0600);
  ASSERT_GE(held, 0);
  ASSERT_EQ(flock(held, LOCK_SH), 0);
  ProcessResult r = l.Run({"--", "/bin/true"}, {"KLAUNCH_KEEP_RUNS=3"});
  close(held);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Exists(fake[0])) << "a held run directory was removed";
  for (int i = 1; i <= 3; ++i) EXPECT_FALSE(Exists(fake[i])) << fake[i];
  EXPECT_TRUE(Exists(fake[4]));
  EXPECT_TRUE(Exists(fake[5]));
  int left = 0;
  ProcessResult ls = RunProcess({"/bin/ls", "-1", runs});
  for (char c : ls.out) left += c == '\n';
  EXPECT_EQ(left, 4) << ls.out;  // the held one, two fakes, the run's own
}

// The pruning waits for the program to start, so that the program does not
// wait for it; a run whose program never starts still prunes as it ends.
TEST(Launcher, ARunWhoseProgramCannotStartStillPrunesOldRunDirectories) {
  Launcher l;
  const std::vector<std::string> fake = FakeOldRuns(l, 4);
  ProcessResult r =
      l.Run({"--", l.Path("no-such-program")}, {"KLAUNCH_KEEP_RUNS=2"});
  ASSERT_EQ(r.exit_code, 127) << r.err;
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(Exists(fake[i])) << fake[i];
  EXPECT_TRUE(Exists(fake[3]));
}

TEST(Launcher, ABadPolicyIsNamedOnceInTheErrorWhereverItIsCaught) {
  Launcher l;
  // One error the loader catches, one only compiling the rules does.
  for (const std::string& text :
       {std::string("[filesystem]\nraed = []\n"),
        std::string("[network]\nallow = [\"foo*.org\"]\n")}) {
    const std::string policy = l.Write("bad.toml", text);
    ProcessResult r = l.Run({"--policy", policy, "--", "/bin/true"});
    EXPECT_EQ(r.exit_code, 125) << r.err;
    size_t count = 0;
    for (size_t at = r.err.find("bad.toml"); at != std::string::npos;
         at = r.err.find("bad.toml", at + 1)) {
      ++count;
    }
    EXPECT_EQ(count, 1u) << r.err;
  }
}

TEST(Launcher, EverySubcommandSaysAUsageErrorWithTheOneDocumentedCode) {
  Launcher l;
  const std::string policy = l.Write("p.toml", "extends = \"read-only\"\n");
  // Each subcommand, with an option it does not know where a file, a
  // question or nothing would do.
  const std::vector<std::vector<std::string>> calls = {
      {"check", "--bogus"},
      {"check", "--bogus", policy},
      {"explain", "--bogus"},
      {"explain", "--policy", policy, "--read", "/usr", "--bogus"},
      {"suggest", "--bogus"},
      {"doctor", "--bogus"},
  };
  for (const auto& call : calls) {
    ProcessResult r = l.Run(call);
    EXPECT_EQ(r.exit_code, 2) << call[0] << " " << call[1] << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr("'--bogus'")) << call[0];
    EXPECT_THAT(r.err, HasSubstr("usage: klaunch " + call[0])) << call[0];
    // Help is no error, and goes to stdout.
    ProcessResult help = l.Run({call[0], "--help"});
    EXPECT_EQ(help.exit_code, 0) << call[0] << ": " << help.err;
    EXPECT_THAT(help.out, HasSubstr("usage: klaunch " + call[0]));
  }
  // Running a program: 2 may be CMD's own, so klaunch says 125.
  ProcessResult run = l.Run({"--bogus", "--", "/bin/true"});
  EXPECT_EQ(run.exit_code, 125) << run.err;
  EXPECT_THAT(run.err, HasSubstr("--bogus"));
}

TEST(Launcher, VerboseSaysWhatLandlockApproximatesOfThePolicysOwnEntriesOnly) {
  if (LandlockAbiOfThisKernel() == 0) {
    GTEST_SKIP() << "no Landlock here: there is nothing it approximates";
  }
  Launcher l;
  const std::string policy =
      l.Write("p.toml", std::string(kClosed) + "read = [\"" +
                            l.Path("missing") + "\"]\n");
  ProcessResult r = l.Run({"--verbose", "--policy", policy, "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // The file's one entry that does not exist is said; the preset's own
  // entries a machine lacks (/libx32, /etc/pki, ...), and /proc/self, are
  // the same on every run and are not.
  EXPECT_THAT(r.err, HasSubstr("landlock: filesystem.read[0] (\"" +
                               l.Path("missing") + "\") does not exist"));
  size_t lines = 0;
  for (size_t at = r.err.find("landlock: filesystem."); at != std::string::npos;
       at = r.err.find("landlock: filesystem.", at + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, 1u) << r.err;
}

// Checks an audit log with tools that share nothing with klaunch: Python's
// json (strict: no bytes that are not UTF-8), jsonschema against
// docs/audit-record.schema.json, hashlib for the policy's SHA-256. Prints
// "FAIL: ..." for each problem, and the runs it saw.
constexpr char kCheckLog[] = R"PY(
import base64, hashlib, json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
policy = open(sys.argv[3], "rb").read()
runs = {}
for n, raw in enumerate(open(sys.argv[2], "rb"), 1):
    try:
        rec = json.loads(raw.decode("utf-8"))
        jsonschema.validate(rec, schema)
    except Exception as e:
        print(f"FAIL: line {n}: {e}"); continue
    runs.setdefault(rec["run"], []).append(rec)
def exact(rec, name):
    b = rec.get(name + "_base64")
    return base64.b64decode(b) if b is not None else rec.get(name, "").encode()
for run, recs in runs.items():
    start, end = recs[0], recs[-1]
    if start["op"] != "start" or end["op"] != "end":
        print(f"FAIL: run {run} does not go from start to end")
    if start.get("policy_sha256") != hashlib.sha256(policy).hexdigest():
        print(f"FAIL: run {run}: policy_sha256 is not the file's")
    refusals = sum(r["verdict"] in ("deny", "would_deny") for r in recs)
    if end["refusals"] != refusals:
        print(f"FAIL: run {run}: the end counts {end['refusals']}, the log {refusals}")
    targets = sorted(exact(r, "target").hex() for r in recs
                     if r["verdict"] in ("deny", "would_deny"))
    print("run", start["mode"], json.dumps(start["argv"]), end["exit_code"],
          end.get("signal", 0), ",".join(targets))
)PY";

TEST(AuditLog,
     EveryRecordOfARunIsValidJsonInTheDocumentedSchemaAndTellsItsRun) {
  if (RunProcess({"/usr/bin/python3", "-c", "import jsonschema"}).exit_code !=
      0) {
    GTEST_SKIP() << "python3's jsonschema is missing (scripts/bootstrap "
                    "installs python3-jsonschema)";
  }
  Launcher l;
  const std::string secret = l.Write("secret", "x\n");
  const std::string policy = l.Write("p.toml", kClosed);
  const std::string log = l.Path("runs.jsonl");
  // Three runs appended to one log: a refused read and a refused write of
  // a name that is not UTF-8 (0xe9), the same in a dry run, and a program
  // killed by a signal.
  const std::string script = "cat " + secret + "; echo x > " + l.Path("caf") +
                             "$(printf '\\351'); exit 3";
  ProcessResult enforce =
      l.Run({"--policy", policy, "--log", log, "--", "/bin/sh", "-c", script,
             "an arg with spaces"});
  EXPECT_EQ(enforce.exit_code, 3) << enforce.err;
  EXPECT_THAT(enforce.err, HasSubstr("2 calls refused")) << enforce.err;
  ProcessResult audit = l.Run({"--audit", "--policy", policy, "--log", log,
                               "--", "/bin/sh", "-c", "cat " + secret});
  EXPECT_EQ(audit.exit_code, 0) << audit.err;
  // The summary counts this run's records, not the earlier run's.
  EXPECT_THAT(audit.err, HasSubstr("1 call would have been refused"))
      << audit.err;
  ProcessResult killed = l.Run(
      {"--policy", policy, "--log", log, "--", "/bin/sh", "-c", "kill -9 $$"});
  EXPECT_EQ(killed.exit_code, 137) << killed.err;

  ProcessResult check = RunProcess(
      {"/usr/bin/python3", "-c", kCheckLog,
       RequiredEnv("KLAUNCH_DOCS") + "/audit-record.schema.json", log, policy});
  ASSERT_EQ(check.exit_code, 0) << check.err;
  EXPECT_THAT(check.out, Not(HasSubstr("FAIL"))) << check.out;
  auto hex = [](const std::string& s) {
    std::string out;
    for (unsigned char c : s) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
    return out;
  };
  // One line per run, in order, each with its own run id; argv as given,
  // the exact bytes of each refused name, the exit code and signal.
  std::string script_in_json;  // as json.dumps writes it: `\` doubled
  for (char c : script) {
    script_in_json += c;
    if (c == '\\') script_in_json += c;
  }
  EXPECT_EQ(check.out,
            "run enforce [\"/bin/sh\", \"-c\", \"" + script_in_json +
                "\", \"an arg with spaces\"] 3 0 " +
                std::min(hex(secret), hex(l.Path("caf\xe9"))) + "," +
                std::max(hex(secret), hex(l.Path("caf\xe9"))) + "\n" +
                "run audit [\"/bin/sh\", \"-c\", \"cat " + secret + "\"] 0 0 " +
                hex(secret) + "\n" +
                "run enforce [\"/bin/sh\", \"-c\", \"kill -9 $$\"] 137 9 \n")
      << check.out;
}

}  // namespace
}  // namespace klaunch::testing
