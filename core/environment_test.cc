#include "core/environment.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/loader.h"

namespace klaunch {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

Policy Load(absl::string_view toml) {
  absl::StatusOr<Policy> p =
      LoadPolicyText(toml, "p.toml", LoadContext{"/ws", "/home/me", ""});
  EXPECT_TRUE(p.ok()) << p.status();
  return *p;
}

TEST(Environment, AVariableNotKeptIsAbsentAndASetOneIsPresent) {
  Policy p = Load(R"(
extends = "none"
[env]
keep = ["PATH", "LC_*"]
set = { PIP_NO_INPUT = "1" }
)");
  EXPECT_THAT(BuildEnvironment(p, {"PATH=/usr/bin", "AWS_SECRET_ACCESS_KEY=x",
                                   "LC_ALL=C", "LCX=1", "HOME=/root"}),
              ElementsAre("PATH=/usr/bin", "LC_ALL=C", "PIP_NO_INPUT=1"));
}

TEST(Environment, ASetVariableWinsOverAKeptOne) {
  Policy p = Load(R"(
[env]
set = { PATH = "/opt/bin" }
)");
  EXPECT_THAT(BuildEnvironment(p, {"PATH=/usr/bin", "HOME=/root"}),
              UnorderedElementsAre("HOME=/root", "PATH=/opt/bin"));
}

TEST(Environment, TheDefaultSetKeepsTheBasicsAndDropsSecrets) {
  Policy p = Load("");
  EXPECT_THAT(BuildEnvironment(p, {"HOME=/root", "GITHUB_TOKEN=t", "TERM=xterm",
                                   "LANG=C.UTF-8", "SSH_AUTH_SOCK=/tmp/a",
                                   "=broken", "junk"}),
              ElementsAre("HOME=/root", "TERM=xterm", "LANG=C.UTF-8"));
}

TEST(Environment, FullAccessKeepsEverything) {
  Policy p = Load("extends = \"full-access\"\n");
  EXPECT_THAT(BuildEnvironment(p, {"A=1", "GITHUB_TOKEN=t"}),
              ElementsAre("A=1", "GITHUB_TOKEN=t"));
}

}  // namespace
}  // namespace klaunch
