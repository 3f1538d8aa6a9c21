#include "core/landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <linux/landlock.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "core/loader.h"

namespace klaunch {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::UnorderedElementsAre;

using landlock::kExecute;
using landlock::kIoctlDev;
using landlock::kMakeChar;
using landlock::kMakeReg;
using landlock::kReadDir;
using landlock::kReadFile;
using landlock::kTruncate;
using landlock::kWriteFile;

// The rights klaunch's table spells out, as the system's UAPI header names
// them: every one the header defines must have its value (Debian 12's stops
// at ABI 2; the kernel's own answer below covers the rest).
TEST(LandlockRights, EveryRightTheSystemHeaderNamesHasItsValue) {
  std::vector<std::pair<uint64_t, uint64_t>> pairs = {
      {landlock::kExecute, LANDLOCK_ACCESS_FS_EXECUTE},
      {landlock::kWriteFile, LANDLOCK_ACCESS_FS_WRITE_FILE},
      {landlock::kReadFile, LANDLOCK_ACCESS_FS_READ_FILE},
      {landlock::kReadDir, LANDLOCK_ACCESS_FS_READ_DIR},
      {landlock::kRemoveFile, LANDLOCK_ACCESS_FS_REMOVE_FILE},
      {landlock::kMakeChar, LANDLOCK_ACCESS_FS_MAKE_CHAR},
      {landlock::kMakeDir, LANDLOCK_ACCESS_FS_MAKE_DIR},
      {landlock::kMakeReg, LANDLOCK_ACCESS_FS_MAKE_REG},
      {landlock::kMakeBlock, LANDLOCK_ACCESS_FS_MAKE_BLOCK},
      {landlock::kAbi1Fs,
       LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
           LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
           LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
           LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
           LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
           LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
           LANDLOCK_ACCESS_FS_MAKE_SYM},
  };
#ifdef LANDLOCK_ACCESS_FS_REFER
  pairs.push_back({landlock::kRefer, LANDLOCK_ACCESS_FS_REFER});
#endif
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
  pairs.push_back({landlock::kTruncate, LANDLOCK_ACCESS_FS_TRUNCATE});
#endif
#ifdef LANDLOCK_ACCESS_FS_IOCTL_DEV
  pairs.push_back({landlock::kIoctlDev, LANDLOCK_ACCESS_FS_IOCTL_DEV});
#endif
#ifdef LANDLOCK_ACCESS_NET_CONNECT_TCP
  pairs.push_back({landlock::kConnectTcp, LANDLOCK_ACCESS_NET_CONNECT_TCP});
#endif
#ifdef LANDLOCK_SCOPE_SIGNAL
  pairs.push_back(
      {landlock::kScopeAbstractUnix, LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET});
  pairs.push_back({landlock::kScopeSignal, LANDLOCK_SCOPE_SIGNAL});
#endif
  for (size_t i = 0; i < pairs.size(); ++i) {
    EXPECT_EQ(pairs[i].first, pairs[i].second) << "pair " << i;
  }
}

// The running kernel's ABI, uncapped; 0 without Landlock.
int KernelAbi() {
  const long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0,
                           LANDLOCK_CREATE_RULESET_VERSION);
  return abi < 0 ? 0 : static_cast<int>(abi);
}

// Whether the kernel makes a ruleset handling exactly these rights.
bool KernelHandles(uint64_t fs, uint64_t net, uint64_t scoped) {
  struct {
    uint64_t fs, net, scoped;
  } attr = {fs, net, scoped};
  const long fd = syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
  if (fd >= 0) close(static_cast<int>(fd));
  return fd >= 0;
}

// The highest ABI whose rights this test knows: 7 added none to 6.
constexpr int kAbiKnown = 7;

TEST(LandlockRights, TheKernelHandlesEachRightOfItsAbiAndNoOther) {
  const int abi = KernelAbi();
  if (abi <= 0) GTEST_SKIP() << "this kernel has no Landlock";
  if (abi < 6) {
    // The attribute's size must then be smaller; ABI 6's layout is what
    // this test makes.
    GTEST_SKIP() << "Landlock ABI " << abi << " (the test needs 6 or later)";
  }
  const uint64_t fs = landlock::HandledFs(abi);
  for (int bit = 0; bit < 64; ++bit) {
    const uint64_t right = 1ULL << bit;
    const bool ours = (fs & right) != 0;
    const bool kernels = KernelHandles(right, 0, 0);
    if (ours || abi <= kAbiKnown) {
      EXPECT_EQ(kernels, ours)
          << "file-system right bit " << bit << " on ABI " << abi;
    }
  }
  EXPECT_TRUE(KernelHandles(landlock::kExecute, landlock::kConnectTcp, 0));
  EXPECT_TRUE(
      KernelHandles(landlock::kExecute, 0,
                    landlock::kScopeAbstractUnix | landlock::kScopeSignal));
  // One right past each of them is one this kernel does not know.
  if (abi <= kAbiKnown) {
    EXPECT_FALSE(
        KernelHandles(landlock::kExecute, 0, landlock::kScopeSignal << 1));
  }
}

