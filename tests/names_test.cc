// Host-name rules for programs that resolve names themselves: a static
// binary (tests/programs/resolve_connect.c, built static here) reads
// /etc/hosts on its own and connects with a raw system call, so no shim
// sees a name. The seccomp supervisor admits the connect because klaunch
// resolved the policy's names too (supervisor/name_cache.h).
//
// The names come from a hosts file of the test's, bound over /etc/hosts in
// a private mount namespace (so klaunch's getaddrinfo and the program see
// the same file, and the machine's /etc/hosts is never touched): this needs
// root and unshare, and the tests are skipped without them.

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "tests/listener.h"
#include "tests/run_process.h"
#include "tests/sandbox.h"

namespace klaunch::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kUnshare[] = "/usr/bin/unshare";

class NamesForStaticBinaries : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) {
      GTEST_SKIP() << "needs root: the test's hosts file is bound over "
                      "/etc/hosts in a private mount namespace";
    }
    if (access(kUnshare, X_OK) != 0) {
      GTEST_SKIP() << "needs " << kUnshare
                   << " for a private mount namespace with the test's "
                      "hosts file";
    }
    RunProcess({"/bin/mkdir", "-p", dir_.Path("ws"), dir_.Path("state")});
    hosts_ = dir_.Write("hosts",
                        "127.0.0.1 localhost\n"
                        "127.0.0.1 allowed.klaunch.test\n"
                        "127.0.0.2 other.klaunch.test\n"
                        // Resolves, quickly and not to 127.0.0.1.
                        "127.0.0.3 other2.klaunch.test\n");
    ProcessResult ns = RunProcess(
        {kUnshare, "--mount", "/bin/sh", "-c",
         "mount --bind \"$0\" /etc/hosts && cat /etc/hosts", hosts_});
    if (ns.exit_code != 0 ||
        ns.out.find("allowed.klaunch.test") == std::string::npos) {
      GTEST_SKIP() << "cannot bind a hosts file in a private mount "
                      "namespace here: "
                   << ns.err;
    }
    program_ = ws() + "/resolve_connect";
    ProcessResult built = RunProcess(
        {"/usr/bin/gcc", "-O1", "-static", "-o", program_,
         RequiredEnv("KLAUNCH_TEST_PROGRAMS") + "/resolve_connect.c"});
    ASSERT_EQ(built.exit_code, 0) << built.err;
    // One port on both addresses, so a rule's port matches either and only
    // the name can tell them apart.
    first_ = std::make_unique<Listener>("127.0.0.1", 0);
    ASSERT_TRUE(first_->ok());
    second_ = std::make_unique<Listener>("127.0.0.2", first_->port());
    ASSERT_TRUE(second_->ok()) << "cannot bind 127.0.0.2:" << first_->port();
    port_ = std::to_string(first_->port());
  }

  std::string ws() const { return dir_.Path("ws"); }
  std::string log() const { return dir_.Path("audit.jsonl"); }

  void Allow(const std::string& entry) {
    policy_ = dir_.Write("policy.toml", R"(extends = "read-only"
[filesystem]
workspace_writable = true
[network]
allow = [")" + entry + R"("]
)");
  }

  // `cmd` in the mount namespace with the test's hosts file, under klaunch
  // unless `native`.
  ProcessResult Run(const std::vector<std::string>& cmd,
                    bool native = false) const {
    std::vector<std::string> argv = {
        kUnshare,
        "--mount",
        "/bin/sh",
        "-c",
        "h=$1; shift; mount --bind \"$h\" /etc/hosts && exec \"$@\"",
        "sh",
        hosts_};
    if (!native) {
      argv.insert(argv.end(), {RequiredEnv("KLAUNCH_BIN"), "--policy", policy_,
                               "--log", log(), "--"});
    }
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    ProcessOptions o;
    o.cwd = ws();
    o.env = std::vector<std::string>{"PATH=/usr/bin:/bin:/usr/sbin:/sbin",
                                     "LANG=C.UTF-8", "HOME=" + dir_.path(),
                                     "XDG_STATE_HOME=" + dir_.Path("state")};
    o.timeout_seconds = 120;
    return RunProcess(argv, o);
  }

  ProcessResult Connect(const std::string& name, bool native = false) const {
    return Run({program_, name, port_}, native);
  }

  // The seccomp layer's refusals of `target`.
  int SeccompDenials(const std::string& target) const {
    int n = 0;
    std::ifstream in(log());
    for (std::string line; std::getline(in, line);) {
      n += Field(line, "layer") == "seccomp" &&
           Field(line, "verdict") == "deny" && Field(line, "target") == target;
    }
    return n;
  }

  TempDir dir_;
  std::string hosts_, program_, policy_, port_;
  std::unique_ptr<Listener> first_, second_;
};

