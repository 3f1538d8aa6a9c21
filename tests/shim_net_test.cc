// The network wrappers against a real client: a C program run under the shim
// connects, sends and binds to listeners this test process owns on
// loopback (and to Unix sockets it creates), so that a test sees from the
// other end whether a refused connection or datagram got through. Nothing
// leaves loopback.

#include <arpa/inet.h>
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "tests/run_process.h"
#include "tests/sandbox.h"

namespace klaunch::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// --- the other end, owned by the test process (not under the shim) -----------

// Waits up to `ms` for `fd` to become readable.
bool Readable(int fd, int ms) {
  struct pollfd p = {fd, POLLIN, 0};
  return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

class Listener {
 public:
  // A TCP listener on 127.0.0.1, on a free port.
  static Listener Tcp() {
    Listener l;
    l.fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in in{};
    in.sin_family = AF_INET;
    in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    in.sin_port = 0;
    EXPECT_EQ(bind(l.fd_, reinterpret_cast<sockaddr*>(&in), sizeof(in)), 0)
        << strerror(errno);
    EXPECT_EQ(listen(l.fd_, 16), 0) << strerror(errno);
    socklen_t len = sizeof(in);
    getsockname(l.fd_, reinterpret_cast<sockaddr*>(&in), &len);
    l.port_ = ntohs(in.sin_port);
    return l;
  }
  // A UDP socket bound to 127.0.0.1, on a free port.
  static Listener Udp() {
    Listener l;
    l.fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_in in{};
    in.sin_family = AF_INET;
    in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(l.fd_, reinterpret_cast<sockaddr*>(&in), sizeof(in)), 0)
        << strerror(errno);
    socklen_t len = sizeof(in);
    getsockname(l.fd_, reinterpret_cast<sockaddr*>(&in), &len);
    l.port_ = ntohs(in.sin_port);
    return l;
  }
  // A Unix stream listener at `path`, or in the abstract namespace when
  // `path` starts with '@'.
  static Listener Unix(const std::string& path) {
    Listener l;
    l.fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un un{};
    un.sun_family = AF_UNIX;
    socklen_t len;
    if (path[0] == '@') {
      std::memcpy(un.sun_path + 1, path.data() + 1, path.size() - 1);
      len =
          static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size());
    } else {
      std::snprintf(un.sun_path, sizeof(un.sun_path), "%s", path.c_str());
      len = sizeof(un);
    }
    EXPECT_EQ(bind(l.fd_, reinterpret_cast<sockaddr*>(&un), len), 0)
        << path << ": " << strerror(errno);
    EXPECT_EQ(listen(l.fd_, 16), 0) << strerror(errno);
    return l;
  }

  Listener(Listener&& o) noexcept : fd_(o.fd_), port_(o.port_) { o.fd_ = -1; }
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;
  ~Listener() {
    if (fd_ >= 0) close(fd_);
  }

  int port() const { return port_; }
  std::string port_text() const { return std::to_string(port_); }

  // The connections that reached a stream listener within `ms` (the client
  // has exited by then, so its connection would already be queued).
  int Accepted(int ms = 300) {
    int n = 0;
    while (Readable(fd_, n == 0 ? ms : 50)) {
      int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) break;
      close(c);
      ++n;
    }
    return n;
  }
  // The datagrams that reached a UDP socket within `ms`.
  std::vector<std::string> Received(int ms = 300) {
    std::vector<std::string> out;
    while (Readable(fd_, out.empty() ? ms : 50)) {
      char buf[2048];
      ssize_t n = recv(fd_, buf, sizeof(buf), MSG_DONTWAIT);
      if (n < 0) break;
      out.emplace_back(buf, static_cast<size_t>(n));
    }
    return out;
  }

 private:
  Listener() = default;
  int fd_ = -1;
  int port_ = 0;
};

// --- the client, run under the shim ------------------------------------------

