#include "core/toml_guard.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"

namespace klaunch {
namespace {

enum class Where {
  kOutside,       // between tokens, keys, values other than strings
  kComment,       // '#' to the end of the line
  kBasic,         // "..."
  kLiteral,       // '...'
  kMultiBasic,    // """..."""
  kMultiLiteral,  // '''...'''
};

// One step of UTF-8. A broken sequence is one unit of its first byte, so the
// scan goes on past it: toml++ stops there with its own error, and if that
// is outside a string this scan reports it first as a non-ASCII unit.
struct Unit {
  char32_t code_point;
  size_t size;
  bool valid;
};

Unit Decode(absl::string_view text, size_t i) {
  const unsigned char lead = text[i];
  if (lead < 0x80) return {lead, 1, true};
  size_t size = 0;
  char32_t cp = 0;
  if (lead >= 0xc2 && lead <= 0xdf) {
    size = 2, cp = lead & 0x1f;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    size = 3, cp = lead & 0x0f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    size = 4, cp = lead & 0x07;
  } else {
    return {lead, 1, false};
  }
  if (i + size > text.size()) return {lead, 1, false};
  for (size_t k = 1; k < size; ++k) {
    const unsigned char b = text[i + k];
    if ((b & 0xc0) != 0x80) return {lead, 1, false};
    cp = cp << 6 | (b & 0x3f);
  }
  return {cp, size, true};
}

// Hex by hand: the shim links this file, and Debian's str_format archive is
// not position-independent.
std::string Hex(uint32_t value, int digits) {
  std::string out;
  for (int shift = 28; shift >= 0; shift -= 4) {
    const uint32_t nibble = value >> shift & 0xf;
    if (nibble == 0 && out.empty() && shift >= 4 * digits) continue;
    out += "0123456789ABCDEF"[nibble];
  }
  return out;
}

std::string Name(const Unit& u) {
  if (!u.valid)
    return absl::StrCat("the byte 0x", Hex(u.code_point, 2), " (not UTF-8)");
  return absl::StrCat("U+", Hex(u.code_point, 4));
}

// Where toml++ reads a quote as the start of a string. Elsewhere it reads
// on past the quote as part of a bare word: a number or date-time is
// scanned ahead to the next space, ',', ']', '}' or '#' whatever it holds
// ('x = -"..."', 'x = 1979-05-27 1"..."'), and everything it scans it asks
// about. So a quote opens a string here only where valid TOML starts one:
// a value after '=', '[' or ',' (blanks, line breaks and comments between,
// in an array); a key at the start of a line, after '[' or '[[' of a table
// header, or after '.', '{' or ',' of a dotted key or an inline table. Any
// other quote is taken as part of the bare word, which can only make the
// scan report more, never less.
class Structure {
 public:
  bool StringMayStart() const {
    if (in_value_) return AtValueStart();
    return last_ == '\n' || last_ == '[' || last_ == '.' || last_ == '{' ||
           last_ == ',';
  }

  // An ASCII character outside strings and comments, or the last character
  // of a string (its closing quote) or of a comment (its line break).
  void Note(char32_t c) {
    switch (c) {
      case ' ':
      case '\t':
      case '\r':
        return;
      case '\n':
        // A line break ends a key = value line; inside an array it is blank.
        if (open_.empty()) {
          in_value_ = false;
          last_ = '\n';
        }
        return;
      case '=':
        if (in_value_) return Bare();
        in_value_ = true;
        break;
      case '[':
        if (AtValueStart()) {
          Open('a', true);
        } else if (!in_value_ && open_.empty() && last_ == '\n') {
          Open('h', false);  // a table header
        } else if (in_value_ || open_.empty() || open_.back() != 'h' ||
                   last_ != '[') {  // not the second '[' of '[['
          return Bare();
        }
        break;
      case '.':
        if (in_value_) return Bare();  // a dotted key's, not a float's
        break;
      case '{':
        if (!AtValueStart()) return Bare();
        Open('t', false);
        break;
      // These end a bare word: toml++'s scan stops at them.
      case ']':
        if (!open_.empty() && (open_.back() == 'a' || open_.back() == 'h')) {
          Close();
        }
        break;
      case '}':
        if (!open_.empty() && open_.back() == 't') Close();
        break;
      case ',':
        if (!open_.empty()) in_value_ = open_.back() == 'a';
        break;
      default:
        return Bare();
    }
    last_ = c;
  }

