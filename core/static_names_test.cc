#include "core/static_names.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "core/effective.h"
#include "core/engine.h"
#include "core/loader.h"

namespace klaunch {
namespace {

std::vector<std::string> Texts(const std::vector<IpAddress>& addresses) {
  std::vector<std::string> out;
  for (const IpAddress& a : addresses) out.push_back(a.ToString());
  return out;
}

constexpr char kHosts[] =
    "127.0.0.1\tlocalhost\n"
    "::1 localhost ip6-localhost  # the loopback\n"
    "10.1.2.3 Build-Cache.internal cache\n"
    "# 10.9.9.9 build-cache.internal\n"
    "fe80::1%eth0 cache\n"
    "not-an-address cache\n"
    "10.1.2.4 cache.\n";

TEST(StaticNames, LocalhostAndNamesBelowItAreLoopbackWithoutAHostsFile) {
  EXPECT_THAT(Texts(StaticAddresses("localhost", "")),
              ::testing::ElementsAre("127.0.0.1", "::1"));
  EXPECT_THAT(Texts(StaticAddresses("app.localhost", "")),
              ::testing::ElementsAre("127.0.0.1", "::1"));
  EXPECT_THAT(StaticAddresses("notlocalhost", ""), ::testing::IsEmpty());
}

TEST(StaticNames, AHostsFileNameGetsItsAddressesOnceEachInOrder) {
  EXPECT_THAT(Texts(StaticAddresses("localhost", kHosts)),
              ::testing::ElementsAre("127.0.0.1", "::1"));
  EXPECT_THAT(Texts(StaticAddresses("build-cache.internal", kHosts)),
              ::testing::ElementsAre("10.1.2.3"));
  // Aliases count, case and a trailing dot do not; a comment, a zone and
  // a field that is no address name nothing.
  EXPECT_THAT(Texts(StaticAddresses("cache", kHosts)),
              ::testing::ElementsAre("10.1.2.3", "10.1.2.4"));
  EXPECT_THAT(StaticAddresses("example.org", kHosts), ::testing::IsEmpty());
}

TEST(StaticNames, AHostRuleAdmitsItsStaticAddressesWithoutALookup) {
  char hosts[] = "/tmp/klaunch-hosts-XXXXXX";
  const int fd = mkstemp(hosts);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, kHosts, sizeof(kHosts) - 1),
            static_cast<ssize_t>(sizeof(kHosts) - 1));
  close(fd);
  LoadContext ctx{"/nonexistent-ws", "/nonexistent-home", ""};
  ctx.hosts_file = hosts;
  absl::StatusOr<Policy> policy = LoadPolicyText(
      "extends = \"none\"\n[network]\nallow = [\"localhost:8765\", "
      "\"cache:443\", \"example.org:80\"]\n",
      "test.toml", ctx);
  unlink(hosts);
  ASSERT_TRUE(policy.ok()) << policy.status();
  absl::StatusOr<Engine> engine = Engine::Create(*policy);
  ASSERT_TRUE(engine.ok()) << engine.status();
  auto admits = [&](const char* address, uint16_t port) {
    return engine->CheckConnect(*IpAddress::Parse(address), port, "").allowed();
  };
  EXPECT_TRUE(admits("127.0.0.1", 8765));
  EXPECT_TRUE(admits("::1", 8765));
  EXPECT_FALSE(admits("127.0.0.1", 8766));
  EXPECT_TRUE(admits("10.1.2.3", 443));
  EXPECT_TRUE(admits("10.1.2.4", 443));
  EXPECT_FALSE(admits("10.1.2.3", 80));
  // A name resolved by DNS still needs the lookup to be seen.
  EXPECT_FALSE(admits("93.184.216.34", 80));
  // The effective form holds the addresses and loads again unchanged.
  absl::StatusOr<Policy> again =
      LoadPolicyText(EffectiveToml(*policy), "effective.toml", ctx);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->network.allow.size(), policy->network.allow.size());
}

}  // namespace
}  // namespace klaunch