std::string Client(const Sandbox& box) {
  return box.CompileProgram("net_client.c");
}

// --- 1. TCP by address -------------------------------------------------------

TEST(ShimNet, AConnectToTheListedLoopbackPortSucceedsAndToAnotherIsRefused) {
  Listener a = Listener::Tcp();
  Listener b = Listener::Tcp();
  Sandbox box(R"(
extends = "workspace-write"
[network]
allow = ["127.0.0.1/32:)" +
              a.port_text() + R"("]
)");
  const std::string client = Client(box);

  ProcessResult ok = box.Run({client, "tcp", "127.0.0.1", a.port_text()});
  EXPECT_EQ(ok.exit_code, 0) << Show(ok) << Dump(box);
  EXPECT_EQ(ok.out, "ok\n") << Show(ok);
  EXPECT_EQ(a.Accepted(), 1);
  EXPECT_THAT(box.AuditLines(), IsEmpty()) << Dump(box);

  ProcessResult no = box.Run({client, "tcp", "127.0.0.1", b.port_text()});
  EXPECT_EQ(no.exit_code, 1) << Show(no);
  EXPECT_EQ(no.out, "errno=13\n") << Show(no);
  EXPECT_EQ(b.Accepted(), 0) << "the refused connect reached the listener";
  const std::string target = "127.0.0.1:" + b.port_text();
  std::vector<std::string> lines = LinesFor(box, target);
  ASSERT_EQ(lines.size(), 1u) << Dump(box);
  EXPECT_EQ(Field(lines[0], "op"), "connect") << lines[0];
  EXPECT_EQ(Field(lines[0], "access"), "connect") << lines[0];
  EXPECT_EQ(Field(lines[0], "verdict"), "deny") << lines[0];
  EXPECT_EQ(Field(lines[0], "rule"), "network.unlisted") << lines[0];
  EXPECT_THAT(Field(lines[0], "message"), HasSubstr("connect to " + target))
      << lines[0];
  EXPECT_THAT(Field(lines[0], "message"),
              HasSubstr("add \"" + target + "\" to network.allow"))
      << lines[0];
}

TEST(ShimNet, AnIpv4MappedIpv6ConnectIsJudgedAsItsIpv4Address) {
  Listener a = Listener::Tcp();
  Listener b = Listener::Tcp();
  Sandbox box(R"(
extends = "workspace-write"
[network]
allow = ["127.0.0.1/32:)" +
              a.port_text() + R"("]
)");
  const std::string client = Client(box);
  ProcessResult no =
      box.Run({client, "tcp", "::ffff:127.0.0.1", b.port_text()});
  EXPECT_EQ(no.out, "errno=13\n") << Show(no);
  EXPECT_EQ(b.Accepted(), 0) << "the mapped address slipped past the rule";
  EXPECT_EQ(LinesFor(box, "127.0.0.1:" + b.port_text()).size(), 1u)
      << Dump(box);

  ProcessResult ok =
      box.Run({client, "tcp", "::ffff:127.0.0.1", a.port_text()});
  EXPECT_EQ(ok.out, "ok\n") << Show(ok) << Dump(box);
  EXPECT_EQ(a.Accepted(), 1);
}

// --- 2. TCP by name ----------------------------------------------------------

