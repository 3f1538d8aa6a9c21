// connect, bind, sendto, sendmsg and sendmmsg made without the shim. The
// destination is read from the target and judged; the call is then made by
// the supervisor on a copy of the target's own socket (pidfd_getfd), with
// the address it judged (a Unix path through the directory it pinned), so
// nothing the target changes afterwards reaches the kernel. Datagram
// sockets are sent for even without an address, since another thread could
// add one after the check.
//
// An IP destination is judged with no host name (the program's resolution
// happened where klaunch cannot see it); when that refuses, each policy
// name klaunch resolved to the address (name_cache.h) is tried.
//
// Known differences from a native call (docs/design.md): a Unix peer sees
// klaunch's pid in SO_PEERCRED and SCM_CREDENTIALS; a blocking connect
// interrupted by a signal in the target is not interrupted in klaunch.

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/network.h"
#include "launcher/name_cache.h"
#include "launcher/supervise.h"

namespace klaunch::supervise {
namespace {

// A destination judged, and the address to use for it.
struct Destination {
  sockaddr_storage addr{};
  socklen_t len = 0;
  Fd pin;            // keeps a Unix path's object or directory
  std::string last;  // bind: the name in the pinned directory
};

// Reads and judges the address at `addr`. 0, or -errno to answer with.
int JudgeDestination(Call& c, const char* op, uint64_t addr, socklen_t len,
                     bool binding, Destination* out) {
  SocketAddress a;
  if (int e = DecodeSocketAddress(c.target(), addr, len, &a); e < 0) return e;
  out->addr = a.raw;
  out->len = a.len;
  if (a.kind == SocketAddress::kNoFamily) return 0;
  const int family = a.family;
  if (family == AF_UNSPEC || family == AF_NETLINK) return 0;
  if (family == AF_UNIX) {
    auto* un = reinterpret_cast<sockaddr_un*>(&out->addr);
    if (a.kind == SocketAddress::kUnixUnnamed) return 0;  // autobind
    if (a.kind == SocketAddress::kUnixAbstract) {
      return c.Judge(op, "@" + a.name, "connect",
                     c.engine().CheckAbstractUnix(a.name))
                 ? 0
                 : -EACCES;
    }
    const std::string& path = a.name;
    Resolved r;
    const int rc = Resolve(c.target(), AT_FDCWD, path, !binding, &r);
    if (binding ? (rc < 0 && rc != -ENOENT) || !r.parent.valid() : rc < 0) {
      if (!c.JudgeMissing(op, Access::kWrite, AT_FDCWD, path)) return -EACCES;
      return rc < 0 ? rc : -ENOENT;
    }
    if (binding && rc == 0) return -EADDRINUSE;
    const std::string judged =
        binding ? r.NamePath() : KernelPath(r.object.get());
    if (!c.JudgePath(op, Access::kWrite, judged)) return -EACCES;
    // Through the pinned object (connect) or directory (bind).
    out->pin = binding ? std::move(r.parent) : std::move(r.object);
    out->last = binding ? r.last : "";
    const std::string via = binding ? absl::StrCat(ProcFd(out->pin.get()), "/",
                                                   out->last)
                                    : ProcFd(out->pin.get());
    if (via.size() >= sizeof(un->sun_path)) return -ENAMETOOLONG;
    std::memset(un->sun_path, 0, sizeof(un->sun_path));
    std::memcpy(un->sun_path, via.c_str(), via.size());
    out->len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) +
                                      via.size() + 1);
    return 0;
  }
  if (binding) return 0;  // a port of its own is not the policy's business
  if (a.kind != SocketAddress::kIp) {
    return c.Refuse(op, absl::StrCat("address family ", family),
                    "the policy covers IPv4, IPv6 and Unix sockets only")
               ? 0
               : -EACCES;
  }
  const IpAddress ip = IpAddress::FromBytes(a.v6, a.ip);
  const uint16_t port = a.port;
  std::string shown = ip.v6 ? absl::StrCat("[", ip.ToString(), "]:", port)
                            : absl::StrCat(ip.ToString(), ":", port);
  Decision d = c.engine().CheckConnect(ip, port, "");
  if (!d.allowed() && c.settings().names != nullptr) {
    // The program resolved the name itself (static, Go, its own resolver),
    // so no name is known: a policy name klaunch resolved to this address
    // stands in for it. A refusal stays named by the address, since which
    // name (if any) the program used is not known.
    for (const std::string& name : c.settings().names->NamesFor(ip)) {
      Decision by_name = c.engine().CheckConnect(ip, port, name);
      if (by_name.allowed()) {
        d = std::move(by_name);
        shown = absl::StrCat(name, ":", port);  // as the shim names it
        break;
      }
    }
  }
  return c.Judge(op, shown, "connect", std::move(d)) ? 0 : -EACCES;
}

