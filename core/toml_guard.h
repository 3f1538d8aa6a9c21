// What Debian 12's toml++ (3.3.0) must not be given: a non-ASCII code point
// where its parser asks whether the code point is whitespace.
//
//   if (std::optional<TomlHazard> h = FindTomlHazard(text)) {
//     // "2:3: U+0100 is not allowed outside a string or a comment ..."
//   }
//
// Its whitespace test has no answer for most of U+00A1..U+0499,
// U+2C5E..U+3057 and U+FB26..U+FEFE: it reaches __builtin_unreachable, which
// is undefined behaviour (under UBSan, an abort) in klaunch and in the shim,
// which load policies. The parser asks that question of every code point
// outside strings and comments (between tokens, in bare keys, after a
// value, and through a number or date-time it scans ahead, quotes and all),
// and in a """ string of the one right after a backslash and of those a
// line-ending backslash skips. Outside strings and comments TOML allows only
// ASCII anyway; in the second place a user can write \uXXXX. So the loader
// refuses any non-ASCII code point in those places before toml++ reads the
// text, whatever its table says.
//
// This module only lexes strings, comments and the rest (a quote opens a
// string only where valid TOML can start one); it does not parse TOML and
// reports nothing else. Where it and toml++ could disagree, toml++ has
// already stopped with an error of its own, which the loader reports when
// it comes first.

#ifndef KLAUNCH_CORE_TOML_GUARD_H_
#define KLAUNCH_CORE_TOML_GUARD_H_

#include <cstddef>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace klaunch {

struct TomlHazard {
  size_t offset = 0;  // bytes before the code point
  size_t line = 1;    // as toml++ counts: from 1, by '\n'
  size_t column = 1;  // from 1, in code points
  char32_t code_point = 0;
  std::string message;  // what is wrong and what to write instead
};

// The first place in `text` where toml++ would ask whether a non-ASCII code
// point is whitespace, or nothing.
std::optional<TomlHazard> FindTomlHazard(absl::string_view text);

}  // namespace klaunch

#endif  // KLAUNCH_CORE_TOML_GUARD_H_
