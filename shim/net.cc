// Wrappers of the network calls: connect, sendto, sendmsg and sendmmsg with a
// destination, bind of a Unix path, and the resolver calls (getaddrinfo,
// gethostbyname*) whose answers let a connect be judged by the host name.
//
// A Unix socket with a path is judged as a write of that path; the call is
// made through the pinned socket file (/proc/self/fd/N) so the path cannot
// be swapped after the judgement. Abstract Unix sockets follow
// `network.unix_abstract`; IPv4 and IPv6 follow `network.allow`.

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cstdio>
#include <cstring>

#include "shim/pin.h"

namespace klaunch::shim {
namespace {

// A Unix destination rewritten to name a pinned object, or the original.
struct UnixTarget {
  sockaddr_un addr;
  socklen_t len;
};

// Judges a destination address. For a Unix path, pins it (the socket file
// for connect/send, its directory for bind) and fills `rewritten` with an
// address that reaches the pinned object. Returns false with errno set when
// the call must not go on.
bool JudgeAddress(const char* op, const sockaddr* addr, socklen_t len,
                  bool binding, PinnedObject* obj, PinnedParent* parent,
                  UnixTarget* rewritten, bool* use_rewritten) {
  *use_rewritten = false;
  if (addr == nullptr || len < sizeof(sa_family_t)) return true;
  if (addr->sa_family != AF_UNIX) return AllowInet(op, addr, len);
  const auto* un = reinterpret_cast<const sockaddr_un*>(addr);
  const size_t path_len = len - offsetof(sockaddr_un, sun_path);
  if (path_len == 0) return true;  // unnamed: autobind
  if (un->sun_path[0] == '\0') {
    return AllowAbstractUnix(op, un->sun_path + 1,
                             static_cast<unsigned>(path_len - 1));
  }
  char path[sizeof(un->sun_path) + 1];
  const size_t n = strnlen(un->sun_path, std::min(path_len, sizeof(path) - 1));
  std::memcpy(path, un->sun_path, n);
  path[n] = '\0';
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
    rewritten->len = static_cast<socklen_t>(
        offsetof(sockaddr_un, sun_path) + std::strlen(target) + 1);
    *use_rewritten = true;
  }
  return true;
}

// One judged call with an optional destination address.
template <typename Call>
long WithAddress(const char* op, const sockaddr* addr, socklen_t len,
                 bool binding, Call call) {
  Scope scope;
  if (scope.nested()) return Ret(call(addr, len));
  PinnedObject obj;
  PinnedParent parent;
  UnixTarget rewritten;
  bool use = false;
  if (!JudgeAddress(op, addr, len, binding, &obj, &parent, &rewritten, &use)) {
    return -1;
  }
  scope.RestoreErrno();
  if (use) {
    return Ret(call(reinterpret_cast<const sockaddr*>(&rewritten.addr),
                    rewritten.len));
  }
  return Ret(call(addr, len));
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

KL_EXPORT int connect(int fd, const sockaddr* addr, socklen_t len) {
  return WithAddress("connect", addr, len, false,
                     [&](const sockaddr* a, socklen_t l) {
                       return sys(SYS_connect, fd, a, l);
                     });
}

KL_EXPORT int __connect(int fd, const sockaddr* addr, socklen_t len)
    __attribute__((alias("connect")));

KL_EXPORT int bind(int fd, const sockaddr* addr, socklen_t len) {
  // Only Unix addresses are the policy's business at bind: a path is a
  // filesystem write, an abstract name follows unix_abstract.
  if (addr != nullptr && len >= sizeof(sa_family_t) &&
      addr->sa_family != AF_UNIX) {
    return static_cast<int>(Ret(sys(SYS_bind, fd, addr, len)));
  }
  return WithAddress("bind", addr, len, true,
                     [&](const sockaddr* a, socklen_t l) {
                       return sys(SYS_bind, fd, a, l);
                     });
}

KL_EXPORT ssize_t sendto(int fd, const void* buf, size_t size, int flags,
                         const sockaddr* addr, socklen_t len) {
  if (addr == nullptr) {
    return Ret(sys_call6(SYS_sendto, fd, (long)buf, (long)size, flags, 0, 0));
  }
  // As sendmsg: sendto needs all six argument registers, leaving none for
  // the seccomp tag.
  return WithAddress("sendto", addr, len, false,
                     [&](const sockaddr* a, socklen_t l) {
                       iovec iov{const_cast<void*>(buf), size};
                       msghdr m{};
                       m.msg_name = const_cast<sockaddr*>(a);
                       m.msg_namelen = l;
                       m.msg_iov = &iov;
                       m.msg_iovlen = 1;
                       return sys(SYS_sendmsg, fd, &m, flags);
                     });
}

KL_EXPORT ssize_t sendmsg(int fd, const msghdr* msg, int flags) {
  if (msg == nullptr || msg->msg_name == nullptr) {
    return Ret(sys(SYS_sendmsg, fd, msg, flags));
  }
  return WithAddress(
      "sendmsg", static_cast<const sockaddr*>(msg->msg_name), msg->msg_namelen,
      false, [&](const sockaddr* a, socklen_t l) {
        msghdr copy = *msg;
        copy.msg_name = const_cast<sockaddr*>(a);
        copy.msg_namelen = l;
        return sys(SYS_sendmsg, fd, &copy, flags);
      });
}

KL_EXPORT int sendmmsg(int fd, mmsghdr* msgs, unsigned n, int flags) {
  Scope scope;
  if (!scope.nested() && msgs != nullptr) {
    // Every destination must be admitted before any datagram leaves. Unix
    // paths are judged but not rewritten here: such a call goes untagged,
    // so the seccomp supervisor sends it through the paths it pinned.
    bool unix_path = false;
    for (unsigned i = 0; i < n; ++i) {
      const msghdr& m = msgs[i].msg_hdr;
      if (m.msg_name == nullptr) continue;
      const auto* sa = static_cast<const sockaddr*>(m.msg_name);
      unix_path |= m.msg_namelen > sizeof(sa_family_t) + 1 &&
                   sa->sa_family == AF_UNIX &&
                   reinterpret_cast<const sockaddr_un*>(sa)->sun_path[0] != 0;
      PinnedObject obj;
      PinnedParent parent;
      UnixTarget rewritten;
      bool use = false;
      if (!JudgeAddress("sendmmsg", static_cast<const sockaddr*>(m.msg_name),
                        m.msg_namelen, false, &obj, &parent, &rewritten,
                        &use)) {
        return -1;
      }
    }
    scope.RestoreErrno();
    if (unix_path) {
      return static_cast<int>(
          Ret(sys_call6(SYS_sendmmsg, fd, (long)msgs, n, flags, 0, 0)));
    }
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
KL_EXPORT int rexec(char**, int, const char*, const char*, const char*,
                    int*) {
  return Refuse("rexec", "a remote shell", "rexec is not covered by the policy")
             ? (errno = ENOSYS, -1)
             : -1;
}
KL_EXPORT int rexec_af(char**, int, const char*, const char*, const char*,
                       int*, sa_family_t) {
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
