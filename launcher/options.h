// The command line of `klaunch [OPTIONS] -- CMD [ARGS...]`, parsed.
//
// Parsing only: no file is read and nothing is checked against the system
// here; the run (run_command.h) does that.

#ifndef KLAUNCH_LAUNCHER_OPTIONS_H_
#define KLAUNCH_LAUNCHER_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace klaunch {

// "90s", "10m", "1h", "1.5s", "250ms" or a bare number of seconds, as
// timeout(1) reads them: milliseconds, or an error naming `option`.
absl::StatusOr<int64_t> ParseDuration(const std::string& option,
                                      const std::string& text);

struct RunOptions {
  std::string policy_file;  // --policy
  std::string preset;       // --preset (default workspace-write)
  bool audit = false;       // --audit
  std::string log_file;     // --log
  bool quiet = false;       // --quiet
  bool verbose = false;     // --verbose
  bool trace = false;       // --trace: allowed writes, execs, connects recorded
  bool journal = false;     // --journal: records to the system journal too
  bool keep_orphans = false;
  // --fail-on-refusal: exit 1 when CMD exited 0 but a call was refused (in
  // audit mode: would have been).
  bool fail_on_refusal = false;
  // --timeout: the whole tree gets SIGTERM when it passes (0: none), then
  // SIGKILL after --kill-after; klaunch exits 124.
  int64_t timeout_ms = 0;
  int64_t kill_after_ms = 5000;
  bool ask = false;                  // --ask: unlisted commands are asked about
  bool no_seccomp = false;           // --no-seccomp: the shim alone judges
  bool no_landlock = false;          // --no-landlock: no kernel floor
  bool require_landlock = false;     // --require landlock: 125 without it
  std::vector<std::string> command;  // after the options (or after --)
};

// Fails with kInvalidArgument naming the option when the line is wrong.
absl::StatusOr<RunOptions> ParseRunOptions(
    const std::vector<std::string>& args);

extern const char kUsage[];

}  // namespace klaunch

#endif  // KLAUNCH_LAUNCHER_OPTIONS_H_
