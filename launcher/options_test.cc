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

TEST(RunOptions, DurationsReadLikeTimeouts) {
  EXPECT_EQ(*ParseDuration("--timeout", "90s"), 90000);
  EXPECT_EQ(*ParseDuration("--timeout", "10m"), 600000);
  EXPECT_EQ(*ParseDuration("--timeout", "1.5h"), 5400000);
  EXPECT_EQ(*ParseDuration("--timeout", "250ms"), 250);
  EXPECT_EQ(*ParseDuration("--timeout", "2"), 2000);
  EXPECT_EQ(*ParseDuration("--timeout", "1h30m"), 5400000);
  EXPECT_EQ(*ParseDuration("--timeout", "1d"), 86400000);
  absl::StatusOr<RunOptions> o =
      ParseRunOptions({"--timeout=1m", "--kill-after", "2s", "--", "true"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->timeout_ms, 60000);
  EXPECT_EQ(o->kill_after_ms, 2000);
  EXPECT_EQ(ParseRunOptions({"--", "true"})->kill_after_ms, 5000);
}

TEST(RunOptions, ABadDurationNamesTheOptionAndTheText) {
  for (const char* bad :
       {"", "x", "0", "0s", "-1s", "1.2.3s", "5y", "s", "inf", "400d", "d"}) {
    absl::StatusOr<RunOptions> o = ParseRunOptions({"--timeout", bad, "true"});
    ASSERT_FALSE(o.ok()) << bad;
    EXPECT_THAT(std::string(o.status().message()),
                HasSubstr(std::string("--timeout ") + bad + ":"));
  }
}

TEST(RunOptions, DoubleDashEndsTheOptions) {
  absl::StatusOr<RunOptions> o =
      ParseRunOptions({"--log=x.jsonl", "--", "--weird"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->log_file, "x.jsonl");
  EXPECT_THAT(o->command, ElementsAre("--weird"));
}

TEST(RunOptions, MistakesAreNamed) {
  EXPECT_THAT(
      std::string(ParseRunOptions({"--polcy", "x", "ls"}).status().message()),
      HasSubstr("unknown option '--polcy'"));
  EXPECT_THAT(std::string(ParseRunOptions({"--policy"}).status().message()),
              HasSubstr("--policy needs a value"));
  EXPECT_THAT(std::string(ParseRunOptions({"--audit"}).status().message()),
              HasSubstr("no command to run"));
  EXPECT_THAT(
      std::string(ParseRunOptions({"--policy", "a", "--preset", "b", "ls"})
                      .status()
                      .message()),
      HasSubstr("exclude each other"));
  EXPECT_THAT(
      std::string(
          ParseRunOptions({"--quiet", "--verbose", "ls"}).status().message()),
      HasSubstr("exclude each other"));
}

TEST(RunOptions, RequireNamesALayerAndConflictsWithTurningItOff) {
  absl::StatusOr<RunOptions> o =
      ParseRunOptions({"--require", "landlock", "ls"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->require_landlock);
  EXPECT_THAT(
      std::string(
          ParseRunOptions({"--require=landlok", "ls"}).status().message()),
      HasSubstr("--require landlok: not a layer"));
  EXPECT_THAT(std::string(ParseRunOptions(
                              {"--require", "landlock", "--no-landlock", "ls"})
                              .status()
                              .message()),
              HasSubstr("exclude each other"));
  EXPECT_THAT(
      std::string(ParseRunOptions({"--require", "landlock", "--audit", "ls"})
                      .status()
                      .message()),
      HasSubstr("a dry run applies no Landlock"));
}

TEST(RunOptions, RequiringSeccompWhileTurningItOffIsRefused) {
  EXPECT_TRUE(ParseRunOptions({"--require", "seccomp", "ls"}).ok());
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--require", "seccomp", "--no-seccomp", "ls"},
        std::vector<std::string>{"--no-seccomp", "--require=seccomp", "ls"}}) {
    absl::StatusOr<RunOptions> o = ParseRunOptions(args);
    ASSERT_FALSE(o.ok());
    EXPECT_EQ(std::string(o.status().message()),
              "--require seccomp and --no-seccomp exclude each other");
  }
}

TEST(RunOptions, AnOptionWithAValueGivenTwiceIsRefusedNotOverwritten) {
  for (const std::string name :
       {"--policy", "--preset", "--log", "--timeout", "--kill-after"}) {
    absl::StatusOr<RunOptions> o =
        ParseRunOptions({name, "5", name + "=6", "--", "ls"});
    ASSERT_FALSE(o.ok()) << name;
    EXPECT_EQ(std::string(o.status().message()),
              name + " is given twice: say it once");
  }
}

}  // namespace
}  // namespace klaunch
