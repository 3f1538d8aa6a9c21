// The seccomp layer attacked: tests/programs/attacker.c, built by the test
// static (the shim cannot load into it) and dynamic, runs under the real
// klaunch and tries each escape the layer claims to stop. A test fails when
// the escape works: the secret's text is printed, a file appears outside
// the workspace, a denied command runs, a listener sees a connection.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "tests/attack_support.h"
#include "tests/listener.h"
#include "tests/run_process.h"
#include "tests/sandbox.h"

namespace klaunch::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kSecretText[] = "TOP-SECRET-7731";

// A workspace, a secret outside it, the attacker built both ways, and a
// policy that opens nothing outside the workspace and the system's read
// roots, denies `rm`, and admits connects to nothing.
class Seccomp : public ::testing::Test {
 protected:
  void SetUp() override {
    RunProcess({"/bin/mkdir", "-p", dir_.Path("ws"), dir_.Path("state")});
    secret_ = dir_.Write("secret.txt", kSecretText);
    const std::string src =
        RequiredEnv("KLAUNCH_TEST_PROGRAMS") + "/attacker.c";
    static_bin_ = ws() + "/attacker-static";
    dynamic_bin_ = ws() + "/attacker";
    ProcessResult s = RunProcess({"/usr/bin/gcc", "-O1", "-static", "-no-pie",
                                  "-pthread", "-o", static_bin_, src});
    ASSERT_EQ(s.exit_code, 0) << s.err;
    ProcessResult d = RunProcess(
        {"/usr/bin/gcc", "-O1", "-pthread", "-o", dynamic_bin_, src});
    ASSERT_EQ(d.exit_code, 0) << d.err;
    policy_ = dir_.Write("policy.toml", R"(extends = "read-only"
[filesystem]
workspace_writable = true
[commands]
deny = ["rm *"]
)");
  }

  std::string ws() const { return dir_.Path("ws"); }

  // A deny entry inside the writable workspace: what Landlock cannot
  // express, so a call the kernel runs there was judged by nobody. Returns
  // the denied file.
  std::string UseAPolicyDenyingAWorkspaceFile() {
    const std::string denied = dir_.Write("ws/denied.txt", "in-the-workspace");
    policy_ = dir_.Write("policy.toml",
                         "extends = \"read-only\"\n[filesystem]\n"
                         "workspace_writable = true\ndeny = [\"" +
                             denied + "\"]\n");
    return denied;
  }
  std::string log() const { return dir_.Path("audit.jsonl"); }

  ProcessResult Run(const std::vector<std::string>& cmd,
                    const std::vector<std::string>& options = {}) const {
    std::vector<std::string> argv = {RequiredEnv("KLAUNCH_BIN"), "--policy",
                                     policy_, "--log", log()};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back("--");
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    ProcessOptions o;
    o.cwd = ws();
    o.env = std::vector<std::string>{"PATH=/usr/bin:/bin", "LANG=C.UTF-8",
                                     "HOME=" + dir_.path(),
                                     "XDG_STATE_HOME=" + dir_.Path("state")};
    o.timeout_seconds = 120;
    return RunProcess(argv, o);
  }

  std::vector<std::string> LogLines() const {
    std::vector<std::string> out;
    std::ifstream in(log());
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) out.push_back(line);
    }
    return out;
  }

  // The refusals of `target` the seccomp layer recorded.
  int SeccompRefusals(const std::string& target) const {
    int n = 0;
    for (const std::string& l : LogLines()) {
      n += Field(l, "layer") == "seccomp" && Field(l, "target") == target;
    }
    return n;
  }

  TempDir dir_;
  std::string secret_, static_bin_, dynamic_bin_, policy_;
};

TEST_F(Seccomp, AStaticBinaryCannotReadADeniedFile) {
  ProcessResult r = Run({static_bin_, "read", secret_});
  EXPECT_THAT(r.out, Not(HasSubstr(kSecretText))) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("read: error Permission denied")) << Show(r);
  EXPECT_EQ(SeccompRefusals(secret_), 1);
}

