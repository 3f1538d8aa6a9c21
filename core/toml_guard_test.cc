#include "core/toml_guard.h"

#include <optional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace klaunch {
namespace {

using ::testing::HasSubstr;

// One code point from each range toml++ 3.3.0's whitespace test has no
// answer for, and one it answers.
constexpr const char* kUnanswered[] = {"\u0100", "\u2D00", "\uFC00"};
constexpr const char* kAnswered = "\u00E9";

void ExpectHazardAt(const std::string& text, size_t line, size_t column,
                    char32_t code_point) {
  std::optional<TomlHazard> h = FindTomlHazard(text);
  ASSERT_TRUE(h.has_value()) << text;
  EXPECT_EQ(h->line, line) << text;
  EXPECT_EQ(h->column, column) << text;
  EXPECT_EQ(h->code_point, code_point) << text;
}

TEST(TomlGuard, ACodePointInABareKeyIsAHazard) {
  ExpectHazardAt(std::string("ab") + kUnanswered[0] + " = 1\n", 1, 3, 0x100);
  ExpectHazardAt(std::string("x = 1\n  k") + kUnanswered[1] + " = 1\n", 2, 4,
                 0x2D00);
  ExpectHazardAt(std::string("[t") + kUnanswered[2] + "]\n", 1, 3, 0xFC00);
  // Any non-ASCII code point outside a string: TOML allows none there.
  ExpectHazardAt(std::string("a = 1 ") + kAnswered + "\n", 1, 7, 0xE9);
}

TEST(TomlGuard, ACodePointAfterAValueOrAStringIsAHazard) {
  ExpectHazardAt(std::string("a = 1") + kUnanswered[0], 1, 6, 0x100);
  ExpectHazardAt(std::string("a = \"x\"") + kUnanswered[0], 1, 8, 0x100);
  ExpectHazardAt(std::string("a = \"\"\"x\"\"\"\"") + kUnanswered[0], 1, 13,
                 0x100);
  ExpectHazardAt(std::string("a = '''x'''") + kUnanswered[0], 1, 12, 0x100);
}

TEST(TomlGuard, AQuoteInsideABareWordOpensNoString) {
  // toml++ scans a number or date-time ahead to the next space, ',', ']',
  // '}' or '#', quotes and all (found by fuzz/loader_fuzzer: '-["...').
  ExpectHazardAt(std::string("x = -\"") + kUnanswered[0] + "\"\n", 1, 7, 0x100);
  ExpectHazardAt(std::string("x = -[\"") + kUnanswered[0] + "\"]\n", 1, 8,
                 0x100);
  ExpectHazardAt(std::string("x = 1.'") + kUnanswered[1] + "'\n", 1, 8, 0x2D00);
  // A date and a time may be parted by a space: the scan goes past it.
  ExpectHazardAt(std::string("x = 1979-05-27 1\"") + kUnanswered[2] + "\"\n", 1,
                 18, 0xFC00);
  ExpectHazardAt(std::string("x = [1, 2\"") + kUnanswered[2] + "\"]\n", 1, 11,
                 0xFC00);
  ExpectHazardAt(std::string("x = 1=\"") + kUnanswered[0] + "\"\n", 1, 8,
                 0x100);
  ExpectHazardAt(std::string("x = 1{\"") + kUnanswered[0] + "\"}\n", 1, 8,
                 0x100);
}

TEST(TomlGuard, StringsAndCommentsMayHoldAnyCodePoint) {
  for (const char* c : kUnanswered) {
    const std::string s(c);
    EXPECT_EQ(FindTomlHazard("a = \"/p/" + s + "\"\n"), std::nullopt) << s;
    EXPECT_EQ(FindTomlHazard("a = '/p/" + s + "'\n"), std::nullopt) << s;
    EXPECT_EQ(FindTomlHazard("\"k" + s + "\" = 1\n"), std::nullopt) << s;
    EXPECT_EQ(FindTomlHazard("a = 1 # " + s + "\n"), std::nullopt) << s;
    EXPECT_EQ(FindTomlHazard("a = \"\"\"" + s + "\n" + s + "\"\"\""),
              std::nullopt)
        << s;
    EXPECT_EQ(FindTomlHazard("a = '''\\\n" + s + "'''"), std::nullopt) << s;
    // Strings where valid TOML puts them: keys, dotted keys, headers,
    // inline tables, arrays across lines with comments between.
    EXPECT_EQ(FindTomlHazard("\"a\".\"" + s + "\" = 1\nb . '" + s + "' = 2\n"),
              std::nullopt)
        << s;
    EXPECT_EQ(FindTomlHazard("[ \"" + s + "\" . 'x' ]\n[[\"" + s + "\"]]\n"),
              std::nullopt)
        << s;
    EXPECT_EQ(FindTomlHazard("x = { \"" + s + "\" = 1, b.\"" + s + "\" = '" +
                             s + "' }\n"),
              std::nullopt)
        << s;
    EXPECT_EQ(
        FindTomlHazard("x = [\n  # " + s + "\n  \"" + s + "\",\n  [ '" + s +
                       "' ], { a = \"" + s + "\" },\n]\n\"" + s + "\" = 1\n"),
        std::nullopt)
        << s;
    // An escaped quote does not end the string.
    EXPECT_EQ(FindTomlHazard("a = \"\\\"" + s + "\"\n"), std::nullopt) << s;
    EXPECT_EQ(FindTomlHazard("a = \"\"\"\\\"\"\"" + s + "\"\"\""), std::nullopt)
        << s;
    // Four and five quotes close a """ string holding one and two.
    EXPECT_EQ(FindTomlHazard("a = \"\"\"x\"\"\"\"\nb = \"" + s + "\""),
              std::nullopt)
        << s;
    EXPECT_EQ(FindTomlHazard("a = \"\"\"x\"\"\"\"\"\nb = \"" + s + "\""),
              std::nullopt)
        << s;
  }
}

TEST(TomlGuard, ACodePointNextToABackslashInAMultiLineStringIsAHazard) {
  // Right after a backslash in a """ string.
  ExpectHazardAt(std::string("a = \"\"\"\\") + kUnanswered[0] + "\"\"\"", 1, 9,
                 0x100);
  // After a line-ending backslash: the blanks it skips, then the first
  // character that is not blank.
  ExpectHazardAt(std::string("a = \"\"\"x\\  ") + kUnanswered[1] + "\"\"\"", 1,
                 12, 0x2D00);
  ExpectHazardAt(
      std::string("a = \"\"\"x\\\n\n   ") + kUnanswered[2] + "\"\"\"", 3, 4,
      0xFC00);
  // After that first character the string is ordinary again.
  EXPECT_EQ(FindTomlHazard(std::string("a = \"\"\"x\\\n y") + kUnanswered[2] +
                           "\"\"\""),
            std::nullopt);
  // A backslash escaped by a backslash is no line-ending one.
  EXPECT_EQ(
      FindTomlHazard(std::string("a = \"\"\"\\\\") + kUnanswered[0] + "\"\"\""),
      std::nullopt);
  const std::optional<TomlHazard> h =
      FindTomlHazard(std::string("a = \"\"\"\\") + kUnanswered[0] + "\"\"\"");
  ASSERT_TRUE(h.has_value());
  EXPECT_THAT(h->message, HasSubstr("U+0100"));
  EXPECT_THAT(h->message, HasSubstr("\\u"));
}

TEST(TomlGuard, ALeadingByteOrderMarkIsNoHazardButALaterOneIs) {
  EXPECT_EQ(FindTomlHazard("\xef\xbb\xbf"
                           "a = 1\n"),
            std::nullopt);
  ExpectHazardAt("a = 1\n\xef\xbb\xbf", 2, 1, 0xFEFF);
}

TEST(TomlGuard, ABrokenUtf8ByteOutsideAStringIsNamedAsSuch) {
  const std::optional<TomlHazard> h = FindTomlHazard("ab\xff = 1\n");
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->column, 3u);
  EXPECT_THAT(h->message, HasSubstr("0xFF (not UTF-8)"));
  // Inside a string it is toml++'s to report, and the scan goes on.
  ExpectHazardAt(std::string("a = \"\xff\"\nb") + kUnanswered[0], 2, 2, 0x100);
}

TEST(TomlGuard, PlainAsciiPoliciesHaveNoHazard) {
  EXPECT_EQ(FindTomlHazard("version = 1\n[filesystem]\nread = [\"/usr\"] # x\n"
                           "[commands]\nallow = ['git status', \"\"\"a\\\n"
                           "  b\"\"\"]\n"),
            std::nullopt);
}

}  // namespace
}  // namespace klaunch
