// Wrappers of the network calls: connect, bind, sendto, sendmsg and
// sendmmsg, and the resolver calls (getaddrinfo, gethostbyname*) whose
// answers let a connect be judged by the host name.
//
// An address is read as the kernel will read it on that socket
// (core/destination.h: AF_UNSPEC, v4 on a v6 socket, a TCP send's address
// only with MSG_FASTOPEN). A Unix socket with a path is judged as a write of
// that path and reached through the pinned socket file (/proc/self/fd/N);
// abstract Unix sockets follow `network.unix_abstract`; IPv4 and IPv6
// follow `network.allow`. With the seccomp layer every one of these calls
// (but sendto without an address) reaches the supervisor too, which judges
// its own copy and makes the call: the shim's judgement is the fast
// refusal and the name, passed along for the supervisor to check.

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cstdio>
#include <cstring>

#include "core/destination.h"
#include "shim/pin.h"

namespace klaunch::shim {
namespace {

// A Unix destination rewritten to name a pinned object, or the original.
struct UnixTarget {
  sockaddr_un addr;
  socklen_t len;
};

// The socket's family and type, as the kernel reads them (raw calls).
SocketKind KindOf(int fd) {
  SocketKind k;
  int value = 0;
  socklen_t len = sizeof(value);
  if (sys_call6(SYS_getsockopt, fd, SOL_SOCKET, SO_DOMAIN, (long)&value,
                (long)&len, 0) == 0) {
    k.family = value;
  }
  len = sizeof(value);
  if (sys_call6(SYS_getsockopt, fd, SOL_SOCKET, SO_TYPE, (long)&value,
                (long)&len, 0) == 0) {
    k.type = value;
  }
  if (k.family == AF_INET6) {
    len = sizeof(value);
    if (sys_call6(SYS_getsockopt, fd, IPPROTO_IPV6, IPV6_V6ONLY, (long)&value,
                  (long)&len, 0) == 0) {
      k.v6only = value != 0;
    }
  }
  return k;
}

// Judges the address of `use` on socket `fd` as the kernel will read it
// (core/destination.h). For a Unix path, pins it (the socket file for
// connect/send, its directory for bind) and fills `rewritten` with an
// address that reaches the pinned object; for an IP destination admitted by
// a name, puts the name in `hint`. Returns false with errno set when the
// call must not go on.
bool JudgeAddress(const char* op, int fd, AddressUse use, int flags,
                  const sockaddr* addr, socklen_t len, PinnedObject* obj,
                  PinnedParent* parent, UnixTarget* rewritten,
                  bool* use_rewritten, char* hint, size_t hint_size) {
  *use_rewritten = false;
  hint[0] = '\0';
  const Destination d =
      ReadDestination(KindOf(fd), use, flags, addr, addr != nullptr ? len : 0);
  switch (d.kind) {
    case Destination::kPeer:
    case Destination::kDisconnect:
    case Destination::kNetlink:
    case Destination::kOwnPort:
    case Destination::kUnixUnnamed:
      return true;
    case Destination::kRefused:
      if (d.error == EPERM || d.error == EAFNOSUPPORT) {
        return Refuse(op, "the socket's address", d.why.c_str());
      }
      errno = d.error;  // what the kernel answers
      return false;
    case Destination::kIp:
      return AllowIp(op, d.ip, d.port, hint, hint_size);
    case Destination::kUnixAbstract:
      return AllowAbstractUnix(op, d.name.data(),
                               static_cast<unsigned>(d.name.size()));
    case Destination::kUnixPath:
      break;
  }
  const bool binding = use == AddressUse::kBind;
  char path[sizeof(sockaddr_un::sun_path) + 1];
  std::snprintf(path, sizeof(path), "%s", d.name.c_str());
  char target[kPathMax];
  if (binding) {
    int r = PinParent(AT_FDCWD, path, parent);
    if (r < 0) {
      if (!AllowMissing(op, Access::kWrite, AT_FDCWD, path)) return false;
      errno = -r;
      return false;
    }
    if (!AllowPath(op, Access::kWrite, parent->path)) return false;
    std::snprintf(target, sizeof(target), "/proc/self/fd/%d/%s", parent->fd,
                  parent->last);
  } else {
    int r = PinObject(AT_FDCWD, path, true, obj);
    if (r < 0) {
      if (!AllowMissing(op, Access::kWrite, AT_FDCWD, path)) return false;
      errno = -r;
      return false;
    }
    if (!AllowPath(op, Access::kWrite, obj->path)) return false;
    std::snprintf(target, sizeof(target), "%s", obj->proc);
  }
  if (std::strlen(target) < sizeof(rewritten->addr.sun_path)) {
    rewritten->addr.sun_family = AF_UNIX;
    std::snprintf(rewritten->addr.sun_path, sizeof(rewritten->addr.sun_path),
                  "%s", target);
    rewritten->len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) +
                                            std::strlen(target) + 1);
    *use_rewritten = true;
  }
  return true;
}

