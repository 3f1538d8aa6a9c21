#include "launcher/summary.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/audit_read.h"
#include "core/json.h"

namespace klaunch {

std::string Summarize(const std::string& log_path, const std::string& run,
                      uint64_t from, bool audit, bool verbose,
                      LogCounts* counts) {
  std::map<std::string, int> by_kind;
  std::map<std::string, int> by_target;
  int total = 0, unreadable = 0;
  std::ifstream in(log_path);
  in.seekg(static_cast<std::streamoff>(from));
  const std::string run_field = absl::StrCat("\"run\":", JsonString(run));
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    // Another run's whole record needs no parsing; a torn line is counted
    // whoever wrote it.
    if (line.find(run_field) == std::string::npos && line.front() == '{' &&
        line.back() == '}') {
      continue;
    }
    std::optional<AuditEvent> e = ParseAuditLine(line);
    if (!e) {
      ++unreadable;
      continue;
    }
    if (e->run != run) continue;
    if (e->verdict != "deny" && e->verdict != "would_deny") continue;
    ++total;
    ++by_kind[e->access.empty() ? e->op : e->access];
    ++by_target[e->target];
  }
  if (counts != nullptr) *counts = LogCounts{total, unreadable};
  if (total == 0 && unreadable == 0) {
    if (!verbose) return "";
    return absl::StrCat("klaunch: nothing was ",
                        audit ? "found to refuse" : "refused",
                        "; audit log: ", log_path, "\n");
  }
  std::string out = absl::StrCat(
      "klaunch: ", total, total == 1 ? " call " : " calls ",
      audit ? "would have been refused (audit mode)" : "refused", " (");
  bool first = true;
  for (const auto& [kind, n] : by_kind) {
    absl::StrAppend(&out, first ? "" : ", ", kind, " ", n);
    first = false;
  }
  out += ")\n";
  std::vector<std::pair<int, std::string>> top;
  for (const auto& [target, n] : by_target) top.emplace_back(-n, target);
  std::sort(top.begin(), top.end());
  for (size_t i = 0; i < top.size() && i < 5; ++i) {
    absl::StrAppend(&out, "  ", -top[i].first, "  ", top[i].second, "\n");
  }
  if (top.size() > 5)
    absl::StrAppend(&out, "  ... ", top.size() - 5, " more targets\n");
  if (unreadable > 0) {
    absl::StrAppend(&out, "klaunch: ", unreadable,
                    " line(s) of the audit log could not be read\n");
  }
  absl::StrAppend(&out, "klaunch: audit log: ", log_path, "\n");
  return out;
}

}  // namespace klaunch
