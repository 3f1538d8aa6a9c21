#include "supervisor/run_cgroup.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"

namespace klaunch {
namespace {

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string Parent(const std::string& dir) {
  return dir.substr(0, dir.rfind('/'));
}

// A run's tag as klaunch makes it: time, klaunch's PID, a unique end.
std::string Tag(const std::string& end) {
  return absl::StrCat("1", "-", getpid(), "-", end);
}

// Skips when this machine gives no writable cgroup v2 tree (the reaper
// ends such runs by the process tree, and there is nothing to sweep).
#define MAKE_OR_SKIP(var, tag)                                   \
  absl::StatusOr<std::unique_ptr<RunCgroup>> var##_or =          \
      RunCgroup::Create(tag);                                    \
  if (!var##_or.ok()) {                                          \
    GTEST_SKIP() << "no run cgroup here: " << var##_or.status(); \
  }                                                              \
  std::unique_ptr<RunCgroup> var = *std::move(var##_or)

// Once the machine gave one, every later run of the test must have one.
#define MAKE(var, tag)                                  \
  absl::StatusOr<std::unique_ptr<RunCgroup>> var##_or = \
      RunCgroup::Create(tag);                           \
  ASSERT_TRUE(var##_or.ok()) << var##_or.status();      \
  std::unique_ptr<RunCgroup> var = *std::move(var##_or)

// What a klaunch started under `unshare --pid` sees of a run of this
// namespace: the PID in its name belongs to no process it can find. Its
// sweep must still leave the run alone while the run is being set up and
// is empty (CMD has not joined yet).
TEST(RunCgroup, ASweepFromAnotherPidNamespaceLeavesALiveEmptyRun) {
  MAKE_OR_SKIP(live, Tag("live"));
  ASSERT_TRUE(Exists(live->dir()));
  const pid_t test = getpid();
  const pid_t outer = fork();
  ASSERT_GE(outer, 0);
  if (outer == 0) {
    if (unshare(CLONE_NEWPID) != 0) _exit(77);
    const pid_t inner = fork();  // the namespace's first process
    if (inner < 0) _exit(3);
    if (inner == 0) {
      // The run's klaunch (this test) is not to be found from here.
      if (kill(test, 0) == 0 || errno != ESRCH) _exit(4);
      absl::StatusOr<std::unique_ptr<RunCgroup>> other =
          RunCgroup::Create(absl::StrCat("1-", getpid(), "-sweeper"));
      _exit(other.ok() ? 0 : 5);
    }
    int status = 0;
    if (waitpid(inner, &status, 0) != inner) _exit(6);
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 7);
  }
  int status = 0;
  ASSERT_EQ(waitpid(outer, &status, 0), outer);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) {
    GTEST_SKIP() << "no pid namespace here (unshare failed)";
  }
  ASSERT_EQ(WEXITSTATUS(status), 0) << "the sweeper in the namespace failed";
  EXPECT_TRUE(Exists(live->dir()))
      << "a klaunch in another pid namespace removed a live run's cgroup";
}

// The same from this namespace: a run whose name holds the PID of a
// process that is gone is still alive while it is held.
TEST(RunCgroup, ARunIsKeptWhileHeldWhateverPidItsNameHolds) {
  const pid_t gone = fork();
  ASSERT_GE(gone, 0);
  if (gone == 0) _exit(0);
  ASSERT_EQ(waitpid(gone, nullptr, 0), gone);
  MAKE_OR_SKIP(live, absl::StrCat("1-", gone, "-held"));
  MAKE(next, Tag("next"));
  EXPECT_TRUE(Exists(live->dir()));
}

// A run nobody holds (its klaunch was killed) and no process is left in
// is removed by the next run's start, with its chains' cgroups, even when
// the PID in its name is a live process's.
TEST(RunCgroup, AnEmptyRunNobodyHoldsIsRemovedWithItsChains) {
  MAKE_OR_SKIP(probe, Tag("probe"));
  const std::string stale =
      absl::StrCat(Parent(probe->dir()), "/klaunch-1-", getpid(), "-stale");
  ASSERT_EQ(mkdir(stale.c_str(), 0755), 0) << strerror(errno);
  ASSERT_EQ(mkdir((stale + "/s-0").c_str(), 0755), 0) << strerror(errno);
  MAKE(next, Tag("next"));
  EXPECT_FALSE(Exists(stale + "/s-0"));
  EXPECT_FALSE(Exists(stale));
  rmdir((stale + "/s-0").c_str());
  rmdir(stale.c_str());
}

// Another user cannot open a run's directory, so cannot hold its lock
// (which would keep the next run from its cgroup, or a stale one forever).
TEST(RunCgroup, AnotherUserCannotOpenARunsDirectory) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to become another user";
  MAKE_OR_SKIP(live, Tag("private"));
  const pid_t other = fork();
  ASSERT_GE(other, 0);
  if (other == 0) {
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(77);
    const int fd = open(live->dir().c_str(), O_RDONLY | O_DIRECTORY);
    _exit(fd >= 0 ? 1 : errno == EACCES ? 0 : 2);
  }
  int status = 0;
  ASSERT_EQ(waitpid(other, &status, 0), other);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) GTEST_SKIP() << "cannot become nobody";
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "nobody opened the run's cgroup directory (1) or failed otherwise";
}

// A cgroup klaunch did not name is not klaunch's to remove.
TEST(RunCgroup, ACgroupNamedOtherwiseIsNotRemoved) {
  MAKE_OR_SKIP(probe, Tag("probe"));
  const std::string other =
      absl::StrCat(Parent(probe->dir()), "/klaunch-notours");
  ASSERT_EQ(mkdir(other.c_str(), 0755), 0) << strerror(errno);
  MAKE(next, Tag("next"));
  EXPECT_TRUE(Exists(other));
  rmdir(other.c_str());
}

// Runs starting while other klaunches sweep (each start sweeps): a sweep
// may take the new directory between its mkdir and its lock, and two
// sweeps may lock the same directory one after the other, the second after
// the first removed it and the run made it again. Every start must still
// end with its directory there and held.
TEST(RunCgroup, ARunStartingBesideSweepsAlwaysHasItsDirectory) {
  MAKE_OR_SKIP(probe, Tag("probe"));
  probe.reset();
  const pid_t test = getpid();
  std::vector<pid_t> sweepers;
  const absl::Cleanup stop = [&sweepers] {
    for (pid_t p : sweepers) kill(p, SIGKILL);
    for (pid_t p : sweepers) waitpid(p, nullptr, 0);
  };
  for (int k = 0; k < 3; ++k) {
    const pid_t sweeper = fork();
    ASSERT_GE(sweeper, 0);
    if (sweeper == 0) {
      // Never outlives the test, however it ends.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      for (int i = 0; getppid() == test; ++i) {
        RunCgroup::Create(absl::StrCat("1-", getpid(), "-s", i)).IgnoreError();
      }
      _exit(0);
    }
    sweepers.push_back(sweeper);
  }
  int missing = 0;
  for (int i = 0; i < 2000; ++i) {
    absl::StatusOr<std::unique_ptr<RunCgroup>> run =
        RunCgroup::Create(Tag(absl::StrCat("r", i)));
    ASSERT_TRUE(run.ok()) << run.status();
    usleep(200);  // while it is empty, as before CMD joins
    if (!Exists((*run)->dir())) ++missing;
  }
  EXPECT_EQ(missing, 0) << "runs whose cgroup a sweep removed";
}