// A deny entry hides whether a file exists, its size and its link target:
// every look by name is refused and recorded, through a symlink or not.
TEST_F(Seccomp, AStaticBinaryCannotLookAtADeniedFileByAnyName) {
  const std::string denied = UseAPolicyDenyingAWorkspaceFile();
  const std::string link = ws() + "/to-denied";
  ASSERT_EQ(symlink(denied.c_str(), link.c_str()), 0);
  const char* kLooks[] = {
      "stat",     "lstat",     "newfstatat", "newfstatat-empty-path-flag",
      "statx",    "access",    "faccessat",  "faccessat2",
      "readlink", "readlinkat"};
  ProcessResult r = Run({static_bin_, "look", denied});
  for (const char* look : kLooks) {
    EXPECT_THAT(r.out, HasSubstr(std::string("look ") + look +
                                 ": error Permission denied"))
        << Show(r);
  }
  EXPECT_EQ(SeccompRefusals(denied), 10);
  // Through the link: the link itself is in the workspace, so lstat and
  // readlink may see it; what it points at is still refused.
  r = Run({static_bin_, "look", link});
  for (const char* look :
       {"stat", "newfstatat", "statx", "access", "faccessat", "faccessat2"}) {
    EXPECT_THAT(r.out, HasSubstr(std::string("look ") + look +
                                 ": error Permission denied"))
        << Show(r);
  }
  EXPECT_THAT(r.out, HasSubstr("look lstat: ok"));
  EXPECT_THAT(r.out, HasSubstr("look readlink: ok"));
}

TEST_F(Seccomp, AStaticBinaryLooksAtWhatThePolicyAdmits) {
  const std::string mine = dir_.Write("ws/mine.txt", "workspace-text");
  ProcessResult r = Run({static_bin_, "look", mine});
  for (const char* look : {"stat", "lstat", "newfstatat", "statx", "access",
                           "faccessat", "faccessat2"}) {
    EXPECT_THAT(r.out, HasSubstr(std::string("look ") + look + ": ok"))
        << Show(r);
  }
  // Not a link: readlink fails as the kernel says, refused by nobody.
  EXPECT_THAT(r.out, HasSubstr("look readlink: error Invalid argument"));
  EXPECT_EQ(SeccompRefusals(mine), 0);
}

TEST_F(Seccomp, AStaticBinaryReadsWhatThePolicyAdmits) {
  const std::string mine = dir_.Write("ws/mine.txt", "workspace-text");
  ProcessResult r = Run({static_bin_, "read", mine});
  EXPECT_THAT(r.out, HasSubstr("read: read 'workspace-text'")) << Show(r);
  r = Run({static_bin_, "read", "/etc/hostname"});
  EXPECT_THAT(r.out, Not(HasSubstr("error"))) << Show(r);
}

// The supervisor resolves a trapped open's directories in one call where it
// can (supervisor/target.cc, OpenDirectories), in klaunch's own process:
// there /proc/self is klaunch. However the name reaches /proc/self (the
// name itself, thread-self, a workspace link to it, /dev/fd, /proc/net),
// the file opened is the program's own, as natively.
TEST_F(Seccomp, AStaticBinarysProcSelfIsItsOwnByEveryName) {
  ASSERT_EQ(symlink("/proc/self", (ws() + "/me").c_str()), 0);
  ASSERT_EQ(symlink("/proc/net/..", (ws() + "/net-up").c_str()), 0);
  for (const std::string& name :
       {std::string("/proc/self/status"),
        std::string("/proc/thread-self/status"),
        std::string("/proc/self/task/../status"),
        std::string("/proc/net/../status"), std::string("/dev/fd/../status"),
        ws() + "/me/status", std::string("me/status"),
        std::string("./me/task/../status"), ws() + "/net-up/status"}) {
    ProcessResult r = Run({static_bin_, "read", name});
    EXPECT_THAT(r.out, HasSubstr("read: read 'Name:\tattacker-static"))
        << name << "\n"
        << Show(r);
  }
}

TEST_F(Seccomp, AStaticBinaryCannotWriteOutsideTheWorkspace) {
  const std::string outside = dir_.Path("escaped.txt");
  ProcessResult r = Run({static_bin_, "write", outside});
  EXPECT_FALSE(Exists(outside))
      << "a static binary created a file outside the workspace";
  EXPECT_THAT(r.out, HasSubstr("write: error Permission denied")) << Show(r);
  // Inside the workspace it may.
  r = Run({static_bin_, "write", ws() + "/inside.txt"});
  EXPECT_EQ(ReadFile(ws() + "/inside.txt"), "escaped") << Show(r);
}

TEST_F(Seccomp, AStaticBinaryCannotRunADeniedCommand) {
  const std::string victim = dir_.Write("ws/victim", "keep me");
  ProcessResult r = Run({static_bin_, "exec", "/bin/rm", "rm", victim});
  EXPECT_TRUE(Exists(victim)) << "rm ran from a static binary";
  EXPECT_THAT(r.out, HasSubstr("exec: error Permission denied")) << Show(r);
  bool recorded = false;
  for (const std::string& l : LogLines()) {
    recorded |= Field(l, "layer") == "seccomp" && Field(l, "op") == "execve" &&
                Field(l, "rule").rfind("commands.deny", 0) == 0;
  }
  EXPECT_TRUE(recorded) << ReadFile(log());
}

