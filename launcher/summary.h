// The summary klaunch prints at exit: how many calls were refused (or would
// have been, in audit mode) by kind, the most refused targets, and where the
// audit log is.

#ifndef KLAUNCH_LAUNCHER_SUMMARY_H_
#define KLAUNCH_LAUNCHER_SUMMARY_H_

#include <string>

namespace klaunch {

// The text to print for the log at `log_path` ("" when nothing was refused
// and not `verbose`). `unreadable`, when given, receives the number of lines
// that are no whole record (a torn write).
std::string Summarize(const std::string& log_path, bool audit, bool verbose,
                      int* unreadable = nullptr);

}  // namespace klaunch

#endif  // KLAUNCH_LAUNCHER_SUMMARY_H_
