#include "core/engine.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "core/loader.h"

namespace klaunch {
namespace {

using ::testing::HasSubstr;

// A context that resolves nothing through the live filesystem by accident:
// the paths used below do not exist on a test machine.
LoadContext Ctx() {
  return LoadContext{"/nonexistent-ws/proj", "/nonexistent-home/me", ""};
}

Engine MustLoad(absl::string_view toml, const LoadContext& ctx = Ctx()) {
  absl::StatusOr<Policy> policy = LoadPolicyText(toml, "test.toml", ctx);
  EXPECT_TRUE(policy.ok()) << policy.status();
  absl::StatusOr<Engine> engine = Engine::Create(*policy);
  EXPECT_TRUE(engine.ok()) << engine.status();
  return *std::move(engine);
}

constexpr char kBase[] = R"(
extends = "none"
[filesystem]
read  = ["/usr", "/etc/ssl"]
write = ["/scratch"]
deny  = ["~/.ssh", "**/.env", "/usr/secret"]
)";

// Found by fuzz/loader_fuzzer: a deny entry reached through a symlink to a
// directory whose name holds a `*` was matched by neither spelling.
TEST(PathRules, ADenyEntryWhoseResolvedSpellingHoldsAStarCoversThatSpelling) {
  Engine e = MustLoad(R"(
extends = "none"
[filesystem]
read = ["/data"]
deny = ["/data/link/secret"]
[resolved]
"/data/link/secret" = "/data/real*dir/secret"
)");
  EXPECT_FALSE(e.CheckPath(Access::kRead, "/data/real*dir/secret").allowed());
  EXPECT_FALSE(e.CheckPath(Access::kRead, "/data/link/secret").allowed());
  // The spelling is matched as a glob, so it covers more than the one
  // directory: the safe side for a deny entry.
}

TEST(PathRules, AReadOnlyEntryIsReadableButNeverWrittenOrMovedOrAskedAbout) {
  Engine e = MustLoad(R"(
extends = "none"
[filesystem]
write = ["/scratch"]
read_only = ["/scratch/keep", "/nonexistent-ws/proj/gen/*.lock"]
unlisted_writes = "ask"
)");
  for (Access a : {Access::kRead, Access::kExec, Access::kStat}) {
    EXPECT_TRUE(e.CheckPath(a, "/scratch/keep/a").allowed());
  }
  for (const char* path : {"/scratch/keep", "/scratch/keep/a/b",
                           "/nonexistent-ws/proj/gen/x.lock"}) {
    Decision d = e.CheckPath(Access::kWrite, path);
    EXPECT_EQ(d.verdict, Verdict::kDeny) << path;
    EXPECT_THAT(std::string(d.rule),
                ::testing::StartsWith("filesystem.read_only["))
        << path;
    EXPECT_THAT(d.message, HasSubstr("read_only entries are never written"));
  }
  EXPECT_EQ(e.CheckPath(Access::kReadWrite, "/scratch/keep/a").verdict,
            Verdict::kDeny);
  EXPECT_TRUE(e.CheckPath(Access::kWrite, "/scratch/other").allowed());
  EXPECT_TRUE(
      e.CheckPath(Access::kWrite, "/nonexistent-ws/proj/gen/x.c").allowed());
  // Moving a directory above the entry would carry it out from under it.
  EXPECT_FALSE(e.CheckMove("/scratch").allowed());
  EXPECT_TRUE(e.CheckMove("/scratch/other").allowed());
}

TEST(PathRules, ADenyEntryWinsOverAReadOnlyOne) {
  Engine e = MustLoad(R"(
extends = "none"
[filesystem]
read_only = ["/data"]
deny = ["/data/secret"]
)");
  EXPECT_TRUE(e.CheckPath(Access::kRead, "/data/x").allowed());
  Decision d = e.CheckPath(Access::kRead, "/data/secret");
  EXPECT_EQ(d.rule, "filesystem.deny[0]");
}

TEST(PathRules, WorkspaceWriteKeepsTheWorkspacesGitHooksAndConfigAndRcFiles) {
  char dir[] = "/tmp/klaunch-engine-test-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string ws = dir;
  auto load = [&](absl::string_view toml) {
    return MustLoad(toml, LoadContext{ws, "/nonexistent-home/me", ""});
  };
  // No repository yet: one the program makes is its own (git init works).
  Engine before = load("extends = \"workspace-write\"\n");
  EXPECT_TRUE(before.CheckPath(Access::kWrite, ws + "/.git/config").allowed());
  ASSERT_EQ(mkdir((ws + "/.git").c_str(), 0700), 0);
  Engine e = load("extends = \"workspace-write\"\n");
  for (const std::string& path :
       {ws + "/.git/hooks/pre-commit", ws + "/.git/hooks", ws + "/.git/config",
        std::string("/nonexistent-home/me/.bashrc"),
        std::string("/nonexistent-home/me/.zshrc"),
        std::string("/nonexistent-home/me/.gitconfig")}) {
    Decision d = e.CheckPath(Access::kWrite, path);
    EXPECT_EQ(d.verdict, Verdict::kDeny) << path;
    EXPECT_THAT(d.message, HasSubstr("preset workspace-write keeps it"));
  }
  EXPECT_TRUE(e.CheckPath(Access::kRead, ws + "/.git/config").allowed());
  EXPECT_TRUE(
      e.CheckPath(Access::kWrite, ws + "/.git/objects/ab/cd").allowed());
  Engine lifted = load(
      "extends = \"workspace-write\"\n[filesystem]\npreset_read_only = "
      "false\n");
  EXPECT_TRUE(lifted.CheckPath(Access::kWrite, ws + "/.git/hooks/pre-commit")
                  .allowed());
  rmdir((ws + "/.git").c_str());
  rmdir(dir);
}

TEST(PathRules, TheWorkspaceAdmitsReadWriteAndExec) {
  Engine e = MustLoad(kBase);
  for (Access a :
       {Access::kRead, Access::kWrite, Access::kExec, Access::kStat}) {
    Decision d = e.CheckPath(a, "/nonexistent-ws/proj/src/main.py");
    EXPECT_TRUE(d.allowed()) << AccessName(a) << ": " << d.message;
  }
  EXPECT_EQ(e.CheckPath(Access::kWrite, "/nonexistent-ws/proj/a").rule,
            "workspace");
}

TEST(PathRules, AReadRootAdmitsReadingButNotWriting) {
  Engine e = MustLoad(kBase);
  Decision read = e.CheckPath(Access::kRead, "/usr/lib/libc.so");
  EXPECT_TRUE(read.allowed());
  EXPECT_EQ(read.rule, "filesystem.read[0]");
  Decision write = e.CheckPath(Access::kWrite, "/usr/lib/libc.so");
  EXPECT_EQ(write.verdict, Verdict::kDeny);
  EXPECT_EQ(write.rule, "filesystem.read[0]");
  EXPECT_THAT(write.message, HasSubstr("/usr/lib/libc.so"));
  EXPECT_THAT(write.message, HasSubstr("filesystem.write"));
}

TEST(PathRules, AWriteRootAdmitsReadingAndWriting) {
  Engine e = MustLoad(kBase);
  EXPECT_TRUE(e.CheckPath(Access::kWrite, "/scratch/x/y").allowed());
  EXPECT_TRUE(e.CheckPath(Access::kRead, "/scratch/x/y").allowed());
  EXPECT_EQ(e.CheckPath(Access::kWrite, "/scratch").rule,
            "filesystem.write[0]");
}

TEST(PathRules, APathOutsideEveryRootIsRefusedWithTheKeyThatWouldAdmitIt) {
  Engine e = MustLoad(kBase);
  Decision d = e.CheckPath(Access::kRead, "/etc/shadow");
  EXPECT_EQ(d.verdict, Verdict::kDeny);
  EXPECT_EQ(d.rule, "filesystem.unlisted");
  EXPECT_THAT(d.message, HasSubstr("/etc/shadow"));
  EXPECT_THAT(d.message, HasSubstr("filesystem.read"));
  Decision w = e.CheckPath(Access::kWrite, "/var/log/x");
  EXPECT_THAT(w.message, HasSubstr("filesystem.write"));
}

TEST(PathRules, DenyWinsOverTheWorkspaceAndEveryRoot) {
  Engine e = MustLoad(kBase);
  Decision ws = e.CheckPath(Access::kRead, "/nonexistent-ws/proj/.env");
  EXPECT_EQ(ws.verdict, Verdict::kDeny);
  EXPECT_EQ(ws.rule, "filesystem.deny[1]");
  Decision root = e.CheckPath(Access::kRead, "/usr/secret/token");
  EXPECT_EQ(root.rule, "filesystem.deny[2]");
  EXPECT_THAT(root.message, HasSubstr("filesystem.deny[2]"));
}

TEST(PathRules, DenyRefusesEvenStat) {
  Engine e = MustLoad(kBase);
  Decision d = e.CheckPath(Access::kStat, "/nonexistent-home/me/.ssh/id_rsa");
  EXPECT_EQ(d.verdict, Verdict::kDeny);
  EXPECT_EQ(d.rule, "filesystem.deny[0]");
}

TEST(PathRules, StatIsRefusedOnlyByDeny) {
  Engine e = MustLoad(kBase);
  EXPECT_TRUE(e.CheckPath(Access::kStat, "/etc/shadow").allowed());
  EXPECT_TRUE(e.CheckPath(Access::kStat, "/").allowed());
}

TEST(PathRules, DotDotCannotStepOutOfAnAllowedRoot) {
  Engine e = MustLoad(kBase);
  EXPECT_FALSE(e.CheckPath(Access::kRead, "/usr/../etc/shadow").allowed());
  EXPECT_FALSE(
      e.CheckPath(Access::kWrite, "/scratch/../usr/bin/python3").allowed());
  EXPECT_FALSE(
      e.CheckPath(Access::kRead, "/nonexistent-ws/proj/../../../etc/shadow")
          .allowed());
  // And `..` cannot smuggle a path out from under a deny entry either.
  EXPECT_FALSE(
      e.CheckPath(Access::kRead, "/usr/lib/../secret/token").allowed());
  EXPECT_FALSE(
      e.CheckPath(Access::kStat, "/nonexistent-home/me/x/../.ssh//./id_rsa")
          .allowed());
}

TEST(PathRules, APrefixOfARootsNameIsNotInsideIt) {
  Engine e = MustLoad(kBase);
  EXPECT_FALSE(e.CheckPath(Access::kWrite, "/scratchpad/x").allowed());
  EXPECT_FALSE(e.CheckPath(Access::kRead, "/usrx").allowed());
  EXPECT_FALSE(e.CheckPath(Access::kWrite, "/nonexistent-ws/projx").allowed());
}

TEST(PathRules, ARelativePathIsRefused) {
  Engine e = MustLoad(kBase);
  Decision d = e.CheckPath(Access::kRead, "usr/lib");
  EXPECT_EQ(d.verdict, Verdict::kDeny);
  EXPECT_THAT(d.message, HasSubstr("not absolute"));
}

TEST(PathRules, AReadOnlyWorkspaceAdmitsReadingOnly) {
  Engine e = MustLoad(R"(
extends = "read-only"
)");
  EXPECT_TRUE(e.CheckPath(Access::kRead, "/nonexistent-ws/proj/a").allowed());
  Decision d = e.CheckPath(Access::kWrite, "/nonexistent-ws/proj/a");
  EXPECT_EQ(d.verdict, Verdict::kDeny);
  EXPECT_THAT(d.message, HasSubstr("workspace is read-only"));
  EXPECT_TRUE(e.CheckPath(Access::kWrite, "/dev/null").allowed());
  EXPECT_FALSE(e.CheckPath(Access::kWrite, "/tmp/x").allowed());
}

TEST(PathRules, UnderAskedForWritesOnlyAWriteOutsideTheWriteRootsIsAsked) {
  Engine e = MustLoad(std::string(kBase) + "unlisted_writes = \"ask\"\n");
  // Outside every root, and under a read root: asked, naming the path.
  for (const char* path : {"/opt/x", "/usr/lib/x"}) {
    Decision d = e.CheckPath(Access::kWrite, path);
    EXPECT_EQ(d.verdict, Verdict::kAsk) << path;
    EXPECT_THAT(d.message, HasSubstr(path));
  }
  // A deny entry is never asked about, for writing or reading.
  EXPECT_EQ(e.CheckPath(Access::kWrite, "/usr/secret/k").verdict,
            Verdict::kDeny);
  EXPECT_EQ(e.CheckPath(Access::kWrite, "/nonexistent-ws/proj/.env").verdict,
            Verdict::kDeny);
  // Reading is settled by the policy: never asked.
  EXPECT_EQ(e.CheckPath(Access::kRead, "/opt/x").verdict, Verdict::kDeny);
  EXPECT_EQ(e.CheckPath(Access::kExec, "/opt/x").verdict, Verdict::kDeny);
  EXPECT_TRUE(e.CheckPath(Access::kWrite, "/scratch/x").allowed());
  // The default refuses.
  EXPECT_EQ(MustLoad(kBase).CheckPath(Access::kWrite, "/opt/x").verdict,
            Verdict::kDeny);
}

// An open for reading and writing: asking about the write would admit the
// read too, and reads are settled by the policy.
TEST(PathRules, UnderAskedForWritesAReadAndWriteIsAskedOnlyWhereReadingIs) {
  Engine e = MustLoad(std::string(kBase) + "unlisted_writes = \"ask\"\n");
  Decision outside = e.CheckPath(Access::kReadWrite, "/opt/x");
  EXPECT_EQ(outside.verdict, Verdict::kDeny);
  EXPECT_EQ(outside.rule, "filesystem.unlisted");
  EXPECT_THAT(outside.message,
              HasSubstr("read and write of /opt/x refused: no rule admits "
                        "reading it, and reads are never asked about; add "
                        "\"/opt/x\" to filesystem.write"));
  EXPECT_EQ(e.CheckPath(Access::kReadWrite, "/usr/lib/x").verdict,
            Verdict::kAsk);
  EXPECT_TRUE(e.CheckPath(Access::kReadWrite, "/scratch/x").allowed());
  EXPECT_TRUE(
      e.CheckPath(Access::kReadWrite, "/nonexistent-ws/proj/x").allowed());
  EXPECT_EQ(e.CheckPath(Access::kReadWrite, "/usr/secret/k").verdict,
            Verdict::kDeny);
  // Without asking it is the write's refusal, as before.
  Decision d = MustLoad(kBase).CheckPath(Access::kReadWrite, "/opt/x");
  EXPECT_EQ(d.verdict, Verdict::kDeny);
  EXPECT_THAT(d.message, HasSubstr("to filesystem.write"));
}

// klaunch's own binary and shim: read as the policy says, never written,
// renamed away or asked about, even inside a write root.
TEST(PathRules, KlaunchsOwnFilesAreNeverWrittenNorAsked) {
  Engine e = MustLoad(std::string(kBase) + R"(unlisted_writes = "ask"
[klaunch]
read_only = ["/scratch/kl/libklaunch-shim.so", "/opt/kl/klaunch"]
)");
  for (const char* path :
       {"/scratch/kl/libklaunch-shim.so", "/opt/kl/klaunch"}) {
    for (Access a : {Access::kWrite, Access::kReadWrite}) {
      Decision d = e.CheckPath(a, path);
      EXPECT_EQ(d.verdict, Verdict::kDeny) << path;
      EXPECT_THAT(d.rule, HasSubstr("klaunch.read_only[")) << path;
      EXPECT_THAT(d.message, HasSubstr("never written")) << path;
    }
  }
  EXPECT_TRUE(
      e.CheckPath(Access::kRead, "/scratch/kl/libklaunch-shim.so").allowed());
  EXPECT_TRUE(e.CheckPath(Access::kWrite, "/scratch/kl/other").allowed());
  EXPECT_EQ(e.CheckPath(Access::kWrite, "/opt/kl/other").verdict,
            Verdict::kAsk);
  // Moving the directory would carry the shim out from under its entry.
  Decision move = e.CheckMove("/scratch/kl");
  EXPECT_EQ(move.verdict, Verdict::kDeny);
  EXPECT_EQ(move.rule, "klaunch.read_only[0]");
  EXPECT_TRUE(e.CheckMove("/scratch/other").allowed());
}

TEST(PathRules, AReadOnlyWorkspaceIsAskedForUnderAskedForWrites) {
  Engine e = MustLoad(R"(
extends = "read-only"
[filesystem]
unlisted_writes = "ask"
)");
  Decision d = e.CheckPath(Access::kWrite, "/nonexistent-ws/proj/a");
  EXPECT_EQ(d.verdict, Verdict::kAsk);
  EXPECT_THAT(d.message, HasSubstr("workspace is read-only"));
}

TEST(PathRules, WorkspaceWriteMakesTheTempDirectoryWritable) {
  Engine e = MustLoad(R"(extends = "workspace-write")");
  EXPECT_TRUE(e.CheckPath(Access::kWrite, "/tmp/x").allowed());
  EXPECT_TRUE(
      e.CheckPath(Access::kRead, "/usr/lib/python3.11/os.py").allowed());
  EXPECT_TRUE(e.CheckPath(Access::kRead, "/etc/ld.so.cache").allowed());
  EXPECT_FALSE(e.CheckPath(Access::kRead, "/etc/shadow").allowed());
  EXPECT_FALSE(
      e.CheckPath(Access::kRead, "/nonexistent-home/me/.ssh/id_rsa").allowed());
  EXPECT_FALSE(e.CheckPath(Access::kWrite, "/usr/bin/x").allowed());
}

TEST(PathRules, TheSystemReadRootsHoldNoSecret) {
  Engine e = MustLoad(R"(extends = "read-only")");
  for (const char* secret :
       {"/etc/shadow", "/etc/gshadow", "/etc/sudoers",
        "/etc/ssh/ssh_host_ed25519_key", "/nonexistent-home/me/.ssh/id_rsa",
        "/nonexistent-home/me/.aws/credentials", "/root/.bash_history",
        "/proc/1/environ", "/var/log/auth.log"}) {
    EXPECT_FALSE(e.CheckPath(Access::kRead, secret).allowed()) << secret;
  }
}

TEST(PathRules, FullAccessAdmitsEverything) {
  Engine e = MustLoad(R"(extends = "full-access")");
  EXPECT_TRUE(e.CheckPath(Access::kWrite, "/etc/shadow").allowed());
  EXPECT_TRUE(e.CheckCommand("/usr/bin/rm", {"rm", "-rf", "/x"}).allowed());
  EXPECT_TRUE(e.CheckConnect(*IpAddress::Parse("10.1.2.3"), 22, "").allowed());
}

TEST(PathRules, AUserDenyStillWinsOverFullAccess) {
  Engine e = MustLoad(R"(
extends = "full-access"
[filesystem]
deny = ["~/.ssh"]
)");
  EXPECT_FALSE(
      e.CheckPath(Access::kRead, "/nonexistent-home/me/.ssh/config").allowed());
}

constexpr char kCommands[] = R"(
extends = "none"
[filesystem]
read = ["/usr"]
write = ["/scratch"]
[commands]
allow_prefixes = ["git status", "ls"]
allow = ["python3 *", "/opt/tool/bin/run *"]
allow_patterns = ['^pip install [\w.=-]+$']
deny = ["git push*", "python3 -c *"]
)";