TEST_F(Seccomp, AStaticBinaryRunsAnAdmittedCommand) {
  ProcessResult r = Run({static_bin_, "exec", "/bin/echo", "echo", "ran-ok"});
  EXPECT_THAT(r.out, HasSubstr("ran-ok")) << Show(r);
}

TEST_F(Seccomp, AStaticBinaryCannotConnectToADeniedPort) {
  Listener listener;
  ProcessResult r =
      Run({static_bin_, "connect", std::to_string(listener.port())});
  EXPECT_EQ(listener.Accepted(), 0) << "a static binary connected";
  EXPECT_THAT(r.out, HasSubstr("connect: error Permission denied")) << Show(r);
  EXPECT_EQ(SeccompRefusals("127.0.0.1:" + std::to_string(listener.port())), 1);
}

TEST_F(Seccomp, AStaticBinaryConnectsWhereThePolicyAdmits) {
  Listener listener;
  policy_ = dir_.Write("open.toml",
                       "extends = \"read-only\"\n[network]\nallow = "
                       "[\"127.0.0.1:" +
                           std::to_string(listener.port()) + "\"]\n");
  ProcessResult r =
      Run({static_bin_, "connect", std::to_string(listener.port())});
  EXPECT_THAT(r.out, HasSubstr("connect: done")) << Show(r);
  EXPECT_EQ(listener.Accepted(), 1);
}

TEST_F(Seccomp, AStaticBinaryCannotSendADatagramToADeniedPort) {
  const int s = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(s, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  ProcessResult r =
      Run({static_bin_, "sendto", std::to_string(ntohs(a.sin_port))});
  char buf[16];
  EXPECT_LT(recv(s, buf, sizeof(buf), 0), 0) << "a datagram arrived";
  close(s);
  EXPECT_THAT(r.out, HasSubstr("sendto: error Permission denied")) << Show(r);
}

TEST_F(Seccomp, RawSyscallsNextToTheShimAreJudged) {
  for (const char* how : {"raw", "asm", "openat2"}) {
    ProcessResult r = Run({dynamic_bin_, how, secret_});
    EXPECT_THAT(r.out, Not(HasSubstr(kSecretText))) << how << Show(r);
    EXPECT_THAT(r.out,
                HasSubstr(std::string(how) + ": error Permission denied"))
        << Show(r);
  }
  EXPECT_EQ(SeccompRefusals(secret_), 3) << ReadFile(log());
}

TEST_F(Seccomp, AStaticBinarysOpenat2IsJudged) {
  ProcessResult r = Run({static_bin_, "openat2", secret_});
  EXPECT_THAT(r.out, Not(HasSubstr(kSecretText))) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("openat2: error Permission denied")) << Show(r);
}

TEST_F(Seccomp, AChildWithAnEmptyEnvironmentIsStillConfined) {
  // The dynamic attacker re-executes itself with no LD_PRELOAD at all.
  ProcessResult r = Run({dynamic_bin_, "noenv", dynamic_bin_, "read", secret_});
  EXPECT_THAT(r.out, Not(HasSubstr(kSecretText))) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("read: error Permission denied")) << Show(r);
  const std::string victim = dir_.Write("ws/victim", "keep me");
  r = Run(
      {dynamic_bin_, "noenv", dynamic_bin_, "exec", "/bin/rm", "rm", victim});
  EXPECT_TRUE(Exists(victim)) << "rm ran from a child without the shim";
}

TEST_F(Seccomp, ExecveatOfADeniedCommandIsRefused) {
  const std::string victim = dir_.Write("ws/victim", "keep me");
  ProcessResult r = Run({static_bin_, "execveat", "/bin/rm", "rm", victim});
  EXPECT_TRUE(Exists(victim)) << "rm ran through execveat";
  EXPECT_THAT(r.out, HasSubstr("execveat: error Permission denied")) << Show(r);
}

TEST_F(Seccomp, IoUringIsRefusedWhateverThePolicy) {
  policy_ = dir_.Write("full.toml", "extends = \"full-access\"\n");
  ProcessResult r = Run({static_bin_, "uring"});
  EXPECT_THAT(r.out, HasSubstr("uring: error Function not implemented"))
      << Show(r);
}

