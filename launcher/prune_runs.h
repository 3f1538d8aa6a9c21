// The run directories under the state directory (`runs/TIME-PID-XXXXXX`,
// each holding a run's effective policy, sockets and, without --log, its
// audit log) are kept for the last kKeepRuns runs: each run removes the
// oldest beyond that while its program runs (PruneLater). A run holds its own
// directory for its whole life (a shared flock on `lock` inside it), and a
// held directory is never removed, however old: a long run keeps the policy
// its processes load.
//
// This module owns the holding and the pruning; run_command.cc makes the
// directories.

#ifndef KLAUNCH_LAUNCHER_PRUNE_RUNS_H_
#define KLAUNCH_LAUNCHER_PRUNE_RUNS_H_

#include <cstddef>
#include <string>
#include <thread>

namespace klaunch {

inline constexpr size_t kKeepRuns = 100;

// $KLAUNCH_KEEP_RUNS when it is a number of at least 1, else kKeepRuns.
size_t RunsToKeep();

// Holds `dir` as in use until the returned descriptor is closed (-1 when
// it cannot: the directory is then only as safe as its age).
int HoldRunDir(const std::string& dir);

// Removes the oldest directories under `runs` (by name: the time comes
// first) beyond the newest `keep`, but those a run holds. Returns how many
// it removed.
size_t PruneRuns(const std::string& runs, size_t keep);

// Prunes `runs` for one run without making its program wait: Start() prunes
// on a thread of its own at the idle scheduling class, since removing one
// run's files (freeing its log's blocks) takes about a millisecond here.
// Call Start() only where klaunch forks no more: a fork waits for the
// allocator's locks, which an idle thread could hold a long time on a busy
// machine. The destructor waits for that thread; when Start() was never
// called (the run failed before its program started) or could make no
// thread, it prunes there and then.
class PruneLater {
 public:
  PruneLater(std::string runs, size_t keep);
  ~PruneLater();
  PruneLater(const PruneLater&) = delete;
  PruneLater& operator=(const PruneLater&) = delete;

  void Start();

 private:
  const std::string runs_;
  const size_t keep_;
  std::thread thread_;
};

}  // namespace klaunch

#endif  // KLAUNCH_LAUNCHER_PRUNE_RUNS_H_
