#include "core/json.h"

#include <cstdint>

namespace klaunch {
namespace {

// The length of the well-formed UTF-8 sequence at s[i] (s[i] >= 0x80), or 0.
size_t Utf8Length(absl::string_view s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  // The length a lead byte announces, and the smallest code point of that
  // length (anything below is an overlong form).
  size_t len = 0;
  uint32_t cp = 0;
  uint32_t min = 0;
  if ((c & 0xe0) == 0xc0) {
    len = 2, cp = c & 0x1f, min = 0x80;
  } else if ((c & 0xf0) == 0xe0) {
    len = 3, cp = c & 0x0f, min = 0x800;
  } else if ((c & 0xf8) == 0xf0) {
    len = 4, cp = c & 0x07, min = 0x10000;
  }
  if (len == 0 || i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    const unsigned char cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return len;
}

}  // namespace

void ForEachUtf8Piece(absl::string_view s,
                      absl::FunctionRef<void(absl::string_view, bool)> piece) {
  for (size_t i = 0; i < s.size();) {
    const size_t len =
        static_cast<unsigned char>(s[i]) < 0x80 ? 1 : Utf8Length(s, i);
    piece(s.substr(i, len == 0 ? 1 : len), len != 0);
    i += len == 0 ? 1 : len;
  }
}

bool IsUtf8(absl::string_view s) {
  bool utf8 = true;
  ForEachUtf8Piece(s, [&](absl::string_view, bool well_formed) {
    utf8 = utf8 && well_formed;
  });
  return utf8;
}

void AppendJsonString(std::string* out, absl::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  ForEachUtf8Piece(s, [&](absl::string_view piece, bool well_formed) {
    const unsigned char c = static_cast<unsigned char>(piece[0]);
    if (!well_formed) {
      out->append("\\ufffd");
    } else if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else if (c < 0x20 || c == 0x7f) {
      out->append("\\u00");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    } else {
      out->append(piece.data(), piece.size());
    }
  });
  out->push_back('"');
}

std::string JsonString(absl::string_view s) {
  std::string out;
  AppendJsonString(&out, s);
  return out;
}

}  // namespace klaunch
