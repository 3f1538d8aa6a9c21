// Attacks on what workspace-write keeps read-only inside its writable roots
// (docs/policy.md, "read_only"): the workspace's .git/hooks and .git/config,
// the shell start-up files under ~, and the policy file itself. Written, each
// would run code of the program's choosing outside the sandbox later (a hook
// on the user's next commit, `core.fsmonitor`, an alias in .bashrc) or widen
// its next run.
//
// The workspace is the test's whole directory, so that $HOME (the test's
// directory) and the policy file lie inside a writable root: only the
// read_only entries stand between the program and them. Each way to change
// what a protected name holds is tried through libc with the shim loaded,
// by a static binary (the supervisor alone judges), and by sh; a test fails
// when the world shows the change, whatever the program printed.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/attack_support.h"

namespace klaunch::testing {
namespace {

using ::testing::HasSubstr;

class AttackProtected : public ::testing::Test {
 protected:
  void SetUp() override {
    RunProcess({"/bin/mkdir", "-p", k_.Path(".git/hooks"),
                k_.Path(".config/fish"), k_.Path("bin")});
    k_.Write(".git/hooks/pre-commit", "original hook\n");
    k_.Write(".git/config", "original config\n");
    k_.Write(".bashrc", "original rc\n");
    k_.Write("ws/evil", "evil\n");
    BuildProgram("toucher.c", k_.Path("bin/toucher-static"), true);
    BuildProgram("toucher.c", k_.Path("bin/toucher"), false);
  }

  void SetPolicy(const std::string& extra) {
    k_.SetPolicy("extends = \"workspace-write\"\n[filesystem]\nworkspace = \"" +
                 k_.root() + "\"\n" + extra);
  }

  // Every way the toucher has to change what `.git`, ~/.bashrc, ~/.profile
  // or the policy file hold.
  std::vector<std::string> Attacks() const {
    const std::string ws = k_.ws();
    const std::string home = k_.root();
    return {
        "append:" + k_.root() + "/.git/hooks/pre-commit",
        "create:" + k_.root() + "/.git/hooks/post-checkout",
        "rdwr:" + k_.root() + "/.git/config",
        "rename:" + ws + "/evil:" + k_.root() + "/.git/config",
        "unlink:" + k_.root() + "/.git/hooks/pre-commit",
        "rename:" + k_.root() + "/.git/hooks:" + ws + "/moved-hooks",
        "rename:" + k_.root() + "/.git:" + ws + "/moved-git",
        "link:" + k_.root() + "/.git/hooks/pre-commit:" + ws + "/hook-link",
        "append:" + home + "/.bashrc",
        "create:" + home + "/.profile",
        "mkdir:" + home + "/.config/fish/conf.d",
        "append:" + k_.Path("policy.toml"),
        "rename:" + ws + "/evil:" + k_.Path("policy.toml"),
    };
  }

  // What each attack would have left behind, checked on the disk.
  void ExpectNothingChanged(const std::string& how) const {
    const std::string ws = k_.ws();
    EXPECT_EQ(ReadFile(k_.root() + "/.git/hooks/pre-commit"), "original hook\n")
        << how;
    EXPECT_EQ(ReadFile(k_.root() + "/.git/config"), "original config\n") << how;
    EXPECT_FALSE(Exists(k_.root() + "/.git/hooks/post-checkout")) << how;
    EXPECT_FALSE(Exists(ws + "/moved-hooks")) << how;
    EXPECT_FALSE(Exists(ws + "/moved-git")) << how;
    EXPECT_FALSE(Exists(ws + "/hook-link")) << how;
    EXPECT_EQ(ReadFile(k_.root() + "/.bashrc"), "original rc\n") << how;
    EXPECT_FALSE(Exists(k_.root() + "/.profile")) << how;
    EXPECT_FALSE(Exists(k_.root() + "/.config/fish/conf.d")) << how;
    EXPECT_THAT(ReadFile(k_.Path("policy.toml")),
                HasSubstr("extends = \"workspace-write\""))
        << how;
    EXPECT_EQ(ReadFile(ws + "/evil"), "evil\n") << how;
  }