TEST(ShimNet, AHostRuleAdmitsItsNameOnItsPortAndLocalhostWithoutALookup) {
  Listener l = Listener::Tcp();
  Sandbox box(R"(
extends = "workspace-write"
[network]
allow = ["localhost:)" +
              l.port_text() + R"("]
)");
  const std::string client = Client(box);
  const std::string port = l.port_text();

  ProcessResult resolved = box.Run({client, "resolve", "localhost", port});
  EXPECT_EQ(resolved.out, "ok\n") << Show(resolved) << Dump(box);
  EXPECT_EQ(l.Accepted(), 1);

  ProcessResult by_hostent =
      box.Run({client, "gethostbyname", "localhost", port});
  EXPECT_EQ(by_hostent.out, "ok\n") << Show(by_hostent) << Dump(box);
  EXPECT_EQ(l.Accepted(), 1);
  EXPECT_THAT(box.AuditLines(), IsEmpty()) << Dump(box);

  // localhost is bound without a lookup (core/static_names.h): its
  // addresses are admitted on the rule's port however the program got
  // there, as curl (which answers localhost itself) needs. A name only a
  // resolver knows admits only connects reached through it (engine_test).
  ProcessResult literal = box.Run({client, "tcp", "127.0.0.1", port});
  EXPECT_EQ(literal.out, "ok\n") << Show(literal);
  EXPECT_EQ(l.Accepted(), 1);
  ProcessResult numeric = box.Run({client, "resolve", "127.0.0.1", port});
  EXPECT_EQ(numeric.out, "ok\n") << Show(numeric);
  EXPECT_EQ(l.Accepted(), 1);
  EXPECT_THAT(LinesFor(box, "127.0.0.1:" + port), IsEmpty()) << Dump(box);

  // The name admits only its port.
  Listener other = Listener::Tcp();
  ProcessResult other_port =
      box.Run({client, "resolve", "localhost", other.port_text()});
  EXPECT_EQ(other_port.out, "errno=13\n") << Show(other_port);
  EXPECT_EQ(other.Accepted(), 0);
  // Named by the host it resolved (the target may be spelt either way).
  std::vector<std::string> named = LinesMentioning(
      box, "connect to localhost:" + other.port_text() + " (127.0.0.1)");
  ASSERT_EQ(named.size(), 1u) << Dump(box);
  EXPECT_THAT(Field(named[0], "target"),
              ::testing::AnyOf("localhost:" + other.port_text(),
                               "127.0.0.1:" + other.port_text()))
      << named[0];
  EXPECT_EQ(Field(named[0], "rule"), "network.unlisted") << named[0];
  EXPECT_EQ(box.AuditLines().size(), 1u) << Dump(box);
}

// --- 3. loopback is not special ----------------------------------------------

TEST(ShimNet, AConnectToLoopbackIsRefusedWhenNoNetworkRuleListsIt) {
  Listener l = Listener::Tcp();
  Sandbox box(R"(extends = "workspace-write")");
  const std::string client = Client(box);
  ProcessResult r = box.Run({client, "tcp", "127.0.0.1", l.port_text()});
  EXPECT_EQ(r.exit_code, 1) << Show(r);
  EXPECT_EQ(r.out, "errno=13\n") << Show(r);
  ProcessResult named =
      box.Run({client, "resolve", "localhost", l.port_text()});
  EXPECT_EQ(named.out, "errno=13\n") << Show(named);
  EXPECT_EQ(l.Accepted(), 0);
  std::vector<std::string> lines = LinesFor(box, "127.0.0.1:" + l.port_text());
  ASSERT_EQ(lines.size(), 1u) << Dump(box);
  EXPECT_EQ(Field(lines[0], "rule"), "network.unlisted") << lines[0];
  std::vector<std::string> by_name = LinesMentioning(
      box, "connect to localhost:" + l.port_text() + " (127.0.0.1)");
  ASSERT_EQ(by_name.size(), 1u) << Dump(box);
  EXPECT_EQ(Field(by_name[0], "rule"), "network.unlisted") << by_name[0];
  EXPECT_EQ(box.AuditLines().size(), 2u) << Dump(box);
}

TEST(ShimNet, APythonSocketConnectToUnlistedLoopbackIsRefused) {
  Listener l = Listener::Tcp();
  Sandbox box(R"(extends = "workspace-write")");
  ProcessResult r = box.Run({"/usr/bin/python3", "-c",
                             "import socket, sys\n"
                             "s = socket.socket()\n"
                             "try:\n"
                             "    s.connect(('127.0.0.1', int(sys.argv[1])))\n"
                             "    print('connected')\n"
                             "except PermissionError as e:\n"
                             "    print('refused', e.errno)\n",
                             l.port_text()});
  EXPECT_EQ(r.out, "refused 13\n") << Show(r);
  EXPECT_EQ(l.Accepted(), 0);
  EXPECT_EQ(LinesFor(box, "127.0.0.1:" + l.port_text()).size(), 1u)
      << Dump(box);
}

