// Fuzzes core/audit.h's writer and core/audit_read.h's reader: whatever
// bytes the fields of a record hold, the line is one line of valid JSON
// (nlohmann/json's strict reader, which shares no code with the writer,
// accepts it) and reads back to exactly those bytes.
//
// Input: fields separated by NUL (a name never holds one): exe, target,
// message, command, program, cwd, then argv's words.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "core/audit.h"
#include "core/audit_read.h"

namespace klaunch {
namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace
}  // namespace klaunch

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using klaunch::AuditEvent;
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> parts = absl::StrSplit(input, '\0');
  AuditEvent e;
  e.time = "2026-12-05T00:00:00.000Z";
  e.pid = 1;
  e.op = "start";
  e.verdict = "info";
  e.layer = "launcher";
  std::string AuditEvent::*const fields[] = {
      &AuditEvent::exe,     &AuditEvent::target,  &AuditEvent::message,
      &AuditEvent::command, &AuditEvent::program, &AuditEvent::cwd};
  size_t i = 0;
  for (std::string AuditEvent::*f : fields) {
    if (i < parts.size()) e.*f = parts[i++];
  }
  for (; i < parts.size(); ++i) e.argv.push_back(parts[i]);

  const std::string line = klaunch::FormatAuditLine(e);
  klaunch::Check(line.find('\n') == line.size() - 1);
  klaunch::Check(
      nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false)
          .is_object());
  const std::optional<AuditEvent> back = klaunch::ParseAuditLine(line);
  klaunch::Check(back.has_value());
  for (std::string AuditEvent::*f : fields) klaunch::Check(e.*f == (*back).*f);
  klaunch::Check(back->argv == e.argv);
  return 0;
}