TEST(CommandRules, APrefixAdmitsWholeWordsOnly) {
  Engine e = MustLoad(kCommands);
  EXPECT_TRUE(e.CheckCommand("/usr/bin/ls", {"ls", "-la"}).allowed());
  EXPECT_EQ(e.CheckCommand("/usr/bin/ls", {"ls", "-la"}).rule,
            "commands.allow_prefixes[1]");
  EXPECT_FALSE(e.CheckCommand("/usr/bin/lsblk", {"lsblk"}).allowed());
  EXPECT_TRUE(
      e.CheckCommand("/usr/bin/git", {"git", "status", "-s"}).allowed());
  EXPECT_FALSE(e.CheckCommand("/usr/bin/git", {"git", "statusx"}).allowed());
  EXPECT_FALSE(e.CheckCommand("/usr/bin/git", {"git", "log"}).allowed());
}

TEST(CommandRules, AGlobIsAnchoredAtBothEnds) {
  Engine e = MustLoad(kCommands);
  EXPECT_TRUE(
      e.CheckCommand("/usr/bin/python3", {"python3", "x.py"}).allowed());
  EXPECT_FALSE(
      e.CheckCommand("/usr/bin/sudo", {"sudo", "python3", "x.py"}).allowed());
  EXPECT_FALSE(
      e.CheckCommand("/usr/bin/python3.11", {"python3.11", "x.py"}).allowed());
}

