// The run's reaper: a small process of klaunch's own, outside the sandbox
// (no seccomp filter, no Landlock), that is the parent of CMD and the
// subreaper of every process of the run, and ends them all when the run
// ends: normally, at --timeout, or because klaunch itself died (it holds
// klaunch's end of a pipe, which the kernel closes then).
//
//   Reaper::Options o;
//   o.cgroup = run_cgroup.get();        // or null: ended by the tree
//   auto reaper = Reaper::Start(o, [&] { /* in CMD's child */ });
//   std::optional<int> status = (*reaper)->WaitCmd(timeout_ms);
//   int killed = (*reaper)->EndRun(grace_ms);
//
// With the run's cgroup (run_cgroup.h), ending the run is exact and
// atomic: SIGTERM to each process in it, then cgroup.kill. Without it, the
// reaper walks its own descendants in /proc (a process whose main thread
// exited is one of them while any thread runs) until none is left.
//
// klaunch is never the parent of a process of the run, so that a thread of
// its supervisor can trace an exec (supervise_exec.cc) without klaunch's
// own waits taking the stops. The reaper and CMD's child are forked from
// klaunch, which runs threads: nothing in them allocates or takes a lock.
// The reaper ignores the terminal's signals and SIGTERM: only the end of
// the run, or of klaunch, ends it.

#ifndef KLAUNCH_LAUNCHER_REAPER_H_
#define KLAUNCH_LAUNCHER_REAPER_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace klaunch {

class RunCgroup;

class Reaper {
 public:
  struct Options {
    // The run's cgroup, which CMD's child joins before it runs anything;
    // null: the run is ended by the process tree.
    const RunCgroup* cgroup = nullptr;
    // When klaunch goes away, leave the run's processes running.
    bool keep_orphans = false;
  };

  // Forks the reaper, which forks CMD's child and calls `child` there (it
  // must not return; it may only do what is async-signal-safe). Returns
  // once CMD's child exists.
  static absl::StatusOr<std::unique_ptr<Reaper>> Start(
      const Options& options, const std::function<void()>& child);
  // Lets the reaper go: it ends the run unless keep_orphans, then exits;
  // waits for it.
  ~Reaper();

  pid_t pid() const { return pid_; }
  pid_t cmd() const { return cmd_; }

  // Waits up to `timeout_ms` (-1: for ever) for CMD to end: its wait
  // status, or nothing when the time passed first.
  std::optional<int> WaitCmd(int64_t timeout_ms);

  // Ends every process of the run: SIGTERM, then SIGKILL to those left
  // after `grace_ms`. Returns how many needed SIGKILL.
  int EndRun(int64_t grace_ms);

 private:
  Reaper(pid_t pid, pid_t cmd, int to_reaper, int from_reaper)
      : pid_(pid), cmd_(cmd), to_(to_reaper), from_(from_reaper) {}
  // The next message from the reaper; false when it is gone.
  bool Read(int64_t timeout_ms, int32_t* kind, int64_t* value);

  pid_t pid_, cmd_;
  int to_, from_;
  std::optional<int> cmd_status_;
};

}  // namespace klaunch

#endif  // KLAUNCH_LAUNCHER_REAPER_H_
