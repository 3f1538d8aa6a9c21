// The summary klaunch prints at exit: how many calls were refused (or would
// have been, in audit mode) by kind, the most refused targets, and where the
// audit log is.

#ifndef KLAUNCH_LAUNCHER_SUMMARY_H_
#define KLAUNCH_LAUNCHER_SUMMARY_H_

#include <cstdint>
#include <string>

namespace klaunch {

// What a log holds: its refusals (would-be refusals in audit mode) and the
// lines that are no whole record (a torn write).
struct LogCounts {
  int refusals = 0;
  int unreadable = 0;
};

// The text to print for the run `run`'s records in the log at `log_path`
// ("" when nothing was refused and not `verbose`; other runs appended to the
// same file are not counted); `counts`, when given, receives what it
// counted. Only the log from byte `from` on is read: the run's records all
// follow its start, and a log many runs (or --trace) have grown is not
// read again at every exit.
std::string Summarize(const std::string& log_path, const std::string& run,
                      uint64_t from, bool audit, bool verbose,
                      LogCounts* counts = nullptr);

}  // namespace klaunch

#endif  // KLAUNCH_LAUNCHER_SUMMARY_H_