TEST_F(Seccomp, ForeignSyscallABIsCannotOpenFiles) {
  // i386 through int 0x80, and x32: neither reaches the kernel's open.
  ProcessResult r = Run({static_bin_, "int80", secret_});
  EXPECT_THAT(r.out, Not(HasSubstr("OPENED"))) << Show(r);
  r = Run({static_bin_, "x32", secret_});
  EXPECT_THAT(r.out, HasSubstr("x32: Function not implemented")) << Show(r);
}

TEST_F(Seccomp, ASymlinkSwappedDuringAStaticOpenLoopNeverReadsTheSecret) {
  const std::string ok = dir_.Write("ws/ok.txt", "harmless");
  const std::string link = ws() + "/link";
  symlink(ok.c_str(), link.c_str());
  ProcessResult r =
      Run({static_bin_, "race", link, ok, secret_, kSecretText, "3000"});
  EXPECT_THAT(r.out, HasSubstr("leaked 0")) << Show(r);
  EXPECT_THAT(r.out, Not(HasSubstr("opened 0 "))) << Show(r);
}

// The supervisor cannot inject an O_PATH descriptor (ADDFD refuses them);
// an admitted one goes on to the kernel, a refused one never does.
TEST_F(Seccomp, AStaticBinaryGetsAnAdmittedFileOPathButNotADeniedOne) {
  const std::string ok = dir_.Write("ws/ok.txt", "harmless");
  const std::string denied = UseAPolicyDenyingAWorkspaceFile();
  ProcessResult r = Run({static_bin_, "opath", ok});
  EXPECT_THAT(r.out, HasSubstr("opath: size 8")) << Show(r);
  r = Run({static_bin_, "opath", denied});
  EXPECT_THAT(r.out, HasSubstr("opath: error Permission denied")) << Show(r);
  EXPECT_EQ(SeccompRefusals(denied), 1);
}

// Without Landlock no read goes on to the kernel after a verdict: the
// supervisor opens what it judged and hands that over.
TEST_F(Seccomp,
       WithoutLandlockASymlinkSwappedDuringAStaticOpenLoopNeverReadsTheSecret) {
  const std::string ok = dir_.Write("ws/ok.txt", "harmless");
  const std::string link = ws() + "/link";
  symlink(ok.c_str(), link.c_str());
  ProcessResult r =
      Run({static_bin_, "race", link, ok, secret_, kSecretText, "3000"},
          {"--no-landlock"});
  EXPECT_THAT(r.out, HasSubstr("leaked 0")) << Show(r);
  EXPECT_THAT(r.out, Not(HasSubstr("opened 0 "))) << Show(r);
}

// A read the supervisor judged goes on to the kernel, which reads the name
// again (supervise_open.cc): a second thread flipping the name to the
// secret after the verdict meets Landlock there, which the secret, outside
// every root, is not granted by.
// Landlock's refusals are the ones the log does not hold: more refusals than
// records show that flipped names did reach the kernel after a verdict.
TEST_F(Seccomp, AReadNameRewrittenAfterTheVerdictReachesNoFileOutsideTheRoots) {
  if (LandlockAbiOfThisKernel() == 0) {
    GTEST_SKIP() << "no Landlock: the supervisor opens every read itself "
                    "(WithoutLandlockAReadNameRewrittenAfterTheVerdictIsNever"
                    "Read)";
  }
  const std::string ok = dir_.Write("ws/ok.txt", "harmless");
  ProcessResult r =
      Run({static_bin_, "reread", ok, secret_, kSecretText, "3000"});
  EXPECT_EQ(SummaryCount(r.out, "leaked"), 0) << Show(r);
  EXPECT_GT(SummaryCount(r.out, "opened"), 0) << Show(r);
  EXPECT_GT(SummaryCount(r.out, "refused"), SeccompRefusals(secret_))
      << Show(r);
}

// Without Landlock there is no floor to let a read go on over: the
// supervisor opens what it judged, so the flipped name never reaches the
// kernel.
TEST_F(Seccomp, WithoutLandlockAReadNameRewrittenAfterTheVerdictIsNeverRead) {
  const std::string ok = dir_.Write("ws/ok.txt", "harmless");
  ProcessResult r =
      Run({static_bin_, "reread", ok, secret_, kSecretText, "3000"},
          {"--no-landlock"});
  EXPECT_EQ(SummaryCount(r.out, "leaked"), 0) << Show(r);
  EXPECT_GT(SummaryCount(r.out, "opened"), 0) << Show(r);
  EXPECT_GT(SummaryCount(r.out, "refused"), 0) << Show(r);
  // Every refusal is the supervisor's, and recorded.
  EXPECT_EQ(SummaryCount(r.out, "refused"), SeccompRefusals(secret_))
      << Show(r);
}