TEST(CommandRules, DenyWinsOverEveryAllow) {
  Engine e = MustLoad(kCommands);
  Decision d =
      e.CheckCommand("/usr/bin/python3", {"python3", "-c", "print(1)"});
  EXPECT_EQ(d.verdict, Verdict::kDeny);
  EXPECT_EQ(d.rule, "commands.deny[1]");
  EXPECT_THAT(d.message, HasSubstr("python3 -c print(1)"));
}

TEST(CommandRules, ArgvZeroPlaysNoPartInTheCommandLine) {
  Engine e = MustLoad(kCommands);
  // execve("/usr/bin/rm", {"git", "status"}) runs rm, so it is `rm status`.
  Decision d = e.CheckCommand("/usr/bin/rm", {"git", "status"});
  EXPECT_EQ(d.verdict, Verdict::kDeny);
  EXPECT_THAT(d.message, HasSubstr("`rm status`"));
  // And a denied program cannot dress up as an allowed one...
  EXPECT_FALSE(
      e.CheckCommand("/usr/bin/git", {"python3", "push", "origin"}).allowed());
  // ...nor an allowed one be refused for its argv[0].
  EXPECT_TRUE(e.CheckCommand("/usr/bin/python3", {"git", "x.py"}).allowed());
}

TEST(CommandRules, ABareNameRuleIsNotSatisfiedByAWritableExecutable) {
  Engine e = MustLoad(kCommands);
  Decision planted =
      e.CheckCommand("/nonexistent-ws/proj/python3", {"python3", "x.py"});
  EXPECT_EQ(planted.verdict, Verdict::kDeny);
  EXPECT_EQ(planted.rule, "commands.allow[0]");
  EXPECT_THAT(planted.message, HasSubstr("writable root"));
  EXPECT_FALSE(e.CheckCommand("/scratch/bin/git", {"git", "status"}).allowed());
  EXPECT_FALSE(
      e.CheckCommand("/scratch/pip", {"pip", "install", "x"}).allowed());
}

