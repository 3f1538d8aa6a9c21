// Bad input given to the real klaunch: broken policy files, an audit log
// that cannot be written, a disk that is full at the start or fills during
// the run. Each must say what is wrong and where, start nothing half
// confined, keep the program's own output, and exit with a status that
// tells what happened (docs/klaunch.md, EXIT STATUS).

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tests/run_process.h"

namespace klaunch::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

// Runs klaunch in `dir`/ws with its state in `dir`/state (`env` comes
// first, so it wins). The program
// leaves "ran" behind in the workspace, so a test can see it never started.
ProcessResult Klaunch(const TempDir& dir, const std::vector<std::string>& args,
                      const std::vector<std::string>& env = {}) {
  RunProcess({"/bin/mkdir", "-p", dir.Path("ws"), dir.Path("state")});
  std::vector<std::string> argv = {RequiredEnv("KLAUNCH_BIN")};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions o;
  o.cwd = dir.Path("ws");
  o.env = env;
  o.env->insert(o.env->end(), {"PATH=/usr/bin:/bin", "HOME=" + dir.path(),
                               "XDG_STATE_HOME=" + dir.Path("state")});
  return RunProcess(argv, o);
}

const std::vector<std::string> kMarkRan = {"--", "/bin/sh", "-c",
                                           "echo ran > ran; echo OUT"};

// A policy klaunch must refuse: exit 125, the message, nothing started.
void ExpectRefusedPolicy(const TempDir& dir, const std::string& policy,
                         const std::string& message) {
  std::vector<std::string> args = {"--policy", policy};
  args.insert(args.end(), kMarkRan.begin(), kMarkRan.end());
  ProcessResult r = Klaunch(dir, args);
  EXPECT_EQ(r.exit_code, 125) << r.err;
  EXPECT_THAT(r.err, HasSubstr(message));
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(Exists(dir.Path("ws/ran"))) << "the program ran";
}

TEST(BadPolicy, ADirectoryStartsNothing) {
  TempDir dir;
  RunProcess({"/bin/mkdir", dir.Path("p.toml")});
  ExpectRefusedPolicy(dir, dir.Path("p.toml"),
                      dir.Path("p.toml") + ": is a directory");
}

TEST(BadPolicy, AnEmptyFileStartsNothing) {
  TempDir dir;
  ExpectRefusedPolicy(dir, dir.Write("p.toml", ""),
                      dir.Path("p.toml") + ": the policy is empty");
}

TEST(BadPolicy, BytesThatAreNotUtf8AreNamedByLineAndColumn) {
  TempDir dir;
  ExpectRefusedPolicy(
      dir,
      dir.Write("p.toml", "version = 1\n[filesystem]\nread = [\"/a\xff\"]\n"),
      dir.Path("p.toml") + ":3:");
}

// toml++ 3.3.0 reaches __builtin_unreachable when asked whether U+2D00 is
// whitespace (core/toml_guard.h); klaunch names it instead.
TEST(BadPolicy, ACodePointOutsideAStringIsNamedByLineAndColumn) {
  TempDir dir;
  ExpectRefusedPolicy(
      dir, dir.Write("p.toml", "version = 1\n[filesystem]\nre\u2D00d = []\n"),
      dir.Path("p.toml") +
          ":3:3: U+2D00 is not allowed outside a string or a comment");
}

TEST(BadPolicy, TenMegabytesAreRefusedBeforeParsing) {
  TempDir dir;
  ExpectRefusedPolicy(
      dir, dir.Write("p.toml", "version = 1\n# " + std::string(10 << 20, 'x')),
      "over the limit of 4194304");
}

TEST(BadPolicy, AMillionRulesAreRefused) {
  TempDir dir;
  std::string text = "[filesystem]\nread = [";
  for (int i = 0; i < 1000000; ++i) text += "\"/a\",";
  ExpectRefusedPolicy(dir, dir.Write("p.toml", text + "]\n"), "over the limit");
  // Under the byte limit, the entry limit names the list.
  text = "[filesystem]\nread = [";
  for (int i = 0; i < 200000; ++i) text += "\"/a\",";
  ExpectRefusedPolicy(dir, dir.Write("p.toml", text + "]\n"),
                      "p.toml:2:8: filesystem.read has 200000 entries");
}

TEST(BadPolicy, TooManyGlobsForTheMatcherNameTheFile) {
  TempDir dir;
  std::string text = "[filesystem]\nread = [";
  for (int i = 0; i < 60000; ++i)
    text += "\"/t/**/*" + std::to_string(i) + "*\",";
  ExpectRefusedPolicy(dir, dir.Write("p.toml", text + "]\n"),
                      dir.Path("p.toml") + ": the 60");
}

TEST(BadPolicy, ASymlinkLoopAsThePolicyOrInARuleStartsNothing) {
  TempDir dir;
  ASSERT_EQ(symlink("b", dir.Path("a").c_str()), 0);
  ASSERT_EQ(symlink("a", dir.Path("b").c_str()), 0);
  ExpectRefusedPolicy(dir, dir.Path("a"), "Too many levels of symbolic links");
  ExpectRefusedPolicy(dir,
                      dir.Write("p.toml", "[filesystem]\ndeny = [\"" +
                                              dir.Path("a/x") + "\"]\n"),
                      "p.toml:2:9: filesystem.deny[0]: " + dir.Path("a/x") +
                          " is a symlink loop");
}

