#include "supervisor/name_cache.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "core/loader.h"

namespace klaunch {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

IpAddress Ip(const char* text) { return *IpAddress::Parse(text); }

Engine MustLoad(absl::string_view toml) {
  absl::StatusOr<Policy> policy = LoadPolicyText(
      toml, "test.toml",
      LoadContext{"/nonexistent-ws/proj", "/nonexistent-home/me", ""});
  EXPECT_TRUE(policy.ok()) << policy.status();
  absl::StatusOr<Engine> engine = Engine::Create(*policy);
  EXPECT_TRUE(engine.ok()) << engine.status();
  return *std::move(engine);
}

// A resolver the test answers for, counting the questions, and a clock the
// test moves.
struct Fake {
  std::map<std::string, std::vector<IpAddress>> answers;
  std::map<std::string, int> asked;
  std::chrono::steady_clock::time_point now{std::chrono::hours(1)};

  NameCache::Resolver Resolver() {
    return [this](const std::string& name) {
      ++asked[name];
      return answers[name];
    };
  }
  NameCache::Clock Clock() {
    return [this] { return now; };
  }
};

TEST(LiteralHostNames, AreTheNamesOfRulesWithoutWildcardsEachOnce) {
  Engine e = MustLoad(R"(
extends = "none"
[network]
allow = ["pypi.org:443", "*.pythonhosted.org:443", "PyPI.org.:80",
         "**.example.com", "10.0.0.0/8", "127.0.0.1:8080", "*:22",
         "localhost"]
)");
  EXPECT_THAT(LiteralHostNames(e.policy()),
              ElementsAre("pypi.org", "localhost"));
}

TEST(NameCache,
     LocalhostResolvesToTheLoopbackAddressAndATestNetAddressToNoName) {
  Engine e = MustLoad(R"(
extends = "none"
[network]
allow = ["localhost:8080", "*.example.com"]
)");
  NameCache names(e);
  EXPECT_THAT(names.names(), ElementsAre("localhost"));
  EXPECT_THAT(names.NamesFor(Ip("127.0.0.1")), Contains("localhost"));
  EXPECT_THAT(names.NamesFor(Ip("192.0.2.1")), IsEmpty());
}

TEST(NameCache, ResolvesEveryNameOnceWhenBuilt) {
  Fake f;
  f.answers["a.test"] = {Ip("192.0.2.10")};
  NameCache names({"a.test", "b.test"}, f.Resolver(), f.Clock());
  EXPECT_EQ(f.asked["a.test"], 1);
  EXPECT_EQ(f.asked["b.test"], 1);
  EXPECT_THAT(names.NamesFor(Ip("192.0.2.10")), ElementsAre("a.test"));
  EXPECT_EQ(f.asked["a.test"], 1) << "a hit must not resolve again";
}

TEST(NameCache, GivesEveryNameOfAnAddressInPolicyOrder) {
  Fake f;
  f.answers["z.test"] = {Ip("192.0.2.10")};
  f.answers["a.test"] = {Ip("192.0.2.10"), Ip("2001:db8::1")};
  NameCache names({"z.test", "a.test"}, f.Resolver(), f.Clock());
  EXPECT_THAT(names.NamesFor(Ip("192.0.2.10")),
              ElementsAre("z.test", "a.test"));
  EXPECT_THAT(names.NamesFor(Ip("2001:db8::1")), ElementsAre("a.test"));
}

TEST(NameCache, AnIpv4MappedAddressFindsTheNamesOfItsIpv4Address) {
  Fake f;
  f.answers["a.test"] = {Ip("192.0.2.10")};
  NameCache names({"a.test"}, f.Resolver(), f.Clock());
  IpAddress mapped;
  mapped.v6 = true;
  mapped.bytes = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 10};
  EXPECT_THAT(names.NamesFor(mapped), ElementsAre("a.test"));
}

TEST(NameCache, AMissResolvesAgainAndFindsANewAnswer) {
  Fake f;
  f.answers["a.test"] = {Ip("192.0.2.10")};
  NameCache names({"a.test"}, f.Resolver(), f.Clock());
  f.answers["a.test"] = {Ip("192.0.2.11")};  // round robin moved on
  f.now += std::chrono::seconds(2);
  EXPECT_THAT(names.NamesFor(Ip("192.0.2.11")), ElementsAre("a.test"));
  EXPECT_EQ(f.asked["a.test"], 2);
}

TEST(NameCache, MissesResolveAtMostOnceASecond) {
  Fake f;
  NameCache names({"a.test"}, f.Resolver(), f.Clock());
  f.answers["a.test"] = {Ip("192.0.2.11")};
  f.now += std::chrono::milliseconds(500);
  EXPECT_THAT(names.NamesFor(Ip("192.0.2.11")), IsEmpty());
  EXPECT_THAT(names.NamesFor(Ip("192.0.2.12")), IsEmpty());
  EXPECT_EQ(f.asked["a.test"], 1) << "resolved again within a second";
  f.now += std::chrono::milliseconds(500);
  EXPECT_THAT(names.NamesFor(Ip("192.0.2.11")), ElementsAre("a.test"));
  EXPECT_EQ(f.asked["a.test"], 2);
}

TEST(NameCache, AnAnswerNoLongerGivenIsKeptForThreeHundredSeconds) {
  Fake f;
  f.answers["a.test"] = {Ip("192.0.2.10")};
  NameCache names({"a.test"}, f.Resolver(), f.Clock());
  // The next answers hold another address only, as round robin does.
  f.answers["a.test"] = {Ip("192.0.2.11")};
  f.now += std::chrono::seconds(10);
  EXPECT_THAT(names.NamesFor(Ip("192.0.2.11")), ElementsAre("a.test"));
  f.now += std::chrono::seconds(289);  // 299 s after 192.0.2.10 was seen
  EXPECT_THAT(names.NamesFor(Ip("192.0.2.10")), ElementsAre("a.test"));
  f.now += std::chrono::seconds(1);  // 300 s
  EXPECT_THAT(names.NamesFor(Ip("192.0.2.10")), IsEmpty());
}

TEST(NameCache, AnAnswerSeenAgainStaysFresh) {
  Fake f;
  f.answers["a.test"] = {Ip("192.0.2.10")};
  NameCache names({"a.test"}, f.Resolver(), f.Clock());
  f.now += std::chrono::seconds(200);
  EXPECT_THAT(names.NamesFor(Ip("192.0.2.99")), IsEmpty());  // resolves again
  f.now += std::chrono::seconds(200);  // 400 s after the first answer
  EXPECT_THAT(names.NamesFor(Ip("192.0.2.10")), ElementsAre("a.test"));
}

TEST(NameCache, APolicyWithoutLiteralNamesNeverResolves) {
  Fake f;
  NameCache names({}, f.Resolver(), f.Clock());
  EXPECT_THAT(names.NamesFor(Ip("192.0.2.10")), IsEmpty());
  EXPECT_TRUE(f.asked.empty());
}

}  // namespace
}  // namespace klaunch