TEST(CommandRules, AnAbsoluteRuleMatchesThatPathOnly) {
  Engine e = MustLoad(R"(
extends = "none"
[filesystem]
read = ["/opt"]
[commands]
allow = ["/opt/tool/bin/run *", "/nonexistent-ws/proj/build.sh"]
)");
  EXPECT_TRUE(e.CheckCommand("/opt/tool/bin/run", {"run", "x"}).allowed());
  EXPECT_FALSE(e.CheckCommand("/opt/other/run", {"run", "x"}).allowed());
  // Naming a workspace script by its path is how to allow it.
  EXPECT_TRUE(e.CheckCommand("/nonexistent-ws/proj/build.sh", {"./build.sh"})
                  .allowed());
}

TEST(CommandRules, APatternIsSearchedInTheCommandLine) {
  Engine e = MustLoad(kCommands);
  EXPECT_TRUE(
      e.CheckCommand("/usr/bin/pip", {"pip", "install", "requests==2.0"})
          .allowed());
  EXPECT_FALSE(
      e.CheckCommand("/usr/bin/pip", {"pip", "install", "-e", "."}).allowed());
}

TEST(CommandRules, TheExecutableMustBeExecutableByThePathRules) {
  Engine e = MustLoad(kCommands);
  Decision d = e.CheckCommand("/bin/python3", {"python3", "x"});
  EXPECT_EQ(d.verdict, Verdict::kDeny);
  EXPECT_EQ(d.rule, "filesystem.unlisted");
  EXPECT_THAT(d.message, HasSubstr("exec of /bin/python3"));
}

