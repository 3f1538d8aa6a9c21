// Class 3 of the attacks of issue 20: the shim's tag is worth too much. A
// dynamic attacker (tests/programs/attacker.c, mode `tag`) finds the run's
// cookie in the shim's memory (find_cookie probes by opening a file the
// policy denies inside the workspace, find_cookie_by_opath by an O_PATH
// open, which a tag always buys), then makes one forbidden operation of
// raw system calls carrying the cookie in the sixth argument register.
// Every one of these is something Landlock does not express: metadata
// changes (mode, owner, times, xattrs), named Unix sockets, UDP, TCP
// addresses (it grants by port), deny entries inside a root it grants,
// and (without Landlock) reading at all. The filter lets a tagged call
// skip the supervisor only where Landlock holds the policy's answer, so
// each is judged all the same (supervisor/seccomp_filter.h). Every layer is
// on; scripts/attack-matrix runs them with Landlock capped too. A test
// fails when the world shows the operation done.
//
// Should a fixed klaunch make the cookie impossible to find (or worthless),
// the attacker prints "no cookie found" and the world is unchanged: the test
// passes, as it should.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "tests/attack_support.h"
#include "tests/listener.h"
#include "tests/run_process.h"
#include "tests/sandbox.h"

namespace klaunch::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

constexpr char kSecretText[] = "RO-ROOT-SECRET-5150";
constexpr char kLedgerText[] = "ledger: original";
constexpr char kXattr[] = "user.klaunch-forged";

class AttackTag : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    bin_ = new TempDir();
    RunProcess({"/bin/mkdir", "-p", bin_->Path("bin")});
    BuildProgram("attacker.c", bin_->Path("bin/attacker"), false);
  }
  static void TearDownTestSuite() {
    delete bin_;
    bin_ = nullptr;
  }

  void SetUp() override {
    // The tag buys a skip of the supervisor only where Landlock enforces the
    // policy's answer anyway: so every attack here must fail with or
    // without Landlock.
    probe_ = run_.Write("ws/denied.txt", "find_cookie's probe");
    ledger_ = run_.Write("ws/ledger.txt", kLedgerText);
    secret_ = run_.Write("ro/secret.txt", kSecretText);
    run_.Write("ro/open.txt", "readable");
    outside_ = run_.Write("outside/file.txt", "outside every root");
    ASSERT_EQ(chmod(outside_.c_str(), 0644), 0);
    UsePolicy("");
  }

  // read-only, writable workspace; the attacker's directory and ROOT/ro
  // are read roots (ro is read-only), ROOT/outside is in no root; denied:
  // the probe and the ledger in the workspace, the secret in ro.
  void UsePolicy(const std::string& network) {
    run_.SetPolicy(
        "extends = \"read-only\"\n"
        "[filesystem]\n"
        "workspace_writable = true\n"
        "read = [\"" +
        bin_->Path("bin") + "\", \"" + run_.Path("ro") +
        "\"]\n"
        "deny = [\"" +
        probe_ + "\", \"" + ledger_ + "\", \"" + secret_ +
        "\"]\n"
        "[network]\n"
        "allow = [" +
        network + "]\n");
  }

  // The attacker's `tag` mode: the cookie found, then OP ARGS tagged.
  ProcessResult Forge(const std::vector<std::string>& op) {
    std::vector<std::string> cmd = {bin_->Path("bin/attacker"), "tag", probe_};
    cmd.insert(cmd.end(), op.begin(), op.end());
    ProcessResult r = run_.Run(cmd);
    // Not a condition of the test (see the top of the file), but the
    // failure message should say whether the attack got its tag.
    if (r.out.find("found the cookie") == std::string::npos) {
      std::printf("note: the attacker found no cookie: %s\n", r.out.c_str());
    }
    return r;
  }

  static TempDir* bin_;
  KlaunchRun run_;
  std::string probe_, ledger_, secret_, outside_;
};

TempDir* AttackTag::bin_ = nullptr;

