// Class 1 of the attacks of issue 20: a value is judged, then the kernel
// reads the program's memory (or the filesystem) again. The attacker
// (tests/programs/race_attacker.c, built dynamic so the shim judges its libc
// calls, and static so the supervisor does) makes the call thousands of
// times while a second thread keeps rewriting what the call points at. Each
// run is bounded by a number of attempts and a few seconds, and stops early
// once the attacker has seen the escape work. A test fails when the world
// shows the escape: a connection accepted by the forbidden listener, a
// datagram received on the forbidden port, the denied program or command
// line run (it prints DENIED-COMMAND-RAN and leaves a file of that name).
//
// Landlock grants TCP connects by port only (MSG_FASTOPEN's connect
// included: aimed at an unlisted port, the Fast Open attack below is
// stopped by Landlock on Linux 6.18), so the TCP attacks aim at a forbidden
// *address* on the port an allowed address uses (127.0.0.2:P admitted,
// 127.0.0.1:P not): what is attacked is the judgement, which Landlock
// cannot stand in for. Every layer is on in every test.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "tests/attack_support.h"
#include "tests/listener.h"
#include "tests/run_process.h"
#include "tests/sandbox.h"

namespace klaunch::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kDeniedRan[] = "DENIED-COMMAND-RAN";

// The budget of each attack: at most this long, at most this many tries.
constexpr char kNetSeconds[] = "3";
constexpr char kNetTries[] = "20000";
constexpr char kExecSeconds[] = "4";
constexpr char kExecTries[] = "4000";

// Two listeners on one port: 127.0.0.2:P, which the policy admits, and
// 127.0.0.1:P, which it does not.
struct ListenerPair {
  std::unique_ptr<Listener> allowed, forbidden;
  int port = 0;
};

ListenerPair TwoListenersOnOnePort() {
  ListenerPair p;
  for (int i = 0; i < 20 && !p.allowed; ++i) {
    auto forbidden = std::make_unique<Listener>("127.0.0.1", 0);
    if (!forbidden->ok()) continue;
    auto allowed = std::make_unique<Listener>("127.0.0.2", forbidden->port());
    if (!allowed->ok()) continue;
    p.port = forbidden->port();
    p.forbidden = std::move(forbidden);
    p.allowed = std::move(allowed);
  }
  return p;
}

// Shows the attacker's summary in the test's output, passing or not.
void Report(const ProcessResult& r) {
  std::printf("%s", r.out.c_str());
  std::fflush(stdout);
}

bool TcpFastOpenClientEnabled() {
  std::ifstream in("/proc/sys/net/ipv4/tcp_fastopen");
  int v = 0;
  return (in >> v) && (v & 1);
}

