// Program sections (`[programs."NAME"]`): which sections an exec enters, the
// policy a section judges by, and the load-time check that a section only
// narrows.
//
// A process runs under a chain of sections (indices into Policy::programs,
// outermost first); executing a program a section names appends that
// section. The Engine (engine.h) judges a chain as the intersection of the
// policy and each section's policy. This module decides nothing per call
// and knows nothing of how a chain reaches a process (the shim's
// environment, the supervisor's listeners: docs/design.md).

#ifndef KLAUNCH_CORE_PROGRAMS_H_
#define KLAUNCH_CORE_PROGRAMS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/policy.h"

namespace klaunch {

class Engine;

// The policy a section's second judgement uses: `policy` with the keys the
// section names replaced (its deny lists added to the policy's). Naming any
// one command allow list replaces all three, and a section that lists
// commands refuses the unlisted ones unless it says otherwise; likewise a
// section that names its own `filesystem.write` refuses unlisted writes
// unless it says `unlisted_writes = "ask"` itself.
Policy SectionPolicy(const Policy& policy, const ProgramSection& section);

// Fails, naming the section's key and place, when `section` would admit
// something `policy` (compiled as `engine`) refuses: a read or write root
// the policy does not give, a writable workspace the policy keeps
// read-only, a host or address no network rule of the policy covers, an
// abstract socket, a command or an `unlisted` the policy does not allow.
absl::Status CheckNarrows(const Engine& engine, const ProgramSection& section);

// `chain` with the sections that an exec of this file enters appended, in
// the policy's order, each at most once. A section named by a bare name is
// entered when any of the names (the executable as named, its final target, the
// links between) has that base name; one named by a path when one of them
// is that path. Returns `chain` unchanged when nothing new is entered.
std::vector<int> EnterSections(const Policy& policy,
                               absl::Span<const int> chain,
                               absl::string_view executable,
                               absl::string_view target,
                               absl::Span<const absl::string_view> links = {});

// "0,2" and back; nullopt for text that is not such a list or names a
// section the policy lacks.
std::string ChainText(absl::Span<const int> chain);
std::optional<std::vector<int>> ParseChain(const Policy& policy,
                                           absl::string_view text);

// The sections of `chain` that a process holding the Landlock rulesets of
// the chain `held` names (its text, as ChainText writes it) still lacks, in
// `chain`'s order. Text that is no chain of the policy, or names a section
// `chain` does not hold, counts for nothing held: all of `chain`.
std::vector<int> SectionsNotHeld(const Policy& policy,
                                 absl::Span<const int> chain,
                                 absl::string_view held);

// True when the variable `name` passes every `env.keep` of the sections in
// `chain` that narrow the environment.
bool ChainKeepsVariable(const Policy& policy, absl::Span<const int> chain,
                        absl::string_view name);

}  // namespace klaunch

#endif  // KLAUNCH_CORE_PROGRAMS_H_
