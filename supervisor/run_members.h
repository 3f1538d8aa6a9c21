// Which processes belong to the run, for the calls that reach another
// process by pid (signals, limits, priorities: supervise_process.cc).
//
// A process belongs when it lives in the run's cgroup (run_cgroup.h), which
// no process of the run can leave; without one, when it descends from the
// run's root, the reaper every process of the run was started below
// (reaper.h), as the kernel's process tree says: an orphan is reparented to
// the reaper, the run's subreaper, and a process cannot leave the tree. The
// root itself, klaunch, and every process outside do not belong.
//
// Nothing here decides or acts; the pid read may be reused by another
// process once the one read has exited (the supervisor says so where it
// matters).

#ifndef KLAUNCH_SUPERVISOR_RUN_MEMBERS_H_
#define KLAUNCH_SUPERVISOR_RUN_MEMBERS_H_

#include <sys/types.h>

#include <vector>

namespace klaunch {

class RunCgroup;

class RunMembers {
 public:
  // `cgroup`: the run's, when there is one (it must outlive this).
  explicit RunMembers(const RunCgroup* cgroup) : cgroup_(cgroup) {}

  // The reaper, once started; before, nothing belongs.
  void SetRoot(pid_t root) { root_ = root; }
  pid_t root() const { return root_; }

  // True when process (thread group) `pid` belongs to the run.
  bool Contains(pid_t pid) const;
  // The thread group of thread `tid`; 0 when it is gone.
  static pid_t ThreadGroupOf(pid_t tid);
  // The members of process group `pgrp`, and whether the group holds any
  // process outside the run.
  std::vector<pid_t> GroupMembers(pid_t pgrp, bool* outsiders) const;
  // Every member of the run.
  std::vector<pid_t> All() const;

 private:
  const RunCgroup* cgroup_;
  pid_t root_ = -1;
};

}  // namespace klaunch

#endif  // KLAUNCH_SUPERVISOR_RUN_MEMBERS_H_
