#include "core/json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <string>

namespace klaunch {
namespace {

using nlohmann::json;

// nlohmann/json's strict reader, an implementation of RFC 8259 that shares
// nothing with ours: the value, or a discarded one for text that is not JSON.
json Read(const std::string& text) {
  return json::parse(text, nullptr, /*allow_exceptions=*/false);
}

std::string RandomBytes(std::mt19937* rng) {
  std::uniform_int_distribution<int> len(0, 24);
  // Mostly bytes that make or break UTF-8 sequences.
  static constexpr unsigned char kPicks[] = {
      0x00, 0x01, 0x1f, '"',  '\\', '/',  'a',  0x7f, 0x80, 0xbf, 0xc0,
      0xc1, 0xc2, 0xc3, 0xa9, 0xdf, 0xe0, 0xa0, 0xed, 0x9f, 0xee, 0xef,
      0xf0, 0x90, 0xf4, 0x8f, 0xf5, 0xff, 0xfe, 0xe2, 0x82, 0xac};
  std::uniform_int_distribution<int> any(0, 255);
  std::uniform_int_distribution<int> pick(0, sizeof(kPicks) - 1);
  std::string out;
  for (int n = len(*rng); n > 0; --n) {
    out.push_back(
        static_cast<char>((*rng)() % 2 ? kPicks[pick(*rng)] : any(*rng)));
  }
  return out;
}

TEST(Json, EveryByteStringMakesAStringAStrictJsonReaderAccepts) {
  std::mt19937 rng(20261205);
  for (int i = 0; i < 200000; ++i) {
    const std::string bytes = RandomBytes(&rng);
    const json v = Read(JsonString(bytes));
    ASSERT_TRUE(v.is_string()) << JsonString(bytes);
    // Where the bytes are UTF-8 they come back as they were.
    if (IsUtf8(bytes)) {
      ASSERT_EQ(v.get<std::string>(), bytes);
    }
  }
}

TEST(Json, WhatIsUtf8AgreesWithAStrictJsonReader) {
  // The raw bytes between quotes (no byte that JSON would need escaped):
  // the reader accepts them exactly when IsUtf8 says they are UTF-8.
  std::mt19937 rng(5);
  int valid = 0, invalid = 0;
  for (int i = 0; i < 200000; ++i) {
    std::string bytes = RandomBytes(&rng);
    for (char& c : bytes) {
      const unsigned char u = static_cast<unsigned char>(c);
      if (u < 0x20 || u == '"' || u == '\\') c = 'x';
    }
    const bool accepted = Read("\"" + bytes + "\"").is_string();
    ASSERT_EQ(accepted, IsUtf8(bytes)) << JsonString(bytes);
    (accepted ? valid : invalid)++;
  }
  // Both answers were tried many times.
  EXPECT_GT(valid, 1000);
  EXPECT_GT(invalid, 1000);
}

TEST(Json, EachMalformedSequenceIsNamedByAReplacementCharacter) {
  const std::pair<std::string, std::string> cases[] = {
      {"caf\xe9", "caf\xef\xbf\xbd"},                            // Latin-1 é
      {"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"},                  // overlong '/'
      {"\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},  // surrogate
      {"\xf4\x90\x80\x80",  // past U+10FFFF
       "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
      {"\xe2\x82", "\xef\xbf\xbd\xef\xbf\xbd"},                  // cut off
      {"caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac"},  // é €
  };
  for (const auto& [bytes, text] : cases) {
    const json v = Read(JsonString(bytes));
    ASSERT_TRUE(v.is_string());
    EXPECT_EQ(v.get<std::string>(), text) << JsonString(bytes);
  }
}

TEST(Json, ControlCharactersQuotesAndBackslashesAreEscaped) {
  EXPECT_EQ(JsonString(std::string("a\"b\\c\n\x01\x7f", 8)),
            "\"a\\\"b\\\\c\\u000a\\u0001\\u007f\"");
}

}  // namespace
}  // namespace klaunch