TEST_F(Seccomp, AuditModePerformsAndRecordsWhatEnforcementWouldRefuse) {
  const std::string outside = dir_.Path("audit-made.txt");
  ProcessResult r = Run({static_bin_, "read", secret_}, {"--audit"});
  EXPECT_THAT(r.out, HasSubstr(kSecretText)) << Show(r);
  r = Run({static_bin_, "write", outside}, {"--audit"});
  EXPECT_TRUE(Exists(outside)) << Show(r);
  int would = 0;
  for (const std::string& l : LogLines()) {
    would += Field(l, "layer") == "seccomp" &&
             Field(l, "verdict") == "would_deny" &&
             (Field(l, "target") == secret_ || Field(l, "target") == outside);
  }
  EXPECT_EQ(would, 2) << ReadFile(log());
}

TEST_F(Seccomp, ManyProcessesAndThreadsAreAllJudgedRightWithoutDeadlock) {
  const std::string ok = dir_.Write("ws/ok.txt", "fine");
  // 200 processes of 8 threads, each opening an admitted and a denied file.
  ProcessResult r = Run({static_bin_, "storm", "200", "8", ok, secret_, "4"});
  EXPECT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("storm: 0 processes wrong")) << Show(r);
}

TEST_F(Seccomp, CodeOutsideTheShimIsNotGivenTheCookie) {
  ProcessResult r = Run({static_bin_, "query"});
  EXPECT_THAT(r.out, HasSubstr("query: Function not implemented")) << Show(r);
  r = Run({dynamic_bin_, "query"});
  EXPECT_THAT(r.out, HasSubstr("query: Function not implemented")) << Show(r);
}

TEST_F(Seccomp, TheProgramHoldsNoListenerAndCannotInstallOne) {
  ProcessResult r = Run({static_bin_, "fds"});
  EXPECT_THAT(r.out, Not(HasSubstr("seccomp"))) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("fd 0")) << Show(r);
  // A listener of its own could answer CONTINUE for klaunch's filter.
  r = Run({static_bin_, "listener"});
  EXPECT_THAT(r.out, HasSubstr("listener: Operation not permitted")) << Show(r);
}

TEST_F(Seccomp, PtraceMemoryWritesAndABIChangesAreRefused) {
  policy_ = dir_.Write("full.toml", "extends = \"full-access\"\n");
  ProcessResult r = Run({static_bin_, "ptrace"});
  EXPECT_THAT(r.out, HasSubstr("ptrace: Operation not permitted")) << Show(r);
  r = Run({static_bin_, "vmwrite"});
  EXPECT_THAT(r.out, HasSubstr("vmwrite: Operation not permitted")) << Show(r);
  r = Run({static_bin_, "personality"});
  EXPECT_THAT(
      r.out,
      HasSubstr("personality: query ok, linux32 Operation not permitted"))
      << Show(r);
}

TEST_F(Seccomp, WhenTheSupervisorDiesTheProgramFailsClosed) {
  // klaunch is killed while a static program keeps opening an admitted
  // file: the opens that need an answer fail, none succeeds unjudged.
  const std::string ok = dir_.Write("ws/ok.txt", "fine");
  int out[2];
  ASSERT_EQ(pipe(out), 0);
  const pid_t klaunch = fork();
  if (klaunch == 0) {
    dup2(out[1], 1);
    close(out[0]);
    if (chdir(ws().c_str()) != 0) _exit(127);
    setenv("XDG_STATE_HOME", dir_.Path("state").c_str(), 1);
    const std::string bin = RequiredEnv("KLAUNCH_BIN");
    execl(bin.c_str(), bin.c_str(), "--policy", policy_.c_str(), "--log",
          log().c_str(), "--keep-orphans", "--", static_bin_.c_str(), "loop",
          ok.c_str(), "100", nullptr);
    _exit(127);
  }
  close(out[1]);
  FILE* in = fdopen(out[0], "r");
  char line[256];
  bool killed = false;
  int opened_after = 0, failed_after = 0;
  while (fgets(line, sizeof(line), in) != nullptr) {
    const std::string l(line);
    if (!killed && l.find("loop: opened") != std::string::npos) {
      kill(klaunch, SIGKILL);
      waitpid(klaunch, nullptr, 0);
      killed = true;
      continue;
    }
    if (killed) {
      // A line already on its way when klaunch died may still say opened;
      // what counts is that the rest fail.
      opened_after += l.find("opened") != std::string::npos;
      failed_after += l.find("Function not implemented") != std::string::npos;
    }
  }
  fclose(in);
  ASSERT_TRUE(killed);
  EXPECT_GT(failed_after, 90);
  EXPECT_LE(opened_after, 1);
}