TEST(CommandRules, AnUnlistedCommandFollowsUnlisted) {
  Engine deny = MustLoad(kCommands);
  Decision d = deny.CheckCommand("/usr/bin/curl", {"curl", "x"});
  EXPECT_EQ(d.verdict, Verdict::kDeny);
  EXPECT_EQ(d.rule, "commands.unlisted");
  EXPECT_THAT(d.message, HasSubstr("commands.allow"));
  Engine ask = MustLoad(std::string(kCommands) + "unlisted = \"ask\"\n");
  EXPECT_EQ(ask.CheckCommand("/usr/bin/curl", {"curl"}).verdict, Verdict::kAsk);
  Engine allow = MustLoad(std::string(kCommands) + "unlisted = \"allow\"\n");
  EXPECT_TRUE(allow.CheckCommand("/usr/bin/curl", {"curl"}).allowed());
  // Deny still wins under "allow".
  EXPECT_FALSE(allow.CheckCommand("/usr/bin/git", {"git", "push"}).allowed());
}

TEST(CommandRules, APresetLetsCommandsThroughUntilTheFileListsSome) {
  Engine open = MustLoad(R"(extends = "workspace-write")");
  EXPECT_TRUE(open.CheckCommand("/usr/bin/curl", {"curl"}).allowed());
  Engine listed = MustLoad(R"(
extends = "workspace-write"
[commands]
allow = ["git *"]
)");
  EXPECT_TRUE(listed.CheckCommand("/usr/bin/git", {"git", "log"}).allowed());
  EXPECT_FALSE(listed.CheckCommand("/usr/bin/curl", {"curl"}).allowed());
}