// The target's socket, as a descriptor of klaunch's.
int TargetSocket(Call& c, int fd, Fd* out) {
  const int got = c.target().GetFd(fd);
  if (got < 0) return got;
  *out = Fd(got);
  return 0;
}

// A send klaunch makes for the target, with everything it reads copied.
struct Message {
  Destination dest;
  bool named = false;
  MessageBody body;  // the data and control, SCM_RIGHTS made klaunch's
  std::vector<iovec> iov;
  std::vector<Fd> passed;  // descriptors of SCM_RIGHTS, as klaunch's
};

int ReadMessage(Call& c, const char* op, const MessageHeader& m,
                Message* out) {
  if (m.name != 0 && m.name_len > 0) {
    if (int e = JudgeDestination(c, op, m.name, m.name_len, false, &out->dest);
        e < 0) {
      return e;
    }
    out->named = true;
  }
  if (int e = DecodeMessageBody(c.target(), m, &out->body); e < 0) return e;
  for (std::vector<char>& b : out->body.buffers) {
    out->iov.push_back({b.data(), b.size()});
  }
  // The numbers are the target's: the send is klaunch's.
  for (size_t at : out->body.rights) {
    char* where = out->body.control.data() + at;
    int theirs;
    std::memcpy(&theirs, where, sizeof(theirs));
    const int mine = c.target().GetFd(theirs);
    if (mine < 0) return -EBADF;
    out->passed.emplace_back(mine);
    std::memcpy(where, &mine, sizeof(mine));
  }
  return 0;
}

long SendMessage(Call& c, int sock, Message& m, int flags) {
  msghdr local{};
  if (m.named) {
    local.msg_name = &m.dest.addr;
    local.msg_namelen = m.dest.len;
  }
  local.msg_iov = m.iov.data();
  local.msg_iovlen = m.iov.size();
  if (!m.body.control.empty()) {
    local.msg_control = m.body.control.data();
    local.msg_controllen = m.body.control.size();
  }
  // Never SIGPIPE klaunch; the target gets the signal its call would have.
  const long r = sendmsg(sock, &local, flags | MSG_NOSIGNAL);
  if (r < 0 && errno == EPIPE && !(flags & MSG_NOSIGNAL)) {
    syscall(SYS_tgkill, c.target().tgid(), c.target().tid(), SIGPIPE);
  }
  return r < 0 ? -errno : r;
}

bool IsDatagram(int sock) {
  int type = 0;
  socklen_t len = sizeof(type);
  return getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &len) == 0 &&
         (type == SOCK_DGRAM || type == SOCK_RAW);
}

Answer ConnectOrBind(Call& c, bool binding) {
  const char* op = binding ? "bind" : "connect";
  Destination d;
  if (int e = JudgeDestination(c, op, c.arg(1),
                               static_cast<socklen_t>(c.arg(2)), binding, &d);
      e < 0) {
    return Answer::Error(-e);
  }
  Fd sock;
  if (int e = TargetSocket(c, c.iarg(0), &sock); e < 0) return Answer::Error(-e);
  if (!c.Live()) return Answer::Error(ENOENT);
  const sockaddr* sa = reinterpret_cast<const sockaddr*>(&d.addr);
  if (!binding) {
    return Answer::Result(connect(sock.get(), sa, d.len) < 0 ? -errno : 0);
  }
  if (bind(sock.get(), sa, d.len) < 0) return Answer::Error(errno);
  if (d.pin.valid()) {
    // The socket file gets the target's umask, not klaunch's.
    fchmodat(d.pin.get(), d.last.c_str(), 0777 & ~c.target().umask(), 0);
  }
  return Answer::Value(0);
}

