// The Landlock rulesets of program sections (core/programs.h) the shim
// stacks on its own process: before an exec into a section (shim/exec.cc),
// and as a process starts whose chain holds sections no one stacked for it
// (shim/state.cc): glibc's posix_spawn, system and popen exec inside a child
// the shim never runs in, and the supervisor enters sections at execs the
// shim does not make.
//
// KLAUNCH_LANDLOCKED names the chain whose rulesets a process holds; what
// it lacks of KLAUNCH_PROGRAMS is stacked (SectionsNotHeld,
// core/programs.h). A program that forges it with a direct exec leaves its
// child its own rulesets (they are inherited), never fewer.
//
// Not here: the policy's own ruleset and CMD's sections (klaunch applies
// them before it runs CMD), the plans (core/landlock.h).

#ifndef KLAUNCH_SHIM_LAYERS_H_
#define KLAUNCH_SHIM_LAYERS_H_

#include <string>

#include "absl/types/span.h"
#include "core/policy.h"

namespace klaunch::shim {

// Restricts this thread, and all it starts, with one ruleset per section of
// `sections`, in turn. Empty on success, else why a ruleset could not be
// made or enforced (then none after it is). Allocates: not for a signal
// handler.
std::string StackSectionLayers(const Policy& policy,
                               absl::Span<const int> sections, int abi,
                               const std::string& policy_file,
                               const std::string& shim_path,
                               const std::string& audit_log);

}  // namespace klaunch::shim

#endif  // KLAUNCH_SHIM_LAYERS_H_
