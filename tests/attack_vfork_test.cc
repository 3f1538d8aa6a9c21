// vfork under klaunch (issue 21): where the supervisor judges, a vfork
// stays a vfork, so a spawn costs what it costs natively whatever the
// parent's size. Its child runs in the parent's memory while the parent's
// other threads go on, so the shim judges nothing there: every call of the
// child passes to libc untagged and meets the supervisor. These tests run
// tests/programs/vfork_spawn.c (dynamic: the shim loads) and Python under
// the real klaunch, and attack that: a child that would read what only the
// shim's tag lets through, a refused exec, a signal handled in the child,
// thousands of spawns beside threads that allocate without pause.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/attack_support.h"
#include "tests/run_process.h"

namespace klaunch::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kSecret[] = "VFORK-SECRET-5521";

class Vfork : public ::testing::Test {
 protected:
  void SetUp() override {
    program_ = run_.Path("vfork_spawn");
    // -rdynamic: the program's malloc, which counts, is the shim's too.
    ASSERT_NO_FATAL_FAILURE(
        BuildProgram("vfork_spawn.c", program_, false, {"-rdynamic"}));
    run_.SetPolicy(
        "extends = \"workspace-write\"\n"
        "[filesystem]\nread = [\"" +
        run_.root() +
        "\"]\n"
        "deny = [\"**/secret.txt\"]\n"
        "[commands]\ndeny = [\"/usr/bin/whoami\"]\n");
  }

  std::string Show(const ProcessResult& r) const {
    return "exit " + std::to_string(r.exit_code) + "\nout: " + r.out +
           "\nerr: " + r.err;
  }

  KlaunchRun run_;
  std::string program_;
};

TEST_F(Vfork, AVforkUnderKlaunchStaysAVfork) {
  const ProcessResult r = run_.Run({program_, "shared"});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("shares memory: yes")) << Show(r);
}

// Without the supervisor nothing could stand in for the shim in the child:
// the vfork becomes a fork and the shim judges the child's exec.
TEST_F(Vfork, WithoutTheSupervisorAVforkBecomesAForkSoTheShimJudgesTheChild) {
  const ProcessResult r = run_.Run({program_, "shared"}, {"--no-seccomp"});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("shares memory: no")) << Show(r);
  // The child's errno stays in its own copy of the memory: the exit code
  // and the shim's record say it was refused.
  const ProcessResult refused =
      run_.Run({program_, "refused", "/usr/bin/whoami"}, {"--no-seccomp"});
  EXPECT_THAT(refused.out, HasSubstr("child exit 126")) << Show(refused);
  bool by_shim = false;
  for (const std::string& line : run_.LogLines()) {
    by_shim |= Field(line, "target") == "/usr/bin/whoami" &&
               Field(line, "verdict") == "deny" &&
               Field(line, "layer") == "shim";
  }
  EXPECT_TRUE(by_shim) << Show(refused);
}

// The workspace is a read root Landlock grants whole; only a deny pattern
// keeps secret.txt from the program, and a tagged read would skip the
// supervisor over that floor. The child's read is untagged: refused. The
// parent, back from its vfork, is judged by its shim again.
TEST_F(Vfork, AVforkChildCannotReadADeniedFileLandlockWouldAdmit) {
  const std::string secret = run_.Write("ws/secret.txt", kSecret);
  const ProcessResult r = run_.Run({program_, "open", secret});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("child open: Permission denied")) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("parent open: Permission denied")) << Show(r);
  EXPECT_THAT(r.out, Not(HasSubstr(kSecret)));
  int by_supervisor = 0, by_shim = 0;
  for (const std::string& line : run_.LogLines()) {
    if (Field(line, "target") != secret || Field(line, "verdict") != "deny") {
      continue;
    }
    if (Field(line, "layer") == "seccomp") ++by_supervisor;
    if (Field(line, "layer") == "shim") ++by_shim;
  }
  EXPECT_EQ(by_supervisor, 1) << "the child's read meets the supervisor";
  EXPECT_EQ(by_shim, 1) << "the parent's read meets its shim again";
}

TEST_F(Vfork, AnExecRefusedInAVforkChildFailsAndIsRecorded) {
  const ProcessResult r = run_.Run({program_, "refused", "/usr/bin/whoami"});
  EXPECT_THAT(r.out, HasSubstr("child exit 126, errno Permission denied"))
      << Show(r);
  bool recorded = false;
  for (const std::string& line : run_.LogLines()) {
    recorded |= Field(line, "target") == "/usr/bin/whoami" &&
                Field(line, "verdict") == "deny" &&
                Field(line, "access") == "exec";
  }
  EXPECT_TRUE(recorded) << Show(r);
}

// The child runs in its parent's memory while the parent's other threads
// go on: it must neither allocate (a lock another thread holds, a heap left
// changed) nor judge. Refused execs by every entry, with names longer than
// a short string's inline room, allocate nothing there (the same execs
// judged in the child allocate 16 times).
TEST_F(Vfork, AVforkChildAllocatesNothingEvenWhenItsExecsAreRefused) {
  const ProcessResult r = run_.Run({program_, "mallocs"});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_THAT(r.out,
              HasSubstr("mallocs: 3 execs failed, 0 allocations in the child"))
      << Show(r);
}

// The shim comes back to what a vfork child runs with an environment of
// its own, as it does for a fork's child.
TEST_F(Vfork, AVforkChildThatDropsLdPreloadGetsTheShimBack) {
  const ProcessResult r = run_.Run({program_, "dropenv"});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("preload=" + RequiredEnv("KLAUNCH_SHIM")))
      << Show(r);
}

// A handler that makes a judged call, run inside the child: it passes to
// libc there like every other call of the child, and the exec after it
// goes on.
TEST_F(Vfork, ASignalHandledInAVforkChildNeitherHangsNorBreaksTheParent) {
  const ProcessResult r = run_.Run({program_, "signal"}, {}, 60);
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("handler ran in the child, its open worked; "
                               "child exit 0"))
      << Show(r);
  EXPECT_THAT(r.out, HasSubstr("parent open worked")) << Show(r);
}

// Four threads allocate and free without pause while the main thread
// starts 2000 children through vfork and posix_spawn: none deadlocks on a
// lock another thread held, none breaks the heap.
TEST_F(Vfork, ThousandsOfSpawnsBesideAllocatingThreadsAllSucceed) {
  const ProcessResult r = run_.Run({program_, "storm", "2000"});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("storm: 2000 of 2000 children exited 0, "
                               "heap whole"))
      << Show(r);
}

// Python's subprocess (vfork in _posixsubprocess) from a process whose
// other threads allocate: every child runs.
TEST_F(Vfork, SubprocessFromAThreadedPythonRunsEveryChild) {
  const std::string script = run_.Write(
      "ws/spawn.py",
      "import subprocess, threading\n"
      "stop = False\n"
      "def churn():\n"
      "    held = []\n"
      "    while not stop:\n"
      "        held.append(bytearray(4096))\n"
      "        if len(held) > 256: held.clear()\n"
      "threads = [threading.Thread(target=churn) for _ in range(3)]\n"
      "for t in threads: t.start()\n"
      "ok = sum(subprocess.run(['/bin/true']).returncode == 0\n"
      "         for _ in range(300))\n"
      "stop = True\n"
      "for t in threads: t.join()\n"
      "print(f'subprocess: {ok} of 300')\n");
  const ProcessResult r = run_.Run({"/usr/bin/python3", script});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("subprocess: 300 of 300")) << Show(r);
}

}  // namespace
}  // namespace klaunch::testing