TEST_F(NamesForStaticBinaries, TheProgramReachesBothNamesWithoutKlaunch) {
  ProcessResult r = Connect("allowed.klaunch.test", /*native=*/true);
  EXPECT_THAT(r.out, HasSubstr("connect allowed.klaunch.test: done"))
      << Show(r);
  r = Connect("other.klaunch.test", /*native=*/true);
  EXPECT_THAT(r.out, HasSubstr("connect other.klaunch.test: done")) << Show(r);
  EXPECT_EQ(first_->Accepted(), 1);
  EXPECT_EQ(second_->Accepted(), 1);
}

TEST_F(NamesForStaticBinaries,
       AStaticBinaryReachesAnAllowedNameItResolvedItself) {
  Allow("allowed.klaunch.test:" + port_);
  ProcessResult r = Connect("allowed.klaunch.test");
  EXPECT_THAT(r.out, HasSubstr("connect allowed.klaunch.test: done"))
      << Show(r) << ReadFile(log());
  EXPECT_EQ(first_->Accepted(), 1);
  EXPECT_EQ(SeccompDenials("127.0.0.1:" + port_), 0) << ReadFile(log());
}

TEST_F(NamesForStaticBinaries,
       AStaticBinaryIsRefusedANameThePolicyDoesNotList) {
  Allow("allowed.klaunch.test:" + port_);
  ProcessResult r = Connect("other.klaunch.test");
  EXPECT_THAT(r.out, HasSubstr("connect other.klaunch.test: error "
                               "Permission denied"))
      << Show(r);
  EXPECT_EQ(second_->Accepted(), 0) << "a name the policy does not list "
                                       "was reached";
  EXPECT_EQ(SeccompDenials("127.0.0.2:" + port_), 1) << ReadFile(log());
}

TEST_F(NamesForStaticBinaries, TheAdmissionComesFromTheNameNotTheAddress) {
  // The same address and port, with a policy whose name resolves elsewhere.
  Allow("other2.klaunch.test:" + port_);
  ProcessResult r = Connect("allowed.klaunch.test");
  EXPECT_THAT(r.out, HasSubstr("connect allowed.klaunch.test: error "
                               "Permission denied"))
      << Show(r);
  EXPECT_EQ(first_->Accepted(), 0);
  EXPECT_EQ(SeccompDenials("127.0.0.1:" + port_), 1) << ReadFile(log());
}

TEST_F(NamesForStaticBinaries,
       AGlobRuleCannotBeResolvedAheadSoItAdmitsNoStaticBinary) {
  // Documented limit: `*.klaunch.test` names no host klaunch could ask
  // about, so only the shim (a program's own getaddrinfo) can use it.
  Allow("*.klaunch.test:" + port_);
  ProcessResult r = Connect("allowed.klaunch.test");
  EXPECT_THAT(r.out, HasSubstr("connect allowed.klaunch.test: error "
                               "Permission denied"))
      << Show(r);
  EXPECT_EQ(first_->Accepted(), 0);
}

}  // namespace
}  // namespace klaunch::testing