TEST_F(Seccomp, NoSeccompLeavesStaticBinariesUnjudgedAndSaysSo) {
  ProcessResult r =
      Run({static_bin_, "read", secret_}, {"--no-seccomp", "--no-landlock"});
  // The documented cost of the flag: the escape this layer closes is open.
  EXPECT_THAT(r.out, HasSubstr(kSecretText)) << Show(r);
  EXPECT_THAT(r.err, HasSubstr("seccomp layer was off")) << Show(r);
  // The shim still judges what goes through libc.
  r = Run({"/bin/cat", secret_}, {"--no-seccomp", "--no-landlock"});
  EXPECT_THAT(r.out, Not(HasSubstr(kSecretText))) << Show(r);
}

TEST_F(Seccomp, WithoutTheSeccompLayerLandlockStillStopsAStaticBinary) {
  if (LandlockAbiOfThisKernel() == 0)
    GTEST_SKIP() << "this kernel has no Landlock";
  ProcessResult r = Run({static_bin_, "read", secret_}, {"--no-seccomp"});
  EXPECT_THAT(r.out, HasSubstr("read: error Permission denied")) << Show(r);
  EXPECT_THAT(r.out, Not(HasSubstr(kSecretText))) << Show(r);
  r = Run({static_bin_, "write", dir_.Path("escaped.txt")}, {"--no-seccomp"});
  EXPECT_THAT(r.out, HasSubstr("write: error Permission denied")) << Show(r);
  EXPECT_FALSE(Exists(dir_.Path("escaped.txt")));
}

// --- Root inside the sandbox -------------------------------------------

constexpr const char* kRootPowers[] = {
    "mount",           "umount2",      "open_tree",     "move_mount",
    "fsopen",          "fsmount",      "pivot_root",    "chroot",
    "unshare-mount",   "unshare-user", "setns",         "clone-mount",
    "init_module",     "finit_module", "delete_module", "bpf",
    "kexec_file_load", "kexec_load",   "reboot",        "ptrace-init"};

TEST_F(Seccomp, ARootProgramCannotMountChrootMakeNamespacesOrLoadCode) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root: the powers tried are root's";
  for (const char* power : kRootPowers) {
    ProcessResult r = Run({static_bin_, "root", power, ws()});
    EXPECT_THAT(r.out,
                HasSubstr(std::string(power) + ": Operation not permitted"))
        << Show(r);
  }
  // clone3 hides its flags from the filter: refused as if the kernel lacked
  // it, so that libc falls back to clone, whose flags are read.
  ProcessResult r = Run({static_bin_, "root", "clone3", ws()});
  EXPECT_THAT(r.out, HasSubstr("clone3: Function not implemented")) << Show(r);
  // Nothing was mounted over the workspace.
  EXPECT_THAT(ReadFile("/proc/self/mountinfo"),
              Not(HasSubstr(" " + ws() + " ")));
}

TEST_F(Seccomp, TheRootPowersTriedWorkNativelySoTheRefusalsAreKlaunchs) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root: the powers tried are root's";
  // Only the powers that change nothing outside the trying process.
  for (const char* power : {"unshare-mount", "chroot", "clone-mount"}) {
    ProcessResult r = RunProcess({static_bin_, "root", power, ws()});
    EXPECT_THAT(r.out, HasSubstr(std::string(power) + ": DONE")) << Show(r);
  }
  ProcessResult r =
      RunProcess({static_bin_, "root", "mknod", ws() + "/native"});
  EXPECT_THAT(r.out, HasSubstr("mknod: DONE")) << Show(r);
}

TEST_F(Seccomp, ARootProgramCannotMakeADeviceNodeInAWritableRoot) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to make device nodes";
  // Through the supervisor (static) and through the shim (dynamic).
  ProcessResult r = Run({static_bin_, "root", "mknod", ws() + "/disk"});
  EXPECT_THAT(r.out, HasSubstr("mknod: Operation not permitted")) << Show(r);
  r = Run({dynamic_bin_, "root", "mknod", ws() + "/disk"});
  EXPECT_THAT(r.out, HasSubstr("mknod: Permission denied")) << Show(r);
  EXPECT_FALSE(Exists(ws() + "/disk"));
  // Landlock alone refuses it too.
  r = Run({static_bin_, "root", "mknod", ws() + "/disk"}, {"--no-seccomp"});
  if (LandlockAbiOfThisKernel() > 0) {
    EXPECT_THAT(r.out, HasSubstr("mknod: Permission denied")) << Show(r);
    EXPECT_FALSE(Exists(ws() + "/disk"));
  }
}

