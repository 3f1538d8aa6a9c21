// The run's cgroup: every process of a run lives in it or in a cgroup below
// it (the chains of program sections, chain_cgroups.h), so that klaunch
// knows the run's processes exactly and ends them all at once
// (cgroup.kill), whatever they did to the process tree (a main thread that
// exited, a double fork, a new session), and whether klaunch ended them or
// its reaper did after klaunch itself was killed (reaper.h).
//
// The program cannot leave it: klaunch denies it the run's directory and
// every cgroup.procs and cgroup.threads of the tree (OwnEntries), and the
// seccomp filter refuses clone3 (CLONE_INTO_CGROUP). Without a writable
// cgroup v2 tree (a user without a delegated subtree, a read-only
// /sys/fs/cgroup, a container) Create fails and the reaper ends the run by
// the process tree instead.
//
// Owns the directory: made under klaunch's own cgroup, named by the run,
// locked (flock) for as long as this lives, and removed once empty, with
// those of earlier runs nobody holds the lock of (their klaunch is gone).

#ifndef KLAUNCH_SUPERVISOR_RUN_CGROUP_H_
#define KLAUNCH_SUPERVISOR_RUN_CGROUP_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace klaunch {

// The cgroup v2 path /proc/PID/cgroup gives for `pid` ("/a/b"; "self" for
// the caller); "" when none or when the file cannot be read whole.
std::string Cgroup2Of(const std::string& pid);

class RunCgroup {
 public:
  // Makes the run's directory (named by `tag`, or `tag`.N when that name
  // is taken or its lock held by someone else) under klaunch's cgroup, and
  // first removes the empty ones of runs whose klaunch is gone.
  static absl::StatusOr<std::unique_ptr<RunCgroup>> Create(
      const std::string& tag);
  // Removes the directory once no process is left in it (its chains'
  // directories are chain_cgroups.h's to remove first).
  ~RunCgroup();

  const std::string& mount() const { return mount_; }
  // Absolute, and as /proc/PID/cgroup names it ("/a/klaunch-T").
  const std::string& dir() const { return dir_; }
  const std::string& relative() const { return relative_; }
  std::string procs() const { return dir_ + "/cgroup.procs"; }
  std::string kill() const { return dir_ + "/cgroup.kill"; }

  // What the program must be denied: the run's directory and every
  // cgroup.procs and cgroup.threads of the tree.
  std::vector<std::string> OwnEntries() const;

  // True when process `pid` lives in the run's cgroup or one below it.
  bool Holds(pid_t pid) const;

 private:
  RunCgroup(std::string mount, std::string dir, std::string relative, int held)
      : mount_(std::move(mount)),
        dir_(std::move(dir)),
        relative_(std::move(relative)),
        held_(held) {}

  const std::string mount_, dir_, relative_;
  // The flock on dir_ that tells other klaunches' sweeps the run is alive
  // (close-on-exec: CMD's child holds it until its exec, the program
  // never).
  const int held_;
};

namespace internal {

// A sweep's removal of the run directory `name` under `parent` and its
// chains' directories, whose lock it holds on `held`: only when `held` is
// still the directory the name names (another sweep may have removed the
// one it locked, and a new run made its own under the same name). True
// when removed. Declared here for the tests.
bool RemoveStaleRun(const std::string& parent, const char* name, int held);

}  // namespace internal
}  // namespace klaunch

#endif  // KLAUNCH_SUPERVISOR_RUN_CGROUP_H_
