// Attacks that make klaunch's seccomp supervisor wait on an object the
// program controls. The supervisor performs opens, creates, truncates,
// connects and sends for the program, in klaunch's own process: its
// receiving thread answers opens and mutations itself, and a pool of at
// most 64 threads answers connects and sends (supervisor/supervisor.cc). A
// call of klaunch's that waits on a FIFO, a lease, a full backlog or a full
// queue holds up every process's calls that need the same thread, and at
// the end klaunch waits for its threads before it exits.
//
// The attack program is tests/programs/stall.c, built static (every call
// goes to the supervisor) and dynamic (its calls go through the shim,
// tagged, and never queue behind the supervisor). Each attack ends with the
// same probe: a separate static process opens a file the policy admits
// (answered by the receiving thread) and connects to a Unix listener of its
// own (answered by the pool). A test fails when the probe gets no answer
// (the attack program waits for it at most 10 s, a bound generous enough
// that only a stalled supervisor misses it) or when the run does not end:
// klaunch runs with --timeout 35s, the program's own waits add up to at
// most 30 s, and the test kills klaunch after 45 s, so a hang anywhere is a
// failure, never a hung test.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/attack_support.h"
#include "tests/run_process.h"
#include "tests/sandbox.h"

namespace klaunch::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// Threads blocked in calls the pool answers: more than its 64 threads.
constexpr char kBlockedCalls[] = "80";

// The attack program, built once for the suite (a static build takes a
// while on a busy machine) and copied into each test's workspace.
class SupervisorStall : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    build_ = new TempDir();
    const std::string src = RequiredEnv("KLAUNCH_TEST_PROGRAMS") + "/stall.c";
    ProcessResult s =
        RunProcess({"/usr/bin/gcc", "-O1", "-static", "-no-pie", "-pthread",
                    "-o", build_->Path("stall-static"), src});
    ProcessResult d = RunProcess(
        {"/usr/bin/gcc", "-O1", "-pthread", "-o", build_->Path("stall"), src});
    build_error_ = s.exit_code != 0 ? s.err : d.exit_code != 0 ? d.err : "";
  }
  static void TearDownTestSuite() {
    delete build_;
    build_ = nullptr;
  }

  void SetUp() override {
    ASSERT_EQ(build_error_, "");
    ASSERT_EQ(RunProcess({"/bin/cp", build_->Path("stall-static"),
                          build_->Path("stall"), ws()})
                  .exit_code,
              0);
    static_bin_ = ws() + "/stall-static";
    dynamic_bin_ = ws() + "/stall";
    probe_file_ = run_.Write("ws/probe.txt", "admitted");
    run_.SetPolicy(
        "extends = \"read-only\"\n[filesystem]\nworkspace_writable = true\n");
  }

  std::string ws() const { return run_.ws(); }

  // The probe's arguments, as every attack mode takes them last.
  std::vector<std::string> Probe() const {
    return {static_bin_, probe_file_, ws() + "/probe.sock"};
  }

  // Runs `cmd` with the probe's arguments added, unless `probe` is false.
  ProcessResult Run(std::vector<std::string> cmd, bool probe = true) const {
    if (probe) {
      const std::vector<std::string> p = Probe();
      cmd.insert(cmd.end(), p.begin(), p.end());
    }
    // klaunch's own deadline, then the test's: a klaunch that never exits
    // is a failure.
    return run_.Run(cmd, {"--timeout", "35s"}, /*timeout_seconds=*/45);
  }

  // Another process's supervised calls were still answered after the
  // attack: an open (the receiving thread) and a connect (the pool).
  static void ExpectAnotherCallStillCompletes(const ProcessResult& r) {
    EXPECT_THAT(r.out, AllOf(HasSubstr("probe-call: open ok"),
                             HasSubstr("probe-call: connect ok"),
                             HasSubstr("probe: completed")))
        << Show(r);
  }

  // klaunch exited by itself, with the program's status (0): not killed
  // by this test (-1), not by its own --timeout (124).
  static void ExpectTheRunEnds(const ProcessResult& r) {
    EXPECT_TRUE(r.signal == 0 && r.exit_code == 0)
        << (r.signal != 0 ? "klaunch never exited: killed by the test\n"
                          : "klaunch did not exit with the program's 0\n")
        << Show(r);
  }

  static TempDir* build_;
  static std::string build_error_;
  KlaunchRun run_;
  std::string static_bin_, dynamic_bin_, probe_file_;
};