TEST_F(Seccomp,
       APolicyThatOptsInMayUseNamespacesAndMountsAndIsToldLandlockIsOff) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to mount";
  policy_ = dir_.Write("policy.toml", R"(extends = "read-only"
[filesystem]
workspace_writable = true
[system]
allow = ["namespaces", "mount"]
)");
  // Its mount is in a namespace of its own, so the test's view is unchanged.
  ProcessResult r =
      Run({static_bin_, "root", "mount-private", ws()}, {"--verbose"});
  EXPECT_THAT(r.out, HasSubstr("mount-private: DONE")) << Show(r);
  EXPECT_THAT(r.err, HasSubstr("no landlock (system.allow has \"mount\""))
      << Show(r);
  EXPECT_THAT(ReadFile("/proc/self/mountinfo"),
              Not(HasSubstr(" " + ws() + " ")));
  r = Run({static_bin_, "root", "mount-private", ws()},
          {"--require", "landlock"});
  EXPECT_EQ(r.exit_code, 125) << Show(r);
  EXPECT_THAT(r.out, Not(HasSubstr("mount-private"))) << "nothing may run";
  EXPECT_THAT(r.err, HasSubstr("--require landlock: no landlock")) << Show(r);
}

// --- The Landlock floor ---------------------------------------------------

// The shim's tag found in memory and used: calls bearing it skip the
// supervisor, so only Landlock stands between the program and the world.
TEST_F(Seccomp, ALandlockFloorHoldsWhenTheShimsTagIsForged) {
  if (LandlockAbiOfThisKernel() < 4) {
    GTEST_SKIP() << "needs Landlock ABI 4 (TCP ports); this kernel has "
                 << LandlockAbiOfThisKernel();
  }
  const std::string denied = UseAPolicyDenyingAWorkspaceFile();
  Listener listener;
  const std::string outside = dir_.Path("escaped.txt");
  ProcessResult r = Run({dynamic_bin_, "forge", denied, outside,
                         std::to_string(listener.port())});
  ASSERT_THAT(r.out, HasSubstr("forge: found the cookie")) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("forge write: Permission denied")) << Show(r);
  EXPECT_FALSE(Exists(outside));
  EXPECT_THAT(r.out, HasSubstr("forge connect: Permission denied")) << Show(r);
  EXPECT_EQ(listener.Accepted(), 0);
}

// Without Landlock the forged tag buys nothing that changes the world: the
// filter lets a tagged call skip the supervisor only where Landlock
// enforces the policy's answer anyway, and with no Landlock that is
// nowhere for writes, connects and reads (SECURITY.md, "What a forged tag
// reaches"). The attacker finds the cookie all the same, by an O_PATH
// open, which a tag always buys.
TEST_F(
    Seccomp,
    WithoutLandlockAForgedTagStillMeetsTheSupervisorForReadsWritesAndConnects) {
  const std::string denied = UseAPolicyDenyingAWorkspaceFile();
  Listener listener;
  const std::string outside = dir_.Path("escaped.txt");
  ProcessResult r = Run(
      {dynamic_bin_, "forge", denied, outside, std::to_string(listener.port())},
      {"--no-landlock"});
  ASSERT_THAT(r.out, HasSubstr("forge: found the cookie")) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("forge write: Permission denied")) << Show(r);
  EXPECT_FALSE(Exists(outside));
  EXPECT_THAT(r.out, HasSubstr("forge connect: Permission denied")) << Show(r);
  EXPECT_EQ(listener.Accepted(), 0);
  EXPECT_THAT(r.out, HasSubstr("forge read: Permission denied")) << Show(r);
}

TEST_F(Seccomp, LandlockAloneKeepsAbstractSocketsAndSignalsInsideTheSandbox) {
  if (LandlockAbiOfThisKernel() < 6) {
    GTEST_SKIP() << "needs Landlock ABI 6 (scopes); this kernel has "
                 << LandlockAbiOfThisKernel();
  }
  // An abstract socket of the test's, outside the sandbox.
  const std::string name = "klaunch-test-" + std::to_string(getpid());
  int srv = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path + 1, name.data(), name.size());
  const socklen_t len = offsetof(sockaddr_un, sun_path) + 1 + name.size();
  ASSERT_EQ(bind(srv, reinterpret_cast<sockaddr*>(&a), len), 0);
  listen(srv, 4);
  const std::string me = std::to_string(getpid());
  // Natively both work, so the refusals below are the ruleset's.
  EXPECT_THAT(RunProcess({static_bin_, "abstract", name}).out,
              HasSubstr("abstract: done"));
  EXPECT_THAT(RunProcess({static_bin_, "signal", me}).out,
              HasSubstr("signal: done"));
  // Without the seccomp layer the static binary meets only Landlock.
  ProcessResult r = Run({static_bin_, "abstract", name}, {"--no-seccomp"});
  EXPECT_THAT(r.out, HasSubstr("abstract: Operation not permitted")) << Show(r);
  r = Run({static_bin_, "signal", me}, {"--no-seccomp"});
  EXPECT_THAT(r.out, HasSubstr("signal: Operation not permitted")) << Show(r);
  close(srv);
}