class AttackRace : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    bin_ = new TempDir();
    const std::string bin = bin_->Path("bin");
    RunProcess({"/bin/mkdir", "-p", bin});
    BuildProgram("race_attacker.c", bin + "/race-attacker", false);
    BuildProgram("race_attacker.c", bin + "/race-attacker-static", true);
    // One marker program under two names of one length.
    BuildProgram("exec_marker.c", bin + "/good-prog", true);
    BuildProgram("exec_marker.c", bin + "/evil-prog", true);
  }
  static void TearDownTestSuite() {
    delete bin_;
    bin_ = nullptr;
  }

  static std::string Bin(const std::string& name) {
    return bin_->Path("bin/" + name);
  }
  static std::string Attacker(bool dynamic) {
    return Bin(dynamic ? "race-attacker" : "race-attacker-static");
  }

  // read-only with a writable workspace; the programs' directory is a read
  // root (so Landlock lets both markers run); evil-prog, and good-prog with
  // an argument starting "evil", are denied commands; `network` is the
  // network.allow list.
  void UsePolicy(const std::string& network) {
    run_.SetPolicy(
        "extends = \"read-only\"\n"
        "[filesystem]\n"
        "workspace_writable = true\n"
        "read = [\"" +
        bin_->Path("bin") +
        "\"]\n"
        "[commands]\n"
        "deny = [\"evil-prog*\", \"good-prog evil*\"]\n"
        "[network]\n"
        "allow = [" +
        network + "]\n");
  }

  // The escape is absent from the world, and (when it is) the attack did
  // try: at least `min` attempts were made.
  void ExpectNoDeniedRun(const ProcessResult& r, long min = 50) {
    EXPECT_THAT(r.out, Not(HasSubstr(kDeniedRan))) << Show(r);
    EXPECT_FALSE(Exists(run_.ws() + "/" + kDeniedRan))
        << "the denied program ran and left its marker";
    if (r.out.find(kDeniedRan) == std::string::npos) {
      EXPECT_GE(SummaryCount(r.out, "attempts"), min) << Show(r);
    }
  }

  // The policy refuses the denied program and command line when nothing
  // races: the marker never shows for a plain run.
  void ExpectThePolicyRefusesThemPlainly() {
    ProcessResult plain = run_.Run({Bin("evil-prog")});
    EXPECT_THAT(plain.out, Not(HasSubstr(kDeniedRan))) << Show(plain);
    plain = run_.Run({Bin("good-prog"), "evil-arg"});
    EXPECT_THAT(plain.out, Not(HasSubstr(kDeniedRan))) << Show(plain);
    plain = run_.Run({Bin("good-prog"), "safe-arg"});
    EXPECT_EQ(plain.exit_code, 0) << Show(plain);
  }

  // --- the attacks, each shared by the shim's and the supervisor's test --

  void ConnectRace(bool dynamic) {
    ListenerPair l = TwoListenersOnOnePort();
    ASSERT_TRUE(l.allowed) << "no port free on both 127.0.0.1 and 127.0.0.2";
    const std::string port = std::to_string(l.port);
    UsePolicy("\"127.0.0.2:" + port + "\"");
    ProcessResult r = run_.Run({Attacker(dynamic), "connect", "127.0.0.2",
                                "127.0.0.1", port, kNetSeconds, kNetTries});
    Report(r);
    const int forbidden = l.forbidden->Accepted();
    EXPECT_EQ(forbidden, 0)
        << "connections reached the forbidden 127.0.0.1:" << port << "\n"
        << Show(r);
    if (forbidden == 0) {
      EXPECT_GT(l.allowed->Accepted(), 0) << "the attack never connected\n"
                                          << Show(r);
      EXPECT_GE(SummaryCount(r.out, "attempts"), 200) << Show(r);
    }
  }

  void DatagramRace(bool dynamic, const char* op) {
    UdpReceiver allowed, forbidden;
    ASSERT_TRUE(allowed.ok() && forbidden.ok());
    UsePolicy("\"127.0.0.1:" + allowed.port_text() + "\"");
    ProcessResult r = run_.Run({Attacker(dynamic), op, allowed.port_text(),
                                forbidden.port_text(), kNetSeconds, kNetTries});
    Report(r);
    const size_t got = forbidden.Received().size();
    EXPECT_EQ(got, 0u) << op << ": datagrams reached the forbidden port "
                       << forbidden.port() << "\n"
                       << Show(r);
    EXPECT_GT(allowed.Received().size(), 0u)
        << op << ": the attack never sent\n"
        << Show(r);
    EXPECT_GE(SummaryCount(r.out, "attempts"), 200) << Show(r);
  }

  void FastOpenRace(bool dynamic, bool use_sendto) {
    if (!TcpFastOpenClientEnabled()) {
      GTEST_SKIP() << "net.ipv4.tcp_fastopen lacks the client bit (1): "
                      "MSG_FASTOPEN makes no connection here";
    }
    ListenerPair l = TwoListenersOnOnePort();
    ASSERT_TRUE(l.allowed) << "no port free on both 127.0.0.1 and 127.0.0.2";
    const std::string port = std::to_string(l.port);
    UsePolicy("\"127.0.0.2:" + port + "\"");
    std::vector<std::string> cmd = {Attacker(dynamic)};
    if (use_sendto) {
      cmd.insert(cmd.end(), {"fastopen-sendto", "127.0.0.2"});
    } else {
      cmd.push_back("fastopen-msg");
    }
    cmd.insert(cmd.end(), {"127.0.0.1", port, kNetSeconds, kNetTries});
    ProcessResult r = run_.Run(cmd);
    Report(r);
    const int forbidden = l.forbidden->Accepted();
    EXPECT_EQ(forbidden, 0)
        << "a Fast Open connection reached the forbidden 127.0.0.1:" << port
        << "\n"
        << Show(r);
    if (forbidden == 0) {
      EXPECT_GE(SummaryCount(r.out, "attempts"), 100) << Show(r);
    }
  }

  void ExecPathRace(bool dynamic) {
    UsePolicy("");
    ExpectThePolicyRefusesThemPlainly();
    ProcessResult r =
        run_.Run({Attacker(dynamic), "exec-path", Bin("good-prog"),
                  Bin("evil-prog"), kExecSeconds, kExecTries});
    ExpectNoDeniedRun(r);
  }

  void ExecArgvRace(bool dynamic) {
    UsePolicy("");
    ExpectThePolicyRefusesThemPlainly();
    ProcessResult r =
        run_.Run({Attacker(dynamic), "exec-argv", Bin("good-prog"), "safe-arg",
                  "evil-arg", kExecSeconds, kExecTries});
    ExpectNoDeniedRun(r);
  }

  void ExecSymlinkSwap(bool dynamic) {
    UsePolicy("");
    const std::string link = run_.ws() + "/prog";
    ASSERT_EQ(symlink(Bin("good-prog").c_str(), link.c_str()), 0);
    // The link to the denied program is refused when nothing races.
    const std::string evil_link = run_.ws() + "/evil-link";
    ASSERT_EQ(symlink(Bin("evil-prog").c_str(), evil_link.c_str()), 0);
    ProcessResult plain =
        run_.Run({Attacker(dynamic), "exec-swap-link", evil_link,
                  Bin("evil-prog"), Bin("evil-prog"), "30", "20"});
    EXPECT_THAT(plain.out, Not(HasSubstr(kDeniedRan))) << Show(plain);
    EXPECT_THAT(plain.out, HasSubstr("attempts 20 allowed-ran 0 denied-ran 0"))
        << Show(plain);
    ProcessResult r =
        run_.Run({Attacker(dynamic), "exec-swap-link", link, Bin("good-prog"),
                  Bin("evil-prog"), kExecSeconds, kExecTries});
    Report(r);
    ExpectNoDeniedRun(r);
  }

  void ExecFileSwap(bool dynamic) {
    UsePolicy("");
    // A copy of the admitted program, and a script whose interpreter is the
    // denied one: `#!.../evil-prog` is the command `evil-prog SCRIPT`.
    const std::string good = run_.ws() + "/good-copy";
    ASSERT_EQ(RunProcess({"/bin/cp", Bin("good-prog"), good}).exit_code, 0);
    const std::string script =
        run_.Write("ws/evil-script", "#!" + Bin("evil-prog") + "\n");
    ASSERT_EQ(chmod(script.c_str(), 0755), 0);
    const std::string name = run_.ws() + "/prog";
    ASSERT_EQ(link(good.c_str(), name.c_str()), 0);
    // The script is refused when nothing races.
    ProcessResult plain =
        run_.Run({Attacker(dynamic), "exec-swap-file", run_.ws() + "/plain",
                  script, script, "30", "20"});
    EXPECT_THAT(plain.out, Not(HasSubstr(kDeniedRan))) << Show(plain);
    EXPECT_THAT(plain.out, HasSubstr("attempts 20 allowed-ran 0 denied-ran 0"))
        << Show(plain);
    ProcessResult r = run_.Run({Attacker(dynamic), "exec-swap-file", name, good,
                                script, kExecSeconds, kExecTries});
    Report(r);
    ExpectNoDeniedRun(r);
  }

  static TempDir* bin_;
  KlaunchRun run_;
};

