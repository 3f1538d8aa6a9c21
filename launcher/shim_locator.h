// Where the shim is: next to klaunch in the build tree (build/shim/), or in
// the library directory after `meson install` (libdir/klaunch/).

#ifndef KLAUNCH_LAUNCHER_SHIM_LOCATOR_H_
#define KLAUNCH_LAUNCHER_SHIM_LOCATOR_H_

#include <string>

#include "absl/status/statusor.h"

namespace klaunch {

// kNotFound naming every place looked at when there is no shim.
absl::StatusOr<std::string> FindShim();

}  // namespace klaunch

#endif  // KLAUNCH_LAUNCHER_SHIM_LOCATOR_H_