constexpr char kNetwork[] = R"(
extends = "none"
[network]
allow = ["pypi.org:443", "*.pythonhosted.org:443", "127.0.0.1/32:8080",
         "10.0.0.0/8", "[fd00::]/16:53"]
)";

TEST(NetworkRules, AHostRuleAdmitsTheResolvedNameOnItsPort) {
  Engine e = MustLoad(kNetwork);
  IpAddress a = *IpAddress::Parse("151.101.0.223");
  EXPECT_TRUE(e.CheckConnect(a, 443, "pypi.org").allowed());
  EXPECT_TRUE(e.CheckConnect(a, 443, "PyPI.ORG.").allowed());
  EXPECT_EQ(e.CheckConnect(a, 443, "pypi.org").rule, "network.allow[0]");
  EXPECT_FALSE(e.CheckConnect(a, 80, "pypi.org").allowed());
  EXPECT_TRUE(e.CheckConnect(a, 443, "files.pythonhosted.org").allowed());
  EXPECT_FALSE(e.CheckConnect(a, 443, "pythonhosted.org").allowed());
  EXPECT_FALSE(e.CheckConnect(a, 443, "evilpypi.org").allowed());
}

TEST(NetworkRules, AnAddressWithoutANameIsJudgedByCidrOnly) {
  Engine e = MustLoad(kNetwork);
  EXPECT_FALSE(
      e.CheckConnect(*IpAddress::Parse("151.101.0.223"), 443, "").allowed());
  EXPECT_TRUE(
      e.CheckConnect(*IpAddress::Parse("10.200.1.1"), 22, "").allowed());
  EXPECT_FALSE(e.CheckConnect(*IpAddress::Parse("11.0.0.1"), 22, "").allowed());
  // A "name" that is itself an address literal is no name at all.
  EXPECT_FALSE(
      e.CheckConnect(*IpAddress::Parse("151.101.0.223"), 443, "151.101.0.223")
          .allowed());
}

