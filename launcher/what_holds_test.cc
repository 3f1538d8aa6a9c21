#include "launcher/what_holds.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <re2/re2.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "absl/strings/match.h"

namespace klaunch {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string SourceFile(const std::string& relative) {
  const char* root = std::getenv("KLAUNCH_SOURCE_ROOT");
  if (root == nullptr) return "";
  std::ifstream in(std::string(root) + "/" + relative);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

constexpr char kBegin[] = "<!-- what-holds: begin -->\n";
constexpr char kEnd[] = "<!-- what-holds: end -->";

TEST(WhatHolds, SecurityMdsTableIsWhatTheCodeSays) {
  const std::string doc = SourceFile("SECURITY.md");
  ASSERT_FALSE(doc.empty()) << "KLAUNCH_SOURCE_ROOT/SECURITY.md";
  const size_t begin = doc.find(kBegin);
  const size_t end = doc.find(kEnd);
  ASSERT_NE(begin, std::string::npos) << "SECURITY.md has no " << kBegin;
  ASSERT_NE(end, std::string::npos) << "SECURITY.md has no " << kEnd;
  const size_t from = begin + sizeof(kBegin) - 1;
  EXPECT_EQ(doc.substr(from, end - from), WhatHoldsMarkdown())
      << "run: build/launcher/klaunch doctor --settings, and put its output "
         "between the markers in SECURITY.md";
}

// Every test a row names is a test of ours: TEST, TEST_F or TEST_P with
// that suite and name in a *_test.cc of the tree.
TEST(WhatHolds, EveryTestARowNamesExists) {
  const char* root = std::getenv("KLAUNCH_SOURCE_ROOT");
  ASSERT_NE(root, nullptr);
  std::set<std::string> defined;
  for (const char* dir : {"tests", "launcher", "supervisor", "core", "shim"}) {
    for (const auto& f : std::filesystem::directory_iterator(
             std::filesystem::path(root) / dir)) {
      const std::string name = f.path().filename();
      if (!absl::EndsWith(name, "_test.cc")) continue;
      std::ifstream in(f.path());
      std::stringstream s;
      s << in.rdbuf();
      const std::string text = s.str();
      re2::StringPiece input(text);
      std::string suite, test;
      static const LazyRE2 kTest = {R"(\bTEST(?:_F|_P)?\(\s*(\w+),\s*(\w+)\))"};
      while (RE2::FindAndConsume(&input, *kTest, &suite, &test)) {
        defined.insert(suite + "." + test);
      }
    }
  }
  ASSERT_GT(defined.size(), 100u);
  for (const Setting& s : MatrixSettings()) {
    for (const Holding& h : WhatHolds(s)) {
      EXPECT_FALSE(h.tests.empty()) << h.attack << ": no test tries it";
      for (const std::string& t : h.tests) {
        EXPECT_TRUE(defined.count(t)) << h.attack << ": no test " << t;
      }
    }
  }
}

// The matrix runs every test the table names: the attack tests and
// Seccomp whole, and the others by name from SECURITY.md's table.
TEST(WhatHolds, TheAttackMatrixRunsEveryTestTheTableNames) {
  const std::string script = SourceFile("scripts/attack-matrix");
  ASSERT_FALSE(script.empty());
  std::string whole;
  ASSERT_TRUE(RE2::PartialMatch(script, R"(\nTESTS=\(([^)]*)\))", &whole));
  std::string by_name;
  ASSERT_TRUE(RE2::PartialMatch(script, R"(\nBY_NAME=\(([^)]*)\))", &by_name));
  for (const Holding& h : WhatHolds(MatrixSettings()[0])) {
    for (const std::string& t : h.tests) {
      const std::string suite = t.substr(0, t.find('.'));
      if (suite == "Filter") continue;  // a unit test: no setting changes it
      // The suites of the wholly run binaries are the attack tests' and
      // Seccomp's; the others must be listed for running by name.
      const bool run_whole = absl::StartsWith(suite, "Attack") ||
                             suite == "Seccomp" || suite == "ShimWindow" ||
                             suite == "SupervisorStall" || suite == "Outlive" ||
                             suite == "Reach" || suite == "GroupSignals" ||
                             suite == "Vfork";
      if (run_whole) continue;
      EXPECT_THAT(by_name, HasSubstr(":" + suite)) << t;
    }
  }
  for (const char* binary :
       {"attack_race", "attack_address", "attack_tag", "attack_log",
        "attack_block", "attack_orphan", "attack_reach", "attack_vfork",
        "attack_protected", "seccomp"}) {
    EXPECT_THAT(whole, HasSubstr(binary));
  }
}

TEST(WhatHolds, WithoutLandlockTheSupervisorHoldsWhatLandlockHoldsAbove) {
  const std::vector<Holding> none = WhatHolds({"none", 0, true, true});
  const std::vector<Holding> abi6 = WhatHolds({"abi6", 6, true, true});
  ASSERT_EQ(none.size(), abi6.size());
  for (size_t i = 0; i < none.size(); ++i) {
    // What is said in parentheses explains; it names no holder.
    std::string holders = none[i].held_by;
    RE2::GlobalReplace(&holders, R"(\([^)]*\))", "");
    EXPECT_THAT(holders, Not(HasSubstr("Landlock"))) << none[i].attack;
    // Only what Landlock cannot hold at all is left unheld without it.
    if (absl::StartsWith(none[i].held_by, "NOT HELD")) {
      EXPECT_TRUE(absl::StartsWith(abi6[i].held_by, "NOT HELD"))
          << none[i].attack;
    }
  }
}

}  // namespace
}  // namespace klaunch
