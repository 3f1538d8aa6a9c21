// The run directories under the state directory (`runs/TIME-PID-XXXXXX`,
// each holding a run's effective policy, sockets and, without --log, its
// audit log) are kept for the last kKeepRuns runs: each run, as it starts,
// removes the oldest beyond that. A run holds its own directory for its
// whole life (a shared flock on `lock` inside it), and a held directory is
// never removed, however old: a long run keeps the policy its processes
// load.
//
// This module owns the holding and the pruning; run_command.cc makes the
// directories.

#ifndef KLAUNCH_LAUNCHER_PRUNE_RUNS_H_
#define KLAUNCH_LAUNCHER_PRUNE_RUNS_H_

#include <cstddef>
#include <string>

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

}  // namespace klaunch

#endif  // KLAUNCH_LAUNCHER_PRUNE_RUNS_H_
