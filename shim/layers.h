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
#include "shim/state.h"

namespace klaunch::shim {

// Restricts this thread, and all it starts, with one ruleset per section of
// `sections` (of `policy`, the one `config` loaded), in turn, on the
// Landlock ABI `config` names; nothing without one. Empty on success, else
// why a ruleset could not be made or enforced (then none after it is).
// Allocates: not for a signal handler.
std::string StackSectionLayers(const Config& config, const Policy& policy,
                               absl::Span<const int> sections);

}  // namespace klaunch::shim

#endif  // KLAUNCH_SHIM_LAYERS_H_
