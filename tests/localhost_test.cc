// A host rule naming localhost admits whoever connects there: curl answers
// `localhost` itself, never calling getaddrinfo, and a static program has
// no shim to see a lookup (core/static_names.h). The listener is the
// test's own, on loopback.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/attack_support.h"
#include "tests/listener.h"

namespace klaunch::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(Localhost, CurlAndAStaticProgramReachALocalhostRuleAndNoOtherPort) {
  if (!Exists("/usr/bin/curl")) {
    GTEST_SKIP() << "curl is missing (scripts/bootstrap installs it)";
  }
  KlaunchRun k;
  Listener listener;
  Listener other;
  ASSERT_TRUE(listener.ok() && other.ok());
  const std::string port = std::to_string(listener.port());
  const std::string other_port = std::to_string(other.port());
  BuildProgram("toucher.c", k.Path("ws/toucher-static"), true);
  k.SetPolicy(
      "extends = \"workspace-write\"\n[network]\nallow = "
      "[\"localhost:" +
      port + "\"]\n");
  // The listener answers nothing: what counts is that it accepted curl's
  // connection, and that curl did not fail to connect (7).
  ProcessResult curl =
      k.Run({"/usr/bin/curl", "-s", "-o", "/dev/null", "--max-time", "2",
             "http://localhost:" + port + "/"});
  EXPECT_NE(curl.exit_code, 7) << Show(curl);
  EXPECT_EQ(listener.Accepted(), 1) << Show(curl);
  ProcessResult refused =
      k.Run({"/usr/bin/curl", "-s", "-o", "/dev/null", "--max-time", "2",
             "http://localhost:" + other_port + "/"});
  EXPECT_EQ(refused.exit_code, 7) << Show(refused);
  EXPECT_EQ(other.Accepted(), 0);
  ProcessResult fixed = k.Run({k.Path("ws/toucher-static"), "connect:" + port,
                               "connect:" + other_port});
  EXPECT_THAT(fixed.out, HasSubstr("connect " + port + ": ok")) << Show(fixed);
  EXPECT_THAT(fixed.out, HasSubstr("connect " + other_port + ": error"))
      << Show(fixed);
  // Only the other port's connects were refused.
  for (const std::string& line : k.LogLines()) {
    if (Field(line, "verdict") != "deny") continue;
    EXPECT_THAT(Field(line, "target"), HasSubstr(":" + other_port)) << line;
    EXPECT_THAT(Field(line, "target"), Not(HasSubstr(":" + port + "\"")));
  }
}

}  // namespace
}  // namespace klaunch::testing
