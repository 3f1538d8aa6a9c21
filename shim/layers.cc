#include "shim/layers.h"

#include <cstring>

#include "core/landlock.h"
#include "shim/sys.h"

namespace klaunch::shim {

std::string StackSectionLayers(const Config& config, const Policy& policy,
                               absl::Span<const int> sections) {
  if (config.landlock_abi <= 0 || sections.empty()) return "";
  // The same extras as klaunch's own ruleset: the shim's opens of them are
  // its own, not the program's.
  const LandlockExtras extras{{config.policy_file, config.shim_path}};
  absl::StatusOr<std::vector<int>> fds;
  {
    InsideShim inside;
    fds = CreateSectionRulesets(policy, sections, config.landlock_abi, extras);
  }
  if (!fds.ok()) return std::string(fds.status().message());
  std::string why;
  for (int fd : *fds) {
    // RestrictSelf closes the ruleset once it is in force.
    const int r = why.empty() ? RestrictSelf(fd) : -ECANCELED;
    if (r == 0) continue;
    if (why.empty())
      why = std::string("landlock_restrict_self: ") + strerror(-r);
    sys_close(fd);
  }
  return why;
}

}  // namespace klaunch::shim
