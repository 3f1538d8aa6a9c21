// Attacks of class 6: the run's processes outliving it. The real klaunch
// runs tests/programs/outlive.c (built static as "outlive-attack"), whose
// processes each append a byte to a heartbeat file in the workspace every
// 20 ms. A test fails when klaunch never ends, or when a process of the run
// is still running (its heartbeat still growing) once klaunch has ended or
// was killed.
//
// Every wait here is bounded (kBoundSeconds) only to turn a hang into a
// failure: no test claims anything about how fast klaunch is.
//
// Clean-up never signals a pid the test did not make: klaunch is the test's
// child, started in a process group of its own and reaped only in TearDown
// (so its pid and group stay the test's); each process of the run is
// signalled through a pidfd, opened on the process called "outlive-attack"
// that /proc shows holding that process's heartbeat file open.

#include <dirent.h>
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/run_process.h"

namespace klaunch::testing {
namespace {

using Clock = std::chrono::steady_clock;

// How long a test waits for what must happen before calling it a hang.
constexpr int kBoundSeconds = 20;
constexpr char kProgramName[] = "outlive-attack";

int PidfdOpen(pid_t pid) {
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
}

// True once the whole process behind `pidfd` has exited; false when it
// still runs at `deadline`.
bool ExitedBy(int pidfd, Clock::time_point deadline) {
  while (true) {
    pollfd p = {pidfd, POLLIN, 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - Clock::now());
    const int ms = static_cast<int>(std::max<int64_t>(0, left.count()));
    const int n = poll(&p, 1, std::min(ms, 1000));
    if (n > 0) return true;
    if (ms == 0) return false;
  }
}

off_t SizeOf(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? st.st_size : -1;
}

class Outlive : public ::testing::Test {
 protected:
  void SetUp() override {
    RunProcess({"/bin/mkdir", "-p", ws(), dir_.Path("state")});
    bin_ = ws() + "/" + kProgramName;
    ProcessResult b =
        RunProcess({"/usr/bin/gcc", "-O1", "-static", "-pthread", "-o", bin_,
                    RequiredEnv("KLAUNCH_TEST_PROGRAMS") + "/outlive.c"});
    ASSERT_EQ(b.exit_code, 0) << b.err;
    policy_ = dir_.Write("policy.toml",
                         "extends = \"read-only\"\n[filesystem]\n"
                         "workspace_writable = true\n");
  }

  void TearDown() override {
    for (const auto& [name, pidfd] : tracked_) {
      syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0);
      close(pidfd);
    }
    if (klaunch_ > 0) {
      // Not reaped yet, so this pid and the group it leads are still the
      // test's own.
      kill(-klaunch_, SIGKILL);
      kill(klaunch_, SIGKILL);
      waitpid(klaunch_, nullptr, 0);
    }
  }

  std::string ws() const { return dir_.Path("ws"); }
  std::string Beat(const std::string& name) const {
    return ws() + "/" + name + ".beat";
  }

  // klaunch running `cmd`, with its output in files, in a process group of
  // its own so that the test's is never signalled.
  void StartKlaunch(const std::vector<std::string>& options,
                    const std::vector<std::string>& cmd) {
    std::vector<std::string> argv = {RequiredEnv("KLAUNCH_BIN"), "--policy",
                                     policy_, "--log",
                                     dir_.Path("audit.jsonl")};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back("--");
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    std::vector<std::string> env = {"PATH=/usr/bin:/bin", "LANG=C.UTF-8",
                                    "HOME=" + dir_.path(),
                                    "XDG_STATE_HOME=" + dir_.Path("state")};
    AddLandlockCap(&env);
    std::vector<char*> a, e;
    for (std::string& s : argv) a.push_back(s.data());
    a.push_back(nullptr);
    for (std::string& s : env) e.push_back(s.data());
    e.push_back(nullptr);
    const std::string out = dir_.Path("klaunch.out");
    const std::string err = dir_.Path("klaunch.err");
    klaunch_ = fork();
    if (klaunch_ == 0) {
      setpgid(0, 0);
      const int in = open("/dev/null", O_RDONLY);
      const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int r = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (in < 0 || o < 0 || r < 0 || chdir(ws().c_str()) != 0) _exit(121);
      dup2(in, 0);
      dup2(o, 1);
      dup2(r, 2);
      execve(a[0], a.data(), e.data());
      _exit(127);
    }
    ASSERT_GT(klaunch_, 0);
    setpgid(klaunch_, klaunch_);  // either side may be first
  }