TempDir* AttackRace::bin_ = nullptr;

// --- a. connect --------------------------------------------------------------

// Attacks the shim's connect: it reads the sockaddr, judges it, then passes
// the program's own pointer to a tagged connect, so the kernel reads the
// address again after the verdict. A second thread flips sin_addr between
// 127.0.0.2 (admitted) and 127.0.0.1; Landlock admits the port. Escapes
// today: the shim judges one read and the kernel connects to the other.
TEST_F(
    AttackRace,
    AConnectAddressRewrittenAfterTheShimsVerdictNeverReachesAForbiddenAddress) {
  ConnectRace(/*dynamic=*/true);
}

// The same from a static binary: the supervisor copies the address, judges
// the copy and connects a duplicate of the socket to that copy, so nothing
// the program rewrites reaches the kernel. A regression guard.
TEST_F(
    AttackRace,
    AConnectAddressRewrittenAfterTheSupervisorsVerdictNeverReachesAForbiddenAddress) {
  ConnectRace(/*dynamic=*/false);
}

// --- b. sendto / sendmsg --------------------------------------------------

// Attacks the shim's sendto and sendmsg: both judge the destination, then
// hand the kernel a msghdr whose msg_name is the program's own buffer, whose
// sin_port a second thread flips between the admitted and a forbidden UDP
// port. UDP is not Landlock's. Escapes today.
TEST_F(
    AttackRace,
    ADatagramAddressRewrittenAfterTheShimsVerdictNeverReachesAForbiddenPort) {
  DatagramRace(/*dynamic=*/true, "sendto");
  DatagramRace(/*dynamic=*/true, "sendmsg");
}

// The same through the supervisor, which sends from its own copy of the
// address and data. A regression guard.
TEST_F(
    AttackRace,
    ADatagramAddressRewrittenAfterTheSupervisorsVerdictNeverReachesAForbiddenPort) {
  DatagramRace(/*dynamic=*/false, "sendto");
  DatagramRace(/*dynamic=*/false, "sendmsg");
}

// --- c. MSG_FASTOPEN ------------------------------------------------------