TempDir* SupervisorStall::build_ = nullptr;
std::string SupervisorStall::build_error_;

// Why this host's leases cannot show a stall, or "": they must be
// enabled, and a lease break must last longer than the probe's 10 s bound
// (the kernel gives up on the lease holder after fs.lease-break-time
// seconds, 45 by default, which the test may not change on the host).
std::string LeasesUnusable() {
  const std::string enabled = ReadFile("/proc/sys/fs/leases-enable");
  if (enabled.empty() || enabled[0] == '0') {
    return "file leases are disabled on this host (fs.leases-enable)";
  }
  const std::string t = ReadFile("/proc/sys/fs/lease-break-time");
  if (t.empty() || std::stoi(t) < 20) {
    return "fs.lease-break-time is " + t +
           " s here: a stall that short cannot be told from an answer "
           "within the probe's 10 s";
  }
  return "";
}

// The program's word that it could not take its lease, or "".
std::string NoLease(const ProcessResult& r) {
  return r.out.find("lease: unavailable") != std::string::npos
             ? "the program could not take a lease: " + r.out
             : "";
}

// Attacks the supervisor's create path (supervisor/supervise_open.cc,
// Create): it finds the name missing, judges it, then opens it relative
// to the pinned directory with the program's flags and no O_NONBLOCK. A
// static child opens a missing name O_WRONLY|O_CREAT over and over while
// a thread of its dynamic parent unlinks the name and makes a FIFO there.
// The FIFO maker must be dynamic: its calls go through the shim, tagged,
// so they run while the supervisor handles the open (a static thread's
// mkfifo would wait in the same queue behind the open and could never
// race it). It escapes today because a FIFO swapped in between the lookup
// and the open is opened for writing, blocking, and no reader ever comes:
// the receiving thread waits forever, every later open of every process
// waits behind it, and klaunch never exits.
TEST_F(SupervisorStall, AFifoSwappedIntoACreateCannotStallTheSupervisor) {
  ProcessResult r = Run({dynamic_bin_, "fifo-create", ws() + "/made", "20000"});
  ASSERT_THAT(r.out, HasSubstr("FIFOs swapped in")) << Show(r);
  ExpectAnotherCallStillCompletes(r);
  ExpectTheRunEnds(r);
}

// A regression guard, not an escape today: a static program opens an
// existing FIFO for reading, then (with no reader left) for writing,
// neither with O_NONBLOCK. Where the supervisor makes the open itself (the
// write; the read too without Landlock) it opens the FIFO non-blocking and
// gives the program the mode it asked for (supervisor/supervise_open.cc),
// so it never waits for a peer; a read it lets go on to the kernel waits in
// the program, as natively.
TEST_F(SupervisorStall, OpeningAFifoWithoutNonblockDoesNotStallTheSupervisor) {
  ProcessResult r = Run({static_bin_, "fifo-open", ws() + "/fifo"});
  ASSERT_THAT(r.out, HasSubstr("fifo-open read:")) << Show(r);
  ExpectAnotherCallStillCompletes(r);
  ExpectTheRunEnds(r);
}

// Attacks the supervisor's connect (supervisor/supervise_net.cc,
// ConnectOrBind), which it makes blocking, on a copy of the program's
// socket, in a thread of its pool. The program binds a Unix stream
// listener in its workspace with a backlog of 0 and never accepts; 80
// threads connect to it. It escapes today because each connect after the
// first waits in one of the pool's threads until the listener accepts or
// closes, and the pool stops growing at 64 threads: every later connect
// and send, of every process, waits in the queue for as long as the
// program keeps its listener open.
TEST_F(SupervisorStall, AListenerThatNeverAcceptsCannotHoldUpOtherConnects) {
  ProcessResult r =
      Run({static_bin_, "stream-backlog", ws() + "/full.sock", kBlockedCalls});
  ASSERT_THAT(r.out, HasSubstr("stream-backlog: 80 calls issued")) << Show(r);
  ExpectAnotherCallStillCompletes(r);
  ExpectTheRunEnds(r);
}