// chmod, fchmodat and fchmodat2 of a file outside every root: the policy
// gives no write there, and Landlock has no right for a mode change, so a
// tagged call goes to the supervisor.
TEST_F(AttackTag, AForgedTagCannotChangeTheModeOfAFileOutsideEveryRoot) {
  ProcessResult r = Forge({"chmod", outside_, "0777"});
  struct stat st;
  ASSERT_EQ(stat(outside_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u) << Show(r);
}

// chown, lchown and fchownat, as root, to another uid. Landlock has no
// right for an owner change.
TEST_F(AttackTag, AForgedTagCannotChangeTheOwnerOfAFileOutsideEveryRoot) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give a file away";
  struct stat before;
  ASSERT_EQ(stat(outside_.c_str(), &before), 0);
  const uid_t other = before.st_uid + 4242;
  ProcessResult r = Forge({"chown", outside_, std::to_string(other)});
  struct stat after;
  ASSERT_EQ(stat(outside_.c_str(), &after), 0);
  EXPECT_EQ(after.st_uid, before.st_uid) << Show(r);
  EXPECT_EQ(after.st_gid, before.st_gid) << Show(r);
}

// utimensat, utimes and futimesat setting the times to 2001. Landlock has
// no right for times.
TEST_F(AttackTag, AForgedTagCannotChangeTheTimesOfAFileOutsideEveryRoot) {
  struct stat before;
  ASSERT_EQ(stat(outside_.c_str(), &before), 0);
  ProcessResult r = Forge({"utimes", outside_});
  struct stat after;
  ASSERT_EQ(stat(outside_.c_str(), &after), 0);
  EXPECT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec) << Show(r);
  EXPECT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec) << Show(r);
  EXPECT_EQ(after.st_atim.tv_sec, before.st_atim.tv_sec) << Show(r);
}

// setxattr and lsetxattr of a user.* attribute on a file outside the write
// roots. Landlock has no right for xattrs.
TEST_F(AttackTag,
       AForgedTagCannotSetAnExtendedAttributeOnAFileOutsideTheWriteRoots) {
  // The filesystem must take user xattrs at all, or nothing is shown.
  const std::string scratch = run_.Write("scratch.txt", "");
  if (setxattr(scratch.c_str(), kXattr, "x", 1, 0) != 0) {
    GTEST_SKIP() << "this filesystem takes no user.* xattrs: "
                 << strerror(errno);
  }
  ProcessResult r = Forge({"setxattr", outside_, kXattr});
  char value[64];
  const ssize_t n = getxattr(outside_.c_str(), kXattr, value, sizeof(value));
  EXPECT_LT(n, 0) << "the attribute was set: '"
                  << std::string(value, n > 0 ? static_cast<size_t>(n) : 0)
                  << "'\n"
                  << Show(r);
}

// /proc/PID/environ of a process outside the run, of the same user: the
// policy grants /proc/self only, Landlock grants /proc whole (every
// process's /proc/self is another directory), and its ptrace rule keeps a
// sandboxed process from reading what ptrace access guards (environ, maps,
// mem, fd) in a process outside its domain. Without Landlock a tagged read
// meets the supervisor.
TEST_F(AttackTag, AForgedTagCannotReadTheEnvironmentOfAProcessOutsideTheRun) {
  constexpr char kEnvSecret[] = "KLAUNCH_OUTSIDE_SECRET=4711-outside";
  const pid_t outside = fork();
  ASSERT_GE(outside, 0);
  if (outside == 0) {
    char* const argv[] = {const_cast<char*>("/bin/sleep"),
                          const_cast<char*>("30"), nullptr};
    char* const envp[] = {const_cast<char*>(kEnvSecret), nullptr};
    execve(argv[0], argv, envp);
    _exit(127);
  }
  // Its environment is the one given once /proc shows sleep's.
  const std::string environ_path =
      "/proc/" + std::to_string(outside) + "/environ";
  for (int i = 0;
       i < 200 && ReadFile(environ_path).find(kEnvSecret) == std::string::npos;
       ++i) {
    usleep(10000);
  }
  ASSERT_THAT(ReadFile(environ_path), HasSubstr(kEnvSecret));
  ProcessResult r = Forge({"read", environ_path});
  kill(outside, SIGKILL);
  waitpid(outside, nullptr, 0);
  EXPECT_THAT(r.out, Not(HasSubstr("4711-outside"))) << Show(r);
}

