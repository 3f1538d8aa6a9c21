#include "launcher/options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace klaunch {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(RunOptions, OptionsStopAtTheFirstWordOfTheCommand) {
  absl::StatusOr<RunOptions> o =
      ParseRunOptions({"--audit", "--policy", "p.toml", "python3", "--audit"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->audit);
  EXPECT_EQ(o->policy_file, "p.toml");
  EXPECT_THAT(o->command, ElementsAre("python3", "--audit"));
}

TEST(RunOptions, FailOnRefusalIsAFlagThatTakesNoValue) {
  absl::StatusOr<RunOptions> o =
      ParseRunOptions({"--fail-on-refusal", "--", "true"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->fail_on_refusal);
  EXPECT_FALSE(ParseRunOptions({"--fail-on-refusal=yes", "true"}).ok());
}

TEST(RunOptions, DoubleDashEndsTheOptions) {
  absl::StatusOr<RunOptions> o = ParseRunOptions({"--log=x.jsonl", "--", "--weird"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->log_file, "x.jsonl");
  EXPECT_THAT(o->command, ElementsAre("--weird"));
}

TEST(RunOptions, MistakesAreNamed) {
  EXPECT_THAT(std::string(ParseRunOptions({"--polcy", "x", "ls"}).status().message()),
              HasSubstr("unknown option '--polcy'"));
  EXPECT_THAT(std::string(ParseRunOptions({"--policy"}).status().message()),
              HasSubstr("--policy needs a value"));
  EXPECT_THAT(std::string(ParseRunOptions({"--audit"}).status().message()),
              HasSubstr("no command to run"));
  EXPECT_THAT(std::string(ParseRunOptions({"--policy", "a", "--preset", "b", "ls"})
                              .status()
                              .message()),
              HasSubstr("exclude each other"));
  EXPECT_THAT(std::string(ParseRunOptions({"--quiet", "--verbose", "ls"})
                              .status()
                              .message()),
              HasSubstr("exclude each other"));
}

TEST(RunOptions, RequireNamesALayerAndConflictsWithTurningItOff) {
  absl::StatusOr<RunOptions> o = ParseRunOptions({"--require", "landlock", "ls"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->require_landlock);
  EXPECT_THAT(std::string(ParseRunOptions({"--require=landlok", "ls"})
                              .status()
                              .message()),
              HasSubstr("--require landlok: not a layer"));
  EXPECT_THAT(std::string(ParseRunOptions(
                              {"--require", "landlock", "--no-landlock", "ls"})
                              .status()
                              .message()),
              HasSubstr("exclude each other"));
  EXPECT_THAT(std::string(ParseRunOptions({"--require", "landlock", "--audit", "ls"})
                              .status()
                              .message()),
              HasSubstr("a dry run applies no Landlock"));
}

}  // namespace
}  // namespace klaunch