  KlaunchRun k_;
};

TEST_F(AttackProtected,
       NoWayOfWritingGitHooksConfigRcFilesOrThePolicyGetsThrough) {
  SetPolicy("");
  for (const char* binary : {"bin/toucher-static", "bin/toucher"}) {
    std::vector<std::string> cmd = {k_.Path(binary)};
    for (const std::string& a : Attacks()) cmd.push_back(a);
    // A write the workspace admits, so that the run shows writing works.
    cmd.push_back("create:" + k_.root() + "/.git/objects-ok");
    RunProcess({"/bin/rm", "-f", k_.root() + "/.git/objects-ok"});
    ProcessResult r = k_.Run(cmd);
    ASSERT_EQ(r.exit_code, 0) << Show(r);
    EXPECT_TRUE(Exists(k_.root() + "/.git/objects-ok")) << binary << Show(r);
    for (const std::string& a : Attacks()) {
      EXPECT_THAT(r.out, HasSubstr(a.substr(0, a.find(':')) + " " +
                                   a.substr(a.find(':') + 1) + ": error"))
          << binary << Show(r);
    }
    ExpectNothingChanged(binary);
  }
}

TEST_F(AttackProtected, AShellRedirectionOrGitConfigCannotChangeThem) {
  SetPolicy("");
  ProcessResult r =
      k_.Run({"/bin/sh", "-c",
              "echo x > ../.git/hooks/pre-commit; echo x >> ../.git/config; "
              "echo x >> ../.bashrc; echo x >> ../policy.toml; "
              "git config --file ../.git/config core.fsmonitor evil; "
              "cp evil ../.git/config; mv ../.git moved-git; "
              "ln ../.git/hooks/pre-commit hook-link; "
              "ln -s ../.git/hooks/pre-commit s; echo x >> s; echo done"});
  EXPECT_THAT(r.out, HasSubstr("done")) << Show(r);
  ExpectNothingChanged("sh");
}

TEST_F(AttackProtected, ThePresetsEntriesCanBeLiftedButNotThePolicyFiles) {
  SetPolicy("preset_read_only = false\n");
  ProcessResult r = k_.Run({k_.Path("bin/toucher-static"),
                            "append:" + k_.root() + "/.git/config",
                            "append:" + k_.Path("policy.toml")});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("append " + k_.root() + "/.git/config: ok"));
  EXPECT_THAT(r.out, HasSubstr("append " + k_.Path("policy.toml") + ": error"));
}

TEST_F(AttackProtected, AUsersReadOnlyEntryKeepsAWorkspaceFileFromEveryWriter) {
  k_.Write("ws/keep.txt", "kept\n");
  SetPolicy("read_only = [\"keep.txt\"]\n");
  ProcessResult r = k_.Run(
      {k_.Path("bin/toucher-static"), "read:" + k_.ws() + "/keep.txt",
       "append:" + k_.ws() + "/keep.txt", "unlink:" + k_.ws() + "/keep.txt",
       "rename:" + k_.ws() + "/evil:" + k_.ws() + "/keep.txt"});
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("read " + k_.ws() + "/keep.txt: ok"));
  EXPECT_EQ(ReadFile(k_.ws() + "/keep.txt"), "kept\n") << Show(r);
  EXPECT_EQ(ReadFile(k_.ws() + "/evil"), "evil\n") << Show(r);
}

TEST_F(AttackProtected, ExplainSaysAHookWriteIsRefusedAndWhy) {
  SetPolicy("");
  ProcessOptions o;
  o.cwd = k_.ws();
  o.env = std::vector<std::string>{"PATH=/usr/bin:/bin", "HOME=" + k_.root()};
  ProcessResult r = RunProcess(
      {RequiredEnv("KLAUNCH_BIN"), "explain", "--policy",
       k_.Path("policy.toml"), "--write", "../.git/hooks/pre-commit"},
      o);
  EXPECT_EQ(r.exit_code, 1) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("deny: write of " + k_.root() +
                               "/.git/hooks/pre-commit refused by "
                               "filesystem.read_only["));
  EXPECT_THAT(r.out, HasSubstr("preset workspace-write keeps it"));
  r = RunProcess({RequiredEnv("KLAUNCH_BIN"), "explain", "--policy",
                  k_.Path("policy.toml"), "--write", k_.Path("policy.toml")},
                 o);
  EXPECT_EQ(r.exit_code, 1) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("policy file are never written"));
}

}  // namespace
}  // namespace klaunch::testing
