// Which processes belong to the run, for the calls that reach another
// process by pid (signals, limits, priorities: supervise_process.cc).
//
// A process belongs when it descends from the run's root, the process
// every process of the run was started below (klaunch, whose child is
// CMD), as the kernel's process tree says: an orphan is reparented to the
// root, the run's subreaper, and a process cannot leave the tree. The root
// itself and every process outside its tree do not belong.
//
// Nothing here decides or acts; the pid read may be reused by another
// process once the one read has exited (the supervisor says so where it
// matters).

#ifndef KLAUNCH_LAUNCHER_RUN_MEMBERS_H_
#define KLAUNCH_LAUNCHER_RUN_MEMBERS_H_

#include <sys/types.h>

#include <vector>

namespace klaunch {

class RunMembers {
 public:
  explicit RunMembers(pid_t root) : root_(root) {}

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
  const pid_t root_;
};

}  // namespace klaunch

#endif  // KLAUNCH_LAUNCHER_RUN_MEMBERS_H_