  // klaunch's wait status once it has ended, waiting until `deadline`;
  // nullopt if it still runs then. It is not reaped (TearDown does).
  std::optional<int> KlaunchEnded(Clock::time_point deadline) {
    while (true) {
      siginfo_t info{};
      if (waitid(P_PID, klaunch_, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
          info.si_pid == klaunch_) {
        return info.si_code == CLD_EXITED ? info.si_status
                                          : 128 + info.si_status;
      }
      if (Clock::now() >= deadline) return std::nullopt;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  // Starts tracking the process whose heartbeat is `name`.beat, once it
  // beats (waiting until `deadline`): the process called outlive-attack
  // that holds that file open, found in /proc as this test sees pids.
  // False if there is none.
  bool Track(const std::string& name, Clock::time_point deadline) {
    if (!Beating(name, deadline)) return false;
    struct stat beat;
    if (stat(Beat(name).c_str(), &beat) != 0) return false;
    while (true) {
      const pid_t pid = HolderOf(beat);
      if (pid > 0) {
        const int pidfd = PidfdOpen(pid);
        // Checked again once the pidfd is open: from here it names that
        // process whatever happens to the number.
        if (pidfd >= 0 && HolderOf(beat) == pid) {
          tracked_[name] = pidfd;
          return true;
        }
        if (pidfd >= 0) close(pidfd);
      }
      if (Clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  // The process called outlive-attack with a thread holding the file
  // `beat` open, or 0. (klaunch's supervisor holds it for a moment while it
  // opens it for the program: it is not called so.)
  static pid_t HolderOf(const struct stat& beat) {
    DIR* proc = opendir("/proc");
    if (proc == nullptr) return 0;
    pid_t found = 0;
    while (dirent* e = readdir(proc)) {
      char* end;
      const long pid = strtol(e->d_name, &end, 10);
      if (*end != '\0' || pid <= 0) continue;
      const std::string base = std::string("/proc/") + e->d_name;
      if (ReadFile(base + "/comm") != std::string(kProgramName) + "\n")
        continue;
      DIR* tasks = opendir((base + "/task").c_str());
      while (tasks != nullptr && found == 0) {
        dirent* t = readdir(tasks);
        if (t == nullptr) break;
        if (t->d_name[0] == '.') continue;
        const std::string fds = base + "/task/" + t->d_name + "/fd";
        DIR* fd = opendir(fds.c_str());
        while (fd != nullptr && found == 0) {
          dirent* f = readdir(fd);
          if (f == nullptr) break;
          struct stat st;
          if (f->d_name[0] != '.' &&
              stat((fds + "/" + f->d_name).c_str(), &st) == 0 &&
              st.st_dev == beat.st_dev && st.st_ino == beat.st_ino) {
            found = static_cast<pid_t>(pid);
          }
        }
        if (fd != nullptr) closedir(fd);
      }
      if (tasks != nullptr) closedir(tasks);
      if (found != 0) break;
    }
    closedir(proc);
    return found;
  }

  // True when `name`'s heartbeat grows before `deadline`: the process runs.
  bool Beating(const std::string& name, Clock::time_point deadline) {
    off_t first = -1;
    while (Clock::now() < deadline) {
      const off_t now = SizeOf(Beat(name));
      if (first < 0) {
        first = now;
      } else if (now > first) {
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  // "" once the tracked process `name` has exited (waiting until
  // `deadline`) and its heartbeat has stopped; otherwise what shows it did
  // not.
  std::string Stopped(const std::string& name, Clock::time_point deadline) {
    auto it = tracked_.find(name);
    if (it == tracked_.end()) return name + " was never tracked";
    if (!ExitedBy(it->second, deadline)) {
      const off_t before = SizeOf(Beat(name));
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      return name + " still runs: its heartbeat grew from " +
             std::to_string(before) + " to " +
             std::to_string(SizeOf(Beat(name))) + " bytes";
    }
    const off_t at_exit = SizeOf(Beat(name));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (SizeOf(Beat(name)) != at_exit) {
      return name + " exited but its heartbeat still grows";
    }
    return "";
  }

  std::string KlaunchOutput() const {
    return "\nklaunch's stdout:\n" + ReadFile(dir_.Path("klaunch.out")) +
           "klaunch's stderr:\n" + ReadFile(dir_.Path("klaunch.err"));
  }

  // Starts klaunch running outlive-attack THEN KINDS..., tracks every
  // process once it runs and beats, then lets CMD go on to THEN. (CMD
  // waits for that, so nothing can end a process before it is tracked;
  // under --timeout the tests give 5 s, far more than this takes.)
  void StartTree(const std::vector<std::string>& options,
                 const std::string& then,
                 const std::vector<std::string>& kinds) {
    std::vector<std::string> cmd = {bin_, ws(), then};
    cmd.insert(cmd.end(), kinds.begin(), kinds.end());
    StartKlaunch(options, cmd);
    const auto deadline = Clock::now() + std::chrono::seconds(kBoundSeconds);
    std::vector<std::string> names = kinds;
    names.push_back("cmd");
    for (const std::string& name : names) {
      ASSERT_TRUE(Track(name, deadline))
          << name << " never started beating" << KlaunchOutput();
    }
    dir_.Write("ws/go", "");
  }

  TempDir dir_;
  std::string bin_, policy_;
  pid_t klaunch_ = -1;
  std::map<std::string, int> tracked_;
};

// Attacks klaunch's end of run. A process whose main thread called
// pthread_exit while another thread runs is a zombie in /proc (state Z)
// but is not finished: klaunch skips zombies when it lists the descendants
// to end, yet waits for that child, which cannot be reaped while its
// thread runs. klaunch never ends and the process beats on.
TEST_F(Outlive, AProcessWhoseMainThreadExitedIsEndedWhenCmdExits) {
  StartTree({}, "exit", {"zleader"});
  const auto deadline = Clock::now() + std::chrono::seconds(kBoundSeconds);
  const std::optional<int> status = KlaunchEnded(deadline);
  EXPECT_TRUE(status.has_value())
      << "klaunch did not end " << kBoundSeconds
      << " s after CMD exited, while a zombie-led process ran"
      << KlaunchOutput();
  EXPECT_EQ(Stopped("zleader", deadline), "") << KlaunchOutput();
}

// The same, under --timeout: CMD exits before the deadline, so klaunch is
// already in its end-of-run loop, which never finds the zombie leader and
// never returns; the timeout no longer applies.
TEST_F(Outlive, AProcessWhoseMainThreadExitedIsEndedEvenUnderATimeout) {
  StartTree({"--timeout", "5s", "--kill-after", "1s"}, "exit", {"zleader"});
  const auto deadline = Clock::now() + std::chrono::seconds(kBoundSeconds);
  const std::optional<int> status = KlaunchEnded(deadline);
  EXPECT_TRUE(status.has_value())
      << "klaunch did not end " << kBoundSeconds
      << " s after CMD exited under --timeout 5s" << KlaunchOutput();
  EXPECT_EQ(Stopped("zleader", deadline), "") << KlaunchOutput();
}

// CMD itself is the zombie-led process: its main thread exits, another
// beats. klaunch's timeout sends SIGTERM to the descendants it finds in
// /proc, which skips zombies, so CMD is never signalled; klaunch then
// waits for orphans forever and never exits 124.
TEST_F(Outlive, ACmdWhoseMainThreadExitedIsEndedByTheTimeout) {
  StartTree({"--timeout", "5s", "--kill-after", "1s"}, "zleader", {});
  const auto deadline = Clock::now() + std::chrono::seconds(kBoundSeconds);
  const std::optional<int> status = KlaunchEnded(deadline);
  EXPECT_TRUE(status.has_value())
      << "klaunch did not end " << kBoundSeconds
      << " s into a run with --timeout 5s" << KlaunchOutput();
  if (status.has_value()) {
    EXPECT_EQ(*status, 124) << KlaunchOutput();
  }
  EXPECT_EQ(Stopped("cmd", deadline), "") << KlaunchOutput();
}

// Attacks klaunch's death: it ends the run's processes only in its own
// code, at the end of the run. Killed (SIGKILL, which it cannot catch), it
// ends nothing: a double-forked daemon in a session of its own is
// reparented to init and beats on. So does CMD.
TEST_F(Outlive, ADoubleForkedDaemonStopsWhenKlaunchIsKilled) {
  StartTree({}, "block", {"daemon"});
  ASSERT_EQ(kill(klaunch_, SIGKILL), 0);
  const auto deadline = Clock::now() + std::chrono::seconds(kBoundSeconds);
  ASSERT_TRUE(KlaunchEnded(deadline).has_value());
  EXPECT_EQ(Stopped("daemon", deadline), "")
      << "the daemon outlived klaunch" << KlaunchOutput();
  EXPECT_EQ(Stopped("cmd", deadline), "")
      << "CMD outlived klaunch" << KlaunchOutput();
}

// The same attack with every shape of process klaunch's end of run knows
// about: one that ignores SIGTERM (klaunch would need SIGKILL for it), one
// in a process group of its own, one in a session of its own, and one whose
// main thread exited. None is ended when klaunch is killed.
TEST_F(Outlive, EveryProcessOfTheRunStopsWhenKlaunchIsKilled) {
  const std::vector<std::string> kinds = {"noterm", "pgrp", "session",
                                          "zleader"};
  StartTree({}, "block", kinds);
  ASSERT_EQ(kill(klaunch_, SIGKILL), 0);
  const auto deadline = Clock::now() + std::chrono::seconds(kBoundSeconds);
  ASSERT_TRUE(KlaunchEnded(deadline).has_value());
  for (const char* name : {"cmd", "noterm", "pgrp", "session", "zleader"}) {
    EXPECT_EQ(Stopped(name, deadline), "")
        << name << " outlived klaunch" << KlaunchOutput();
  }
}

// Attacks --timeout: it must end the whole tree whatever the tree does. CMD
// blocks, and below it run a double-forked daemon, a process ignoring
// SIGTERM, one in its own process group, one in its own session and one
// whose main thread exited. The last is never found (a zombie in /proc), so
// klaunch never finishes ending the tree and never exits 124.
TEST_F(Outlive, ATimeoutEndsEveryProcessOfTheRunWhateverTheTreeDoes) {
  const std::vector<std::string> kinds = {"daemon", "noterm", "pgrp", "session",
                                          "zleader"};
  StartTree({"--timeout", "5s", "--kill-after", "1s"}, "block", kinds);
  const auto deadline = Clock::now() + std::chrono::seconds(kBoundSeconds);
  const std::optional<int> status = KlaunchEnded(deadline);
  EXPECT_TRUE(status.has_value())
      << "klaunch did not end " << kBoundSeconds
      << " s into a run with --timeout 5s" << KlaunchOutput();
  if (status.has_value()) {
    EXPECT_EQ(*status, 124) << KlaunchOutput();
  }
  for (const char* name :
       {"cmd", "daemon", "noterm", "pgrp", "session", "zleader"}) {
    EXPECT_EQ(Stopped(name, deadline), "")
        << name << " outlived the timeout" << KlaunchOutput();
  }
}

// Not an escape today: the control that shows this harness passes when
// klaunch does its job. Descendants of every other shape (double-forked,
// ignoring SIGTERM, in a process group or a session of their own) are
// found and ended when CMD exits, and klaunch ends with CMD's status.
TEST_F(Outlive, DescendantsOfEveryOtherShapeAreEndedWhenCmdExits) {
  const std::vector<std::string> kinds = {"daemon", "noterm", "pgrp",
                                          "session"};
  StartTree({}, "exit", kinds);
  const auto deadline = Clock::now() + std::chrono::seconds(kBoundSeconds);
  const std::optional<int> status = KlaunchEnded(deadline);
  ASSERT_TRUE(status.has_value()) << KlaunchOutput();
  EXPECT_EQ(*status, 0) << KlaunchOutput();
  for (const std::string& name : kinds) {
    EXPECT_EQ(Stopped(name, deadline), "")
        << name << " outlived the run" << KlaunchOutput();
  }
}

}  // namespace
}  // namespace klaunch::testing