// Two sweeps lock the same stale directory, one after the other: the
// first removes it, a new run makes its own under the same name, and the
// second's lock, on the removed one, must not remove the new run's.
TEST(RunCgroup, ASweepLateToALockDoesNotRemoveTheRunMadeAgainThere) {
  MAKE_OR_SKIP(probe, Tag("probe"));
  const std::string parent = Parent(probe->dir());
  const std::string name = absl::StrCat("klaunch-", Tag("again"));
  const std::string path = parent + "/" + name;
  ASSERT_EQ(mkdir(path.c_str(), 0700), 0) << strerror(errno);
  // The late sweep has opened the stale directory, not yet locked it.
  const int late = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(late, 0);
  ASSERT_EQ(rmdir(path.c_str()), 0);  // the first sweep's removal
  MAKE(run, Tag("again"));
  ASSERT_EQ(run->dir(), path);
  ASSERT_EQ(flock(late, LOCK_EX | LOCK_NB), 0);  // on the removed one
  EXPECT_FALSE(internal::RemoveStaleRun(parent, name.c_str(), late));
  EXPECT_TRUE(Exists(path)) << "a late sweep removed a live run's cgroup";
  close(late);
}

// A name someone took already (or whose lock someone holds) is left to
// them: the run takes the next.
TEST(RunCgroup, ARunWhoseNameIsTakenTakesTheNext) {
  MAKE_OR_SKIP(probe, Tag("probe"));
  const std::string taken =
      absl::StrCat(Parent(probe->dir()), "/klaunch-", Tag("taken"));
  ASSERT_EQ(mkdir(taken.c_str(), 0700), 0) << strerror(errno);
  const int fd = open(taken.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_SH), 0);
  {
    MAKE(run, Tag("taken"));
    EXPECT_EQ(run->dir(), taken + ".1");
    EXPECT_TRUE(Exists(run->dir()));
    EXPECT_TRUE(Exists(taken)) << "a held directory was removed";
  }
  close(fd);
  rmdir(taken.c_str());
}

}  // namespace
}  // namespace klaunch