// connect to a Unix socket listening at a path outside every root: the
// policy judges it as a write of the path; Landlock (ABI 7) does not
// restrict connecting to a named socket.
TEST_F(AttackTag, AForgedTagCannotConnectToAUnixSocketOutsideEveryRoot) {
  const std::string path = run_.Path("outside/s.sock");
  const int srv =
      socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  sockaddr_un un{};
  un.sun_family = AF_UNIX;
  std::snprintf(un.sun_path, sizeof(un.sun_path), "%s", path.c_str());
  ASSERT_EQ(bind(srv, reinterpret_cast<sockaddr*>(&un), sizeof(un)), 0)
      << strerror(errno);
  ASSERT_EQ(listen(srv, 16), 0);
  ProcessResult r = Forge({"unix", path});
  int accepted = 0;
  pollfd p = {srv, POLLIN, 0};
  while (poll(&p, 1, accepted == 0 ? 200 : 20) == 1) {
    const int c = accept4(srv, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) break;
    close(c);
    ++accepted;
  }
  close(srv);
  EXPECT_EQ(accepted, 0) << Show(r);
}

// connect to an abstract Unix socket of the test's, outside the run, which
// the policy keeps closed (unix_abstract = false): Landlock scopes abstract
// sockets from ABI 6 only; below it the supervisor judges every connect,
// tagged or not.
TEST_F(AttackTag, AForgedTagCannotConnectToAnAbstractUnixSocketOutsideTheRun) {
  const std::string name = "klaunch-attack-tag-" + std::to_string(getpid());
  const int srv =
      socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  sockaddr_un un{};
  un.sun_family = AF_UNIX;
  std::memcpy(un.sun_path + 1, name.data(), name.size());
  const socklen_t len = offsetof(sockaddr_un, sun_path) + 1 + name.size();
  ASSERT_EQ(bind(srv, reinterpret_cast<sockaddr*>(&un), len), 0)
      << strerror(errno);
  ASSERT_EQ(listen(srv, 16), 0);
  ProcessResult r = Forge({"abstract", name});
  pollfd p = {srv, POLLIN, 0};
  int accepted = 0;
  if (poll(&p, 1, 200) == 1) {
    const int c = accept4(srv, nullptr, nullptr, SOCK_CLOEXEC);
    if (c >= 0) {
      close(c);
      ++accepted;
    }
  }
  close(srv);
  EXPECT_EQ(accepted, 0) << Show(r);
  EXPECT_THAT(r.out, Not(HasSubstr("abstract connect: done"))) << Show(r);
}

// sendmsg of a UDP datagram to 127.0.0.1 on a port no rule admits.
// Landlock does not cover UDP.
TEST_F(AttackTag, AForgedTagCannotSendADatagramToAForbiddenPort) {
  UdpReceiver forbidden;
  ASSERT_TRUE(forbidden.ok());
  ProcessResult r = Forge({"udp", forbidden.port_text()});
  EXPECT_THAT(forbidden.Received(), IsEmpty()) << Show(r);
}

// A TCP connect to 127.0.0.1:P when only 127.0.0.2:P is admitted:
// Landlock grants the port, whatever the address.
TEST_F(AttackTag, AForgedTagCannotConnectToAForbiddenAddressOnAnAdmittedPort) {
  Listener forbidden("127.0.0.1", 0);
  ASSERT_TRUE(forbidden.ok());
  const std::string port = std::to_string(forbidden.port());
  UsePolicy("\"127.0.0.2:" + port + "\"");
  ProcessResult r = Forge({"tcp", "127.0.0.1", port});
  EXPECT_EQ(forbidden.Accepted(), 0) << Show(r);
}

// A write of a file a deny entry names inside the writable workspace:
// Landlock grants the workspace as a whole, so writes are not exact and a
// tagged write goes to the supervisor.
TEST_F(AttackTag, AForgedTagCannotWriteAFileDeniedInsideTheWritableWorkspace) {
  ProcessResult r = Forge({"write", ledger_, "forged"});
  EXPECT_EQ(ReadFile(ledger_), kLedgerText) << Show(r);
}

// A read of a file a literal deny entry names inside a read-only read
// root: Landlock keeps it out by granting the root entry by entry around
// it; without Landlock a tagged read meets the supervisor.
TEST_F(AttackTag, AForgedTagCannotReadAFileDeniedInsideAReadOnlyReadRoot) {
  ProcessResult r = Forge({"read", secret_});
  EXPECT_THAT(r.out, Not(HasSubstr(kSecretText))) << Show(r);
}

// A read of a file outside every root: Landlock's where it is in force,
// the supervisor's where it is not (a tagged read skips the supervisor
// only over a Landlock floor).
TEST_F(AttackTag, AForgedTagCannotReadAFileOutsideEveryRoot) {
  ProcessResult r = Forge({"read", outside_});
  EXPECT_THAT(r.out, Not(HasSubstr("outside every root"))) << Show(r);
}

}  // namespace
}  // namespace klaunch::testing