// Attacks the supervisor's sends (supervisor/supervise_net.cc, SendTo), made
// blocking on a copy of the program's socket in a thread of the pool. The
// program binds a Unix datagram socket in its workspace, fills its receive
// queue, and then 80 threads send to it from that same socket without
// MSG_DONTWAIT. It escapes today twice over: each send waits in a pool
// thread for room in the queue, and with the pool's 64 threads taken every
// later connect and send waits too; and the socket that would have to
// drain is the one klaunch holds a copy of in those very threads, so it
// never closes, not even when every process of the program is gone: the
// threads wait forever and klaunch, which joins them before it exits,
// never ends.
TEST_F(SupervisorStall, ADatagramSocketWithAFullQueueCannotHoldUpOtherCalls) {
  ProcessResult r =
      Run({static_bin_, "dgram-full", ws() + "/full.dgram", kBlockedCalls});
  ASSERT_THAT(r.out, HasSubstr("dgram-full: 80 calls issued")) << Show(r);
  ExpectAnotherCallStillCompletes(r);
  ExpectTheRunEnds(r);
}

// The second half of the attack above on its own: a single send, from a
// Unix datagram socket to itself once its queue is full. Other calls are
// still answered (one pool thread is taken, not all), but the send waits
// for room in a queue that only the socket's own end could drain, and
// klaunch holds a copy of that socket for as long as it waits: when the
// program has exited and klaunch joins its threads, it waits forever. It
// escapes today: the run never ends.
TEST_F(SupervisorStall, ASendToItselfOnAFullQueueCannotKeepTheRunFromEnding) {
  ProcessResult r = Run({static_bin_, "dgram-full", ws() + "/full.dgram", "1"});
  ASSERT_THAT(r.out, HasSubstr("dgram-full: 1 calls issued")) << Show(r);
  ExpectAnotherCallStillCompletes(r);
  ExpectTheRunEnds(r);
}

// Attacks the supervisor's open path with a file lease. The program writes
// a file in its workspace (its own) and takes a read lease on it
// (F_SETLEASE, F_RDLCK), ignoring the break signal; another of its threads
// opens the file O_WRONLY|O_TRUNC. It escapes today because the supervisor
// opens the file itself, on the receiving thread and without O_NONBLOCK,
// and an open for writing waits for the lease holder to let go, up to
// fs.lease-break-time seconds: every process's opens and mutations wait
// behind it. The probe's bound must be shorter than that time, which this
// test may not change on the host, so it skips where the time is short.
TEST_F(SupervisorStall, AReadLeaseCannotStallTheSupervisorsOpenForWriting) {
  if (const std::string why = LeasesUnusable(); !why.empty()) {
    GTEST_SKIP() << why;
  }
  ProcessResult r = Run({static_bin_, "lease", "open-trunc", ws() + "/leased"});
  if (const std::string why = NoLease(r); !why.empty()) GTEST_SKIP() << why;
  ASSERT_THAT(r.out, HasSubstr("lease: holding a read lease")) << Show(r);
  ExpectAnotherCallStillCompletes(r);
  ExpectTheRunEnds(r);
}

// As above, with truncate() by path (supervisor/supervise_mutate.cc, the
// truncate case): the supervisor truncates through /proc/self/fd/N of its
// pin, on the receiving thread, and a truncate waits for a read lease's
// holder just as an open for writing does. It escapes today the same way.
TEST_F(SupervisorStall, AReadLeaseCannotStallTheSupervisorsTruncate) {
  if (const std::string why = LeasesUnusable(); !why.empty()) {
    GTEST_SKIP() << why;
  }
  ProcessResult r = Run({static_bin_, "lease", "truncate", ws() + "/leased"});
  if (const std::string why = NoLease(r); !why.empty()) GTEST_SKIP() << why;
  ASSERT_THAT(r.out, HasSubstr("lease: holding a read lease")) << Show(r);
  ExpectAnotherCallStillCompletes(r);
  ExpectTheRunEnds(r);
}

