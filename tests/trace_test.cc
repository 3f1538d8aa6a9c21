// --trace: a run's log also says what was allowed (writes, creations,
// deletions, execs, connects), once per call, whichever layer judged it:
// the shim for a dynamic program's libc calls, the supervisor for a static
// program's. Reads and writes to /dev/null are left out.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/attack_support.h"
#include "tests/listener.h"

namespace klaunch::testing {
namespace {

using ::testing::IsEmpty;

// "op target layer" -> how many allow records say it.
std::map<std::string, int> Allowed(const KlaunchRun& k) {
  std::map<std::string, int> out;
  for (const std::string& line : k.LogLines()) {
    if (Field(line, "verdict") != "allow") continue;
    out[Field(line, "access") + " " + Field(line, "target") + " " +
        Field(line, "layer")]++;
  }
  return out;
}

TEST(Trace,
     ARunsWritesExecsAndConnectsAreRecordedOnceEachByTheLayerThatJudged) {
  KlaunchRun k;
  Listener listener;
  ASSERT_TRUE(listener.ok());
  BuildProgram("toucher.c", k.Path("ws/toucher-static"), true);
  BuildProgram("toucher.c", k.Path("ws/toucher"), false);
  k.Write("ws/input", "x\n");
  k.SetPolicy(
      "extends = \"workspace-write\"\n[network]\nallow = [\"127.0.0.1:" +
      std::to_string(listener.port()) + "\"]\n");
  const std::string ws = k.ws();
  const std::string port = std::to_string(listener.port());
  ProcessResult r = k.Run(
      {"/bin/sh", "-c",
       "mkdir -p build/a && echo x > build/a/f && mv build/a/f build/a/g && "
       "cat input > /dev/null && rm -r build && "
       "./toucher create:" +
           ws + "/dyn connect:" + port +
           " && "
           "./toucher-static create:" +
           ws + "/static unlink:" + ws + "/static"},
      {"--trace"});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  const std::map<std::string, int> allowed = Allowed(k);
  std::string all;
  for (const auto& [what, n] : allowed) {
    all += what + " x" + std::to_string(n) + "\n";
  }
  // A dynamic program's calls, judged by the shim: each name is made and
  // then renamed or removed (two records), the others once.
  const std::map<std::string, int> want = {
      {"write " + ws + "/build shim", 2},
      {"write " + ws + "/build/a shim", 2},
      {"write " + ws + "/build/a/f shim", 2},
      {"write " + ws + "/build/a/g shim", 2},
      {"write " + ws + "/dyn shim", 1},
      {"connect 127.0.0.1:" + port + " shim", 1}};
  for (const auto& [what, n] : want) {
    EXPECT_EQ(allowed.count(what) ? allowed.at(what) : 0, n) << what << "\n"
                                                             << all;
  }
  // A static program's, judged by the supervisor alone.
  EXPECT_EQ(allowed.count("write " + ws + "/static seccomp")
                ? allowed.at("write " + ws + "/static seccomp")
                : 0,
            2)  // its creation and its unlink
      << all;
  // Every exec once, whichever layers judged it.
  for (const std::string& program :
       {std::string("/usr/bin/mkdir"), std::string("/usr/bin/mv"),
        std::string("/usr/bin/rm"), ws + "/toucher", ws + "/toucher-static"}) {
    int n = 0;
    for (const auto& [what, count] : allowed) {
      if (what.rfind("exec " + program + " ", 0) == 0) n += count;
    }
    EXPECT_EQ(n, 1) << program << "\n" << all;
  }
  // Each record as docs/audit-record.schema.json says.
  if (RunProcess({"/usr/bin/python3", "-c", "import jsonschema"}).exit_code ==
      0) {
    ProcessResult valid = RunProcess(
        {"/usr/bin/python3", "-c",
         "import json, sys, jsonschema\n"
         "schema = json.load(open(sys.argv[1]))\n"
         "for line in open(sys.argv[2], encoding='utf-8'):\n"
         "    jsonschema.validate(json.loads(line), schema)\n",
         RequiredEnv("KLAUNCH_DOCS") + "/audit-record.schema.json", k.log()});
    EXPECT_EQ(valid.exit_code, 0) << valid.err;
  }
  // Neither reads nor the device that holds nothing.
  for (const auto& [what, n] : allowed) {
    EXPECT_EQ(what.find("/input"), std::string::npos) << what;
    EXPECT_EQ(what.find("/dev/null"), std::string::npos) << what;
  }
}

TEST(Trace, WithoutTraceNothingAllowedIsRecorded) {
  KlaunchRun k;
  k.SetPolicy("extends = \"workspace-write\"\n");
  ProcessResult r = k.Run({"/bin/sh", "-c", "mkdir d && echo x > d/f"});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_THAT(Allowed(k), IsEmpty());
}

}  // namespace
}  // namespace klaunch::testing
