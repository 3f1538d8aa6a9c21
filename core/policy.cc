#include "core/policy.h"

#include "absl/strings/str_cat.h"

namespace klaunch {

const char* const kSystemGroups[12] = {
    "mount",  "namespaces", "modules", "bpf",     "kexec", "reboot",
    "ptrace", "signals",    "devices", "keyring", "ipc",   "raw-sockets"};

bool SystemAllows(const Policy& policy, absl::string_view group) {
  for (const Entry& e : policy.system.allow) {
    if (e.value == group) return true;
  }
  return false;
}

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
