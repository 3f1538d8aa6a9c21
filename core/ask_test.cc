#include "core/ask.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace klaunch {
namespace {

using ::testing::HasSubstr;

std::string Request(const AskQuestion& q) {
  absl::string_view pieces[kAskRequestPieces];
  const int n = AskRequestPieces(q, pieces);
  std::string out;
  for (int i = 0; i < n; ++i) out.append(pieces[i].data(), pieces[i].size());
  return out;
}

AskQuestion AWrite() {
  AskQuestion q;
  q.write = true;
  q.op = "open";
  q.exe = "/usr/bin/dash";
  q.file = "/home/me/out";
  q.chain = "0,2";
  return q;
}

AskQuestion AnExec() {
  AskQuestion q;
  q.op = "execve";
  q.exe = "/usr/bin/dash";
  q.file = "/usr/bin/touch";
  q.command = "touch x";
  return q;
}

TEST(ShownAtTerminal, PrintableAsciiIsShownAsItIs) {
  EXPECT_EQ(ShownAtTerminal("/home/me/a b~(x).txt"), "/home/me/a b~(x).txt");
}

TEST(ShownAtTerminal, EveryOtherByteAndTheBackslashAreEscaped) {
  EXPECT_EQ(ShownAtTerminal("a\nb\x1b[2J\x7f"), "a\\x0ab\\x1b[2J\\x7f");
  // C1 CSI in UTF-8, and U+202E (right-to-left override) in UTF-8.
  EXPECT_EQ(ShownAtTerminal(std::string("x\xc2\x9b") + "31m"),
            "x\\xc2\\x9b31m");
  EXPECT_EQ(ShownAtTerminal("evil\xe2\x80\xaetxt.sh"),
            "evil\\xe2\\x80\\xaetxt.sh");
  EXPECT_EQ(ShownAtTerminal(std::string("nul\0", 4)), "nul\\x00");
}

TEST(ShownAtTerminal, TwoDifferentNamesNeverShowAlike) {
  // Were the backslash shown as itself, the four characters \x0a would
  // show exactly as a newline does.
  EXPECT_NE(ShownAtTerminal("\\x0a"), ShownAtTerminal("\n"));
  EXPECT_EQ(ShownAtTerminal("\\x0a"), "\\x5cx0a");
}

TEST(AskRequest, WhatTheShimSendsIsWhatTheServerReads) {
  for (const AskQuestion& q : {AWrite(), AnExec()}) {
    const std::string text = Request(q);
    EXPECT_EQ(text.size(), AskRequestSize(q));
    absl::StatusOr<AskQuestion> back = ParseAskRequest(text);
    ASSERT_TRUE(back.ok()) << back.status() << "\n" << text;
    EXPECT_EQ(back->write, q.write);
    EXPECT_EQ(back->op, q.op);
    EXPECT_EQ(back->exe, q.exe);
    EXPECT_EQ(back->file, q.file);
    EXPECT_EQ(back->command, q.command);
    EXPECT_EQ(back->chain, q.chain);
  }
  EXPECT_EQ(Request(AWrite()),
            "kind=write\nop=open\nexe=/usr/bin/dash\nfile=/home/me/out\n"
            "chain=0,2\n");
}

TEST(AskRequest, ARequestThatIsNotExactlyOneQuestionIsRefused) {
  const std::string write = Request(AWrite());
  const std::string exec = Request(AnExec());
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"", "newline"},
      {write.substr(0, write.size() - 1), "newline"},  // truncated
      {write.substr(0, 20), "newline"},
      {write + "pid=1\n", "unknown key 'pid'"},
      {write + "file=/etc/fine\n", "key 'file' repeated"},
      {"op=e\nexe=/a\nexe=/b\nfile=/x\ncommand=x\nchain=\n",
       "key 'exe' repeated"},
      {write + "\n", "no '='"},
      {write + "garbage\n", "no '='"},
      {exec + "kind=write\n", "does not take: 'command'"},
      {write + "command=x\n", "does not take: 'command'"},
      {"kind=write\nexe=/a\nfile=/x\nchain=\n", "missing: 'op'"},
      {"op=e\nexe=/a\nfile=/x\nchain=\n", "missing: 'command'"},
      {"op=e\nexe=/a\nfile=/x\ncommand=x\n", "missing: 'chain'"},
      {"op=\nexe=/a\nfile=/x\ncommand=x\nchain=\n", "empty op"},
      {"kind=exec\nop=e\nexe=/a\nfile=/x\ncommand=x\nchain=\n", "unknown kind"},
      {"op=e\nexe=/a\nfile=x\ncommand=x\nchain=\n", "not an absolute path"},
      {"op=e\nexe=/a\nfile=/x\ncommand=x\nchain=0,,1\n", "section numbers"},
      {"op=e\nexe=/a\nfile=/x\ncommand=x\nchain=0,\n", "section numbers"},
      {"op=e\nexe=/a\nfile=/x\ncommand=x\nchain=a\n", "section numbers"},
      {std::string("op=e\nexe=/a\0\nfile=/x\ncommand=x\nchain=\n", 38), "NUL"},
  };
  for (const auto& [text, why] : bad) {
    absl::StatusOr<AskQuestion> q = ParseAskRequest(text);
    ASSERT_FALSE(q.ok()) << text;
    EXPECT_THAT(q.status().message(), HasSubstr(why)) << text;
  }
}

