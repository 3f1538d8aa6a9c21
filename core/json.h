// JSON text from bytes: the one string writer of every JSON klaunch prints
// (audit records, `doctor --json`).
//
// A file name is bytes, JSON text is UTF-8 (RFC 8259). AppendJsonString
// always writes a valid JSON string: each byte that is not part of a
// well-formed UTF-8 sequence (a stray continuation byte, an overlong form,
// a surrogate, a code point past U+10FFFF, a cut-off sequence) becomes
// U+FFFD. Where the exact bytes matter, the caller writes them as well
// (core/audit.h's "<field>_base64"); this module does not decide that.
// IsUtf8 and ForEachUtf8Piece share the one decoder the writer uses.
// Reading JSON is not here: klaunch reads with a JSON library
// (core/audit_read.h).

#ifndef KLAUNCH_CORE_JSON_H_
#define KLAUNCH_CORE_JSON_H_

#include <string>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"

namespace klaunch {

// True if `bytes` is well-formed UTF-8 (and so writes as itself).
bool IsUtf8(absl::string_view bytes);

// Calls `piece` for each well-formed sequence (a character) and each byte
// of none (`well_formed` false), in order: for a writer of text that cannot
// hold such bytes (TOML, which `suggest` writes) to say them its own way.
void ForEachUtf8Piece(
    absl::string_view bytes,
    absl::FunctionRef<void(absl::string_view piece, bool well_formed)> piece);

// `bytes` as a quoted JSON string, appended to `out`.
void AppendJsonString(std::string* out, absl::string_view bytes);
std::string JsonString(absl::string_view bytes);

}  // namespace klaunch

#endif  // KLAUNCH_CORE_JSON_H_
