// `klaunch [OPTIONS] -- CMD [ARGS...]`: runs CMD under the policy.
//
// Loads and validates the policy (a bad one never starts CMD), writes its
// effective form into a per-run directory the sandbox cannot touch, builds
// CMD's environment (the policy's env plus the shim's configuration and
// LD_PRELOAD), judges CMD itself, runs it as a child while forwarding
// signals, reaps (and by default ends) the descendants that outlive it, and
// prints the summary. Returns klaunch's exit status.

#ifndef KLAUNCH_LAUNCHER_RUN_COMMAND_H_
#define KLAUNCH_LAUNCHER_RUN_COMMAND_H_

#include "launcher/options.h"

namespace klaunch {

// Exit statuses of klaunch itself, as env(1) and timeout(1) use them.
inline constexpr int kExitTimedOut = 124;  // --timeout, as timeout(1)
inline constexpr int kExitKlaunchFailed = 125;
// A usage error, or input it cannot use, in a subcommand (check, explain,
// suggest, doctor). Running a program says 125 instead: 2 may be CMD's own.
inline constexpr int kExitUsage = 2;
inline constexpr int kExitCannotRun = 126;
inline constexpr int kExitNotFound = 127;

int RunProgram(const RunOptions& options);

}  // namespace klaunch

#endif  // KLAUNCH_LAUNCHER_RUN_COMMAND_H_