// --- 4. UDP ------------------------------------------------------------------

TEST(ShimNet, DatagramsToAnUnlistedPortAreRefusedAndToTheListedOneDelivered) {
  Listener a = Listener::Udp();
  Listener b = Listener::Udp();
  Sandbox box(R"(
extends = "workspace-write"
[network]
allow = ["127.0.0.1/32:)" +
              a.port_text() + R"("]
)");
  const std::string client = Client(box);
  for (const char* op : {"sendto", "sendmsg", "udp-connect"}) {
    SCOPED_TRACE(op);
    const std::string msg = std::string("datagram-by-") + op;
    ProcessResult ok = box.Run({client, op, "127.0.0.1", a.port_text(), msg});
    EXPECT_EQ(ok.out, "ok\n") << Show(ok) << Dump(box);
    EXPECT_EQ(a.Received(), std::vector<std::string>{msg});

    ProcessResult no = box.Run({client, op, "127.0.0.1", b.port_text(), msg});
    EXPECT_EQ(no.exit_code, 1) << Show(no);
    EXPECT_EQ(no.out, "errno=13\n") << Show(no);
    EXPECT_THAT(b.Received(), IsEmpty()) << "a refused datagram arrived";
  }
  std::vector<std::string> lines = LinesFor(box, "127.0.0.1:" + b.port_text());
  ASSERT_EQ(lines.size(), 3u) << Dump(box);
  EXPECT_EQ(Field(lines[0], "op"), "sendto") << lines[0];
  EXPECT_EQ(Field(lines[1], "op"), "sendmsg") << lines[1];
  EXPECT_EQ(Field(lines[2], "op"), "connect") << lines[2];
  for (const std::string& line : lines) {
    EXPECT_EQ(Field(line, "rule"), "network.unlisted") << line;
  }
  EXPECT_EQ(box.AuditLines().size(), 3u) << Dump(box);
}

TEST(ShimNet, ASendmmsgWithOneUnlistedDestinationSendsNothing) {
  Listener a = Listener::Udp();
  Listener b = Listener::Udp();
  Sandbox box(R"(
extends = "workspace-write"
[network]
allow = ["127.0.0.1/32:)" +
              a.port_text() + R"("]
)");
  const std::string client = Client(box);
  ProcessResult both_ok = box.Run({client, "sendmmsg", "127.0.0.1",
                                   a.port_text(), "one", a.port_text(), "two"});
  EXPECT_EQ(both_ok.out, "sent 2\n") << Show(both_ok) << Dump(box);
  EXPECT_EQ(a.Received(), (std::vector<std::string>{"one", "two"}));

  ProcessResult mixed = box.Run({client, "sendmmsg", "127.0.0.1", a.port_text(),
                                 "first", b.port_text(), "second"});
  EXPECT_EQ(mixed.out, "errno=13\n") << Show(mixed);
  EXPECT_THAT(a.Received(), IsEmpty())
      << "a datagram left before every destination was admitted";
  EXPECT_THAT(b.Received(), IsEmpty());
  std::vector<std::string> lines = LinesFor(box, "127.0.0.1:" + b.port_text());
  ASSERT_EQ(lines.size(), 1u) << Dump(box);
  EXPECT_EQ(Field(lines[0], "op"), "sendmmsg") << lines[0];
}

// --- 5. Unix sockets ---------------------------------------------------------

constexpr char kConfined[] = R"(
extends = "read-only"
[filesystem]
workspace_writable = true
)";