// One judged call with an optional destination address. `call` gets the
// address to use and the name that admitted it (for the supervisor).
template <typename Call>
long WithAddress(const char* op, int fd, AddressUse use, int flags,
                 const sockaddr* addr, socklen_t len, Call call) {
  Scope scope;
  if (scope.nested()) return Ret(call(addr, len, ""));
  PinnedObject obj;
  PinnedParent parent;
  UnixTarget rewritten;
  bool use_rewritten = false;
  char hint[256];
  if (!JudgeAddress(op, fd, use, flags, addr, len, &obj, &parent, &rewritten,
                    &use_rewritten, hint, sizeof(hint))) {
    return -1;
  }
  scope.RestoreErrno();
  if (use_rewritten) {
    return Ret(call(reinterpret_cast<const sockaddr*>(&rewritten.addr),
                    rewritten.len, hint));
  }
  return Ret(call(addr, len, hint));
}

void RememberAll(const char* node, const addrinfo* res) {
  for (const addrinfo* a = res; a != nullptr; a = a->ai_next) {
    if (a->ai_family == AF_INET) {
      RememberName(node, AF_INET,
                   &reinterpret_cast<const sockaddr_in*>(a->ai_addr)->sin_addr);
    } else if (a->ai_family == AF_INET6) {
      RememberName(
          node, AF_INET6,
          &reinterpret_cast<const sockaddr_in6*>(a->ai_addr)->sin6_addr);
    }
  }
}

void RememberHost(const char* name, const hostent* h) {
  if (h == nullptr || h->h_addr_list == nullptr) return;
  if (h->h_addrtype != AF_INET && h->h_addrtype != AF_INET6) return;
  for (char** a = h->h_addr_list; *a != nullptr; ++a) {
    RememberName(name, h->h_addrtype, *a);
  }
}

}  // namespace
}  // namespace klaunch::shim

using namespace klaunch::shim;  // NOLINT: the wrappers below are C symbols
using klaunch::AddressUse;

KL_EXPORT int connect(int fd, const sockaddr* addr, socklen_t len) {
  return WithAddress("connect", fd, AddressUse::kConnect, 0, addr, len,
                     [&](const sockaddr* a, socklen_t l, const char* hint) {
                       // The supervisor judges it again, by this name only
                       // once it resolves there for klaunch too.
                       return sys(SYS_connect, fd, a, l, hint,
                                  std::strlen(hint));
                     });
}

KL_EXPORT int __connect(int fd, const sockaddr* addr, socklen_t len)
    __attribute__((alias("connect")));

KL_EXPORT int bind(int fd, const sockaddr* addr, socklen_t len) {
  return WithAddress("bind", fd, AddressUse::kBind, 0, addr, len,
                     [&](const sockaddr* a, socklen_t l, const char*) {
                       return sys(SYS_bind, fd, a, l);
                     });
}

KL_EXPORT ssize_t sendto(int fd, const void* buf, size_t size, int flags,
                         const sockaddr* addr, socklen_t len) {
  if (addr == nullptr && !(flags & MSG_FASTOPEN)) {
    return Ret(sys_call6(SYS_sendto, fd, (long)buf, (long)size, flags, 0, 0));
  }
  // As sendmsg: sendto needs all six argument registers, leaving none for
  // the name the supervisor checks.
  return WithAddress("sendto", fd, AddressUse::kSend, flags, addr, len,
                     [&](const sockaddr* a, socklen_t l, const char* hint) {
                       iovec iov{const_cast<void*>(buf), size};
                       msghdr m{};
                       m.msg_name = const_cast<sockaddr*>(a);
                       m.msg_namelen = a != nullptr ? l : 0;
                       m.msg_iov = &iov;
                       m.msg_iovlen = 1;
                       return sys(SYS_sendmsg, fd, &m, flags, hint,
                                  std::strlen(hint));
                     });
}