 private:
  void Open(char kind, bool in_value) {
    open_.push_back(kind);
    was_in_value_.push_back(in_value_);
    in_value_ = in_value;
  }
  // Part of a bare word, whatever it would be elsewhere.
  void Bare() { last_ = 'w'; }
  bool AtValueStart() const {
    return in_value_ && (last_ == '=' || last_ == '[' || last_ == ',');
  }
  void Close() {
    in_value_ = was_in_value_.back();
    open_.pop_back();
    was_in_value_.pop_back();
  }

  // Arrays ('a'), inline tables ('t') and a table header ('h') open here.
  std::vector<char> open_;
  std::vector<bool> was_in_value_;
  bool in_value_ = false;  // after '=' or in an array, not yet at a key
  char32_t last_ = '\n';   // the last character that was not blank
};

}  // namespace

std::optional<TomlHazard> FindTomlHazard(absl::string_view text) {
  Where where = Where::kOutside;
  Structure structure;
  size_t line = 1;
  size_t column = 1;
  // In a """ string: the next unit follows a backslash; or a line-ending
  // backslash is skipping spaces, tabs and line breaks.
  bool escaped = false;
  bool skipping = false;
  size_t i = 0;
  // toml++ skips a byte-order mark that starts the text.
  if (text.substr(0, 3) == "\xef\xbb\xbf") i = 3;
  while (i < text.size()) {
    const Unit u = Decode(text, i);
    const char32_t c = u.code_point;
    const bool ascii = u.valid && c < 0x80;
    const auto hazard = [&](absl::string_view what) {
      return TomlHazard{i, line, column, c, absl::StrCat(Name(u), " ", what)};
    };
    // How many of `q` start here (for """ and ''').
    const auto run = [&](char q) {
      size_t n = 0;
      while (i + n < text.size() && text[i + n] == q) ++n;
      return n;
    };
    size_t advance = u.size;
    switch (where) {
      case Where::kOutside:
        if (!ascii) {
          return hazard(
              "is not allowed outside a string or a comment (TOML allows "
              "only ASCII there; quote the key or the value)");
        }
        if (c == '#') {
          where = Where::kComment;
        } else if ((c == '"' || c == '\'') && structure.StringMayStart()) {
          const bool multi = run(static_cast<char>(c)) >= 3;
          if (multi) advance = 3;
          where = c == '"' ? (multi ? Where::kMultiBasic : Where::kBasic)
                           : (multi ? Where::kMultiLiteral : Where::kLiteral);
        } else {
          structure.Note(c);
        }
        break;
      case Where::kComment:
        if (c == '\n') {
          where = Where::kOutside;
          structure.Note(c);
        }
        break;
      case Where::kBasic:
        if (escaped) {
          escaped = false;
        } else if (c == '\\') {
          escaped = true;
        } else if (c == '"' || c == '\n') {
          where = Where::kOutside;
          structure.Note(c);
        }
        break;
      case Where::kLiteral:
        if (c == '\'' || c == '\n') {
          where = Where::kOutside;
          structure.Note(c);
        }
        break;
      case Where::kMultiBasic: {
        const bool blank = c == ' ' || c == '\t' || c == '\n' || c == '\r';
        if (escaped || skipping) {
          if (!ascii) {
            return hazard(
                "cannot follow a backslash in a \"\"\" string, nor be the "
                "first character after a line-ending backslash (write it as "
                "a \\u or \\U escape)");
          }
          if (escaped) {
            // A blank after the backslash makes it a line-ending one; any
            // other character is an escape's letter.
            escaped = false;
            skipping = blank;
            break;
          }
          if (blank) break;
          // The first character after a line-ending backslash is an
          // ordinary one: it may open an escape or close the string.
          skipping = false;
        }
        if (c == '\\') {
          escaped = true;
        } else if (c == '"' && run('"') >= 3) {
          // """ ends the string; up to two more quotes belong to it.
          advance = std::min<size_t>(run('"'), 5);
          where = Where::kOutside;
          structure.Note(c);
        }
        break;
      }
      case Where::kMultiLiteral:
        if (c == '\'' && run('\'') >= 3) {
          advance = std::min<size_t>(run('\''), 5);
          where = Where::kOutside;
          structure.Note(c);
        }
        break;
    }
    for (size_t k = 0; k < advance;) {
      const Unit step = Decode(text, i + k);
      if (text[i + k] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
      k += step.size;
    }
    i += advance;
  }
  return std::nullopt;
}

}  // namespace klaunch