// Attacks the supervisor's sendmsg: with no msg_name on a stream socket it
// answers CONTINUE ("the peer was judged at connect"), and the kernel reads
// the msghdr again. On an unconnected TCP socket MSG_FASTOPEN makes that
// sendmsg a connect to msg_name, which a second thread sets to the forbidden
// 127.0.0.1:P after the supervisor looked. Escapes today.
TEST_F(
    AttackRace,
    AFastOpenSendmsgWhoseNameAppearsAfterTheSupervisorsVerdictNeverConnects) {
  FastOpenRace(/*dynamic=*/false, /*use_sendto=*/false);
}

// The shim's side of it: sendmsg without msg_name goes straight to a tagged
// call with the program's msghdr, so a name set after the shim looked is
// connected to unjudged. Escapes today.
TEST_F(AttackRace,
       AFastOpenSendmsgWhoseNameAppearsAfterTheShimsVerdictNeverConnects) {
  FastOpenRace(/*dynamic=*/true, /*use_sendto=*/false);
}

// sendto with MSG_FASTOPEN through the shim: the address is judged and then
// read again by the kernel from the program's buffer, whose sin_addr a
// second thread flips from 127.0.0.2 to 127.0.0.1. Escapes today.
TEST_F(AttackRace,
       AFastOpenSendtoAddressRewrittenAfterTheShimsVerdictNeverConnects) {
  FastOpenRace(/*dynamic=*/true, /*use_sendto=*/true);
}

// The same through the supervisor, which sends from its own copy. A
// regression guard.
TEST_F(AttackRace,
       AFastOpenSendtoAddressRewrittenAfterTheSupervisorsVerdictNeverConnects) {
  FastOpenRace(/*dynamic=*/false, /*use_sendto=*/true);
}

// --- d. exec path and argv ------------------------------------------------

// Attacks the shim's exec: it judges the path string, then passes the
// program's own pointer to a tagged execve. The string lives in a shared
// page a thread of the parent keeps flipping between .../good-prog and
// .../evil-prog (one read root, so Landlock admits both); each attempt is a
// forked child's execve. Escapes today: the kernel reads the path again.
TEST_F(AttackRace,
       AnExecPathRewrittenAfterTheShimsVerdictNeverRunsTheDeniedProgram) {
  ExecPathRace(/*dynamic=*/true);
}

// The supervisor's exec: it reads and judges the path, answers CONTINUE,
// and the kernel reads the path again from the child's memory. Escapes
// today (docs/design.md names this window).
TEST_F(AttackRace,
       AnExecPathRewrittenAfterTheSupervisorsVerdictNeverRunsTheDeniedProgram) {
  ExecPathRace(/*dynamic=*/false);
}

// The command line: argv[1] flips between "safe-arg" (admitted) and
// "evil-arg" (`good-prog evil*` is denied), after the shim judged it.
// Escapes today.
TEST_F(
    AttackRace,
    AnExecArgumentRewrittenAfterTheShimsVerdictNeverRunsTheDeniedCommandLine) {
  ExecArgvRace(/*dynamic=*/true);
}

// The same after the supervisor's verdict (SECURITY.md lists "execve's
// argument window" as not stopped). Escapes today.
TEST_F(
    AttackRace,
    AnExecArgumentRewrittenAfterTheSupervisorsVerdictNeverRunsTheDeniedCommandLine) {
  ExecArgvRace(/*dynamic=*/false);
}

// --- e. the file swapped on disk ------------------------------------------

// A workspace symlink `prog` is replaced, in a loop, by one to good-prog and
// one to evil-prog while the program executes `prog` through libc: the shim
// judges what the link names, then the kernel resolves it again. Escapes
// today.
TEST_F(AttackRace,
       AProgramSymlinkSwappedAfterTheShimsVerdictNeverRunsTheDeniedProgram) {
  ExecSymlinkSwap(/*dynamic=*/true);
}

// The same judged by the supervisor, which pins the file it judged but lets
// the kernel resolve the path again. Escapes today.
TEST_F(
    AttackRace,
    AProgramSymlinkSwappedAfterTheSupervisorsVerdictNeverRunsTheDeniedProgram) {
  ExecSymlinkSwap(/*dynamic=*/false);
}

// A regular file renamed over: `prog` is, in turn, a hard link of a copy of
// the admitted program and of a script whose interpreter is the denied
// program. The shim reads the file's first line to judge the interpreter,
// then the kernel opens the name again. Escapes today.
TEST_F(AttackRace,
       AProgramFileRenamedOverAfterTheShimsVerdictNeverRunsTheDeniedScript) {
  ExecFileSwap(/*dynamic=*/true);
}

// The same judged by the supervisor. Escapes today.
TEST_F(
    AttackRace,
    AProgramFileRenamedOverAfterTheSupervisorsVerdictNeverRunsTheDeniedScript) {
  ExecFileSwap(/*dynamic=*/false);
}

}  // namespace
}  // namespace klaunch::testing
