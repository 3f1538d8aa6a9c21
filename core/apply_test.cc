#include "core/apply.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace klaunch {
namespace {

using ::testing::EndsWith;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// A layer that remembers what it was asked to do.
class FakeLayer final : public JudgingLayer, private Asker {
 public:
  bool audit_mode = false;
  bool trace_mode = false;
  bool has_terminal = true;
  AskAnswer answer = AskAnswer::kNo;

  std::vector<std::string> records;  // "verdict target"
  std::vector<AskQuestion> questions;
  int identified = 0;

  bool audit() const override { return audit_mode; }
  bool tracing() const override { return trace_mode; }
  Asker* asker() override { return has_terminal ? this : nullptr; }
  void Identify(std::string* exe, std::string* chain) override {
    ++identified;
    *exe = "/usr/bin/tool";
    *chain = "0,2";
  }
  void Record(const JudgedCall& call, const Decision& d) override {
    records.push_back(std::string(VerdictName(d.verdict)) + " " +
                      std::string(call.target));
  }

 private:
  AskAnswer Put(const AskQuestion& q) override {
    questions.push_back(q);
    // Only the question's lifetime is promised: check what it held here.
    EXPECT_EQ(q.exe, "/usr/bin/tool");
    EXPECT_EQ(q.chain, "0,2");
    return answer;
  }
};

Decision Allow() {
  return Decision{Verdict::kAllow, "filesystem.write[0]", ""};
}
Decision Deny() {
  return Decision{Verdict::kDeny, "filesystem.deny[0]", "write of /x refused"};
}
Decision Ask() {
  return Decision{Verdict::kAsk, "filesystem.unlisted_writes",
                  "write of /x refused"};
}

TEST(ApplyDecision, AnAllowedCallGoesOnUnrecordedWithoutTrace) {
  FakeLayer layer;
  Decision d = Allow();
  EXPECT_TRUE(ApplyDecision({"open", "/ws/f", "write", ""}, &d, layer));
  EXPECT_THAT(layer.records, IsEmpty());
}

TEST(ApplyDecision, UnderTraceAnAllowedCallIsRecordedWhereTheCallIsTraced) {
  FakeLayer layer;
  layer.trace_mode = true;
  Decision d = Allow();
  EXPECT_TRUE(ApplyDecision({"open", "/ws/f", "write", ""}, &d, layer));
  // Reads are not traced, nor a second judgement of a call already judged.
  EXPECT_TRUE(ApplyDecision({"open", "/ws/g", "read", ""}, &d, layer));
  EXPECT_TRUE(
      ApplyDecision({"rename", "/ws/d", "write", "", false}, &d, layer));
  EXPECT_THAT(layer.records, testing::ElementsAre("allow /ws/f"));
}

TEST(ApplyDecision, ARefusalStopsTheCallAndIsRecorded) {
  FakeLayer layer;
  Decision d = Deny();
  EXPECT_FALSE(ApplyDecision({"open", "/x", "write", ""}, &d, layer));
  EXPECT_THAT(layer.records, testing::ElementsAre("deny /x"));
  EXPECT_THAT(layer.questions, IsEmpty());
}

TEST(ApplyDecision, InAuditModeARefusalIsRecordedButTheCallGoesOn) {
  FakeLayer layer;
  layer.audit_mode = true;
  Decision d = Deny();
  EXPECT_TRUE(ApplyDecision({"open", "/x", "write", ""}, &d, layer));
  EXPECT_THAT(layer.records, SizeIs(1));
}

TEST(ApplyDecision, AYesAtTheTerminalLetsTheCallOnUnrecorded) {
  FakeLayer layer;
  layer.answer = AskAnswer::kYes;
  Decision d = Ask();
  EXPECT_TRUE(ApplyDecision({"open", "/x", "write", ""}, &d, layer));
  ASSERT_THAT(layer.questions, SizeIs(1));
  EXPECT_TRUE(layer.questions[0].write);
  EXPECT_EQ(layer.questions[0].file, "/x");
  EXPECT_THAT(layer.records, IsEmpty());
}

TEST(ApplyDecision, ANoAtTheTerminalIsRecordedAndSaysSo) {
  FakeLayer layer;
  Decision d = Ask();
  EXPECT_FALSE(ApplyDecision({"open", "/x", "write", ""}, &d, layer));
  EXPECT_THAT(d.message, EndsWith("(refused at the terminal)"));
  EXPECT_THAT(layer.records, SizeIs(1));
}

TEST(ApplyDecision, WithoutATerminalNothingIsAskedAndTheMessageSaysWhy) {
  FakeLayer layer;
  layer.has_terminal = false;
  Decision d = Ask();
  EXPECT_FALSE(ApplyDecision({"open", "/x", "write", ""}, &d, layer));
  EXPECT_THAT(d.message, EndsWith("(asking needs a terminal)"));
  EXPECT_THAT(layer.records, SizeIs(1));
}

TEST(ApplyDecision, InAuditModeNothingIsAskedAndTheCallGoesOnRecorded) {
  FakeLayer layer;
  layer.audit_mode = true;
  layer.answer = AskAnswer::kYes;
  Decision d = Ask();
  EXPECT_TRUE(ApplyDecision({"open", "/x", "write", ""}, &d, layer));
  EXPECT_THAT(layer.questions, IsEmpty());
  EXPECT_EQ(layer.identified, 0);
  EXPECT_THAT(layer.records, SizeIs(1));
}

TEST(ApplyDecision, ALinkIsAskedAboutAsAWriteAndAnExecWithItsCommand) {
  FakeLayer layer;
  Decision link = Ask();
  ApplyDecision({"link", "/x", "link", ""}, &link, layer);
  Decision exec = Ask();
  ApplyDecision({"execve", "/usr/bin/git", "exec", "git push"}, &exec, layer);
  ASSERT_THAT(layer.questions, SizeIs(2));
  EXPECT_TRUE(layer.questions[0].write);
  EXPECT_FALSE(layer.questions[1].write);
  EXPECT_EQ(layer.questions[1].command, "git push");
  EXPECT_EQ(layer.questions[1].op, "execve");
}

TEST(ApplyDecision, WhoIsAskingIsLookedUpOnlyWhenAQuestionIsPut) {
  FakeLayer layer;
  Decision allow = Allow();
  Decision deny = Deny();
  ApplyDecision({"open", "/a", "write", ""}, &allow, layer);
  ApplyDecision({"open", "/b", "write", ""}, &deny, layer);
  EXPECT_EQ(layer.identified, 0);
  Decision ask = Ask();
  ApplyDecision({"open", "/c", "write", ""}, &ask, layer);
  EXPECT_EQ(layer.identified, 1);
}

}  // namespace
}  // namespace klaunch