TEST(ShimNet, AUnixConnectOutsideTheWriteRootsIsRefusedAndInsideAllowed) {
  Sandbox box(kConfined);
  box.Write("outside/.keep", "");
  const std::string outside = box.Path("outside/s.sock");
  const std::string inside = box.ws() + "/s.sock";
  Listener out_l = Listener::Unix(outside);
  Listener in_l = Listener::Unix(inside);
  const std::string client = Client(box);

  ProcessResult ok = box.Run({client, "unix-connect", inside});
  EXPECT_EQ(ok.out, "ok\n") << Show(ok) << Dump(box);
  EXPECT_EQ(in_l.Accepted(), 1);
  ProcessResult relative = box.Run({client, "unix-connect", "s.sock"});
  EXPECT_EQ(relative.out, "ok\n") << Show(relative) << Dump(box);
  EXPECT_EQ(in_l.Accepted(), 1);
  EXPECT_THAT(box.AuditLines(), IsEmpty()) << Dump(box);

  ProcessResult no = box.Run({client, "unix-connect", outside});
  EXPECT_EQ(no.exit_code, 1) << Show(no);
  EXPECT_EQ(no.out, "errno=13\n") << Show(no);
  EXPECT_EQ(out_l.Accepted(), 0) << "the refused connect reached the socket";
  std::vector<std::string> lines = LinesFor(box, outside);
  ASSERT_EQ(lines.size(), 1u) << Dump(box);
  EXPECT_EQ(Field(lines[0], "op"), "connect") << lines[0];
  EXPECT_EQ(Field(lines[0], "access"), "write") << lines[0];
  EXPECT_EQ(Field(lines[0], "rule"), "filesystem.unlisted") << lines[0];

  // Nor through a symlink in the workspace that points at it.
  ASSERT_EQ(
      RunProcess({"/bin/ln", "-s", outside, box.ws() + "/link.sock"}).exit_code,
      0);
  ProcessResult via_link = box.Run({client, "unix-connect", "link.sock"});
  EXPECT_EQ(via_link.out, "errno=13\n") << Show(via_link);
  EXPECT_EQ(out_l.Accepted(), 0) << "the symlink led past the rule";
  EXPECT_EQ(LinesFor(box, outside).size(), 2u) << Dump(box);
}

TEST(ShimNet, AUnixDatagramToASocketOutsideTheWriteRootsIsRefused) {
  Sandbox box(kConfined);
  box.Write("outside/.keep", "");
  const std::string outside = box.Path("outside/d.sock");
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_un un{};
  un.sun_family = AF_UNIX;
  std::snprintf(un.sun_path, sizeof(un.sun_path), "%s", outside.c_str());
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&un), sizeof(un)), 0);
  const std::string client = Client(box);
  ProcessResult no = box.Run({client, "unix-sendto", outside, "leak"});
  EXPECT_EQ(no.out, "errno=13\n") << Show(no);
  EXPECT_FALSE(Readable(fd, 300)) << "the refused datagram arrived";
  close(fd);
  EXPECT_EQ(LinesFor(box, outside).size(), 1u) << Dump(box);
}

