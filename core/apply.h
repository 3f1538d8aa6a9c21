// What happens with a Decision, the same in every layer that judges a call:
// the shim (shim/judge.cc), the seccomp supervisor (supervisor/
// supervise_judge.cc) and klaunch judging CMD itself (launcher/
// run_command.cc). An allowed call goes on, recorded under --trace where
// the call is one traced (core/audit.h's IsTracedCall); an "ask" is put to
// the user where a question can be put and the run is not an audit
// (core/ask.h's AskOrExplain); what is still refused is recorded, and goes
// on only in audit mode.
//
// Each layer implements JudgingLayer: where its records go, whom it asks and
// who is asking. What it does with a "no" is its own (the shim sets errno,
// the supervisor answers the kernel, klaunch exits 126). Nothing here
// allocates on the allow path, so the shim may apply a decision in a
// signal handler.

#ifndef KLAUNCH_CORE_APPLY_H_
#define KLAUNCH_CORE_APPLY_H_

#include <string>

#include "absl/strings/string_view.h"
#include "core/ask.h"
#include "core/engine.h"

namespace klaunch {

// The call a decision is about, as the audit record names it.
struct JudgedCall {
  absl::string_view op;       // "open", "execve", "rename", ...
  absl::string_view target;   // the path, executable or address judged
  absl::string_view access;   // "read", "write", "exec", "link", "connect"
  absl::string_view command;  // an exec's command line; empty otherwise
  // False for a second judgement of a call already judged (a directory's
  // move), which --trace does not record again.
  bool trace = true;
};

class JudgingLayer {
 public:
  virtual bool audit() const = 0;    // mode = "audit": nothing is refused
  virtual bool tracing() const = 0;  // --trace: allowed calls are recorded
  // Who puts a question to the user, or nullptr where none can be put.
  virtual Asker* asker() = 0;
  // The asking process's executable and its chain of program sections
  // ("0,2"), asked for only when a question is put.
  virtual void Identify(std::string* exe, std::string* chain) = 0;
  // Records `d` about `call`: an allowed one under --trace, a refused one
  // (or, in audit mode, one that would have been).
  virtual void Record(const JudgedCall& call, const Decision& d) = 0;

 protected:
  ~JudgingLayer() = default;
};

// Applies `*d` to `call` in `layer`; true when the call may go on. A
// question's refusal is explained in `d->message`.
bool ApplyDecision(const JudgedCall& call, Decision* d, JudgingLayer& layer);

}  // namespace klaunch

#endif  // KLAUNCH_CORE_APPLY_H_
