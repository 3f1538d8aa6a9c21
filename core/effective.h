// The effective form of a policy: the TOML text of a Policy with its preset
// expanded and every path absolute, so that loading it again (anywhere, with
// any context) yields the same rules under the same names.
//
// `klaunch check` prints it, and the launcher hands it to the shim, which
// must not re-read a file the sandboxed program may be able to edit.

#ifndef KLAUNCH_CORE_EFFECTIVE_H_
#define KLAUNCH_CORE_EFFECTIVE_H_

#include <string>
#include <string_view>

#include "absl/strings/string_view.h"
#include "core/policy.h"

namespace klaunch {

std::string EffectiveToml(const Policy& policy);

// Appends `policy`'s program sections, as the effective form writes them
// (a table per section and key group, paths as loaded), to `out`.
void AppendProgramSections(std::string* out, const Policy& policy);

// A TOML basic string literal holding `text`, quotes included.
std::string TomlQuote(absl::string_view text);

}  // namespace klaunch

#endif  // KLAUNCH_CORE_EFFECTIVE_H_
