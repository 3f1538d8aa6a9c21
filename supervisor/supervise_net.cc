// connect, bind, sendto, sendmsg and sendmmsg, whether the shim made them
// or not (the tag buys no skip here: Landlock knows no hosts, no UDP and no
// Unix paths). The supervisor reads the destination from the target once,
// judges it as the kernel will read those bytes on that socket
// (core/destination.h), and then makes the call itself on a copy of the
// target's socket (pidfd_getfd) with the bytes it judged: a Unix path
// through the object it pinned, the data and SCM_RIGHTS copied. Every send
// is made so, named or not, so that no name a thread adds after the check,
// nor another socket dup'ed onto the number, reaches the kernel.
//
// An IP destination is judged by address; when that refuses, by a name
// that resolves to it for klaunch: one the shim says the program looked up
// (the call's fourth and fifth arguments, core/seccomp_tag.h), which
// klaunch resolves itself before believing, or one of the policy's own
// (name_cache.h).
//
// No call waits here on anything the program controls: the socket is used
// without blocking, and a call that would block (a full socket, a connect
// not yet accepted) goes to the waiter (waiter.h), which answers once it
// can go on, "restart" once the target is signalled.
//
// Known differences from a native call (docs/design.md): a Unix peer sees
// klaunch's pid in SO_PEERCRED and SCM_CREDENTIALS; the target's socket is
// non-blocking for the instant klaunch starts a connect on it.

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/destination.h"
#include "core/network.h"
#include "supervisor/name_cache.h"
#include "supervisor/supervise.h"