Policy Load(const std::string& text, const std::string& base_dir = "/work/ws") {
  LoadContext ctx;
  ctx.base_dir = base_dir;
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
  const LandlockPlan plan =
      PlanLandlock(Load("extends = \"none\"\n[filesystem]\nread = [\"/usr\"]\n"
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
  const LandlockPlan plan =
      PlanLandlock(Load("extends = \"none\"\n[network]\nallow = "
                        "[\"registry.npm.example:443\", "
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
  EXPECT_THAT(plan.approximations, Contains(HasSubstr("admits every port")));
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
  const Policy q = Load(
      "extends = \"none\"\n[programs.\"curl\"]\n"
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
  const LandlockPlan plan =
      PlanLandlock(Load("extends = \"none\"\n"), 7, {{"/state/policy.toml"}});
  ASSERT_NE(Rule(plan, "/state/policy.toml"), nullptr);
  EXPECT_EQ(Rule(plan, "/state/policy.toml")->access & kWriteFile, 0u);
  // Only klaunch writes the audit log: the program is granted nothing of it.
  EXPECT_EQ(Rule(plan, "/state/log"), nullptr);
}

TEST(LandlockPlan, AMissingWriteRootLetsItsAncestorCreateIt) {
  LandlockPlan plan =
      PlanLandlock(Load("extends = \"none\"\n[filesystem]\nwrite = "
                        "[\"/tmp/klaunch-no-such-dir/below\"]\n"),
                   LandlockAbi() > 0 ? LandlockAbi() : 1, {});
  if (LandlockAbi() == 0) GTEST_SKIP() << "this kernel has no Landlock";
  absl::StatusOr<int> fd = CreateRuleset(&plan);
  ASSERT_TRUE(fd.ok()) << fd.status();
  close(*fd);
  EXPECT_THAT(plan.approximations,
              Contains(HasSubstr("/tmp may have directories and files made")));
}

// ---------------------------------------------------------------------------
// Deny entries inside read-only roots: kept out by granting their siblings.

std::vector<std::string> KeepOutPaths(const LandlockPlan::PathRule* r) {
  std::vector<std::string> out;
  if (r == nullptr) return out;
  for (const LandlockPlan::PathRule::KeepOut& k : r->keep_out) {
    out.push_back(k.path);
  }
  return out;
}

TEST(LandlockPlan, LiteralDenyEntriesInsideAReadRootAreListedToBeKeptOutOfIt) {
  const LandlockPlan plan = PlanLandlock(
      Load("extends = \"none\"\n[filesystem]\nread = [\"/home/me\"]\n"
           "deny = [\"~/.ssh\", \"~/.aws/credentials\", \"/etc/shadow\"]\n"),
      7, {});
  EXPECT_THAT(
      KeepOutPaths(Rule(plan, "/home/me")),
      UnorderedElementsAre("/home/me/.ssh", "/home/me/.aws/credentials"));
  EXPECT_EQ(Rule(plan, "/home/me")->keep_out[0].key, "filesystem.deny[0]");
  // An entry outside every root needs nothing: Landlock grants it nothing.
  EXPECT_THAT(plan.approximations, Not(Contains(HasSubstr("/etc/shadow"))));
}

TEST(LandlockPlan, APatternDenyEntryIsNeverKeptOutAndIsSaidSo) {
  const LandlockPlan plan = PlanLandlock(
      Load("extends = \"none\"\n[filesystem]\nread = [\"/home/me\"]\n"
           "deny = [\"**/.env\", \"~/*.pem\"]\n"),
      7, {});
  EXPECT_THAT(Rule(plan, "/home/me")->keep_out, IsEmpty());
  EXPECT_THAT(plan.approximations,
              Contains(HasSubstr("(\"/home/me/*.pem\") is a pattern: not "
                                 "expressible")));
}

TEST(LandlockPlan, ADenyEntryInsideAWriteRootIsNotExpressibleAndSaidSo) {
  const LandlockPlan plan = PlanLandlock(
      Load("extends = \"none\"\n[filesystem]\nwrite = [\"/scratch\"]\n"
           "deny = [\"/scratch/secret\"]\n"),
      7, {});
  EXPECT_THAT(Rule(plan, "/scratch")->keep_out, IsEmpty());
  EXPECT_THAT(plan.approximations,
              Contains(AllOf(HasSubstr("(\"/scratch/secret\") lies inside"),
                             HasSubstr("granted writing"))));
}

// A write root strictly below an expanded directory is granted on its own:
// nothing of its rights reaches the entry kept out beside it.
TEST(LandlockPlan, AWriteRootInsideTheReadRootLeavesItsDenyEntriesKeptOut) {
  const LandlockPlan plan = PlanLandlock(
      Load("extends = \"none\"\n[filesystem]\nread = [\"/home/me\"]\n"
           "write = [\"/home/me/proj\"]\ndeny = [\"~/.ssh\"]\n"),
      7, {});
  EXPECT_THAT(Rule(plan, "/home/me")->keep_out, Not(IsEmpty()));
  // The writable workspace inside the home is a write root too.
  const LandlockPlan in_home = PlanLandlock(
      Load("extends = \"none\"\n[filesystem]\nread = [\"/home/me\"]\n"
           "deny = [\"~/.ssh\"]\n",
           "/home/me/work"),
      7, {});
  EXPECT_THAT(Rule(in_home, "/home/me")->keep_out, Not(IsEmpty()));
}

// One on the way down to the entry kept out grants everything below it,
// the entry included: the read root stays whole there.
TEST(LandlockPlan, AWriteRootOnTheWayToADenyEntryKeepsTheReadRootWhole) {
  const LandlockPlan plan = PlanLandlock(
      Load("extends = \"none\"\n[filesystem]\nread = [\"/home/me\"]\n"
           "write = [\"/home/me/a\"]\ndeny = [\"/home/me/a/b/secret\"]\n"),
      7, {});
  EXPECT_THAT(Rule(plan, "/home/me")->keep_out, IsEmpty());
  EXPECT_THAT(plan.approximations,
              Contains(HasSubstr("(\"/home/me\") is granted whole: "
                                 "filesystem.write[0] (\"/home/me/a\")")));
}

TEST(LandlockPlan, AWriteRootAboveTheReadRootKeepsItWhole) {
  const LandlockPlan plan = PlanLandlock(
      Load("extends = \"none\"\n[filesystem]\nread = [\"/home/me\"]\n"
           "write = [\"/home\"]\ndeny = [\"~/.ssh\"]\n"),
      7, {});
  EXPECT_THAT(Rule(plan, "/home/me")->keep_out, IsEmpty());
}

TEST(LandlockPlan, AWriteRootBesideTheReadRootIsNoBar) {
  const LandlockPlan plan = PlanLandlock(
      Load("extends = \"none\"\n[filesystem]\nread = [\"/home/me\"]\n"
           "write = [\"/scratch\"]\ndeny = [\"~/.ssh\"]\n"),
      7, {});
  EXPECT_THAT(KeepOutPaths(Rule(plan, "/home/me")),
              ElementsAre("/home/me/.ssh"));
}

TEST(LandlockPlan, ProcIsNeverGrantedEntryByEntry) {
  const LandlockPlan plan = PlanLandlock(
      Load("extends = \"none\"\n[filesystem]\nread = [\"/proc\", \"/\"]\n"
           "deny = [\"/proc/1/environ\"]\n"),
      7, {});
  EXPECT_THAT(Rule(plan, "/proc")->keep_out, IsEmpty());
  EXPECT_THAT(Rule(plan, "/")->keep_out, IsEmpty());
  EXPECT_THAT(plan.approximations,
              Contains(HasSubstr("(\"/proc/1/environ\") lies inside")));
}

TEST(LandlockPlan, ADenyEntryInsideAReadOnlyWorkspaceIsKeptOut) {
  const LandlockPlan plan = PlanLandlock(
      Load("extends = \"none\"\n[filesystem]\nworkspace_writable = false\n"
           "deny = [\"/work/ws/.env\"]\n"),
      7, {});
  EXPECT_THAT(KeepOutPaths(Rule(plan, "/work/ws")),
              ElementsAre("/work/ws/.env"));
}

TEST(LandlockPlan, ADenyEntryThatIsTheReadRootItselfIsNotExpressible) {
  const LandlockPlan plan = PlanLandlock(
      Load("extends = \"none\"\n[filesystem]\nread = [\"/home/me/.ssh\"]\n"
           "deny = [\"~/.ssh\"]\n"),
      7, {});
  EXPECT_THAT(Rule(plan, "/home/me/.ssh")->keep_out, IsEmpty());
  EXPECT_THAT(plan.approximations,
              Contains(HasSubstr("(\"/home/me/.ssh\") lies inside")));
}

TEST(LandlockEnforcesReads, HoldsOnlyWhenEveryDenyEntryInsideARuleWasKeptOut) {
  const Policy policy = Load(
      "extends = \"none\"\n[filesystem]\nread = [\"/home/me\"]\n"
      "deny = [\"~/.ssh\", \"/etc/shadow\"]\n");
  LandlockPlan plan = PlanLandlock(policy, 7, {});
  // Before CreateRuleset nothing was kept out.
  EXPECT_FALSE(LandlockEnforcesReads(plan, policy));
  for (LandlockPlan::PathRule& r : plan.paths) {
    if (r.path == "/home/me") r.kept_out = {"/home/me/.ssh"};
  }
  EXPECT_TRUE(LandlockEnforcesReads(plan, policy));
  // A path below a kept-out one is kept out with it.
  const Policy deeper = Load(
      "extends = \"none\"\n[filesystem]\nread = [\"/home/me\"]\n"
      "deny = [\"~/.ssh\", \"~/.ssh/id_ed25519\"]\n");
  EXPECT_TRUE(LandlockEnforcesReads(plan, deeper));
}

TEST(LandlockEnforcesReads, FailsForAPatternAWidenedRuleOrASectionsDenyEntry) {
  const Policy pattern = Load(
      "extends = \"none\"\n[filesystem]\nread = [\"/home/me\"]\n"
      "deny = [\"**/.env\"]\n");
  EXPECT_FALSE(LandlockEnforcesReads(PlanLandlock(pattern, 7, {}), pattern));
  const Policy widened =
      Load("extends = \"none\"\n[filesystem]\nread = [\"/srv/*/logs\"]\n");
  EXPECT_FALSE(LandlockEnforcesReads(PlanLandlock(widened, 7, {}), widened));
  const Policy proc =
      Load("extends = \"none\"\n[filesystem]\nread = [\"/proc/self\"]\n");
  EXPECT_FALSE(LandlockEnforcesReads(PlanLandlock(proc, 7, {}), proc));
  const Policy section = Load(
      "extends = \"none\"\n[filesystem]\nread = [\"/home/me\"]\n"
      "[programs.\"curl\"]\nfilesystem.deny = [\"~/.netrc\"]\n");
  EXPECT_FALSE(LandlockEnforcesReads(PlanLandlock(section, 7, {}), section));
  const Policy nothing_denied =
      Load("extends = \"none\"\n[filesystem]\nread = [\"/home/me\"]\n");
  EXPECT_TRUE(LandlockEnforcesReads(PlanLandlock(nothing_denied, 7, {}),
                                    nothing_denied));
}

TEST(LandlockEnforcesReads, FailsForADenyEntryInsideAWriteRoot) {
  const Policy policy = Load(
      "extends = \"none\"\n[filesystem]\nwrite = [\"/scratch\"]\n"
      "deny = [\"/scratch/secret\"]\n");
  EXPECT_FALSE(LandlockEnforcesReads(PlanLandlock(policy, 7, {}), policy));
}

// A directory tree in /tmp, removed at the end.
class TempTree {
 public:
  TempTree() {
    char tmpl[] = "/tmp/klaunch-landlock-XXXXXX";
    const char* made = mkdtemp(tmpl);
    EXPECT_NE(made, nullptr);
    root_ = std::filesystem::canonical(made ? made : "/nonexistent").string();
  }
  ~TempTree() { std::filesystem::remove_all(root_); }
  std::string Path(const std::string& rel) const { return root_ + "/" + rel; }
  std::string Write(const std::string& rel, const std::string& text = "x") {
    const std::string path = Path(rel);
    std::filesystem::create_directories(
        std::filesystem::path(path).parent_path());
    std::ofstream(path) << text;
    return path;
  }
  std::string Dir(const std::string& rel) {
    std::filesystem::create_directories(Path(rel));
    return Path(rel);
  }

 private:
  std::string root_;
};

// Opens each of `paths` for reading in a child restricted by `ruleset`:
// for each, 0 or the errno of the open.
std::vector<int> OpenAllUnder(int ruleset,
                              const std::vector<std::string>& paths) {
  int pipefd[2];
  EXPECT_EQ(pipe(pipefd), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    close(pipefd[0]);
    if (RestrictSelf(ruleset) != 0) _exit(2);
    for (const std::string& p : paths) {
      const int fd = open(p.c_str(), O_RDONLY | O_CLOEXEC);
      const int result = fd >= 0 ? 0 : errno;
      if (fd >= 0) close(fd);
      if (write(pipefd[1], &result, sizeof(result)) != sizeof(result)) _exit(3);
    }
    _exit(0);
  }
  close(pipefd[1]);
  std::vector<int> results;
  int result;
  while (read(pipefd[0], &result, sizeof(result)) == sizeof(result)) {
    results.push_back(result);
  }
  close(pipefd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  return results;
}

TEST(LandlockRuleset,
     AChildCannotOpenWhatIsKeptOutOfAReadRootButOpensItsSiblings) {
  if (LandlockAbi() == 0) GTEST_SKIP() << "this kernel has no Landlock";
  TempTree t;
  const std::string ws = t.Dir("ws");
  t.Dir("home");
  const std::string secret_key = t.Write("home/.ssh/id_ed25519", "KEY");
  const std::string secret_file = t.Write("home/secret.txt", "SECRET");
  const std::string deep_secret = t.Write("home/proj/deep-secret.txt", "S");
  const std::string open_file = t.Write("home/open.txt");
  const std::string deep_open = t.Write("home/proj/src/main.c");
  const std::string beside_deep = t.Write("home/proj/readme");
  const std::string sibling_dir_file = t.Write("home/docs/a.txt");
  // A symlink beside the kept-out directory, to it: not followed.
  std::filesystem::create_directory_symlink(t.Path("home/.ssh"),
                                            t.Path("home/ssh-link"));
  // One deny entry spelled through a symlink to the read root: its resolved
  // form is what lies inside the root.
  std::filesystem::create_directory_symlink(t.Path("home"), t.Path("alias"));
  const Policy policy = Load(
      "extends = \"none\"\n[filesystem]\nread = [\"" + t.Path("home") +
          "\"]\ndeny = [\"" + t.Path("home/.ssh") + "\", \"" + secret_file +
          "\", \"" + t.Path("alias/proj/deep-secret.txt") + "\"]\n",
      ws);
  LandlockPlan plan = PlanLandlock(policy, LandlockAbi(), {});
  absl::StatusOr<int> fd = CreateRuleset(&plan);
  ASSERT_TRUE(fd.ok()) << fd.status();
  const LandlockPlan::PathRule* home = Rule(plan, t.Path("home"));
  ASSERT_NE(home, nullptr);
  EXPECT_THAT(home->kept_out, UnorderedElementsAre(t.Path("home/.ssh"),
                                                   secret_file, deep_secret));
  EXPECT_TRUE(LandlockEnforcesReads(plan, policy));
  EXPECT_THAT(plan.approximations,
              Contains(HasSubstr("is granted entry by entry around")));
  EXPECT_THAT(plan.approximations,
              Contains(HasSubstr("is not readable in the sandbox")));
  // Made after the ruleset: directly in an expanded directory it is not
  // readable (narrower than the policy, and said); inside a sibling
  // directory granted whole it is.
  const std::string later = t.Write("home/made-later.txt");
  const std::string later_in_sibling = t.Write("home/docs/made-later.txt");

  const std::vector<int> r = OpenAllUnder(
      *fd,
      {secret_key, secret_file, deep_secret, t.Path("home/ssh-link/id_ed25519"),
       open_file, deep_open, beside_deep, sibling_dir_file, t.Path("home"),
       t.Path("home/proj"), later, later_in_sibling});
  close(*fd);
  ASSERT_EQ(r.size(), 12u);
  EXPECT_EQ(r[0], EACCES) << "a file inside the kept-out directory";
  EXPECT_EQ(r[1], EACCES) << "the kept-out file";
  EXPECT_EQ(r[2], EACCES) << "the kept-out file a level down";
  EXPECT_EQ(r[3], EACCES) << "the kept-out directory through a symlink";
  EXPECT_EQ(r[4], 0) << "a file beside them";
  EXPECT_EQ(r[5], 0) << "a file in a directory beside the one kept out";
  EXPECT_EQ(r[6], 0) << "a file beside the one kept out a level down";
  EXPECT_EQ(r[7], 0) << "a file in a sibling directory";
  EXPECT_EQ(r[8], 0) << "the root is listable";
  EXPECT_EQ(r[9], 0) << "a directory on the way is listable";
  EXPECT_EQ(r[10], EACCES) << "made later in an expanded directory";
  EXPECT_EQ(r[11], 0) << "made later in a sibling directory";
}

TEST(LandlockRuleset, ADenyEntryThatDoesNotExistLeavesTheRootWholeAndSaysSo) {
  if (LandlockAbi() == 0) GTEST_SKIP() << "this kernel has no Landlock";
  TempTree t;
  const std::string open_file = t.Write("home/open.txt");
  const Policy policy =
      Load("extends = \"none\"\n[filesystem]\nread = [\"" + t.Path("home") +
               "\"]\ndeny = [\"" + t.Path("home/.ssh") + "\"]\n",
           t.Dir("ws"));
  LandlockPlan plan = PlanLandlock(policy, LandlockAbi(), {});
  absl::StatusOr<int> fd = CreateRuleset(&plan);
  ASSERT_TRUE(fd.ok()) << fd.status();
  EXPECT_THAT(Rule(plan, t.Path("home"))->kept_out, IsEmpty());
  EXPECT_FALSE(LandlockEnforcesReads(plan, policy));
  EXPECT_THAT(plan.approximations,
              Contains(HasSubstr("does not exist at start below")));
  // Granted whole: what is made there later is readable.
  const std::string later = t.Write("home/.ssh/id_ed25519");
  EXPECT_THAT(OpenAllUnder(*fd, {open_file, later}), ElementsAre(0, 0));
  close(*fd);
}

TEST(LandlockRuleset, ADirectoryOfTooManyEntriesIsGrantedWholeAndSaysSo) {
  if (LandlockAbi() == 0) GTEST_SKIP() << "this kernel has no Landlock";
  TempTree t;
  const std::string secret = t.Write("home/secret.txt");
  for (int i = 0; i < 4100; ++i) t.Write("home/f" + std::to_string(i));
  const Policy policy =
      Load("extends = \"none\"\n[filesystem]\nread = [\"" + t.Path("home") +
               "\"]\ndeny = [\"" + secret + "\"]\n",
           t.Dir("ws"));
  LandlockPlan plan = PlanLandlock(policy, LandlockAbi(), {});
  absl::StatusOr<int> fd = CreateRuleset(&plan);
  ASSERT_TRUE(fd.ok()) << fd.status();
  EXPECT_THAT(Rule(plan, t.Path("home"))->kept_out, IsEmpty());
  EXPECT_THAT(plan.approximations,
              Contains(HasSubstr("has more than 4096 entries")));
  EXPECT_THAT(OpenAllUnder(*fd, {secret}), ElementsAre(0));
  close(*fd);
}

TEST(LandlockRuleset,
     AMissingWriteRootWhoseAncestorIsTheRootKeepsTheRootWhole) {
  if (LandlockAbi() == 0) GTEST_SKIP() << "this kernel has no Landlock";
  TempTree t;
  const std::string secret = t.Write("home/secret.txt");
  // Planned by hand, so that only CreateRuleset, which finds the write
  // root missing and grants its ancestor (the read root), can tell.
  LandlockPlan plan;
  plan.abi = LandlockAbi();
  plan.handled_fs =
      PlanLandlock(Load("extends = \"none\"\n"), plan.abi, {}).handled_fs;
  LandlockPlan::PathRule home{t.Path("home"), kExecute | kReadFile | kReadDir,
                              false, "filesystem.read[0]"};
  home.keep_out.push_back({secret, "filesystem.deny[0]", secret});
  plan.paths.push_back(home);
  plan.paths.push_back({t.Path("home/not-yet/below"), kWriteFile | kMakeReg,
                        true, "filesystem.write[0]"});
  absl::StatusOr<int> fd = CreateRuleset(&plan);
  ASSERT_TRUE(fd.ok()) << fd.status();
  EXPECT_THAT(plan.paths[0].kept_out, IsEmpty());
  EXPECT_THAT(plan.approximations,
              Contains(HasSubstr("an object granted writing lies at, above or "
                                 "below")));
  EXPECT_THAT(OpenAllUnder(*fd, {secret}), ElementsAre(0));
  close(*fd);
}

}  // namespace
}  // namespace klaunch