TEST_F(Seccomp, AuditModeAppliesNoLandlockAndTheLogSaysWhichLayersRan) {
  ProcessResult r =
      Run({static_bin_, "write", dir_.Path("audited.txt")}, {"--audit"});
  EXPECT_THAT(r.out, HasSubstr("write: done")) << "a dry run refuses nothing";
  std::string start;
  for (const std::string& l : LogLines()) {
    if (Field(l, "op") == "start") start = l;
  }
  EXPECT_THAT(Field(start, "message"),
              HasSubstr("shim, seccomp, no landlock (audit mode"))
      << start;
  RunProcess({"/bin/rm", "-f", log()});
  Run({"/bin/true"});
  start.clear();
  for (const std::string& l : LogLines()) {
    if (Field(l, "op") == "start") start = l;
  }
  if (LandlockAbiOfThisKernel() > 0) {
    EXPECT_THAT(
        Field(start, "message"),
        HasSubstr("landlock ABI " + std::to_string(LandlockAbiOfThisKernel())))
        << start;
  }
}

// Calls on a directory entry named with a trailing slash answer as the
// kernel does, whoever makes them: a dynamic program through the shim, a
// static one to the supervisor, which judges every write here (a deny entry
// inside the workspace). git init makes ".git/" it just made and wants
// EEXIST; both layers once refused it, judging the shim's
// /proc/self/fd/N/ as a write there, and a trailing-slash rmdir of a link
// removed the directory it points to.
TEST_F(Seccomp, CallsOnANameWithATrailingSlashAnswerAsTheKernelDoes) {
  UseAPolicyDenyingAWorkspaceFile();
  const std::string src =
      RequiredEnv("KLAUNCH_TEST_PROGRAMS") + "/entry_slash.c";
  const std::string dyn = ws() + "/entry_slash";
  const std::string stat = ws() + "/entry_slash_static";
  ASSERT_EQ(RunProcess({"/usr/bin/gcc", "-O1", "-o", dyn, src}).exit_code, 0);
  ASSERT_EQ(
      RunProcess({"/usr/bin/gcc", "-O1", "-static", "-o", stat, src}).exit_code,
      0);
  const ProcessResult want = RunNativelyInAnEmptyDirectory({dyn});
  ASSERT_EQ(want.exit_code, 0) << want.err;
  ASSERT_THAT(want.out, HasSubstr("mkdir d/ 17\n"));
  for (const std::string& prog : {dyn, stat}) {
    RunProcess({"/bin/sh", "-c", "cd " + ws() + " && rm -rf d l m"});
    const ProcessResult r = Run({prog});
    EXPECT_EQ(r.out, want.out) << prog << "\n" << r.err;
    for (const std::string& line : LogLines()) {
      EXPECT_NE(Field(line, "verdict"), "deny") << prog << ": " << line;
    }
  }
}

TEST_F(Seccomp, TheShimsOwnCallsAreNotSentToTheSupervisor) {
  // cat reading an admitted file under the shim: its judged opens carry the
  // cookie, so nothing is refused or recorded by the seccomp layer, and a
  // refusal of a denied file is the shim's.
  const std::string mine = dir_.Write("ws/mine.txt", "workspace-text");
  ProcessResult r = Run({"/bin/cat", mine, secret_});
  EXPECT_THAT(r.out, HasSubstr("workspace-text")) << Show(r);
  EXPECT_THAT(r.out, Not(HasSubstr(kSecretText))) << Show(r);
  int shim = 0, seccomp = 0;
  for (const std::string& l : LogLines()) {
    shim += Field(l, "layer") == "shim";
    seccomp += Field(l, "layer") == "seccomp";
  }
  EXPECT_EQ(shim, 1) << ReadFile(log());
  EXPECT_EQ(seccomp, 0) << ReadFile(log());
}

}  // namespace
}  // namespace klaunch::testing