namespace klaunch::supervise {
namespace {

// The longest host name a hint may carry (RFC 1035's 253, and a NUL).
constexpr uint64_t kMaxHint = 254;

// A destination judged, and the bytes to hand the kernel for it.
struct Judged {
  sockaddr_storage addr{};
  socklen_t len = 0;
  bool named = false;  // an address is passed at all
  Fd pin;              // keeps a Unix path's object or directory
  std::string last;    // bind: the name in the pinned directory
};

// The socket the target passed, as klaunch's copy, and what kind it is.
struct Socket {
  Fd fd;
  SocketKind kind;
  bool blocking = true;  // the file, not counting a call's MSG_DONTWAIT
};

int TargetSocket(Call& c, int fd, Socket* out) {
  const int got = c.target().GetFd(fd);
  if (got < 0) return got;
  out->fd = Fd(got);
  int value = 0;
  socklen_t len = sizeof(value);
  if (getsockopt(got, SOL_SOCKET, SO_DOMAIN, &value, &len) != 0)
    return -ENOTSOCK;
  out->kind.family = value;
  len = sizeof(value);
  if (getsockopt(got, SOL_SOCKET, SO_TYPE, &value, &len) == 0) {
    out->kind.type = value;
  }
  if (out->kind.family == AF_INET6) {
    len = sizeof(value);
    if (getsockopt(got, IPPROTO_IPV6, IPV6_V6ONLY, &value, &len) == 0) {
      out->kind.v6only = value != 0;
    }
  }
  out->blocking = !(fcntl(got, F_GETFL) & O_NONBLOCK);
  return 0;
}

// The name the shim says the program looked up, if any.
std::string Hint(Call& c, uint64_t addr, uint64_t len) {
  std::string name;
  if (addr == 0 || len == 0 || len > kMaxHint) return name;
  name.resize(len);
  if (!c.target().Read(addr, name.data(), name.size())) return "";
  return name;
}

// Judges an IP destination: by address, then by a name klaunch vouches for.
bool JudgeIp(Call& c, const char* op, const Destination& d,
             const std::string& hint) {
  const IpAddress& ip = d.ip;
  const uint16_t port = d.port;
  std::string shown = ip.v6 ? absl::StrCat("[", ip.ToString(), "]:", port)
                            : absl::StrCat(ip.ToString(), ":", port);
  Decision decision = c.engine().CheckConnect(ip, port, "");
  NameCache* names = c.settings().names;
  if (!decision.allowed() && names != nullptr) {
    std::vector<std::string> candidates;
    if (!hint.empty()) candidates.push_back(hint);
    for (std::string& n : names->NamesFor(ip))
      candidates.push_back(std::move(n));
    for (const std::string& name : candidates) {
      Decision by_name = c.engine().CheckConnect(ip, port, name);
      // A rule admits the name: believed only if it resolves to the
      // address for klaunch too (a policy name resolved already does).
      if (by_name.allowed() && names->Vouches(name, ip)) {
        decision = std::move(by_name);
        shown = absl::StrCat(name, ":", port);
        break;
      }
    }
    if (!decision.allowed() && !hint.empty()) {
      // Refused: named by the host the program asked for, as the shim
      // names it, when the policy does not know the address either.
      shown = absl::StrCat(hint, ":", port);
      decision = c.engine().CheckConnect(ip, port, hint);
      if (decision.allowed()) {
        decision =
            Decision{Verdict::kDeny, "network.allow",
                     absl::StrCat("connect to ", shown, " (", ip.ToString(),
                                  ") refused: klaunch does not find ", hint,
                                  " at that address")};
      }
    }
  }
  return c.Judge(op, shown, "connect", std::move(decision));
}

// Reads and judges the address of `use` on `socket`. 0, or -errno to answer
// with (EACCES for a refusal, recorded).
int JudgeDestination(Call& c, const char* op, const Socket& socket,
                     AddressUse use, int flags, uint64_t addr, socklen_t len,
                     const std::string& hint, Judged* out) {
  if (addr != 0 && len > 0) {
    SocketAddress raw;
    if (int e = DecodeSocketAddress(c.target(), addr, len, &raw); e < 0) {
      return e;
    }
    out->addr = raw.raw;
    out->len = raw.len;
    out->named = true;
  }
  const Destination d = ReadDestination(
      socket.kind, use, flags, out->named ? &out->addr : nullptr, out->len);
  switch (d.kind) {
    case Destination::kPeer:
    case Destination::kDisconnect:
    case Destination::kNetlink:
    case Destination::kOwnPort:
    case Destination::kUnixUnnamed:
      return 0;
    case Destination::kRefused:
      if (d.error == EPERM || d.error == EAFNOSUPPORT) {
        // The judge's refusal, not the kernel's: recorded.
        return c.Refuse(op,
                        absl::StrCat("a socket of family ", socket.kind.family),
                        d.why)
                   ? 0
                   : -d.error;
      }
      return -d.error;
    case Destination::kUnixAbstract:
      return c.Judge(op, "@" + d.name, "connect",
                     c.engine().CheckAbstractUnix(d.name))
                 ? 0
                 : -EACCES;
    case Destination::kIp:
      return JudgeIp(c, op, d, hint) ? 0 : -EACCES;
    case Destination::kUnixPath:
      break;
  }
  // A Unix path: judged as a write of the socket file (bind: of the name),
  // and reached through what was pinned.
  const bool binding = use == AddressUse::kBind;
  Resolved r;
  const int rc = Resolve(c.target(), AT_FDCWD, d.name, !binding, &r);
  if (binding ? (rc < 0 && rc != -ENOENT) || !r.parent.valid() : rc < 0) {
    if (!c.JudgeMissing(op, Access::kWrite, AT_FDCWD, d.name)) return -EACCES;
    return rc < 0 ? rc : -ENOENT;
  }
  if (binding && rc == 0) return -EADDRINUSE;
  const std::string judged =
      binding ? r.NamePath() : KernelPath(r.object.get());
  if (!c.JudgePath(op, Access::kWrite, judged)) return -EACCES;
  out->pin = binding ? std::move(r.parent) : std::move(r.object);
  out->last = binding ? r.last : "";
  const std::string via =
      binding ? absl::StrCat(ProcFd(out->pin.get()), "/", out->last)
              : ProcFd(out->pin.get());
  auto* un = reinterpret_cast<sockaddr_un*>(&out->addr);
  if (via.size() >= sizeof(un->sun_path)) return -ENAMETOOLONG;
  std::memset(un->sun_path, 0, sizeof(un->sun_path));
  std::memcpy(un->sun_path, via.c_str(), via.size());
  out->len =
      static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + via.size() + 1);
  return 0;
}

// A send klaunch makes for the target, with everything it reads copied.
struct Message {
  Judged dest;
  MessageBody body;  // the data and control, SCM_RIGHTS made klaunch's
  std::vector<iovec> iov;
  std::vector<Fd> passed;  // descriptors of SCM_RIGHTS, as klaunch's
  size_t total = 0;        // bytes in all
};

int ReadMessage(Call& c, const char* op, const Socket& socket, int flags,
                const MessageHeader& m, const std::string& hint, Message* out) {
  if (int e = JudgeDestination(c, op, socket, AddressUse::kSend, flags, m.name,
                               m.name_len, hint, &out->dest);
      e < 0) {
    return e;
  }
  if (int e = DecodeMessageBody(c.target(), m, &out->body); e < 0) return e;
  for (std::vector<char>& b : out->body.buffers) {
    out->iov.push_back({b.data(), b.size()});
    out->total += b.size();
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

// One sendmsg of what is left of `m` after `done` bytes, never blocking.
long SendOnce(int sock, Message& m, size_t done, int flags) {
  std::vector<iovec> iov;
  size_t skip = done;
  for (const iovec& v : m.iov) {
    if (skip >= v.iov_len) {
      skip -= v.iov_len;
      continue;
    }
    iov.push_back({static_cast<char*>(v.iov_base) + skip, v.iov_len - skip});
    skip = 0;
  }
  msghdr local{};
  if (m.dest.named) {
    local.msg_name = &m.dest.addr;
    local.msg_namelen = m.dest.len;
  }
  local.msg_iov = iov.data();
  local.msg_iovlen = iov.size();
  // The control (descriptors, credentials) goes with the first byte only.
  if (done == 0 && !m.body.control.empty()) {
    local.msg_control = m.body.control.data();
    local.msg_controllen = m.body.control.size();
  }
  const long r = sendmsg(sock, &local, flags | MSG_DONTWAIT | MSG_NOSIGNAL);
  return r < 0 ? -errno : r;
}

// Sends `m` as the target's own call would: all of a stream's bytes on a
// blocking socket (or as many as were sent when it is signalled), one
// datagram otherwise; a call that would block goes to the waiter.
Answer Send(Call& c, std::shared_ptr<Socket> socket, std::shared_ptr<Message> m,
            int flags) {
  const bool stream = socket->kind.type == SOCK_STREAM;
  const bool blocking = socket->blocking && !(flags & MSG_DONTWAIT);
  const pid_t tgid = c.target().tgid(), tid = c.target().tid();
  auto done = std::make_shared<size_t>(0);
  auto retry = [socket, m, flags, stream, blocking, done, tgid,
                tid]() -> std::optional<Answer> {
    while (true) {
      const long r = SendOnce(socket->fd.get(), *m, *done, flags);
      if (r == -EAGAIN && blocking) {
        return std::nullopt;  // ready later: the waiter tries again
      }
      if (r < 0) {
        // Never SIGPIPE klaunch; the target gets the signal its call
        // would have.
        if (r == -EPIPE && !(flags & MSG_NOSIGNAL)) {
          syscall(SYS_tgkill, tgid, tid, SIGPIPE);
        }
        return *done > 0 ? Answer::Value(*done) : Answer::Error(-r);
      }
      *done += static_cast<size_t>(r);
      if (!stream || !blocking || *done >= m->total) {
        return Answer::Value(*done);
      }
    }
  };
  Fd ready(dup(socket->fd.get()));
  return Answer::Wait(std::move(ready), EPOLLOUT, std::move(retry));
}

Answer Connect(std::shared_ptr<Socket> socket, Judged d) {
  const int sock = socket->fd.get();
  const int fl = fcntl(sock, F_GETFL);
  const sockaddr* sa = reinterpret_cast<const sockaddr*>(&d.addr);
  // Started without blocking (the file is the target's too: it is
  // non-blocking only for that instant), finished by the waiter.
  if (socket->blocking) fcntl(sock, F_SETFL, fl | O_NONBLOCK);
  const int rc = connect(sock, sa, d.len);
  const int err = errno;
  if (socket->blocking) fcntl(sock, F_SETFL, fl);
  if (rc == 0) return Answer::Value(0);
  if (!socket->blocking) return Answer::Error(err);
  if (err == EINPROGRESS || err == EALREADY) {
    // Done when the socket is writable: its SO_ERROR says how.
    Fd ready(dup(sock));
    return Answer::Wait(
        std::move(ready), EPOLLOUT, [socket]() -> std::optional<Answer> {
          pollfd p{socket->fd.get(), POLLOUT, 0};
          if (poll(&p, 1, 0) != 1) return std::nullopt;
          int so_error = 0;
          socklen_t len = sizeof(so_error);
          getsockopt(socket->fd.get(), SOL_SOCKET, SO_ERROR, &so_error, &len);
          return so_error == 0 ? Answer::Value(0) : Answer::Error(so_error);
        });
  }
  if (err == EAGAIN && socket->kind.family == AF_UNIX) {
    // A listener whose backlog is full: nothing to wait on but time.
    auto judged = std::make_shared<Judged>(std::move(d));
    return Answer::Wait(Fd(), 0, [socket, judged]() -> std::optional<Answer> {
      const int s = socket->fd.get();
      const int flags = fcntl(s, F_GETFL);
      fcntl(s, F_SETFL, flags | O_NONBLOCK);
      const int r = connect(s, reinterpret_cast<const sockaddr*>(&judged->addr),
                            judged->len);
      const int e = errno;
      fcntl(s, F_SETFL, flags);
      if (r == 0) return Answer::Value(0);
      if (e == EAGAIN) return std::nullopt;
      return Answer::Error(e);
    });
  }
  return Answer::Error(err);
}

Answer ConnectOrBind(Call& c, bool binding) {
  const char* op = binding ? "bind" : "connect";
  auto socket = std::make_shared<Socket>();
  if (int e = TargetSocket(c, c.iarg(0), socket.get()); e < 0) {
    return Answer::Error(-e);
  }
  Judged d;
  const std::string hint = binding ? "" : Hint(c, c.arg(3), c.arg(4));
  if (int e = JudgeDestination(
          c, op, *socket, binding ? AddressUse::kBind : AddressUse::kConnect, 0,
          c.arg(1), static_cast<socklen_t>(c.arg(2)), hint, &d);
      e < 0) {
    return Answer::Error(-e);
  }
  if (!d.named) return Answer::Error(binding ? EINVAL : EINVAL);
  if (!c.Live()) return Answer::Error(ENOENT);
  if (!binding) return Connect(std::move(socket), std::move(d));
  const sockaddr* sa = reinterpret_cast<const sockaddr*>(&d.addr);
  if (bind(socket->fd.get(), sa, d.len) < 0) return Answer::Error(errno);
  if (d.pin.valid()) {
    // The socket file gets the target's umask, not klaunch's.
    fchmodat(d.pin.get(), d.last.c_str(), 0777 & ~c.target().umask(), 0);
  }
  return Answer::Value(0);
}

Answer SendTo(Call& c) {
  auto socket = std::make_shared<Socket>();
  if (int e = TargetSocket(c, c.iarg(0), socket.get()); e < 0) {
    return Answer::Error(-e);
  }
  const int flags = c.iarg(3);
  auto m = std::make_shared<Message>();
  if (int e = JudgeDestination(c, "sendto", *socket, AddressUse::kSend, flags,
                               c.arg(4), static_cast<socklen_t>(c.arg(5)), "",
                               &m->dest);
      e < 0) {
    return Answer::Error(-e);
  }
  std::vector<char>& data = m->body.buffers.emplace_back();
  if (int e = DecodeData(c.target(), c.arg(1), c.arg(2), &data); e < 0) {
    return Answer::Error(-e);
  }
  m->iov.push_back({data.data(), data.size()});
  m->total = data.size();
  if (!c.Live()) return Answer::Error(ENOENT);
  return Send(c, std::move(socket), std::move(m), flags);
}

Answer SendMsg(Call& c) {
  MessageHeader h;
  if (int e = DecodeMessageHeader(c.target(), c.arg(1), &h); e < 0) {
    return Answer::Error(-e);
  }
  auto socket = std::make_shared<Socket>();
  if (int e = TargetSocket(c, c.iarg(0), socket.get()); e < 0) {
    return Answer::Error(-e);
  }
  const int flags = c.iarg(2);
  auto m = std::make_shared<Message>();
  if (int e = ReadMessage(c, "sendmsg", *socket, flags, h,
                          Hint(c, c.arg(3), c.arg(4)), m.get());
      e < 0) {
    return Answer::Error(-e);
  }
  if (!c.Live()) return Answer::Error(ENOENT);
  return Send(c, std::move(socket), std::move(m), flags);
}

Answer SendMmsg(Call& c) {
  std::vector<MessageHeader> v;
  if (int e = DecodeMessageHeaders(c.target(), c.arg(1), c.arg(2), &v); e < 0) {
    return Answer::Error(-e);
  }
  const unsigned n = static_cast<unsigned>(v.size());
  Socket socket;
  if (int e = TargetSocket(c, c.iarg(0), &socket); e < 0) {
    return Answer::Error(-e);
  }
  const int flags = c.iarg(3);
  // Every destination is judged before the first datagram leaves.
  std::vector<Message> msgs(n);
  for (unsigned i = 0; i < n; ++i) {
    if (int e = ReadMessage(c, "sendmmsg", socket, flags, v[i], "", &msgs[i]);
        e < 0) {
      return Answer::Error(-e);
    }
  }
  if (!c.Live()) return Answer::Error(ENOENT);
  // Sent one by one without blocking: what would block after the first
  // ends the call with the count sent, as the kernel's sendmmsg ends on an
  // error after the first message; a first one that would block on a
  // blocking socket waits.
  auto all = std::make_shared<std::vector<Message>>(std::move(msgs));
  auto sock = std::make_shared<Socket>(std::move(socket));
  const bool blocking = sock->blocking && !(flags & MSG_DONTWAIT);
  const uint64_t vector = c.arg(1);
  Target* target = &c.target();
  // Written into the target's mmsghdr now, while the Call lives; later
  // messages are not waited for.
  std::vector<unsigned> lengths;
  auto retry = [all, sock, flags, blocking,
                &lengths]() -> std::optional<Answer> {
    for (size_t i = lengths.size(); i < all->size(); ++i) {
      const long r = SendOnce(sock->fd.get(), (*all)[i], 0, flags);
      if (r < 0) {
        if (i == 0 && r == -EAGAIN && blocking) return std::nullopt;
        if (i == 0) return Answer::Error(-r);
        break;
      }
      lengths.push_back(static_cast<unsigned>(r));
    }
    return Answer::Value(static_cast<int64_t>(lengths.size()));
  };
  std::optional<Answer> now = retry();
  if (!now) {
    // Waiting for the first: the lengths are written when it is sent.
    auto later = [all, sock, flags, vector,
                  tid = c.target().tid()]() -> std::optional<Answer> {
      const long r = SendOnce(sock->fd.get(), (*all)[0], 0, flags);
      if (r == -EAGAIN) return std::nullopt;
      if (r < 0) return Answer::Error(-r);
      const unsigned len = static_cast<unsigned>(r);
      Target(tid).Write(vector + offsetof(mmsghdr, msg_len), &len, sizeof(len));
      return Answer::Value(1);
    };
    Fd ready(dup(sock->fd.get()));
    return Answer::Wait(std::move(ready), EPOLLOUT, std::move(later));
  }
  for (size_t i = 0; i < lengths.size(); ++i) {
    target->Write(vector + i * sizeof(mmsghdr) + offsetof(mmsghdr, msg_len),
                  &lengths[i], sizeof(lengths[i]));
  }
  return *std::move(now);
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