TEST(NetworkRules, LoopbackIsAdmittedOnlyWhenListed) {
  Engine e = MustLoad(kNetwork);
  IpAddress lo = *IpAddress::Parse("127.0.0.1");
  EXPECT_TRUE(e.CheckConnect(lo, 8080, "").allowed());
  EXPECT_FALSE(e.CheckConnect(lo, 8081, "").allowed());
  EXPECT_FALSE(
      e.CheckConnect(*IpAddress::Parse("127.0.0.2"), 8080, "").allowed());
  EXPECT_FALSE(e.CheckConnect(*IpAddress::Parse("::1"), 8080, "").allowed());
  Engine none = MustLoad(R"(extends = "workspace-write")");
  Decision d = none.CheckConnect(lo, 8080, "localhost");
  EXPECT_EQ(d.verdict, Verdict::kDeny);
  EXPECT_THAT(d.message, HasSubstr("\"localhost:8080\" to network.allow"));
}

TEST(NetworkRules, AMappedAddressIsJudgedAsTheIpv4ItCarries) {
  Engine e = MustLoad(kNetwork);
  EXPECT_TRUE(
      e.CheckConnect(*IpAddress::Parse("::ffff:10.1.1.1"), 5, "").allowed());
  EXPECT_TRUE(e.CheckConnect(*IpAddress::Parse("::ffff:127.0.0.1"), 8080, "")
                  .allowed());
  EXPECT_TRUE(e.CheckConnect(*IpAddress::Parse("fd00:1::5"), 53, "").allowed());
  EXPECT_FALSE(e.CheckConnect(*IpAddress::Parse("fd01::5"), 53, "").allowed());
}

TEST(NetworkRules, AbstractUnixSocketsAreClosedUnlessOpened) {
  EXPECT_FALSE(MustLoad(kNetwork).CheckAbstractUnix("x").allowed());
  EXPECT_TRUE(MustLoad(std::string(kNetwork) + "unix_abstract = true\n")
                  .CheckAbstractUnix("x")
                  .allowed());
}

TEST(Engine, AuditModeDoesNotChangeTheDecision) {
  Engine e = MustLoad(std::string("mode = \"audit\"\n") + kBase);
  EXPECT_TRUE(e.audit());
  EXPECT_EQ(e.CheckPath(Access::kRead, "/etc/shadow").verdict, Verdict::kDeny);
  EXPECT_FALSE(MustLoad(kBase).audit());
}

