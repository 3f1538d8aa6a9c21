#include "supervisor/chain_cgroups.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace klaunch {
namespace {

using ::testing::ElementsAre;

constexpr absl::string_view kRun = "/user.slice/klaunch-20261204T000000Z-7-abc";

TEST(ChainOfCgroup, AProcessInNoneOfTheRunsCgroupsIsOutside) {
  EXPECT_TRUE(ChainOfCgroup(kRun, "/user.slice", 3).outside);
  EXPECT_TRUE(ChainOfCgroup(kRun, "/", 3).outside);
  // A longer name that merely starts like the run's is another cgroup.
  EXPECT_TRUE(ChainOfCgroup(kRun, std::string(kRun) + "x/s-0", 3).outside);
}

TEST(ChainOfCgroup, AChainsCgroupNamesItsSectionsInOrder) {
  const CgroupChain c = ChainOfCgroup(kRun, std::string(kRun) + "/s-2_0", 3);
  EXPECT_FALSE(c.outside);
  EXPECT_TRUE(c.valid);
  EXPECT_THAT(c.chain, ElementsAre(2, 0));
}

// CMD lives in the run's directory itself (run_cgroup.h): its chain.
TEST(ChainOfCgroup, TheRunsDirectoryItselfIsCmdsChain) {
  const CgroupChain c = ChainOfCgroup(kRun, kRun, 3);
  EXPECT_FALSE(c.outside);
  EXPECT_TRUE(c.valid);
  EXPECT_TRUE(c.itself);
}

// Falling back to CMD's chain for these would be the widest answer: each
// is refused instead.
TEST(ChainOfCgroup, AnythingElseInTheRunsDirectoryIsInvalid) {
  for (const char* rest : {"/s-", "/s-0_", "/s-_0", "/s-3", "/s-00", "/s-+1",
                           "/s-0/x", "/s-0_1/s-2", "/x", "/s-1 "}) {
    const CgroupChain c = ChainOfCgroup(kRun, std::string(kRun) + rest, 3);
    EXPECT_FALSE(c.outside) << rest;
    EXPECT_FALSE(c.valid) << rest;
  }
}

}  // namespace
}  // namespace klaunch
