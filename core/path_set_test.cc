// PathSet and the Engine's rule lookup give the answers of asking each
// PathPattern in order, on generated patterns and paths (seeded, so a
// failure reproduces).

#include "core/path_set.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/engine.h"

namespace klaunch {
namespace {

// Few names, so that patterns and paths meet often; odd bytes included.
const char* const kNames[] = {"a",   "b",    "ab",     ".env", "x.pem",
                              "a.b", "\xff", "we ird", "(a)",  "a+"};
const char* const kGlobs[] = {"*", "a*", "*b", "*.pem", "a*b", "**", "**"};

std::string RandomPath(std::mt19937& rng) {
  std::string out;
  const int depth = std::uniform_int_distribution<int>(0, 5)(rng);
  for (int i = 0; i < depth; ++i) {
    out += "/";
    out += kNames[rng() % std::size(kNames)];
  }
  return out.empty() ? "/" : out;
}

std::string RandomPattern(std::mt19937& rng) {
  std::vector<std::string> parts;
  const int n = std::uniform_int_distribution<int>(1, 4)(rng);
  for (int i = 0; i < n; ++i) {
    parts.push_back(rng() % 3 == 0 ? kGlobs[rng() % std::size(kGlobs)]
                                   : kNames[rng() % std::size(kNames)]);
  }
  std::string joined = absl::StrJoin(parts, "/");
  return parts[0] == "**" && rng() % 2 ? joined : absl::StrCat("/", joined);
}

TEST(PathSet, AnswersExactlyWhatEachPatternCovers) {
  std::mt19937 rng(20261203);
  int covered = 0;
  for (int round = 0; round < 2000; ++round) {
    const std::string text = RandomPattern(rng);
    absl::StatusOr<PathPattern> p = PathPattern::Compile(text);
    if (!p.ok()) continue;
    absl::StatusOr<PathSet> set = PathSet::Create({&*p});
    ASSERT_TRUE(set.ok()) << text << ": " << set.status();
    for (int i = 0; i < 20; ++i) {
      const std::string path = RandomPath(rng);
      ASSERT_EQ(set->MayCover(path), p->Covers(path))
          << "pattern " << text << " path " << path << " regex "
          << CoverRegex(*p);
      covered += p->Covers(path);
    }
  }
  EXPECT_GT(covered, 1000);  // the generator reaches both answers
}

TEST(PathSet, AnEmptySetCoversNothing) {
  absl::StatusOr<PathSet> set = PathSet::Create({});
  ASSERT_TRUE(set.ok());
  EXPECT_FALSE(set->MayCover("/"));
  EXPECT_FALSE(set->MayCover("/etc/shadow"));
}

// The rule an Engine names for a read is the first deny entry covering the
// path, else the first write then read root: the lookup through literal
// prefixes and the RE2 prefilter must find that same rule.
TEST(PathSet, TheEngineNamesTheFirstCoveringRuleAsAnOrderedScanWould) {
  std::mt19937 rng(7);
  for (int round = 0; round < 300; ++round) {
    Policy policy;
    policy.filesystem.workspace = {};
    auto add = [&](std::vector<Entry>* list, const char* name) {
      const int n = std::uniform_int_distribution<int>(0, 6)(rng);
      for (int i = 0; i < n; ++i) {
        std::string text = rng() % 2 ? RandomPattern(rng) : RandomPath(rng);
        if (!PathPattern::Compile(text).ok()) continue;
        Entry e;
        e.value = e.resolved = text;
        e.key = absl::StrCat(name, "[", list->size(), "]");
        list->push_back(e);
      }
    };
    add(&policy.filesystem.deny, "filesystem.deny");
    add(&policy.filesystem.write, "filesystem.write");
    add(&policy.filesystem.read, "filesystem.read");
    absl::StatusOr<Engine> engine = Engine::Create(policy);
    ASSERT_TRUE(engine.ok()) << engine.status();
    for (int i = 0; i < 50; ++i) {
      const std::string path = RandomPath(rng);
      std::string expected = "filesystem.unlisted";
      bool found = false;
      for (const auto* list :
           {&policy.filesystem.deny, &policy.filesystem.write,
            &policy.filesystem.read}) {
        for (const Entry& e : *list) {
          if (PathPattern::Compile(e.value)->Covers(path)) {
            expected = e.key;
            found = true;
            break;
          }
        }
        if (found) break;
      }
      EXPECT_EQ(engine->CheckPath(Access::kRead, path).rule, expected)
          << "path " << path << " round " << round;
    }
  }
}

}  // namespace
}  // namespace klaunch
