// What the attack tests (tests/attack_*_test.cc) share: building an attack
// program from tests/programs both dynamic (the shim loads, and the cookie
// can be found in its memory) and static (the supervisor judges), running a
// command under the real klaunch with every layer on, and the other ends
// the attacks aim at, owned by the test process itself: a loopback TCP
// listener (tests/listener.h) and a loopback UDP receiver (below).
//
// Header only, so that tests/meson.build needs no new support file.

#ifndef KLAUNCH_TESTS_ATTACK_SUPPORT_H_
#define KLAUNCH_TESTS_ATTACK_SUPPORT_H_

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <re2/re2.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "tests/run_process.h"
#include "tests/sandbox.h"

namespace klaunch::testing {

// Compiles tests/programs/SOURCE into `out`, static or dynamic, with
// `extra` flags.
inline void BuildProgram(const std::string& source, const std::string& out,
                         bool link_static,
                         const std::vector<std::string>& extra = {}) {
  const std::string src = RequiredEnv("KLAUNCH_TEST_PROGRAMS") + "/" + source;
  std::vector<std::string> argv = {"/usr/bin/gcc", "-O1", "-pthread",
                                   "-o",           out,   src};
  argv.insert(argv.end(), extra.begin(), extra.end());
  if (link_static) {
    argv.insert(argv.begin() + 2, {"-static", "-no-pie"});
  }
  ProcessResult r = RunProcess(argv);
  ASSERT_EQ(r.exit_code, 0) << "gcc " << source << ": " << r.err;
}

// "KEY N" in an attack program's summary line ("reread: opened 12 refused
// 3 leaked 0"); -1 when absent.
inline long SummaryCount(const std::string& out, const std::string& key) {
  long n = -1;
  if (RE2::PartialMatch(out, RE2::QuoteMeta(key) + " (-?[0-9]+)", &n)) return n;
  return -1;
}

// A UDP socket of the test's on ADDRESS:PORT (a free port for 0), counting
// the datagrams that reach it.
class UdpReceiver {
 public:
  explicit UdpReceiver(const char* address = "127.0.0.1", int port = 0) {
    fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, address, &a.sin_addr);
    // Room for many datagrams, so none is lost while the test looks away.
    int size = 4 << 20;
    setsockopt(fd_, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size));
    ok_ =
        fd_ >= 0 && bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
    socklen_t len = sizeof(a);
    if (ok_) getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
  }
  ~UdpReceiver() {
    if (fd_ >= 0) close(fd_);
  }
  UdpReceiver(const UdpReceiver&) = delete;
  UdpReceiver& operator=(const UdpReceiver&) = delete;

  bool ok() const { return ok_; }
  int port() const { return port_; }
  std::string port_text() const { return std::to_string(port_); }

  // The datagrams that arrived (the sender has exited; a short wait for
  // loopback's softirq), removed from the socket.
  std::vector<std::string> Received(int ms = 200) {
    std::vector<std::string> out;
    pollfd p = {fd_, POLLIN, 0};
    poll(&p, 1, ms);
    for (;;) {
      char buf[2048];
      const ssize_t n = recv(fd_, buf, sizeof(buf), MSG_DONTWAIT);
      if (n < 0) break;
      out.emplace_back(buf, static_cast<size_t>(n));
    }
    return out;
  }

 private:
  int fd_ = -1;
  int port_ = 0;
  bool ok_ = false;
};

// A test's directory: ROOT/ws (the workspace, klaunch's working directory),
// ROOT/state, the policy and the audit log.
class KlaunchRun {
 public:
  KlaunchRun() : KlaunchRun("/tmp") {}
  // Its directory under `parent` instead of /tmp.
  explicit KlaunchRun(const std::string& parent) : dir_(parent) {
    RunProcess({"/bin/mkdir", "-p", dir_.Path("ws"), dir_.Path("state")});
  }

  std::string root() const { return dir_.path(); }
  std::string ws() const { return dir_.Path("ws"); }
  std::string Path(const std::string& name) const { return dir_.Path(name); }
  std::string Write(const std::string& name, const std::string& text) const {
    return dir_.Write(name, text);
  }
  std::string log() const { return dir_.Path("audit.jsonl"); }

  // The program's PATH.
  std::string path = "/usr/bin:/bin";

  void SetPolicy(const std::string& toml) {
    policy_ = dir_.Write("policy.toml", toml);
  }

  // `cmd` under klaunch, every layer on unless `options` turn one off.
  // The test kills klaunch after `timeout_seconds`: a hang is a failure,
  // never a hung test.
  ProcessResult Run(const std::vector<std::string>& cmd,
                    const std::vector<std::string>& options = {},
                    int timeout_seconds = 240) const {
    std::vector<std::string> argv = {RequiredEnv("KLAUNCH_BIN"), "--policy",
                                     policy_, "--log", log()};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back("--");
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    ProcessOptions o;
    o.cwd = ws();
    o.env = std::vector<std::string>{"PATH=" + path, "LANG=C.UTF-8",
                                     "HOME=" + dir_.path(),
                                     "XDG_STATE_HOME=" + dir_.Path("state")};
    o.timeout_seconds = timeout_seconds;
    return RunProcess(argv, o);
  }

  // The log's non-empty lines.
  std::vector<std::string> LogLines() const {
    std::vector<std::string> out;
    std::ifstream in(log());
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) out.push_back(line);
    }
    return out;
  }

  // The first line of the run's log: the layers in force.
  std::string Layers() const {
    std::ifstream in(log());
    std::string line;
    while (std::getline(in, line)) {
      if (Field(line, "op") == "start") return Field(line, "message");
    }
    return "";
  }

 private:
  TempDir dir_;
  std::string policy_;
};

}  // namespace klaunch::testing

#endif  // KLAUNCH_TESTS_ATTACK_SUPPORT_H_
