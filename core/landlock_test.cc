#include "core/landlock.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "core/loader.h"

namespace klaunch {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr uint64_t kExecute = 1ULL << 0;
constexpr uint64_t kWriteFile = 1ULL << 1;
constexpr uint64_t kMakeChar = 1ULL << 6;
constexpr uint64_t kMakeReg = 1ULL << 8;
constexpr uint64_t kTruncate = 1ULL << 14;
constexpr uint64_t kIoctlDev = 1ULL << 15;

Policy Load(const std::string& text) {
  LoadContext ctx;
  ctx.base_dir = "/work/ws";
  ctx.home = "/home/me";
  absl::StatusOr<Policy> p = LoadPolicyText(text, "p.toml", ctx);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *p : Policy{};
}

const LandlockPlan::PathRule* Rule(const LandlockPlan& plan,
                                   const std::string& path) {
  for (const LandlockPlan::PathRule& r : plan.paths) {
    if (r.path == path) return &r;
  }
  return nullptr;
}

TEST(LandlockPlan, ReadRootsMayBeReadAndExecutedButNotWritten) {
  const LandlockPlan plan = PlanLandlock(
      Load("extends = \"none\"\n[filesystem]\nread = [\"/usr\"]\n"), 7, {});
  const LandlockPlan::PathRule* usr = Rule(plan, "/usr");
  ASSERT_NE(usr, nullptr);
  EXPECT_TRUE(usr->access & kExecute);
  EXPECT_FALSE(usr->access & kWriteFile);
  EXPECT_FALSE(usr->access & kTruncate);
}

TEST(LandlockPlan, WriteRootsGetEveryRightOfTheAbiButDeviceNodes) {
  const LandlockPlan plan = PlanLandlock(
      Load("extends = \"none\"\n[filesystem]\nwrite = [\"/scratch\"]\n"), 7,
      {});
  const LandlockPlan::PathRule* scratch = Rule(plan, "/scratch");
  ASSERT_NE(scratch, nullptr);
  EXPECT_TRUE(scratch->access & kTruncate);
  EXPECT_TRUE(scratch->access & kIoctlDev);
  EXPECT_TRUE(scratch->access & kMakeReg);
  EXPECT_FALSE(scratch->access & kMakeChar);
  const LandlockPlan devices = PlanLandlock(
      Load("extends = \"none\"\n[filesystem]\nwrite = [\"/scratch\"]\n"
           "[system]\nallow = [\"devices\"]\n"),
      7, {});
  EXPECT_TRUE(Rule(devices, "/scratch")->access & kMakeChar);
}

TEST(LandlockPlan, AskedForWritesLeaveWritingToTheOtherLayersAndSaySo) {
  const LandlockPlan plan = PlanLandlock(
      Load("extends = \"none\"\n[filesystem]\nread = [\"/usr\"]\n"
           "unlisted_writes = \"ask\"\n"),
      7, {});
  EXPECT_TRUE(plan.handled_fs & kExecute);
  EXPECT_FALSE(plan.handled_fs & (kWriteFile | kMakeReg | kTruncate));
  EXPECT_THAT(plan.approximations,
              Contains(HasSubstr("Landlock does not restrict writing")));
  const LandlockPlan denied = PlanLandlock(
      Load("extends = \"none\"\n[filesystem]\nread = [\"/usr\"]\n"), 7, {});
  EXPECT_TRUE(denied.handled_fs & kWriteFile);
}

TEST(LandlockPlan, AnOlderAbiIsNeitherAskedForRightsItLacksNorForPorts) {
  const LandlockPlan plan = PlanLandlock(
      Load("extends = \"none\"\n[network]\nallow = [\"127.0.0.1:80\"]\n"), 2,
      {});
  EXPECT_FALSE(plan.handled_fs & kTruncate);
  EXPECT_EQ(plan.handled_net, 0u);
  EXPECT_EQ(plan.scoped, 0u);
}

TEST(LandlockPlan, ConnectIsLimitedToTheNamedPorts) {
  const LandlockPlan plan = PlanLandlock(
      Load("extends = \"none\"\n[network]\nallow = [\"registry.npm.example:443\", "
           "\"10.0.0.0/8:8080\", \"127.0.0.1:443\"]\n"),
      7, {});
  EXPECT_NE(plan.handled_net, 0u);
  EXPECT_THAT(plan.connect_ports, ElementsAre(443, 8080));
}

TEST(LandlockPlan, AnEntryForEveryPortLeavesConnectToTheOtherLayers) {
  const LandlockPlan plan = PlanLandlock(
      Load("extends = \"none\"\n[network]\nallow = [\"127.0.0.1:443\", "
           "\"10.0.0.0/8\"]\n"),
      7, {});
  EXPECT_EQ(plan.handled_net, 0u);
  EXPECT_THAT(plan.approximations,
              Contains(HasSubstr("admits every port")));
}

TEST(LandlockPlan, AbstractSocketsAndSignalsAreScopedUnlessOpened) {
  EXPECT_EQ(PlanLandlock(Load("extends = \"none\"\n"), 6, {}).scoped, 3u);
  EXPECT_EQ(PlanLandlock(Load("extends = \"none\"\n[network]\n"
                              "unix_abstract = true\n[system]\n"
                              "allow = [\"signals\"]\n"),
                         6, {})
                .scoped,
            0u);
}

TEST(LandlockPlan, AProgramSectionsLayerScopesAbstractSocketsButNoSignals) {
  // Signals scoped in a section's own layer would stop a section's program
  // from signalling its parent, which the policy lets it do.
  const Policy p = Load(
      "extends = \"none\"\n[network]\nunix_abstract = true\n"
      "[programs.\"curl\"]\nnetwork.unix_abstract = false\n");
  EXPECT_EQ(PlanSectionLandlock(p, 0, 6, {}).scoped, 1u);  // abstract only
  const Policy q = Load("extends = \"none\"\n[programs.\"curl\"]\n"
                        "network.allow = []\n");
  EXPECT_EQ(PlanLandlock(q, 6, {}).scoped, 3u);
  EXPECT_EQ(PlanSectionLandlock(q, 0, 6, {}).scoped, 1u);
}

TEST(LandlockPlan, PatternsAndProcEntriesAreWidenedAndSaidSo) {
  const LandlockPlan plan = PlanLandlock(
      Load("extends = \"none\"\n[filesystem]\nread = [\"/srv/*/logs\", "
           "\"/proc/self\"]\ndeny = [\"**/.env\"]\n"),
      7, {});
  EXPECT_NE(Rule(plan, "/srv"), nullptr);
  EXPECT_NE(Rule(plan, "/proc"), nullptr);
  EXPECT_EQ(Rule(plan, "/proc/self"), nullptr);
  EXPECT_THAT(plan.approximations, Contains(HasSubstr("granted as /srv")));
  EXPECT_THAT(plan.approximations, Contains(HasSubstr("not expressible")));
}

TEST(LandlockPlan, KlaunchsOwnFilesAreReadOnlyAndTheLogIsNotGranted) {
  const LandlockPlan plan = PlanLandlock(
      Load("extends = \"none\"\n"), 7, {{"/state/policy.toml"}});
  ASSERT_NE(Rule(plan, "/state/policy.toml"), nullptr);
  EXPECT_EQ(Rule(plan, "/state/policy.toml")->access & kWriteFile, 0u);
  // Only klaunch writes the audit log: the program is granted nothing of it.
  EXPECT_EQ(Rule(plan, "/state/log"), nullptr);
}

TEST(LandlockPlan, AMissingWriteRootLetsItsAncestorCreateIt) {
  LandlockPlan plan = PlanLandlock(
      Load("extends = \"none\"\n[filesystem]\nwrite = "
           "[\"/tmp/klaunch-no-such-dir/below\"]\n"),
      LandlockAbi() > 0 ? LandlockAbi() : 1, {});
  if (LandlockAbi() == 0) GTEST_SKIP() << "this kernel has no Landlock";
  absl::StatusOr<int> fd = CreateRuleset(&plan);
  ASSERT_TRUE(fd.ok()) << fd.status();
  close(*fd);
  EXPECT_THAT(plan.approximations,
              Contains(HasSubstr("/tmp may have directories and files made")));
}

}  // namespace
}  // namespace klaunch