TEST(ShimNet, AUnixBindOutsideTheWriteRootsIsRefusedAndCreatesNothing) {
  Sandbox box(kConfined);
  box.Write("outside/.keep", "");
  const std::string client = Client(box);
  const std::string outside = box.Path("outside/new.sock");

  ProcessResult no = box.Run({client, "unix-bind", outside});
  EXPECT_EQ(no.exit_code, 1) << Show(no);
  EXPECT_EQ(no.out, "errno=13\n") << Show(no);
  EXPECT_FALSE(Exists(outside)) << "the refused bind created the socket";
  std::vector<std::string> lines = LinesFor(box, outside);
  ASSERT_EQ(lines.size(), 1u) << Dump(box);
  EXPECT_EQ(Field(lines[0], "op"), "bind") << lines[0];
  EXPECT_EQ(Field(lines[0], "access"), "write") << lines[0];

  // Through a symlinked directory in the workspace: the same refusal.
  ASSERT_EQ(
      RunProcess({"/bin/ln", "-s", box.Path("outside"), box.ws() + "/outdir"})
          .exit_code,
      0);
  ProcessResult via_link = box.Run({client, "unix-bind", "outdir/evil.sock"});
  EXPECT_EQ(via_link.out, "errno=13\n") << Show(via_link);
  EXPECT_FALSE(Exists(box.Path("outside/evil.sock")));
  EXPECT_EQ(LinesFor(box, box.Path("outside/evil.sock")).size(), 1u)
      << Dump(box);

  // In the workspace the socket is made.
  const std::string inside = box.ws() + "/new.sock";
  ProcessResult ok = box.Run({client, "unix-bind", inside});
  EXPECT_EQ(ok.out, "ok\n") << Show(ok) << Dump(box);
  EXPECT_TRUE(Exists(inside));
  ProcessResult relative = box.Run({client, "unix-bind", "rel.sock"});
  EXPECT_EQ(relative.out, "ok\n") << Show(relative) << Dump(box);
  EXPECT_TRUE(Exists(box.ws() + "/rel.sock"));
  EXPECT_EQ(box.AuditLines().size(), 2u) << Dump(box);
}

TEST(ShimNet, AnAbstractUnixConnectIsRefusedUnlessUnixAbstractIsSet) {
  const std::string name = "@klaunch-test-" + std::to_string(getpid());
  Listener l = Listener::Unix(name);

  Sandbox closed(R"(extends = "workspace-write")");
  const std::string client = Client(closed);
  ProcessResult no = closed.Run({client, "unix-connect", name});
  EXPECT_EQ(no.exit_code, 1) << Show(no);
  EXPECT_EQ(no.out, "errno=13\n") << Show(no);
  EXPECT_EQ(l.Accepted(), 0) << "the refused abstract connect got through";
  std::vector<std::string> lines = LinesFor(closed, name);
  ASSERT_EQ(lines.size(), 1u) << Dump(closed);
  EXPECT_EQ(Field(lines[0], "rule"), "network.unix_abstract") << lines[0];
  EXPECT_THAT(Field(lines[0], "message"), HasSubstr("unix_abstract = true"))
      << lines[0];

  Sandbox open_box(R"(
extends = "workspace-write"
[network]
unix_abstract = true
)");
  ProcessResult ok = open_box.Run({Client(open_box), "unix-connect", name});
  EXPECT_EQ(ok.out, "ok\n") << Show(ok) << Dump(open_box);
  EXPECT_EQ(l.Accepted(), 1);
  EXPECT_THAT(open_box.AuditLines(), IsEmpty()) << Dump(open_box);
}

// --- 6. audit mode -----------------------------------------------------------

TEST(ShimNet, InAuditModeTheUnlistedConnectIsMadeAndLoggedAsWouldDeny) {
  Listener l = Listener::Tcp();
  Sandbox box(R"(
extends = "workspace-write"
mode = "audit"
)");
  const std::string client = Client(box);
  ProcessResult r = box.Run({client, "tcp", "127.0.0.1", l.port_text()});
  EXPECT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_EQ(r.out, "ok\n") << Show(r);
  EXPECT_EQ(l.Accepted(), 1) << "audit mode must perform the call";
  std::vector<std::string> lines = LinesFor(box, "127.0.0.1:" + l.port_text());
  ASSERT_EQ(lines.size(), 1u) << Dump(box);
  EXPECT_EQ(Field(lines[0], "verdict"), "would_deny") << lines[0];
  EXPECT_EQ(Field(lines[0], "rule"), "network.unlisted") << lines[0];
  EXPECT_EQ(Field(lines[0], "op"), "connect") << lines[0];
}

}  // namespace
}  // namespace klaunch::testing
