// What an exec asks of the policy, whoever judges it: the shim in the
// program (shim/exec.cc) or the supervisor for an exec made without it
// (supervisor/supervise_exec.cc). Each layer finds the program as the
// kernel will (pinning in the program, resolving in the target's /proc),
// judges a command line and reads a script's #! lines its own way; the order
// of the judgements, the program sections entered, a name with no path and
// the dynamic loader run as a program are written here once.
//
// Not here: what a command rule admits (Engine::CheckCommand), a script's
// command line (core/command.h), the sections' own matching
// (core/programs.h), and making the call.

#ifndef KLAUNCH_CORE_EXEC_JUDGE_H_
#define KLAUNCH_CORE_EXEC_JUDGE_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/policy.h"

namespace klaunch {

// The program an exec names, found by a layer.
struct FoundProgram {
  // As named: the path it was run by (its directory resolved, its own
  // name kept), which command rules match first.
  std::string named;
  // The file itself, by the kernel's path of it; empty when it has none
  // the policy can name.
  std::string real;
  // The symlinks between the two, each by its resolved path.
  std::vector<std::string> links;
};

// How a layer finds and judges one exec, each judgement recorded by the
// layer as it records any other (core/apply.h).
class ExecLayer {
 public:
  // Finds what (dirfd, path, flags) names, execveat's way. 0, or the errno
  // the exec fails with (a missing name judged first, core/name_need.h).
  virtual int Find(int dirfd, const char* path, int flags,
                   FoundProgram* found) = 0;
  // Judges the command line `argv` of the program found
  // (Engine::CheckCommand). True when it may go on.
  virtual bool Command(const FoundProgram& program,
                       absl::Span<const absl::string_view> argv) = 0;
  // Judges the #! interpreters of the program the last Find found, as far
  // as the layer follows them: each executable by the path rules, each line
  // the kernel will run (core/command.h) passing the deny rules.
  virtual bool Interpreters(const FoundProgram& program,
                            absl::Span<const absl::string_view> argv) = 0;
  // Refuses an exec of `name` for `why`. True when it may go on (audit).
  virtual bool Refuse(const std::string& name, const char* why) = 0;

 protected:
  ~ExecLayer() = default;
};

// The dynamic loader run as a program may run a loader again: programs
// past this many levels below the call's own are refused with ELOOP (no
// real program needs one, and each is one more exec to judge).
inline constexpr int kMaxLoaderDepth = 2;

// Judges an exec of (dirfd, path, flags) with `argv`: the program's command
// line, then (for the program the call names) its interpreters, then the
// program the dynamic loader runs when it is the loader, judged the same
// way. `chain` gets the program sections entered appended. 0 when it may go
// on, else the errno it fails with (EACCES for a refusal).
int JudgeExecOf(ExecLayer& layer, const Policy& policy, int dirfd,
                const char* path, int flags,
                absl::Span<const absl::string_view> argv,
                std::vector<int>* chain);

}  // namespace klaunch

#endif  // KLAUNCH_CORE_EXEC_JUDGE_H_
