// `klaunch check` through the real binary: every broken fixture is refused
// with exit 2 and the error its first line announces; every policy example
// is accepted and its effective form loads again.

#include <dirent.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/run_process.h"

namespace klaunch::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::vector<std::string> TomlFiles(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name.size() > 5 && name.substr(name.size() - 5) == ".toml") {
        out.push_back(name);
      }
    }
    closedir(d);
  }
  return out;
}

TEST(Check, EveryBrokenFixtureIsRefusedWithTheErrorItAnnounces) {
  const std::string klaunch = RequiredEnv("KLAUNCH_BIN");
  const std::string dir = RequiredEnv("KLAUNCH_FIXTURES");
  std::vector<std::string> files = TomlFiles(dir);
  ASSERT_GE(files.size(), 10u);
  for (const std::string& name : files) {
    const std::string text = ReadFile(dir + "/" + name);
    ASSERT_THAT(text, StartsWith("# expect: ")) << name;
    const std::string expect = text.substr(10, text.find('\n') - 10);
    ProcessOptions options;
    options.cwd = dir;
    ProcessResult r = RunProcess({klaunch, "check", name}, options);
    EXPECT_EQ(r.exit_code, 2) << name;
    EXPECT_THAT(r.err, StartsWith("klaunch: " + expect)) << name;
    EXPECT_EQ(r.out, "") << name << ": a refused policy prints no policy";
  }
}

TEST(Check, EveryPolicyExampleIsValidAndItsEffectiveFormIsToo) {
  const std::string klaunch = RequiredEnv("KLAUNCH_BIN");
  const std::string dir = RequiredEnv("KLAUNCH_EXAMPLES");
  std::vector<std::string> files = TomlFiles(dir);
  ASSERT_GE(files.size(), 6u);
  TempDir tmp;
  for (const std::string& name : files) {
    ProcessResult r = RunProcess({klaunch, "check", dir + "/" + name});
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_THAT(r.out, HasSubstr("extends = \"none\""));
    const std::string effective = tmp.Write(name, r.out);
    ProcessResult again = RunProcess({klaunch, "check", effective});
    EXPECT_EQ(again.exit_code, 0) << name << ": " << again.err;
  }
}

TEST(Check, AMissingFileOrDirectoryIsAClearError) {
  const std::string klaunch = RequiredEnv("KLAUNCH_BIN");
  TempDir tmp;
  ProcessResult missing = RunProcess({klaunch, "check", tmp.Path("nope.toml")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("nope.toml: cannot open the policy"));
  ProcessResult dir = RunProcess({klaunch, "check", tmp.path()});
  EXPECT_EQ(dir.exit_code, 2);
  EXPECT_THAT(dir.err, HasSubstr("is a directory"));
  ProcessResult none = RunProcess({klaunch, "check"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_THAT(none.err, HasSubstr("usage: klaunch check FILE"));
}

}  // namespace
}  // namespace klaunch::testing