// --- the audit log --------------------------------------------------------

// A small tmpfs at `path`, mounted for one test; root only.
class SmallDisk {
 public:
  SmallDisk(const std::string& path, const std::string& options) : path_(path) {
    RunProcess({"/bin/mkdir", "-p", path});
    mounted_ = mount("tmpfs", path.c_str(), "tmpfs", 0, options.c_str()) == 0;
  }
  ~SmallDisk() {
    if (mounted_) umount2(path_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }

 private:
  std::string path_;
  bool mounted_ = false;
};

#define REQUIRE_MOUNT(disk)                                                \
  if (!(disk).mounted()) {                                                 \
    GTEST_SKIP() << "mounting a small tmpfs needs root (CI runs as root)"; \
  }

TEST(BadLog, AnUnwritableLogStartsNothing) {
  TempDir dir;
  SmallDisk ro(dir.Path("ro"), "size=1m,mode=0755");
  REQUIRE_MOUNT(ro);
  ASSERT_EQ(mount(nullptr, dir.Path("ro").c_str(), nullptr,
                  MS_REMOUNT | MS_RDONLY, nullptr),
            0);
  std::vector<std::string> args = {"--log", dir.Path("ro/a.jsonl")};
  args.insert(args.end(), kMarkRan.begin(), kMarkRan.end());
  ProcessResult r = Klaunch(dir, args);
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_THAT(r.err,
              HasSubstr("cannot write the audit log " + dir.Path("ro/a.jsonl") +
                        ": Read-only file system"));
  EXPECT_FALSE(Exists(dir.Path("ws/ran")));

  // The default log's state directory, likewise.
  r = Klaunch(dir, kMarkRan, {"XDG_STATE_HOME=" + dir.Path("ro")});
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_THAT(r.err,
              HasSubstr("cannot create the state directory " + dir.Path("ro")));
  EXPECT_FALSE(Exists(dir.Path("ws/ran")));
}

TEST(BadLog, AFullDiskAtTheStartStartsNothing) {
  TempDir dir;
  SmallDisk disk(dir.Path("small"), "size=256k");
  REQUIRE_MOUNT(disk);
  RunProcess({"/bin/sh", "-c",
              "dd if=/dev/zero of=" + dir.Path("small/fill") +
                  " bs=4k 2>/dev/null; true"});
  std::vector<std::string> args = {"--log", dir.Path("small/a.jsonl")};
  args.insert(args.end(), kMarkRan.begin(), kMarkRan.end());
  ProcessResult r = Klaunch(dir, args);
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_THAT(r.err, AllOf(HasSubstr("no room for the audit log " +
                                     dir.Path("small/a.jsonl")),
                           HasSubstr("bytes free")));
  EXPECT_FALSE(Exists(dir.Path("ws/ran")));
}

// The program fills the log's disk itself, then is refused again and
// again: the records are lost, klaunch says so, the program's output is
// whole, and a success becomes 125 while a failure keeps its own status.
TEST(BadLog, ADiskThatFillsDuringTheRunIsSaidAndTheOutputIsKept) {
  TempDir dir;
  SmallDisk disk(dir.Path("ws"), "size=2m");
  REQUIRE_MOUNT(disk);
  const std::string log = dir.Path("ws/log/a.jsonl");
  RunProcess({"/bin/mkdir", "-p", dir.Path("ws/log")});
  const std::string script =
      "dd if=/dev/zero of=fill bs=4k 2>/dev/null; "
      // More records than the log's last page holds.
      "i=0; while [ $i -lt 40 ]; do cat /etc/shadow 2>/dev/null; "
      "i=$((i+1)); done; "
      "echo OUTPUT-INTACT; exit $0";
  for (const char* status : {"0", "3"}) {
    ProcessResult r =
        Klaunch(dir, {"--log", log, "--", "/bin/sh", "-c", script, status});
    EXPECT_EQ(r.out, "OUTPUT-INTACT\n");
    EXPECT_THAT(r.err,
                AllOf(HasSubstr("the audit log " + log + " is incomplete"),
                      HasSubstr("No space left on device")));
    EXPECT_EQ(r.exit_code, std::string(status) == "0" ? 125 : 3) << r.err;
    RunProcess({"/bin/rm", "-f", dir.Path("ws/fill")});
  }
}

TEST(BadLog, NothingIsSaidIncompleteWhenNothingWasLost) {
  TempDir dir;
  ProcessResult r = Klaunch(
      dir, {"--", "/bin/sh", "-c", "cat /etc/shadow 2>/dev/null; echo OUT"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "OUT\n");
  EXPECT_THAT(r.err, Not(HasSubstr("incomplete")));
}

}  // namespace
}  // namespace klaunch::testing
