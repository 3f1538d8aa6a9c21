#include "core/run_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "core/loader.h"

namespace klaunch {
namespace {

// Paths that exist nowhere, so that no entry resolves to another spelling.
constexpr char kShim[] = "/nonexistent-lib/klaunch/libklaunch-shim.so";
constexpr char kBinary[] = "/nonexistent-bin/klaunch";
constexpr char kState[] = "/nonexistent-home/me/.local/state/klaunch";

LoadContext Ctx() {
  return LoadContext{"/nonexistent-ws/proj", "/nonexistent-home/me", ""};
}

Policy MustLoad(const std::string& toml) {
  absl::StatusOr<Policy> p = LoadPolicyText(toml, "p.toml", Ctx());
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : Policy{};
}

Policy ForRun(const std::string& toml, RunAdditions add) {
  Policy p = MustLoad(toml);
  const absl::Status s = MakeRunPolicy(&p, add, Ctx());
  EXPECT_TRUE(s.ok()) << s;
  return p;
}

Engine MustCompile(const Policy& p) {
  absl::StatusOr<Engine> e = Engine::Create(p);
  EXPECT_TRUE(e.ok()) << e.status();
  return *std::move(e);
}

RunAdditions Own(std::vector<std::string> own = {}) {
  RunAdditions a;
  a.shim = kShim;
  a.binary = kBinary;
  a.own = std::move(own);
  return a;
}

bool Lists(const std::vector<Entry>& list, const std::string& value) {
  for (const Entry& e : list) {
    if (e.value == value) return true;
  }
  return false;
}

TEST(RunPolicy, TheShimIsMadeReadableWhereThePolicyWouldNotReadIt) {
  const Policy p = ForRun("extends = \"read-only\"\n", Own());
  ASSERT_TRUE(Lists(p.filesystem.read, kShim));
  const Engine e = MustCompile(p);
  EXPECT_TRUE(e.CheckPath(Access::kRead, kShim).allowed());
}

TEST(RunPolicy, TheShimIsNotListedWhereThePolicyReadsItAlready) {
  const Policy p = ForRun(
      "extends = \"none\"\n[filesystem]\nread = [\"/nonexistent-lib\"]\n",
      Own());
  EXPECT_FALSE(Lists(p.filesystem.read, kShim));
}

TEST(RunPolicy, AProgramSectionWithItsOwnReadListReadsTheShimToo) {
  const Policy p = ForRun(R"(extends = "none"
[filesystem]
read = ["/usr", "/nonexistent-lib"]
[programs."tool"]
filesystem.read = ["/usr"]
)",
                          Own());
  ASSERT_EQ(p.programs.size(), 1u);
  ASSERT_TRUE(p.programs[0].read.has_value());
  EXPECT_TRUE(Lists(*p.programs[0].read, kShim));
  const int tool = 0;
  absl::StatusOr<Engine> in = MustCompile(p).Narrow({&tool, 1});
  ASSERT_TRUE(in.ok()) << in.status();
  EXPECT_TRUE(in->CheckPath(Access::kRead, kShim).allowed());
}

TEST(RunPolicy, TheShimAndTheBinaryAreNeverWrittenWhateverTheRootsSay) {
  const Policy p = ForRun(
      "extends = \"none\"\n[filesystem]\nwrite = [\"/\"]\n"
      "unlisted_writes = \"ask\"\n",
      Own());
  const Engine e = MustCompile(p);
  for (const char* path : {kShim, kBinary}) {
    const Decision d = e.CheckPath(Access::kWrite, path);
    EXPECT_EQ(d.verdict, Verdict::kDeny) << path;
    EXPECT_TRUE(absl::StartsWith(d.rule, "klaunch.read_only[")) << d.rule;
    EXPECT_FALSE(e.CheckMove(path).allowed()) << path;
  }
}

TEST(RunPolicy, ThePolicyFileIsKeptReadOnlyAbsoluteFromTheBaseDirectory) {
  RunAdditions add;
  add.policy_file = "klaunch.toml";
  const Policy p = ForRun("extends = \"workspace-write\"\n", add);
  const std::string file = "/nonexistent-ws/proj/klaunch.toml";
  ASSERT_TRUE(Lists(p.klaunch.read_only, file));
  const Engine e = MustCompile(p);
  EXPECT_TRUE(e.CheckPath(Access::kRead, file).allowed());
  EXPECT_EQ(e.CheckPath(Access::kWrite, file).verdict, Verdict::kDeny);
  // The workspace around it stays writable.
  EXPECT_TRUE(
      e.CheckPath(Access::kWrite, "/nonexistent-ws/proj/other").allowed());
}

TEST(RunPolicy, APresetRunKeepsNoPolicyFile) {
  const Policy p = ForRun("extends = \"workspace-write\"\n", RunAdditions{});
  EXPECT_TRUE(p.klaunch.read_only.empty());
}

TEST(RunPolicy, AuditAndAskAmendTheModeAndTheUnlistedCommands) {
  RunAdditions add;
  add.audit = true;
  add.ask = true;
  const Policy p = ForRun("extends = \"workspace-write\"\n", add);
  EXPECT_EQ(p.mode, Mode::kAudit);
  EXPECT_EQ(p.commands.unlisted, Unlisted::kAsk);
  const Policy plain = ForRun("extends = \"workspace-write\"\n", {});
  EXPECT_EQ(plain.mode, Mode::kEnforce);
}

TEST(RunPolicy, KlaunchsStateIsDeniedWhereThePolicyWouldAdmitIt) {
  const Policy p = ForRun(
      "extends = \"none\"\n[filesystem]\nwrite = [\"/nonexistent-home\"]\n",
      Own({kState}));
  ASSERT_TRUE(Lists(p.filesystem.deny, kState));
  const Engine e = MustCompile(p);
  for (Access a : {Access::kRead, Access::kWrite}) {
    EXPECT_EQ(
        e.CheckPath(a, std::string(kState) + "/runs/x/audit.jsonl").verdict,
        Verdict::kDeny);
  }
}

TEST(RunPolicy, KlaunchsStateIsNotListedWhereThePolicyRefusesItAnyway) {
  const Policy p = ForRun("extends = \"read-only\"\n", Own({kState}));
  EXPECT_FALSE(Lists(p.filesystem.deny, kState));
  // And still refused, by the policy's own answer.
  const Engine e = MustCompile(p);
  EXPECT_FALSE(e.CheckPath(Access::kRead, kState).allowed());
}

TEST(RunPolicy, KlaunchsStateIsDeniedWhereAWriteCouldBeAskedFor) {
  const Policy p =
      ForRun("extends = \"none\"\n[filesystem]\nunlisted_writes = \"ask\"\n",
             Own({kState}));
  EXPECT_TRUE(Lists(p.filesystem.deny, kState));
}

TEST(RunPolicy, ACgroupPatternIsDeniedOnlyWhereTheProgramMayWriteBelowIt) {
  const std::string procs = "/nonexistent-cg/run/**/cgroup.procs";
  const Policy open = ForRun(
      "extends = \"none\"\n[filesystem]\nwrite = [\"/nonexistent-cg/run/a\"]\n",
      Own({procs}));
  EXPECT_TRUE(Lists(open.filesystem.deny, procs));
  const Policy closed = ForRun(
      "extends = \"none\"\n[filesystem]\nwrite = [\"/nonexistent-other\"]\n",
      Own({procs}));
  EXPECT_FALSE(Lists(closed.filesystem.deny, procs));
}

TEST(MayWriteBelow, AWriteRootAtAboveOrBelowTheDirectoryCounts) {
  for (const char* root :
       {"/nonexistent-d", "/nonexistent-d/sub", "/nonexistent-d/a/**"}) {
    const Policy p =
        MustLoad(std::string("extends = \"none\"\n[filesystem]\nwrite = [\"") +
                 root + "\"]\n");
    EXPECT_TRUE(MayWriteBelow(p, MustCompile(p), "/nonexistent-d")) << root;
  }
  const Policy above =
      MustLoad("extends = \"none\"\n[filesystem]\nwrite = [\"/\"]\n");
  EXPECT_TRUE(MayWriteBelow(above, MustCompile(above), "/nonexistent-d"));
}

TEST(MayWriteBelow, ARootBesideTheDirectoryDoesNot) {
  const Policy p = MustLoad(
      "extends = \"none\"\n[filesystem]\nwrite = [\"/nonexistent-dx\"]\n"
      "read = [\"/nonexistent-d\"]\n");
  EXPECT_FALSE(MayWriteBelow(p, MustCompile(p), "/nonexistent-d"));
}

TEST(MayWriteBelow, AWritableWorkspaceBelowCountsAndAReadOnlyOneDoesNot) {
  const Policy rw = MustLoad(
      "extends = \"none\"\n[filesystem]\nworkspace = "
      "\"/nonexistent-d/ws\"\nworkspace_writable = true\n");
  EXPECT_TRUE(MayWriteBelow(rw, MustCompile(rw), "/nonexistent-d"));
  const Policy ro = MustLoad(
      "extends = \"none\"\n[filesystem]\nworkspace = "
      "\"/nonexistent-d/ws\"\nworkspace_writable = false\n");
  EXPECT_FALSE(MayWriteBelow(ro, MustCompile(ro), "/nonexistent-d"));
}

TEST(MayWriteBelow, AWriteThatMayBeAskedForCounts) {
  const Policy p =
      MustLoad("extends = \"none\"\n[filesystem]\nunlisted_writes = \"ask\"\n");
  EXPECT_TRUE(MayWriteBelow(p, MustCompile(p), "/nonexistent-d"));
}

}  // namespace
}  // namespace klaunch
