#include "core/static_names.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"

namespace klaunch {

std::vector<IpAddress> StaticAddresses(absl::string_view name,
                                       absl::string_view hosts) {
  std::vector<IpAddress> out;
  auto add = [&](const IpAddress& a) {
    if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  };
  if (name.empty()) return out;
  if (name == "localhost" || absl::EndsWith(name, ".localhost")) {
    add(*IpAddress::Parse("127.0.0.1"));
    add(*IpAddress::Parse("::1"));
  }
  // hosts(5): an address, then its names, blank-separated; `#` to the end
  // of the line is a comment; names match without regard to case.
  for (absl::string_view line : absl::StrSplit(hosts, '\n')) {
    line = line.substr(0, line.find('#'));
    std::vector<absl::string_view> fields =
        absl::StrSplit(line, absl::ByAnyChar(" \t\r"), absl::SkipEmpty());
    if (fields.size() < 2) continue;
    // A zone (fe80::1%eth0) names an interface the rule cannot: skipped.
    const std::optional<IpAddress> address = IpAddress::Parse(fields[0]);
    if (!address) continue;
    for (size_t i = 1; i < fields.size(); ++i) {
      absl::string_view alias = fields[i];
      if (absl::EndsWith(alias, ".")) alias.remove_suffix(1);
      if (absl::EqualsIgnoreCase(alias, name)) {
        add(*address);
        break;
      }
    }
  }
  return out;
}

}  // namespace klaunch
