#include "core/two_names.h"

#include <fcntl.h>
#include <linux/fs.h>

#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace klaunch {
namespace {

using ::testing::ElementsAre;

// Records each judgement as "kind path" and refuses the paths it is told to.
class FakeJudge final : public EndJudge {
 public:
  explicit FakeJudge(std::set<std::string> refused = {})
      : refused_(std::move(refused)) {}
  bool Write(const char* path) override { return Note("write", path); }
  bool LinkSource(const char* path) override { return Note("link", path); }
  bool Move(const char* path) override { return Note("move", path); }
  std::vector<std::string> seen;

 private:
  bool Note(const char* kind, const char* path) {
    const std::string entry = std::string(kind) + " " + path;
    seen.push_back(entry);
    return refused_.count(entry) == 0;
  }
  std::set<std::string> refused_;
};

bool Yes() { return true; }
bool No() { return false; }

TEST(Rename, BothNamesAreJudgedAsWrites) {
  FakeJudge judge;
  EXPECT_TRUE(JudgeRename(judge, {"/w/a", No}, {"/w/b", No}, 0));
  EXPECT_THAT(judge.seen, ElementsAre("write /w/a", "write /w/b"));
}

TEST(Rename, ADirectoryMovedIsJudgedAsAMoveAndItsRefusalRefuses) {
  FakeJudge judge({"move /w/d"});
  EXPECT_FALSE(JudgeRename(judge, {"/w/d", Yes}, {"/w/e", No}, 0));
  EXPECT_THAT(judge.seen, ElementsAre("write /w/d", "write /w/e", "move /w/d"));
}

TEST(Rename, TheTargetDirectoryMovesOnlyUnderExchange) {
  FakeJudge plain;
  EXPECT_TRUE(JudgeRename(plain, {"/w/a", No}, {"/w/d", Yes}, 0));
  EXPECT_THAT(plain.seen, ElementsAre("write /w/a", "write /w/d"));

  FakeJudge exchange({"move /w/d"});
  EXPECT_FALSE(
      JudgeRename(exchange, {"/w/a", No}, {"/w/d", Yes}, RENAME_EXCHANGE));
  EXPECT_THAT(exchange.seen,
              ElementsAre("write /w/a", "write /w/d", "move /w/d"));
}

// A dry run records what enforcement refuses: every end, not the first.
TEST(Rename, EveryEndIsJudgedEvenAfterTheFirstRefusal) {
  FakeJudge judge({"write /w/a", "write /w/b"});
  EXPECT_FALSE(
      JudgeRename(judge, {"/w/a", Yes}, {"/w/b", Yes}, RENAME_EXCHANGE));
  EXPECT_THAT(judge.seen, ElementsAre("write /w/a", "write /w/b", "move /w/a",
                                      "move /w/b"));
}

TEST(Rename, ARefusedTargetAloneRefuses) {
  FakeJudge judge({"write /w/b"});
  EXPECT_FALSE(JudgeRename(judge, {"/w/a", No}, {"/w/b", No}, 0));
}

TEST(Rename, WhetherAnEndIsADirectoryIsAskedOnlyWhenItMatters) {
  int asked_target = 0;
  FakeJudge judge;
  JudgeRename(judge, {"/w/a", No},
              {"/w/b", [&] { return ++asked_target, true; }}, 0);
  EXPECT_EQ(asked_target, 0);
  JudgeRename(judge, {"/w/a", No},
              {"/w/b", [&] { return ++asked_target, true; }}, RENAME_EXCHANGE);
  EXPECT_EQ(asked_target, 1);
}

TEST(Rename, TheTargetNeedFollowsTheKernelsFlags) {
  EXPECT_EQ(kRenameSourceNeed, NameNeed::kExisting);
  EXPECT_EQ(RenameTargetNeed(0), NameNeed::kAny);
  EXPECT_EQ(RenameTargetNeed(RENAME_NOREPLACE), NameNeed::kNew);
  EXPECT_EQ(RenameTargetNeed(RENAME_EXCHANGE), NameNeed::kExisting);
  EXPECT_EQ(RenameTargetNeed(RENAME_WHITEOUT), NameNeed::kAny);
}

TEST(Link, TheSourceIsJudgedAsALinkAndTheNewNameAsAWrite) {
  FakeJudge judge;
  EXPECT_TRUE(JudgeLink(judge, "/w/src", "/w/new"));
  EXPECT_THAT(judge.seen, ElementsAre("link /w/src", "write /w/new"));
}

TEST(Link, ARefusedSourceRefusesAndTheNewNameIsStillJudged) {
  FakeJudge judge({"link /secret"});
  EXPECT_FALSE(JudgeLink(judge, "/secret", "/w/new"));
  EXPECT_THAT(judge.seen, ElementsAre("link /secret", "write /w/new"));
}

TEST(Link, ARefusedNewNameRefuses) {
  FakeJudge judge({"write /ro/new"});
  EXPECT_FALSE(JudgeLink(judge, "/w/src", "/ro/new"));
}

TEST(Link, TheFlagsSayWhichObjectTheSourceNames) {
  const LinkSourceForm name = LinkSourceOf(0);
  EXPECT_FALSE(name.object);
  EXPECT_EQ(kLinkSourceNeed, NameNeed::kExisting);
  const LinkSourceForm follow = LinkSourceOf(AT_SYMLINK_FOLLOW);
  EXPECT_TRUE(follow.object);
  EXPECT_TRUE(follow.follow);
  EXPECT_FALSE(follow.empty);
  const LinkSourceForm fd = LinkSourceOf(AT_EMPTY_PATH);
  EXPECT_TRUE(fd.object);
  EXPECT_FALSE(fd.follow);
  EXPECT_TRUE(fd.empty);
  EXPECT_EQ(kLinkNameNeed, NameNeed::kNew);
}

}  // namespace
}  // namespace klaunch