KL_EXPORT ssize_t sendmsg(int fd, const msghdr* msg, int flags) {
  if (msg == nullptr) return Ret(sys(SYS_sendmsg, fd, msg, flags));
  // The header is copied once: what was judged is what is passed on (the
  // supervisor then judges its own copy of it).
  const msghdr m = *msg;
  return WithAddress("sendmsg", fd, AddressUse::kSend, flags,
                     static_cast<const sockaddr*>(m.msg_name), m.msg_namelen,
                     [&](const sockaddr* a, socklen_t l, const char* hint) {
                       msghdr copy = m;
                       copy.msg_name = const_cast<sockaddr*>(a);
                       copy.msg_namelen = a != nullptr ? l : 0;
                       return sys(SYS_sendmsg, fd, &copy, flags, hint,
                                  std::strlen(hint));
                     });
}

KL_EXPORT int sendmmsg(int fd, mmsghdr* msgs, unsigned n, int flags) {
  Scope scope;
  if (!scope.nested() && msgs != nullptr) {
    // Every destination must be admitted before any datagram leaves; the
    // supervisor judges the call again from its own copy.
    for (unsigned i = 0; i < n; ++i) {
      const msghdr& m = msgs[i].msg_hdr;
      PinnedObject obj;
      PinnedParent parent;
      UnixTarget rewritten;
      bool use = false;
      char hint[256];
      if (!JudgeAddress("sendmmsg", fd, AddressUse::kSend, flags,
                        static_cast<const sockaddr*>(m.msg_name), m.msg_namelen,
                        &obj, &parent, &rewritten, &use, hint, sizeof(hint))) {
        return -1;
      }
    }
    scope.RestoreErrno();
  }
  return static_cast<int>(Ret(sys(SYS_sendmmsg, fd, msgs, n, flags)));
}

KL_EXPORT int __sendmmsg(int fd, mmsghdr* msgs, unsigned n, int flags)
    __attribute__((alias("sendmmsg")));

// rcmd/rexec connect inside libc, where no wrapper sees the address; they
// belong to a past no sandboxed program should need.
KL_EXPORT int rcmd(char**, unsigned short, const char*, const char*,
                   const char*, int*) {
  return Refuse("rcmd", "a remote shell", "rcmd is not covered by the policy")
             ? (errno = ENOSYS, -1)
             : -1;
}
KL_EXPORT int rcmd_af(char**, unsigned short, const char*, const char*,
                      const char*, int*, sa_family_t) {
  return Refuse("rcmd", "a remote shell", "rcmd is not covered by the policy")
             ? (errno = ENOSYS, -1)
             : -1;
}
KL_EXPORT int rexec(char**, int, const char*, const char*, const char*, int*) {
  return Refuse("rexec", "a remote shell", "rexec is not covered by the policy")
             ? (errno = ENOSYS, -1)
             : -1;
}
KL_EXPORT int rexec_af(char**, int, const char*, const char*, const char*, int*,
                       sa_family_t) {
  return Refuse("rexec", "a remote shell", "rexec is not covered by the policy")
             ? (errno = ENOSYS, -1)
             : -1;
}

KL_EXPORT int getaddrinfo(const char* node, const char* service,
                          const addrinfo* hints, addrinfo** res) {
  int r = KL_REAL(getaddrinfo)(node, service, hints, res);
  if (r == 0 && node != nullptr && res != nullptr) RememberAll(node, *res);
  return r;
}

KL_EXPORT hostent* gethostbyname(const char* name) {
  hostent* h = KL_REAL(gethostbyname)(name);
  RememberHost(name, h);
  return h;
}

KL_EXPORT hostent* gethostbyname2(const char* name, int af) {
  hostent* h = KL_REAL(gethostbyname2)(name, af);
  RememberHost(name, h);
  return h;
}

KL_EXPORT int gethostbyname_r(const char* name, hostent* ret, char* buf,
                              size_t len, hostent** result, int* err) {
  int r = KL_REAL(gethostbyname_r)(name, ret, buf, len, result, err);
  if (r == 0 && result != nullptr) RememberHost(name, *result);
  return r;
}

KL_EXPORT int gethostbyname2_r(const char* name, int af, hostent* ret,
                               char* buf, size_t len, hostent** result,
                               int* err) {
  int r = KL_REAL(gethostbyname2_r)(name, af, ret, buf, len, result, err);
  if (r == 0 && result != nullptr) RememberHost(name, *result);
  return r;
}