TEST(Engine, ABadPatternIsAnErrorNamingItsPlaceAndKey) {
  struct Case {
    const char* toml;
    const char* expect;
  } cases[] = {
      {"[filesystem]\nread = [\"/a/**x/b\"]\n",
       "test.toml:2:9: filesystem.read[0]: bad glob"},
      {"[commands]\nallow_patterns = [\"ok\", \"(\"]\n",
       "test.toml:2:25: commands.allow_patterns[1]: bad RE2"},
      {"[network]\nallow = [\"10.0.0.0/33\"]\n",
       "test.toml:2:10: network.allow[0]: '10.0.0.0/33': bad prefix length"},
      {"[network]\nallow = [\"10.0.0.1/8\"]\n",
       "test.toml:2:10: network.allow[0]: '10.0.0.1/8': host bits"},
      {"[network]\nallow = [\"x.org:99999\"]\n",
       "test.toml:2:10: network.allow[0]: 'x.org:99999': bad port"},
      {"[network]\nallow = [\"x.org:0\"]\n", "bad port '0'"},
      {"[network]\nallow = [\"foo*.org\"]\n", "is not a label"},
      {"[network]\nallow = [\"user@x.org\"]\n", "not user@host"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Policy> policy = LoadPolicyText(c.toml, "test.toml", Ctx());
    ASSERT_TRUE(policy.ok()) << policy.status();
    absl::StatusOr<Engine> engine = Engine::Create(*policy);
    ASSERT_FALSE(engine.ok()) << c.toml;
    EXPECT_EQ(engine.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(engine.status().message()), HasSubstr(c.expect))
        << c.toml;
  }
}

}  // namespace
}  // namespace klaunch

namespace klaunch {
namespace {

TEST(CommandRules, ACommandIsNamedByTheLinkTheProgramRanNotItsTarget) {
  Engine e = MustLoad(kCommands);
  // /usr/bin/python3 -> python3.11: the rule "python3 *" still applies.
  EXPECT_TRUE(e.CheckCommand("/usr/bin/python3", {"python3", "x"},
                             "/usr/bin/python3.11")
                  .allowed());
}

TEST(CommandRules, ADenyRuleMatchesTheTargetOfALink) {
  Engine e = MustLoad(R"(
extends = "none"
[filesystem]
read = ["/usr"]
[commands]
unlisted = "allow"
deny = ["rm *"]
)");
  // A workspace link named ls that runs rm is still rm.
  Decision d = e.CheckCommand("/nonexistent-ws/proj/ls", {"ls", "-rf", "x"},
                              "/usr/bin/rm");
  EXPECT_EQ(d.verdict, Verdict::kDeny);
  EXPECT_EQ(d.rule, "commands.deny[0]");
}

TEST(CommandRules, ABareNameRuleNeedsTheLinksTargetOutsideWritableRootsToo) {
  Engine e = MustLoad(kCommands);
  Decision d =
      e.CheckCommand("/usr/bin/python3", {"python3", "x"}, "/scratch/python3");
  EXPECT_EQ(d.verdict, Verdict::kDeny);
  EXPECT_THAT(d.message, HasSubstr("writable root"));
}

TEST(CommandRules, TheTargetOfALinkMustAdmitExec) {
  Engine e = MustLoad(kCommands);
  Decision d =
      e.CheckCommand("/usr/bin/python3", {"python3", "x"}, "/srv/python3");
  EXPECT_EQ(d.verdict, Verdict::kDeny);
  EXPECT_EQ(d.rule, "filesystem.unlisted");
}

TEST(OpenAccess, AnOpenIsAWriteWhenItCanChangeTheFileAndAReadToo) {
  EXPECT_EQ(OpenAccess(O_RDONLY), Access::kRead);
  EXPECT_EQ(OpenAccess(O_RDONLY | O_TRUNC), Access::kReadWrite);
  EXPECT_EQ(OpenAccess(O_RDONLY | O_CREAT), Access::kReadWrite);
  EXPECT_EQ(OpenAccess(O_WRONLY), Access::kWrite);
  EXPECT_EQ(OpenAccess(O_WRONLY | O_CREAT | O_TRUNC), Access::kWrite);
  EXPECT_EQ(OpenAccess(O_RDWR), Access::kReadWrite);
  EXPECT_EQ(OpenAccess(O_RDWR | O_CREAT), Access::kReadWrite);
  EXPECT_EQ(OpenAccess(O_TMPFILE | O_WRONLY), Access::kWrite);
  EXPECT_EQ(OpenAccess(O_TMPFILE | O_RDWR), Access::kReadWrite);
  EXPECT_EQ(OpenAccess(O_PATH), Access::kStat);
  EXPECT_EQ(AccessModeAccess(R_OK | W_OK), Access::kReadWrite);
  EXPECT_EQ(AccessModeAccess(W_OK), Access::kWrite);
  EXPECT_EQ(AccessModeAccess(R_OK | X_OK), Access::kRead);
}

}  // namespace
}  // namespace klaunch
