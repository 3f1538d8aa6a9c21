// The environment a sandboxed program starts with: only the variables the
// policy keeps (`env.keep`, globs over names) or sets (`env.set`, which wins).
//
// The launcher adds its own (the shim's configuration, LD_PRELOAD) after
// this; this module knows nothing of them.

#ifndef KLAUNCH_CORE_ENVIRONMENT_H_
#define KLAUNCH_CORE_ENVIRONMENT_H_

#include <string>
#include <vector>

#include "core/policy.h"

namespace klaunch {

// `environ`-style "NAME=value" strings in, the same out, in input order with
// set variables after the kept ones.
std::vector<std::string> BuildEnvironment(
    const Policy& policy, const std::vector<std::string>& current);

}  // namespace klaunch

#endif  // KLAUNCH_CORE_ENVIRONMENT_H_
