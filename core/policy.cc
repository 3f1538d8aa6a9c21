#include "core/policy.h"

#include "absl/strings/str_cat.h"

namespace klaunch {

absl::string_view ModeName(Mode mode) {
  return mode == Mode::kAudit ? "audit" : "enforce";
}

absl::string_view UnlistedName(Unlisted unlisted) {
  switch (unlisted) {
    case Unlisted::kAllow:
      return "allow";
    case Unlisted::kAsk:
      return "ask";
    case Unlisted::kDeny:
      break;
  }
  return "deny";
}

std::string LocationPrefix(const SourceLocation& where) {
  if (where.line == 0) return "";
  return absl::StrCat(where.file, ":", where.line, ":", where.column, ": ");
}

}  // namespace klaunch
