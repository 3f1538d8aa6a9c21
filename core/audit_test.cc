#include "core/audit.h"

#include <gtest/gtest.h>

namespace klaunch {
namespace {

AuditEvent Sample() {
  return AuditEvent{"2026-12-02T15:32:09.123Z", 42, "/usr/bin/cat", "open",
                    "/tmp/a \"quoted\"\\\n\x01", "read", "deny",
                    "filesystem.deny[0]", "read of x refused", "shim"};
}

TEST(Audit, ALineIsOneJsonObjectOnOneLine) {
  const std::string line = FormatAuditLine(Sample());
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  EXPECT_EQ(line.front(), '{');
  EXPECT_NE(line.find("\"target\":\"/tmp/a \\\"quoted\\\"\\\\\\u000a\\u0001\""),
            std::string::npos)
      << line;
}

TEST(Audit, ReadingALineGivesBackWhatWasWritten) {
  const AuditEvent e = Sample();
  std::optional<AuditEvent> back = ParseAuditLine(FormatAuditLine(e));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->time, e.time);
  EXPECT_EQ(back->pid, e.pid);
  EXPECT_EQ(back->target, e.target);
  EXPECT_EQ(back->rule, e.rule);
  EXPECT_EQ(back->layer, e.layer);
  EXPECT_EQ(back->program, "");
  EXPECT_EQ(FormatAuditLine(e).find("\"program\""), std::string::npos);
}

TEST(Audit, ARecordMadeInsideAProgramSectionNamesIt) {
  AuditEvent e = Sample();
  e.program = "curl";
  const std::string line = FormatAuditLine(e);
  EXPECT_NE(line.find(",\"program\":\"curl\"}"), std::string::npos) << line;
  std::optional<AuditEvent> back = ParseAuditLine(line);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->program, "curl");
}

TEST(Audit, ATornOrForeignLineIsRejected) {
  const std::string line = FormatAuditLine(Sample());
  EXPECT_FALSE(ParseAuditLine(line.substr(0, line.size() / 2)).has_value());
  EXPECT_FALSE(ParseAuditLine("not json").has_value());
  EXPECT_FALSE(ParseAuditLine(line.substr(0, line.size() - 1) + "x").has_value());
}

TEST(Audit, TheTimeIsUtcIso8601WithMilliseconds) {
  char buf[64];
  FormatAuditTime(buf, sizeof(buf));
  const std::string t = buf;
  ASSERT_EQ(t.size(), 24u) << t;
  EXPECT_EQ(t[4], '-');
  EXPECT_EQ(t[10], 'T');
  EXPECT_EQ(t[19], '.');
  EXPECT_EQ(t.back(), 'Z');
  EXPECT_GE(std::stoi(t.substr(0, 4)), 2024);
}

}  // namespace
}  // namespace klaunch