Answer SendTo(Call& c) {
  Message m;
  if (int e = JudgeDestination(c, "sendto", c.arg(4),
                               static_cast<socklen_t>(c.arg(5)), false,
                               &m.dest);
      e < 0) {
    return Answer::Error(-e);
  }
  m.named = true;
  std::vector<char>& data = m.body.buffers.emplace_back();
  if (int e = DecodeData(c.target(), c.arg(1), c.arg(2), &data); e < 0) {
    return Answer::Error(-e);
  }
  m.iov.push_back({data.data(), data.size()});
  Fd sock;
  if (int e = TargetSocket(c, c.iarg(0), &sock); e < 0) return Answer::Error(-e);
  if (!c.Live()) return Answer::Error(ENOENT);
  return Answer::Result(SendMessage(c, sock.get(), m, c.iarg(3)));
}

Answer SendMsg(Call& c) {
  MessageHeader m;
  if (int e = DecodeMessageHeader(c.target(), c.arg(1), &m); e < 0) {
    return Answer::Error(-e);
  }
  Fd sock;
  if (int e = TargetSocket(c, c.iarg(0), &sock); e < 0) return Answer::Error(-e);
  if (m.name == 0 && !IsDatagram(sock.get())) {
    return Answer::Continue();  // a stream: the peer was judged at connect
  }
  Message msg;
  if (int e = ReadMessage(c, "sendmsg", m, &msg); e < 0) {
    return Answer::Error(-e);
  }
  if (!c.Live()) return Answer::Error(ENOENT);
  return Answer::Result(SendMessage(c, sock.get(), msg, c.iarg(2)));
}

Answer SendMmsg(Call& c) {
  std::vector<MessageHeader> v;
  if (int e = DecodeMessageHeaders(c.target(), c.arg(1), c.arg(2), &v); e < 0) {
    return Answer::Error(-e);
  }
  const unsigned n = static_cast<unsigned>(v.size());
  Fd sock;
  if (int e = TargetSocket(c, c.iarg(0), &sock); e < 0) return Answer::Error(-e);
  bool named = false;
  for (const MessageHeader& h : v) named |= h.name != 0;
  if (!named && !IsDatagram(sock.get())) return Answer::Continue();
  // Every destination is judged before the first datagram leaves.
  std::vector<Message> msgs(n);
  for (unsigned i = 0; i < n; ++i) {
    if (int e = ReadMessage(c, "sendmmsg", v[i], &msgs[i]); e < 0) {
      return Answer::Error(-e);
    }
  }
  if (!c.Live()) return Answer::Error(ENOENT);
  unsigned sent = 0;
  for (; sent < n; ++sent) {
    const long r = SendMessage(c, sock.get(), msgs[sent], c.iarg(3));
    if (r < 0) {
      if (sent == 0) return Answer::Error(-r);
      break;
    }
    const unsigned len = static_cast<unsigned>(r);
    c.target().Write(c.arg(1) + sent * sizeof(mmsghdr) +
                         offsetof(mmsghdr, msg_len),
                     &len, sizeof(len));
  }
  return Answer::Value(sent);
}

}  // namespace

Answer SuperviseNetwork(Call& c) {
  switch (c.nr()) {
    case SYS_connect:
      return ConnectOrBind(c, false);
    case SYS_bind:
      return ConnectOrBind(c, true);
    case SYS_sendto:
      return SendTo(c);
    case SYS_sendmsg:
      return SendMsg(c);
    case SYS_sendmmsg:
      return SendMmsg(c);
    default:
      return Answer::Error(ENOSYS);
  }
}

}  // namespace klaunch::supervise