class Answering final : public Asker {
 public:
  explicit Answering(bool yes) : yes_(yes) {}
  AskAnswer Put(const AskQuestion&) override {
    ++asked;
    return yes_ ? AskAnswer::kYes : AskAnswer::kNo;
  }
  int asked = 0;

 private:
  bool yes_;
};

TEST(AskOrExplain, AYesAdmitsAndANoSaysItWasRefusedAtTheTerminal) {
  Answering yes(true), no(false);
  Decision d{Verdict::kAsk, "filesystem.unlisted", "write of x refused"};
  EXPECT_TRUE(AskOrExplain(AWrite(), &yes, &d));
  EXPECT_EQ(d.message, "write of x refused");
  EXPECT_FALSE(AskOrExplain(AWrite(), &no, &d));
  EXPECT_EQ(d.message, "write of x refused (refused at the terminal)");
}

TEST(AskOrExplain, WhatCannotBeAskedIsRefusedWithoutAsking) {
  Answering yes(true);
  Decision none{Verdict::kAsk, "commands.unlisted", "exec refused"};
  EXPECT_FALSE(AskOrExplain(AnExec(), nullptr, &none));
  EXPECT_THAT(none.message, HasSubstr("(asking needs a terminal)"));

  AskQuestion forged = AWrite();
  forged.exe = "/tmp/x\nfile=/etc/fine";
  Decision newline{Verdict::kAsk, "filesystem.unlisted", "write refused"};
  EXPECT_FALSE(AskOrExplain(forged, &yes, &newline));
  EXPECT_THAT(newline.message, HasSubstr("the name holds a newline"));

  const std::string line = "touch " + std::string(kAskRequestMax, 'a');
  AskQuestion long_one = AnExec();
  long_one.command = line;
  Decision too_long{Verdict::kAsk, "commands.unlisted", "exec refused"};
  EXPECT_FALSE(AskOrExplain(long_one, &yes, &too_long));
  EXPECT_THAT(too_long.message, HasSubstr("the question is too long"));
  EXPECT_EQ(yes.asked, 0);
}

TEST(PolicyMayAsk, APolicyOrASectionThatAsksNeedsTheServer) {
  Policy p;
  p.commands.unlisted = Unlisted::kAllow;
  EXPECT_FALSE(PolicyMayAsk(p));
  p.programs.push_back(ProgramSection{});
  p.programs.back().unlisted = Unlisted::kAsk;
  EXPECT_TRUE(PolicyMayAsk(p));
  Policy w;
  w.filesystem.unlisted_writes = Unlisted::kAsk;
  EXPECT_TRUE(PolicyMayAsk(w));
}

}  // namespace
}  // namespace klaunch
