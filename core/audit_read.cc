#include "core/audit_read.h"

#include <nlohmann/json.hpp>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace klaunch {
namespace {

using nlohmann::json;

// Reads `name` into `out`, preferring its exact bytes; false if either is
// there with the wrong type or the bytes do not decode.
bool ReadString(const json& o, const std::string& name, std::string* out) {
  const auto bytes = o.find(absl::StrCat(name, kBytesSuffix));
  if (bytes != o.end()) {
    return bytes->is_string() &&
           absl::Base64Unescape(bytes->get_ref<const std::string&>(), out);
  }
  const auto it = o.find(name);
  if (it == o.end()) return true;
  if (!it->is_string()) return false;
  *out = it->get_ref<const std::string&>();
  return true;
}

template <typename T>
bool ReadNumber(const json& o, const char* name, T* out) {
  const auto it = o.find(name);
  if (it == o.end()) return true;
  if (!it->is_number_integer()) return false;
  *out = it->get<T>();
  return true;
}

bool ReadArgv(const json& o, std::vector<std::string>* out) {
  const auto bytes = o.find(absl::StrCat("argv", kBytesSuffix));
  const bool exact = bytes != o.end();
  const auto it = exact ? bytes : o.find("argv");
  if (it == o.end()) return true;
  if (!it->is_array()) return false;
  for (const json& v : *it) {
    if (!v.is_string()) return false;
    const std::string& s = v.get_ref<const std::string&>();
    std::string decoded;
    if (exact && !absl::Base64Unescape(s, &decoded)) return false;
    out->push_back(exact ? decoded : s);
  }
  return true;
}

}  // namespace

std::optional<AuditEvent> ParseAuditLine(absl::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) {
    line.remove_suffix(1);
  }
  const json o = json::parse(line.begin(), line.end(), /*cb=*/nullptr,
                             /*allow_exceptions=*/false);
  if (!o.is_object() || !o.contains("pid") || !o.contains("op") ||
      !o.contains("verdict")) {
    return std::nullopt;
  }
  AuditEvent e;
  const std::pair<const char*, std::string*> strings[] = {
      {"time", &e.time},
      {"exe", &e.exe},
      {"op", &e.op},
      {"target", &e.target},
      {"access", &e.access},
      {"verdict", &e.verdict},
      {"rule", &e.rule},
      {"message", &e.message},
      {"layer", &e.layer},
      {"command", &e.command},
      {"program", &e.program},
      {"run", &e.run},
      {"cwd", &e.cwd},
      {"policy", &e.policy},
      {"policy_sha256", &e.policy_sha256},
      {"mode", &e.mode}};
  for (const auto& [name, out] : strings) {
    if (!ReadString(o, name, out)) return std::nullopt;
  }
  if (!ReadNumber(o, "pid", &e.pid) ||
      !ReadNumber(o, "exit_code", &e.exit_code) ||
      !ReadNumber(o, "signal", &e.signal) ||
      !ReadNumber(o, "duration_ms", &e.duration_ms) ||
      !ReadNumber(o, "refusals", &e.refusals) || !ReadArgv(o, &e.argv)) {
    return std::nullopt;
  }
  return e;
}

}  // namespace klaunch
