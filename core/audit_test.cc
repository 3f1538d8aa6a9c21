#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "core/audit_read.h"
#include "core/json.h"

namespace klaunch {
namespace {

AuditEvent Sample() {
  return AuditEvent{
      "2026-12-02T15:32:09.123Z",  42,     "/usr/bin/cat", "open",
      "/tmp/a \"quoted\"\\\n\x01", "read", "deny",         "filesystem.deny[0]",
      "read of x refused",         "shim"};
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
  EXPECT_FALSE(
      ParseAuditLine(line.substr(0, line.size() - 1) + "x").has_value());
}

std::string RandomName(std::mt19937* rng) {
  std::uniform_int_distribution<int> len(0, 40);
  std::uniform_int_distribution<int> byte(1, 255);  // a name holds no NUL
  std::string out;
  for (int n = len(*rng); n > 0; --n)
    out.push_back(static_cast<char>(byte(*rng)));
  return out;
}

// Every string a record holds, and argv: random bytes; the line must be
// valid JSON to an independent strict reader (nlohmann/json rejects bytes
// that are not UTF-8 and unpaired surrogates), and read back to the same
// bytes.
TEST(Audit, EveryRecordOfAnyBytesIsValidJsonAndReadsBackExactly) {
  std::mt19937 rng(20261205);
  int not_utf8 = 0;
  for (int i = 0; i < 20000; ++i) {
    AuditEvent e = Sample();
    for (std::string* s : {&e.exe, &e.target, &e.message, &e.command,
                           &e.program, &e.cwd, &e.policy, &e.run}) {
      *s = RandomName(&rng);
    }
    e.op = "start";
    e.argv = {RandomName(&rng), RandomName(&rng)};
    not_utf8 += !IsUtf8(e.target);
    const std::string line = FormatAuditLine(e);
    ASSERT_EQ(line.find('\n'), line.size() - 1);
    const nlohmann::json strict =
        nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(strict.is_object()) << line;
    std::optional<AuditEvent> back = ParseAuditLine(line);
    ASSERT_TRUE(back.has_value()) << line;
    EXPECT_EQ(back->exe, e.exe);
    EXPECT_EQ(back->target, e.target);
    EXPECT_EQ(back->message, e.message);
    EXPECT_EQ(back->command, e.command);
    EXPECT_EQ(back->program, e.program);
    EXPECT_EQ(back->cwd, e.cwd);
    EXPECT_EQ(back->policy, e.policy);
    EXPECT_EQ(back->run, e.run);
    EXPECT_EQ(back->argv, e.argv);
  }
  EXPECT_GT(not_utf8, 10000) << "the names tried were mostly not UTF-8";
}

TEST(Audit, ANameThatIsNotUtf8IsReadableTextAndItsBytesBeside) {
  AuditEvent e = Sample();
  e.target = "/ws/caf\xe9";
  const std::string line = FormatAuditLine(e);
  const nlohmann::json j = nlohmann::json::parse(line);
  EXPECT_EQ(j["target"], "/ws/caf\xef\xbf\xbd");
  EXPECT_EQ(j["target_base64"], "L3dzL2NhZuk=");
  // A UTF-8 name has no second field.
  EXPECT_FALSE(j.contains("rule_base64"));
}

TEST(Audit, ARecordAToolReEncodedStillReads) {
  // What `jq -c` or Python's json.dumps make of a line: other spacing,
  // other key order, non-ASCII as \u escapes.
  AuditEvent e = Sample();
  e.target = "/ws/caf\xc3\xa9 \xe2\x82\xac \xff";
  e.op = "start";
  e.argv = {"sh", "-c", "echo 'a b'"};
  const nlohmann::json j = nlohmann::json::parse(FormatAuditLine(e));
  const std::string ascii = j.dump(2, ' ', /*ensure_ascii=*/true);
  std::string one_line;
  for (char c : ascii) {
    if (c != '\n') one_line.push_back(c);
  }
  std::optional<AuditEvent> back = ParseAuditLine(one_line);
  ASSERT_TRUE(back.has_value()) << one_line;
  EXPECT_EQ(back->target, e.target);
  EXPECT_EQ(back->argv, e.argv);
  EXPECT_EQ(back->pid, e.pid);
}

TEST(Audit, TheStartAndEndRecordsSayTheRunWhole) {
  AuditEvent start = Sample();
  start.op = "start";
  start.verdict = "info";
  start.run = "20261205T000000Z-1-abcdef";
  start.argv = {"python3", "agent.py", "--flag=a b"};
  start.cwd = "/ws";
  start.policy = "/ws/p.toml";
  start.policy_sha256 = std::string(64, 'a');
  start.mode = "audit";
  std::optional<AuditEvent> s = ParseAuditLine(FormatAuditLine(start));
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->argv, start.argv);
  EXPECT_EQ(s->cwd, "/ws");
  EXPECT_EQ(s->policy_sha256, start.policy_sha256);
  EXPECT_EQ(s->mode, "audit");
  EXPECT_EQ(s->run, start.run);
  AuditEvent end = Sample();
  end.op = "end";
  end.exit_code = 137;
  end.signal = 9;
  end.duration_ms = 1234;
  end.refusals = 3;
  std::optional<AuditEvent> e = ParseAuditLine(FormatAuditLine(end));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->exit_code, 137);
  EXPECT_EQ(e->signal, 9);
  EXPECT_EQ(e->duration_ms, 1234);
  EXPECT_EQ(e->refusals, 3);
  // A decision has none of them.
  EXPECT_EQ(FormatAuditLine(Sample()).find("exit_code"), std::string::npos);
  EXPECT_EQ(FormatAuditLine(Sample()).find("argv"), std::string::npos);
}

TEST(Audit, AFieldOfTheWrongTypeOrBadBytesIsNoRecord) {
  const std::string line = FormatAuditLine(Sample());
  std::string wrong = line;
  wrong.replace(wrong.find("\"pid\":42"), 9, "\"pid\":\"42\"");
  EXPECT_FALSE(ParseAuditLine(wrong).has_value()) << wrong;
  std::string bad = line;
  bad.insert(bad.size() - 2, ",\"target_base64\":\"not base64!\"");
  EXPECT_FALSE(ParseAuditLine(bad).has_value()) << bad;
  EXPECT_FALSE(ParseAuditLine("{\"pid\":1}").has_value());
  EXPECT_FALSE(ParseAuditLine("[1,2]").has_value());
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
