// Attacks of class 7: a program reaching out of its run, at klaunch (its
// parent) or at a process outside the run. SECURITY.md promises each layer
// holds alone; whatever Landlock offers, the filter must refuse what
// reaches klaunch or a process outside the run, and klaunch must not be
// dumpable. The real klaunch runs tests/programs/reach.c, built static
// (nothing but the filter and Landlock stand in its way) and dynamic.
//
// The policy lets the program read /proc, as `ps` or a language runtime
// needs: what is refused below must be refused whatever the policy reads.
//
// A test fails when the world shows the escape: klaunch killed by the
// program, a victim process (started by the test, outside klaunch) that
// records a signal from it, klaunch's limits or the victim's priority or
// CPUs changed, klaunch's environment, memory or descriptors in the
// program's hands. Waits are bounded (kBoundSeconds) only to turn a hang
// into a failure.
//
// The program only ever signals klaunch (getppid() read while klaunch waits
// for it) or the test's victim; the test signals only its own children.

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/run_process.h"
#include "tests/sandbox.h"

namespace klaunch::testing {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using Clock = std::chrono::steady_clock;

constexpr int kBoundSeconds = 20;
constexpr char kVictimSecret[] = "VICTIM-SECRET-4242";
// In klaunch's environment, not in the program's (the policy keeps no such
// variable).
constexpr char kEnvSecret[] = "KLAUNCH-ENV-SECRET-5151";

constexpr const char* kSignalMethods[] = {
    "kill",   "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd",
    "procfd", "sigio"};

struct Layers {
  const char* name;
  std::vector<std::string> options;
};
const Layers kWithoutLandlock = {"--no-landlock", {"--no-landlock"}};
const Layers kEveryLayer = {"every layer", {}};

int CountOf(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

class Reach : public ::testing::Test {
 protected:
  void SetUp() override {
    // A write to CMD's stdin after it ended must fail, not end the test.
    signal(SIGPIPE, SIG_IGN);
    RunProcess({"/bin/mkdir", "-p", ws(), dir_.Path("state")});
    const std::string src = RequiredEnv("KLAUNCH_TEST_PROGRAMS") + "/reach.c";
    static_bin_ = ws() + "/reach-attack";
    dynamic_bin_ = ws() + "/reach-dynamic";
    ProcessResult s =
        RunProcess({"/usr/bin/gcc", "-O1", "-static", "-o", static_bin_, src});
    ASSERT_EQ(s.exit_code, 0) << s.err;
    ProcessResult d =
        RunProcess({"/usr/bin/gcc", "-O1", "-o", dynamic_bin_, src});
    ASSERT_EQ(d.exit_code, 0) << d.err;
    secret_ = dir_.Write("secret.txt", kVictimSecret);
    policy_ = dir_.Write("policy.toml",
                         "extends = \"read-only\"\n[filesystem]\n"
                         "workspace_writable = true\nread = [\"/proc\"]\n");
  }

  void TearDown() override {
    for (pid_t v : victims_) {
      kill(v, SIGKILL);
      waitpid(v, nullptr, 0);
    }
    if (klaunch_ > 0) {
      // Not reaped yet: its pid and the group it leads are the test's.
      kill(-klaunch_, SIGKILL);
      kill(klaunch_, SIGKILL);
      waitpid(klaunch_, nullptr, 0);
    }
    if (to_klaunch_ >= 0) close(to_klaunch_);
    if (from_klaunch_ >= 0) close(from_klaunch_);
  }

  std::string ws() const { return dir_.Path("ws"); }
  std::vector<std::string> Env() const {
    return {"PATH=/usr/bin:/bin", "LANG=C.UTF-8", "HOME=" + dir_.path(),
            "XDG_STATE_HOME=" + dir_.Path("state"),
            std::string("AWS_SECRET_ACCESS_KEY=") + kEnvSecret};
  }
  std::vector<std::string> KlaunchArgv(const Layers& layers,
                                       const std::vector<std::string>& cmd) {
    std::vector<std::string> argv = {
        RequiredEnv("KLAUNCH_BIN"), "--policy", policy_, "--log",
        dir_.Path("audit.jsonl"),   "--verbose"};
    argv.insert(argv.end(), layers.options.begin(), layers.options.end());
    argv.push_back("--");
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    return argv;
  }

  ProcessResult Run(const Layers& layers, const std::vector<std::string>& cmd) {
    ProcessOptions o;
    o.cwd = ws();
    o.env = Env();
    o.timeout_seconds = 60;
    return RunProcess(KlaunchArgv(layers, cmd), o);
  }

  // A process outside the run that records every signal it gets (and holds
  // the secret open when asked). Its pid.
  pid_t StartVictim(bool hold_secret = false) {
    const std::string record =
        dir_.Path("victim-" + std::to_string(victims_.size()) + ".txt");
    const pid_t pid = fork();
    if (pid == 0) {
      setpgid(0, 0);
      const int null = open("/dev/null", O_RDWR);
      dup2(null, 0);
      dup2(null, 1);
      dup2(null, 2);
      if (hold_secret) {
        execl(static_bin_.c_str(), "reach-attack", "victim", record.c_str(),
              secret_.c_str(), nullptr);
      } else {
        execl(static_bin_.c_str(), "reach-attack", "victim", record.c_str(),
              nullptr);
      }
      _exit(127);
    }
    if (pid > 0) {
      victims_.push_back(pid);
      records_.push_back(record);
    }
    const auto deadline = Clock::now() + std::chrono::seconds(kBoundSeconds);
    while (ReadFile(record).find("ready\n") == std::string::npos &&
           Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return pid;
  }

  std::string Record(pid_t victim) const {
    for (size_t i = 0; i < victims_.size(); ++i) {
      if (victims_[i] == victim) return ReadFile(records_[i]);
    }
    return "";
  }

  // The SIGUSR1s the victim has recorded, once every signal sent to it
  // before this call has been handled: the test sends it SIGUSR2 and waits
  // (bounded) for the record of that; a SIGUSR1 pending with it is handled
  // first (lower numbers first), one handled earlier is recorded already.
  int Usr1Received(pid_t victim) {
    const int before = CountOf(Record(victim), "signal 12 ");
    kill(victim, SIGUSR2);
    const auto deadline = Clock::now() + std::chrono::seconds(kBoundSeconds);
    while (CountOf(Record(victim), "signal 12 ") == before &&
           Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_GT(CountOf(Record(victim), "signal 12 "), before)
        << "the victim stopped recording signals";
    return CountOf(Record(victim), "signal 10 ");
  }

  // klaunch with a pipe to CMD's stdin and from its stdout, in a process
  // group of its own; with `fixed_layout`, without address space
  // randomisation (where it maps its executable is then known in advance).
  void StartKlaunch(const Layers& layers, const std::vector<std::string>& cmd,
                    bool fixed_layout = false) {
    std::vector<std::string> argv = KlaunchArgv(layers, cmd);
    std::vector<std::string> env = Env();
    AddLandlockCap(&env);
    std::vector<char*> a, e;
    for (std::string& s : argv) a.push_back(s.data());
    a.push_back(nullptr);
    for (std::string& s : env) e.push_back(s.data());
    e.push_back(nullptr);
    int in[2], out[2];
    ASSERT_EQ(pipe2(in, O_CLOEXEC), 0);
    ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
    const std::string err = dir_.Path("klaunch.err");
    klaunch_ = fork();
    if (klaunch_ == 0) {
      setpgid(0, 0);
      const int r = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (r < 0 || chdir(ws().c_str()) != 0) _exit(121);
      dup2(in[0], 0);
      dup2(out[1], 1);
      dup2(r, 2);
      if (fixed_layout) personality(ADDR_NO_RANDOMIZE);
      execve(a[0], a.data(), e.data());
      _exit(127);
    }
    ASSERT_GT(klaunch_, 0);
    setpgid(klaunch_, klaunch_);
    close(in[0]);
    close(out[1]);
    if (from_klaunch_ >= 0) close(from_klaunch_);
    to_klaunch_ = in[1];
    from_klaunch_ = out[0];
    seen_.clear();
  }

  // True once CMD's output holds `text` (bounded).
  bool WaitForOutput(const std::string& text) {
    const auto deadline = Clock::now() + std::chrono::seconds(kBoundSeconds);
    while (seen_.find(text) == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - Clock::now());
      if (left.count() <= 0) return false;
      pollfd p = {from_klaunch_, POLLIN, 0};
      if (poll(&p, 1,
               static_cast<int>(std::min<int64_t>(left.count(), 1000))) <= 0) {
        continue;
      }
      char buf[4096];
      const ssize_t n = read(from_klaunch_, buf, sizeof(buf));
      if (n <= 0) return seen_.find(text) != std::string::npos;
      seen_.append(buf, n);
    }
    return true;
  }

  void Say(const std::string& line) {
    const std::string l = line + "\n";
    ASSERT_EQ(write(to_klaunch_, l.data(), l.size()),
              static_cast<ssize_t>(l.size()));
  }

  // Closes CMD's stdin (it then exits) and waits (bounded) for klaunch to
  // end. Its wait status as an exit code (128+N for signal N), or nullopt.
  std::optional<int> Finish() {
    close(to_klaunch_);
    to_klaunch_ = -1;
    const auto deadline = Clock::now() + std::chrono::seconds(kBoundSeconds);
    while (Clock::now() < deadline) {
      int status = 0;
      const pid_t r = waitpid(klaunch_, &status, WNOHANG);
      if (r == klaunch_) {
        klaunch_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return std::nullopt;
  }

  std::string KlaunchErr() const {
    return "\nklaunch's stderr:\n" + ReadFile(dir_.Path("klaunch.err"));
  }

  TempDir dir_;
  std::string static_bin_, dynamic_bin_, secret_, policy_;
  std::vector<pid_t> victims_;
  std::vector<std::string> records_;
  pid_t klaunch_ = -1;
  int to_klaunch_ = -1, from_klaunch_ = -1;
  std::string seen_;
};

// --- Descriptors -------------------------------------------------------

// Attacks klaunch's descriptors: pidfd_open(getppid()) and pidfd_getfd of
// each number. Nothing in the filter refuses either call, and klaunch is
// the program's parent, same user and dumpable, so the kernel hands over
// the audit log, klaunch's end of its pipes and sockets, and the seccomp
// listener (with which the program could answer its own calls). Only
// Landlock's ptrace restriction stops it; this run has none.
TEST_F(Reach, WithoutLandlockAProgramCannotTakeKlaunchsDescriptors) {
  ProcessResult r = Run(kWithoutLandlock, {static_bin_, "getfd", "parent"});
  ASSERT_THAT(r.out, HasSubstr("getfd: ")) << Show(r);
  EXPECT_THAT(r.out, Not(ContainsRegex("getfd [0-9]+: got"))) << Show(r);
}

// The same at a process outside the run, which holds a file the policy
// does not let the program read: taking its descriptor reads the file.
TEST_F(Reach,
       WithoutLandlockAProgramCannotTakeTheDescriptorsOfAProcessOutsideTheRun) {
  const pid_t victim = StartVictim(/*hold_secret=*/true);
  ProcessResult r =
      Run(kWithoutLandlock, {static_bin_, "getfd", std::to_string(victim)});
  ASSERT_THAT(r.out, HasSubstr("getfd: ")) << Show(r);
  EXPECT_THAT(r.out, Not(HasSubstr(kVictimSecret))) << Show(r);
  EXPECT_THAT(r.out, Not(ContainsRegex("getfd [0-9]+: got"))) << Show(r);
}

// With every layer the kernel has: the filter refuses pidfd_getfd whatever
// Landlock offers (on ABI 1+, Landlock's ptrace restriction would too).
TEST_F(
    Reach,
    WithEveryLayerAProgramCannotTakeTheDescriptorsOfKlaunchOrOfAnotherProcess) {
  const pid_t victim = StartVictim(/*hold_secret=*/true);
  for (const std::string& target :
       {std::string("parent"), std::to_string(victim)}) {
    ProcessResult r = Run(kEveryLayer, {static_bin_, "getfd", target});
    ASSERT_THAT(r.out, HasSubstr("getfd: ")) << Show(r);
    EXPECT_THAT(r.out, Not(HasSubstr(kVictimSecret))) << Show(r);
    EXPECT_THAT(r.out, Not(ContainsRegex("getfd [0-9]+: got")))
        << target << Show(r);
  }
}

// Attacks klaunch through /proc/<klaunch pid>: its environment (which holds
// a variable the policy keeps from the program), its memory and its
// descriptors. The policy reads /proc and nothing refuses klaunch's own
// entries. A static program's opens are made by the supervisor inside
// klaunch, which may always read itself, so every layer gives all three; a
// dynamic program's are made by the shim in the program, which the kernel
// admits (klaunch is dumpable, and the program root) unless Landlock holds,
// and on this kernel Landlock's ptrace restriction refuses mem and fd/N
// (PTRACE_MODE_ATTACH) but not environ (PTRACE_MODE_READ).
TEST_F(Reach,
       AProgramCannotReadKlaunchsEnvironmentMemoryOrDescriptorsThroughProc) {
  for (const Layers& layers : {kWithoutLandlock, kEveryLayer}) {
    for (const std::string& bin : {static_bin_, dynamic_bin_}) {
      SCOPED_TRACE(std::string(layers.name) + ", " + bin);
      ProcessResult r = Run(layers, {bin, "proc", "parent"});
      ASSERT_THAT(r.out, HasSubstr("proc: ")) << Show(r);
      EXPECT_THAT(r.out, Not(HasSubstr(kEnvSecret))) << Show(r);
      EXPECT_THAT(r.out, Not(HasSubstr("proc environ: opened"))) << Show(r);
      EXPECT_THAT(r.out, Not(HasSubstr("proc mem: opened"))) << Show(r);
      EXPECT_THAT(r.out, Not(ContainsRegex("proc fd/[0-9]+: opened")))
          << Show(r);
    }
  }
}

// --- Signals -----------------------------------------------------------

// Attacks klaunch by signal: SIGKILL to getppid() by each way the kernel
// offers. Without Landlock's signal scope nothing refuses any of them (the
// program runs as klaunch's user), so klaunch dies without its summary,
// leaving the run unsupervised.
TEST_F(Reach, WithoutLandlockAProgramCannotSignalKlaunch) {
  for (const char* method : kSignalMethods) {
    SCOPED_TRACE(method);
    ProcessResult r = Run(kWithoutLandlock,
                          {static_bin_, "signal", method, "parent", "KILL"});
    EXPECT_EQ(r.signal, 0) << "klaunch was killed by " << method << "\n"
                           << Show(r);
    EXPECT_EQ(r.exit_code, 0) << Show(r);
    EXPECT_THAT(r.err, HasSubstr("klaunch: layers:")) << Show(r);
  }
}

// Attacks a process outside the run (started by the test, not by klaunch)
// by signal: SIGUSR1, which it records, sent every way the kernel offers.
TEST_F(Reach, WithoutLandlockAProgramCannotSignalAProcessOutsideTheRun) {
  const pid_t victim = StartVictim();
  int received = 0;
  for (const char* method : kSignalMethods) {
    SCOPED_TRACE(method);
    ProcessResult r = Run(kWithoutLandlock, {static_bin_, "signal", method,
                                             std::to_string(victim), "USR1"});
    ASSERT_THAT(r.out, HasSubstr(std::string("signal ") + method + ": "))
        << Show(r);
    const int now = Usr1Received(victim);
    EXPECT_EQ(now, received)
        << "the victim got the signal sent by " << method << "\n"
        << Record(victim) << Show(r);
    received = now;
  }
}

// With every layer the kernel has: Landlock's signal scope (ABI 6+) or,
// below it, the supervisor (the filter sends every signal there) refuses
// each of them, klaunch and the victim both being outside the run.
TEST_F(Reach,
       WithEveryLayerAProgramCannotSignalKlaunchOrAProcessOutsideTheRun) {
  const pid_t victim = StartVictim();
  for (const char* method : kSignalMethods) {
    SCOPED_TRACE(method);
    ProcessResult r =
        Run(kEveryLayer, {static_bin_, "signal", method, "parent", "KILL"});
    EXPECT_EQ(r.signal, 0) << "klaunch was killed by " << method << "\n"
                           << Show(r);
    EXPECT_THAT(r.err, HasSubstr("klaunch: layers:")) << Show(r);
    r = Run(kEveryLayer,
            {static_bin_, "signal", method, std::to_string(victim), "USR1"});
    ASSERT_THAT(r.out, HasSubstr(std::string("signal ") + method + ": "))
        << Show(r);
    EXPECT_EQ(Usr1Received(victim), 0) << Record(victim) << Show(r);
  }
}

// --- Limits, priorities, CPUs ------------------------------------------

// Attacks klaunch's resource limits: prlimit64 on getppid(). The filter
// lets it through, Landlock has no scope for it, and a process of the same
// user (root here) may set another's limits: klaunch, which holds a
// descriptor per supervised call, can be starved of descriptors.
TEST_F(Reach, AProgramCannotLowerKlaunchsLimits) {
  struct rlimit mine;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &mine), 0);
  ASSERT_NE(mine.rlim_cur, 37u);
  for (const Layers& layers : {kWithoutLandlock, kEveryLayer}) {
    SCOPED_TRACE(layers.name);
    StartKlaunch(layers, {static_bin_, "prlimit", "parent", "37"});
    ASSERT_TRUE(WaitForOutput("prlimit: ")) << seen_ << KlaunchErr();
    // klaunch inherited the test's limits; the program tried 37.
    std::string line;
    std::istringstream limits(
        ReadFile("/proc/" + std::to_string(klaunch_) + "/limits"));
    for (std::string l; std::getline(limits, l);) {
      if (l.rfind("Max open files", 0) == 0) line = l;
    }
    std::istringstream words(line.substr(std::string("Max open files").size()));
    std::string soft, hard;
    words >> soft >> hard;
    EXPECT_EQ(soft, std::to_string(mine.rlim_cur))
        << "klaunch's limit was changed: " << line << "\n"
        << seen_;
    EXPECT_EQ(hard, mine.rlim_max == RLIM_INFINITY
                        ? "unlimited"
                        : std::to_string(mine.rlim_max))
        << line;
    const std::optional<int> status = Finish();
    ASSERT_TRUE(status.has_value()) << "klaunch did not end" << KlaunchErr();
    EXPECT_EQ(*status, 0) << KlaunchErr();
  }
}

// Attacks a process outside the run: setpriority on it. Neither the filter
// nor Landlock looks at it, and root may renice anyone.
TEST_F(Reach, AProgramCannotReniceAProcessOutsideTheRun) {
  for (const Layers& layers : {kWithoutLandlock, kEveryLayer}) {
    SCOPED_TRACE(layers.name);
    const pid_t victim = StartVictim();
    errno = 0;
    const int before = getpriority(PRIO_PROCESS, victim);
    ASSERT_EQ(errno, 0);
    ASSERT_NE(before, 19);
    ProcessResult r =
        Run(layers, {static_bin_, "nice", std::to_string(victim)});
    ASSERT_THAT(r.out, HasSubstr("nice: ")) << Show(r);
    errno = 0;
    EXPECT_EQ(getpriority(PRIO_PROCESS, victim), before)
        << "the victim was reniced\n"
        << Show(r);
  }
}

// Attacks a process outside the run: sched_setaffinity narrows it to one
// CPU. Neither the filter nor Landlock looks at it.
TEST_F(Reach, AProgramCannotPinAProcessOutsideTheRunToOneCpu) {
  for (const Layers& layers : {kWithoutLandlock, kEveryLayer}) {
    SCOPED_TRACE(layers.name);
    const pid_t victim = StartVictim();
    cpu_set_t before;
    ASSERT_EQ(sched_getaffinity(victim, sizeof(before), &before), 0);
    if (CPU_COUNT(&before) < 2) {
      GTEST_SKIP() << "the victim may run on one CPU only: narrowing it "
                      "would change nothing";
    }
    ProcessResult r =
        Run(layers, {static_bin_, "affinity", std::to_string(victim)});
    ASSERT_THAT(r.out, HasSubstr("affinity: ")) << Show(r);
    cpu_set_t after;
    ASSERT_EQ(sched_getaffinity(victim, sizeof(after), &after), 0);
    EXPECT_TRUE(CPU_EQUAL(&before, &after))
        << "the victim's CPUs went from " << CPU_COUNT(&before) << " to "
        << CPU_COUNT(&after) << "\n"
        << Show(r);
  }
}

// --- Memory and tracing ------------------------------------------------

// A regression guard: process_vm_readv and ptrace are refused by the filter
// today (and by Landlock's ptrace restriction). The program is given an
// address klaunch really maps (read by the test from its maps) and tries
// to read it and to become klaunch's tracer. Natively, run by the test, it
// reads the test's own memory, so the refusal is klaunch's.
TEST_F(Reach, AProgramCannotReadKlaunchsMemoryOrTraceIt) {
  const std::string own = ReadFile("/proc/self/maps");
  ProcessOptions native;
  native.stdin_text = own.substr(0, own.find('-')) + "\n";
  ProcessResult control =
      RunProcess({static_bin_, "vmread", "noptrace"}, native);
  ASSERT_THAT(control.out, HasSubstr("vmread: got 16 bytes")) << Show(control);
  // klaunch is not dumpable, so only root reads its maps: it runs without
  // randomisation, where a position-independent executable's first
  // mapping (readable: its ELF header) is where cat's is when run so.
  const ProcessResult fixed = RunProcess(
      {"/usr/bin/setarch", "x86_64", "-R", "/bin/cat", "/proc/self/maps"});
  ASSERT_EQ(fixed.exit_code, 0) << Show(fixed);
  const std::string first = fixed.out.substr(0, fixed.out.find('-'));
  for (const Layers& layers : {kWithoutLandlock, kEveryLayer}) {
    SCOPED_TRACE(layers.name);
    StartKlaunch(layers, {static_bin_, "vmread"}, /*fixed_layout=*/true);
    // Once klaunch has replaced the test's fork (bounded).
    const std::string comm = "/proc/" + std::to_string(klaunch_) + "/comm";
    for (int i = 0; i < 200 && ReadFile(comm) != "klaunch\n"; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_EQ(ReadFile(comm), "klaunch\n");
    const std::string maps =
        ReadFile("/proc/" + std::to_string(klaunch_) + "/maps");
    if (!maps.empty()) {
      // klaunch's own first mapping: under ASan the shadow comes first.
      const size_t own_line = maps.find("/klaunch\n");
      ASSERT_NE(own_line, std::string::npos) << maps;
      const size_t line_start = maps.rfind('\n', own_line);
      const std::string mine =
          maps.substr(line_start == std::string::npos ? 0 : line_start + 1);
      ASSERT_EQ(mine.substr(0, mine.find('-')), first)
          << "klaunch does not map itself where a fixed layout puts it";
    }
    Say(first);
    ASSERT_TRUE(WaitForOutput("vmread: done")) << seen_ << KlaunchErr();
    const std::string status =
        ReadFile("/proc/" + std::to_string(klaunch_) + "/status");
    EXPECT_THAT(status, HasSubstr("TracerPid:\t0\n")) << seen_;
    EXPECT_THAT(seen_, Not(HasSubstr("vmread: got"))) << seen_;
    const std::optional<int> end = Finish();
    ASSERT_TRUE(end.has_value()) << "klaunch did not end" << KlaunchErr();
    EXPECT_EQ(*end, 0) << KlaunchErr();
  }
}

// kill(-1) and kill(0) from inside the run reach its members only: the
// supervisor signals each, and records that the others were not reached.
// Tried in a pid namespace of the test's own (so a broken klaunch could
// only ever signal what is in it), with a victim in klaunch's own process
// group, both outside the run, and every layer but Landlock's signal scope
// (which would refuse it in the kernel before the supervisor's turn).
class GroupSignals : public Reach,
                     public ::testing::WithParamInterface<const char*> {};

TEST_P(GroupSignals, ASignalToEveryProcessOrToTheGroupReachesOnlyTheRun) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root for a pid namespace";
  if (RunProcess(
          {"/usr/bin/unshare", "--pid", "--fork", "--mount-proc", "/bin/true"})
          .exit_code != 0) {
    GTEST_SKIP() << "no pid namespace here";
  }
  const std::string record = dir_.Path("group-victim.txt");
  std::string klaunch;
  for (const std::string& a :
       KlaunchArgv(kWithoutLandlock, {static_bin_, GetParam()})) {
    klaunch += "'" + a + "' ";
  }
  // The shell (the namespace's init) starts the victim in its own process
  // group, which klaunch then shares, and asks it afterwards whether a
  // SIGUSR1 came: SIGUSR2 makes it write its record.
  const std::string script = "'" + static_bin_ + "' victim '" + record +
                             "' & v=$!\n"
                             "while ! grep -q ready '" +
                             record + "' 2>/dev/null; do sleep 0.05; done\n" +
                             klaunch +
                             "; echo klaunch-exit=$?\n"
                             "kill -USR2 $v; sleep 0.3; kill -KILL $v\n";
  ProcessOptions o;
  o.cwd = ws();
  o.env = Env();
  o.timeout_seconds = 60;
  ProcessResult r = RunProcess({"/usr/bin/unshare", "--pid", "--fork",
                                "--mount-proc", "/bin/sh", "-c", script},
                               o);
  // klaunch survived to sum up: CMD exited 0 (kill(-1) spares the
  // caller) or of its own SIGUSR1 (kill(0) does not).
  EXPECT_THAT(r.out, HasSubstr(std::string(GetParam()) == "spread"
                                   ? "klaunch-exit=0"
                                   : "klaunch-exit=138"))
      << Show(r);
  EXPECT_THAT(r.err, HasSubstr("klaunch: layers:")) << Show(r);
  const std::string got = ReadFile(record);
  EXPECT_THAT(got, HasSubstr("signal 12 ")) << "the victim answered";
  EXPECT_THAT(got, Not(HasSubstr("signal 10 ")))
      << "a process outside the run got the run's SIGUSR1\n"
      << got << Show(r);
}

INSTANTIATE_TEST_SUITE_P(KillOf, GroupSignals,
                         ::testing::Values("spread", "group"));

}  // namespace
}  // namespace klaunch::testing