// As above with a write lease (F_WRLCK, which the owner of a file may take
// while no one else has it open), which any open breaks, reading included:
// another thread of the program opens the file O_RDONLY. It escapes today:
// the supervisor's own open of the file waits for the lease holder.
TEST_F(SupervisorStall, AWriteLeaseCannotStallTheSupervisorsOpenForReading) {
  if (const std::string why = LeasesUnusable(); !why.empty()) {
    GTEST_SKIP() << why;
  }
  ProcessResult r = Run({static_bin_, "lease", "open-read", ws() + "/leased"});
  if (const std::string why = NoLease(r); !why.empty()) GTEST_SKIP() << why;
  ASSERT_THAT(r.out, HasSubstr("lease: holding a write lease")) << Show(r);
  ExpectAnotherCallStillCompletes(r);
  ExpectTheRunEnds(r);
}

// The exec path (supervisor/supervise_exec.cc, JudgeInterpreter): to judge a
// script's "#!" line the supervisor opens the file for reading, on the
// receiving thread. The program writes a script in its workspace, takes a
// write lease on it, and a child execs it. It escapes today: the
// supervisor's open waits for the lease holder, and every other process's
// opens, execs and mutations wait behind it.
TEST_F(SupervisorStall, AWriteLeaseOnAScriptCannotStallTheSupervisorsExec) {
  if (const std::string why = LeasesUnusable(); !why.empty()) {
    GTEST_SKIP() << why;
  }
  ProcessResult r = Run({static_bin_, "lease", "exec", ws() + "/script"});
  if (const std::string why = NoLease(r); !why.empty()) GTEST_SKIP() << why;
  ASSERT_THAT(r.out, HasSubstr("lease: holding a write lease")) << Show(r);
  ExpectAnotherCallStillCompletes(r);
  ExpectTheRunEnds(r);
}

// Attacks the supervisor's records (supervisor/supervise_judge.cc, Record,
// through core/audit.cc AppendAuditLine), which open the audit log by
// path, on the receiving thread, for every refusal. A dynamic program takes
// the log's descriptor from the shim, which opens the log inside the
// program's process for each refusal it records (the attack of
// attack_log_test.cc), and takes a write lease on the log with it (the
// program runs as the log's owner). The probe then opens a denied file, so
// that the supervisor has a refusal to record. It escapes today: the
// supervisor's open of the log waits for the lease holder, up to
// fs.lease-break-time seconds, and every process's opens and mutations
// wait behind it. (Once the shim no longer hands the program the log's
// descriptor this attack stops at its first step, and the test passes.)
TEST_F(SupervisorStall,
       AWriteLeaseOnTheAuditLogCannotStallTheSupervisorsRecords) {
  if (const std::string why = LeasesUnusable(); !why.empty()) {
    GTEST_SKIP() << why;
  }
  const std::string denied = run_.Write("ws/denied.txt", "denied");
  run_.SetPolicy(
      "extends = \"read-only\"\n[filesystem]\n"
      "workspace_writable = true\ndeny = [\"" +
      denied + "\"]\n");
  ProcessResult r = Run({dynamic_bin_, "log-lease", denied, "20000",
                         static_bin_, denied, ws() + "/probe.sock"},
                        /*probe=*/false);
  ASSERT_THAT(r.out, HasSubstr("log-lease: ")) << Show(r);
  EXPECT_THAT(
      r.out,
      AllOf(HasSubstr("probe-call: open error Permission denied"),
            HasSubstr("probe-call: connect ok"), HasSubstr("probe: completed")))
      << Show(r);
  ExpectTheRunEnds(r);
}

}  // namespace
}  // namespace klaunch::testing
