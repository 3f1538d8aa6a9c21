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

#include <arpa/inet.h>
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

constexpr size_t kMaxData = 4 << 20;
constexpr size_t kMaxControl = 64 << 10;
constexpr size_t kMaxIov = 1024;

// A destination judged, and the address to use for it.
struct Destination {
  sockaddr_storage addr{};
  socklen_t len = 0;
  Fd pin;            // keeps a Unix path's object or directory
  std::string last;  // bind: the name in the pinned directory
};

bool ToIp(const sockaddr_storage& sa, socklen_t len, IpAddress* ip,
          uint16_t* port) {
  if (sa.ss_family == AF_INET && len >= sizeof(sockaddr_in)) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&sa);
    *ip = IpAddress::FromBytes(false,
                               reinterpret_cast<const uint8_t*>(&in->sin_addr));
    *port = ntohs(in->sin_port);
    return true;
  }
  if (sa.ss_family == AF_INET6 && len >= sizeof(sockaddr_in6)) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&sa);
    *ip = IpAddress::FromBytes(
        true, reinterpret_cast<const uint8_t*>(&in6->sin6_addr));
    *port = ntohs(in6->sin6_port);
    return true;
  }
  return false;
}

// Reads and judges the address at `addr`. 0, or -errno to answer with.
int JudgeDestination(Call& c, const char* op, uint64_t addr, socklen_t len,
                     bool binding, Destination* out) {
  if (len > sizeof(sockaddr_storage)) return -EINVAL;
  if (!c.target().Read(addr, &out->addr, len)) return -EFAULT;
  out->len = len;
  if (len < sizeof(sa_family_t)) return 0;
  const int family = out->addr.ss_family;
  if (family == AF_UNSPEC || family == AF_NETLINK) return 0;
  if (family == AF_UNIX) {
    auto* un = reinterpret_cast<sockaddr_un*>(&out->addr);
    const size_t path_len = len - offsetof(sockaddr_un, sun_path);
    if (path_len == 0) return 0;  // unnamed: autobind
    if (un->sun_path[0] == '\0') {
      const std::string name(un->sun_path + 1, path_len - 1);
      return c.Judge(op, "@" + name, "connect",
                     c.engine().CheckAbstractUnix(name))
                 ? 0
                 : -EACCES;
    }
    const std::string path(un->sun_path, strnlen(un->sun_path, path_len));
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
  IpAddress ip;
  uint16_t port = 0;
  if (!ToIp(out->addr, len, &ip, &port)) {
    return c.Refuse(op, absl::StrCat("address family ", family),
                    "the policy covers IPv4, IPv6 and Unix sockets only")
               ? 0
               : -EACCES;
  }
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
  std::vector<std::vector<char>> buffers;
  std::vector<iovec> iov;
  std::vector<char> control;
  std::vector<Fd> passed;  // descriptors of SCM_RIGHTS, as klaunch's
  int flags = 0;
};

int ReadMessage(Call& c, const char* op, const msghdr& m, Message* out) {
  if (m.msg_name != nullptr && m.msg_namelen > 0) {
    if (int e = JudgeDestination(c, op, reinterpret_cast<uint64_t>(m.msg_name),
                                 m.msg_namelen, false, &out->dest);
        e < 0) {
      return e;
    }
    out->named = true;
  }
  if (m.msg_iovlen > kMaxIov) return -EMSGSIZE;
  std::vector<iovec> remote(m.msg_iovlen);
  if (!remote.empty() &&
      !c.target().Read(reinterpret_cast<uint64_t>(m.msg_iov), remote.data(),
                       remote.size() * sizeof(iovec))) {
    return -EFAULT;
  }
  size_t total = 0;
  for (const iovec& v : remote) {
    total += v.iov_len;
    if (total > kMaxData) return -EMSGSIZE;
    out->buffers.emplace_back(v.iov_len);
    if (!c.target().Read(reinterpret_cast<uint64_t>(v.iov_base),
                         out->buffers.back().data(), v.iov_len)) {
      return -EFAULT;
    }
    out->iov.push_back({out->buffers.back().data(), v.iov_len});
  }
  if (m.msg_control != nullptr && m.msg_controllen > 0) {
    if (m.msg_controllen > kMaxControl) return -ENOBUFS;
    out->control.resize(m.msg_controllen);
    if (!c.target().Read(reinterpret_cast<uint64_t>(m.msg_control),
                         out->control.data(), out->control.size())) {
      return -EFAULT;
    }
    msghdr local{};
    local.msg_control = out->control.data();
    local.msg_controllen = out->control.size();
    for (cmsghdr* h = CMSG_FIRSTHDR(&local); h != nullptr;
         h = CMSG_NXTHDR(&local, h)) {
      if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS) continue;
      const size_t n = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      int* fds = reinterpret_cast<int*>(CMSG_DATA(h));
      for (size_t i = 0; i < n; ++i) {
        const int mine = c.target().GetFd(fds[i]);
        if (mine < 0) return -EBADF;
        out->passed.emplace_back(mine);
        fds[i] = mine;
      }
    }
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
  if (!m.control.empty()) {
    local.msg_control = m.control.data();
    local.msg_controllen = m.control.size();
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
  const size_t len = c.arg(2);
  if (len > kMaxData) return Answer::Error(EMSGSIZE);
  m.buffers.emplace_back(len);
  if (!c.target().Read(c.arg(1), m.buffers.back().data(), len)) {
    return Answer::Error(EFAULT);
  }
  m.iov.push_back({m.buffers.back().data(), len});
  Fd sock;
  if (int e = TargetSocket(c, c.iarg(0), &sock); e < 0) return Answer::Error(-e);
  if (!c.Live()) return Answer::Error(ENOENT);
  return Answer::Result(SendMessage(c, sock.get(), m, c.iarg(3)));
}

Answer SendMsg(Call& c) {
  msghdr m{};
  if (!c.target().Read(c.arg(1), &m, sizeof(m))) return Answer::Error(EFAULT);
  Fd sock;
  if (int e = TargetSocket(c, c.iarg(0), &sock); e < 0) return Answer::Error(-e);
  if (m.msg_name == nullptr && !IsDatagram(sock.get())) {
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
  const unsigned n = std::min<unsigned>(static_cast<unsigned>(c.arg(2)), 1024);
  std::vector<mmsghdr> v(n);
  if (n > 0 && !c.target().Read(c.arg(1), v.data(), n * sizeof(mmsghdr))) {
    return Answer::Error(EFAULT);
  }
  Fd sock;
  if (int e = TargetSocket(c, c.iarg(0), &sock); e < 0) return Answer::Error(-e);
  bool named = false;
  for (const mmsghdr& h : v) named |= h.msg_hdr.msg_name != nullptr;
  if (!named && !IsDatagram(sock.get())) return Answer::Continue();
  // Every destination is judged before the first datagram leaves.
  std::vector<Message> msgs(n);
  for (unsigned i = 0; i < n; ++i) {
    if (int e = ReadMessage(c, "sendmmsg", v[i].msg_hdr, &msgs[i]); e < 0) {
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
