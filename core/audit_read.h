// Reading the audit log's lines back (klaunch's summary, `suggest`, tests).
//
// The parsing is a JSON library's (nlohmann/json, Debian's
// nlohmann-json3-dev), so any valid JSON a tool rewrote a record into (jq
// -c, a re-encoding with \u escapes) still reads, and anything that is not
// JSON does not. Where a field has its exact bytes beside it
// (core/audit.h's kBytesSuffix), the bytes are what the reader gets. Not
// linked into the shim, which reads no records.

#ifndef KLAUNCH_CORE_AUDIT_READ_H_
#define KLAUNCH_CORE_AUDIT_READ_H_

#include <optional>

#include "absl/strings/string_view.h"
#include "core/audit.h"

namespace klaunch {

// The record on `line` (one JSON object with at least "pid", "op" and
// "verdict", every known field of its type; unknown fields are let be), or
// nullopt for anything else: a torn line, text that is not JSON, a field of
// the wrong type, base64 that does not decode.
std::optional<AuditEvent> ParseAuditLine(absl::string_view line);

}  // namespace klaunch

#endif  // KLAUNCH_CORE_AUDIT_READ_H_
