// Attacks on what the shim holds for a moment inside the program's own
// process: a descriptor the shim opens, uses and closes on the program's
// behalf is, for that moment, one of the program's descriptors, and any
// other thread of the program can use it. The attack program is
// tests/programs/shim_window.c, built dynamic (the shim loads into it) and
// run under the real klaunch with every layer on. A test fails when the
// attack works: the audit log no longer says what happened, or the denied
// file's bytes reach the program.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <re2/re2.h>

#include <string>
#include <vector>

#include "tests/attack_support.h"
#include "tests/run_process.h"
#include "tests/sandbox.h"

namespace klaunch::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kSecretText[] = "DENIED-CONTENT-4417";
constexpr char kForgedMark[] = "FORGED-BY-THE-PROGRAM";
// Refusals the program provokes at most; today either attack gets through
// within a few dozen. 20000 refusals take about a second when nothing is
// caught.
constexpr char kTries[] = "20000";

// A workspace holding a file the policy denies by a literal entry. The
// workspace is a root the program may read, so Landlock (which only
// grants) cannot refuse the file: only the shim and the supervisor do.
class ShimWindow : public ::testing::Test {
 protected:
  void SetUp() override {
    denied_ = run_.Write("ws/denied.txt", kSecretText);
    bin_ = run_.ws() + "/shim_window";
    ASSERT_NO_FATAL_FAILURE(BuildProgram("shim_window.c", bin_, false));
    run_.SetPolicy(
        "extends = \"read-only\"\n[filesystem]\n"
        "workspace_writable = true\ndeny = [\"" +
        denied_ + "\"]\n");
  }

  // Generous: the runs take about a second; a hang becomes a failure.
  ProcessResult Run(const std::vector<std::string>& cmd) const {
    return run_.Run(cmd, {}, /*timeout_seconds=*/120);
  }
  std::vector<std::string> LogLines() const { return run_.LogLines(); }
  std::string log() const { return run_.log(); }

  KlaunchRun run_;
  std::string denied_, bin_;
};

// The number the program printed after `prefix` ("steal-log: 12 refusals"),
// or -1.
int Count(const std::string& out, const std::string& prefix) {
  int n = -1;
  if (!RE2::PartialMatch(out, RE2::QuoteMeta(prefix) + ": ([0-9]+) refusals",
                         &n)) {
    return -1;
  }
  return n;
}

// Attacks the audit log through the descriptor the shim opens in the
// program's process for every refusal it records (shim/judge.cc, Record:
// openat O_APPEND, write, close). While the main thread provokes refusals,
// a second thread scans descriptors 3..64 with fcntl(F_GETFL) and dups the
// first write-only O_APPEND one it sees: the log. It escapes today because
// that descriptor is an ordinary one of the program's for the moment it is
// open, and a dup of it outlives the shim's close: the program clears
// O_APPEND (Landlock refuses truncation, not that) and overwrites the log
// from offset 0 with a forged record and blank lines, which klaunch's
// reader skips. The start record and every refusal are gone, and klaunch,
// finding nothing refused, prints no summary and exits 0.
TEST_F(ShimWindow, AProgramCannotRewriteTheAuditLogThroughTheShimsDescriptor) {
  ProcessResult r = Run({bin_, "steal-log", denied_, kTries});
  const int refusals = Count(r.out, "steal-log");
  ASSERT_GT(refusals, 0) << "the attack did not run\n" << Show(r);

  const std::vector<std::string> lines = LogLines();
  ASSERT_FALSE(lines.empty()) << Show(r);
  // The log still begins with klaunch's own start record.
  EXPECT_EQ(Field(lines.front(), "op"), "start") << lines.front();
  EXPECT_EQ(Field(lines.front(), "layer"), "launcher") << lines.front();
  // No record the program wrote.
  EXPECT_THAT(ReadFile(log()), Not(HasSubstr(kForgedMark))) << Show(r);
  // Every refusal the program met is recorded.
  int recorded = 0;
  for (const std::string& l : lines) {
    recorded += Field(l, "verdict") == "deny" && Field(l, "target") == denied_;
  }
  EXPECT_EQ(recorded, refusals) << Show(r);
  // And klaunch does not end as though nothing had been refused.
  EXPECT_TRUE(r.err.find("refused") != std::string::npos || r.exit_code != 0)
      << "klaunch reported a clean run\n"
      << Show(r);
}

// Attacks the shim's read path (shim/open.cc, OpenAt): a read is opened
// with the program's own flags first, named through /proc/self/fd/N,
// judged, and closed if refused. While the main thread opens the denied
// file over and over, three threads pread() descriptors 3..12, the lowest
// free numbers, which is where that open lands. It escapes today because
// between the shim's open and its close the denied file is open in the
// program's process (for the time of a readlink, the judgement and the
// refusal's record), and Landlock cannot refuse a file inside a readable
// root: the threads read its bytes.
TEST_F(ShimWindow, ADeniedFileIsNeverReadThroughTheShimsMomentaryDescriptor) {
  ProcessResult r = Run({bin_, "read-race", denied_, kTries});
  ASSERT_GT(Count(r.out, "read-race"), 0) << "the attack did not run\n"
                                          << Show(r);
  EXPECT_THAT(r.out, Not(HasSubstr(kSecretText))) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("read-race: read nothing")) << Show(r);
}

}  // namespace
}  // namespace klaunch::testing
