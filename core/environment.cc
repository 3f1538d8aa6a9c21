#include "core/environment.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/path.h"

namespace klaunch {

std::vector<std::string> BuildEnvironment(
    const Policy& policy, const std::vector<std::string>& current) {
  absl::flat_hash_set<std::string> overridden;
  for (const auto& [name, value] : policy.env.set) overridden.insert(name);
  std::vector<std::string> out;
  for (const std::string& var : current) {
    const size_t eq = var.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    const absl::string_view name(var.data(), eq);
    if (overridden.contains(name)) continue;
    for (const Entry& keep : policy.env.keep) {
      if (GlobMatch(keep.value, name)) {
        out.push_back(var);
        break;
      }
    }
  }
  for (const auto& [name, value] : policy.env.set) {
    out.push_back(absl::StrCat(name, "=", value));
  }
  return out;
}

}  // namespace klaunch
