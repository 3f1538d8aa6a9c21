#include "core/destination.h"

#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <algorithm>
#include <cstring>

namespace klaunch {
namespace {

// The shortest IPv6 address the kernel takes (RFC 2133's, without the
// scope id).
constexpr size_t kSin6LenRfc2133 = 24;

Destination Refused(int error, std::string why) {
  Destination d;
  d.kind = Destination::kRefused;
  d.error = error;
  d.why = std::move(why);
  return d;
}

Destination Of(Destination::Kind kind) {
  Destination d;
  d.kind = kind;
  return d;
}

int FamilyOf(const void* bytes, size_t len) {
  if (len < sizeof(sa_family_t)) return -1;
  sa_family_t f;
  std::memcpy(&f, bytes, sizeof(f));
  return f;
}

// An IPv4 destination from the sockaddr_in at `bytes` (len checked).
Destination V4(const void* bytes) {
  sockaddr_in in;
  std::memcpy(&in, bytes, sizeof(in));
  Destination d = Of(Destination::kIp);
  d.ip = IpAddress::FromBytes(false,
                              reinterpret_cast<const uint8_t*>(&in.sin_addr));
  d.port = ntohs(in.sin_port);
  return d;
}

// An IPv6 destination (len checked); a v4-mapped one goes over IPv4.
Destination V6(const SocketKind& s, const void* bytes, size_t len) {
  sockaddr_in6 in6{};
  std::memcpy(&in6, bytes, std::min(len, sizeof(in6)));
  Destination d = Of(Destination::kIp);
  d.ip = IpAddress::FromBytes(true,
                              reinterpret_cast<const uint8_t*>(&in6.sin6_addr))
             .Unmapped();
  d.port = ntohs(in6.sin6_port);
  if (!d.ip.v6 && s.v6only) {
    return Refused(ENETUNREACH, "an IPv4 address on an IPv6-only socket");
  }
  return d;
}

Destination Unix(const SocketKind& s, AddressUse use, const void* bytes,
                 size_t len) {
  const int family = FamilyOf(bytes, len);
  if (use == AddressUse::kSend &&
      (s.type == SOCK_STREAM || s.type == SOCK_SEQPACKET)) {
    // A stream's sends go to its peer: the kernel ignores the name
    // (seqpacket) or fails the call (stream).
    return Of(Destination::kPeer);
  }
  if (bytes == nullptr || len == 0) {
    return use == AddressUse::kSend ? Of(Destination::kPeer)
                                    : Refused(EINVAL, "no address");
  }
  if (family == AF_UNSPEC && use == AddressUse::kConnect &&
      s.type == SOCK_DGRAM) {
    return Of(Destination::kDisconnect);
  }
  if (family != AF_UNIX || len > sizeof(sockaddr_un)) {
    return Refused(EINVAL, "not a Unix socket address");
  }
  const size_t path_len = len - offsetof(sockaddr_un, sun_path);
  const char* path =
      static_cast<const char*>(bytes) + offsetof(sockaddr_un, sun_path);
  if (path_len == 0) {
    return use == AddressUse::kBind ? Of(Destination::kUnixUnnamed)
                                    : Refused(EINVAL, "an unnamed address");
  }
  Destination d;
  if (path[0] == '\0') {
    d.kind = Destination::kUnixAbstract;
    d.name.assign(path + 1, path_len - 1);
  } else {
    d.kind = Destination::kUnixPath;
    d.name.assign(path, strnlen(path, path_len));
  }
  return d;
}

Destination Ip(const SocketKind& s, AddressUse use, int flags,
               const void* bytes, size_t len) {
  const bool v6 = s.family == AF_INET6;
  const int family = FamilyOf(bytes, len);
  if (use == AddressUse::kBind) return Of(Destination::kOwnPort);
  if (s.type != SOCK_STREAM && s.type != SOCK_DGRAM) {
    return Refused(EPERM,
                   "a raw or packet socket's destination is not "
                   "what its address says");
  }
  const bool tcp = s.type == SOCK_STREAM;
  if (use == AddressUse::kSend && tcp && !(flags & MSG_FASTOPEN)) {
    return Of(Destination::kPeer);  // TCP reads a send's address only then
  }
  if (bytes == nullptr || len == 0) {
    if (use == AddressUse::kSend) return Of(Destination::kPeer);
    return Refused(EINVAL, "no address");
  }
  if (family < 0) return Refused(EINVAL, "an address shorter than a family");
  if (family == AF_UNSPEC) {
    if (use == AddressUse::kConnect) return Of(Destination::kDisconnect);
    if (tcp) return Refused(EOPNOTSUPP, "a fast-open send to AF_UNSPEC");
    // udp_sendmsg reads AF_UNSPEC as AF_INET; udpv6_sendmsg as no
    // address at all.
    if (v6) return Of(Destination::kPeer);
    if (len < sizeof(sockaddr_in)) return Refused(EINVAL, "a short address");
    return V4(bytes);
  }
  if (family == AF_INET) {
    // An IPv6 socket takes one for UDP (sent over IPv4), not for TCP.
    if (v6 && tcp) {
      return Refused(EAFNOSUPPORT, "an IPv4 address on an IPv6 TCP socket");
    }
    if (v6 && s.v6only) {
      return Refused(use == AddressUse::kSend ? ENETUNREACH : EAFNOSUPPORT,
                     "an IPv4 address on an IPv6-only socket");
    }
    if (len < sizeof(sockaddr_in)) return Refused(EINVAL, "a short address");
    return V4(bytes);
  }
  if (family == AF_INET6 && v6) {
    if (len < kSin6LenRfc2133) return Refused(EINVAL, "a short address");
    return V6(s, bytes, len);
  }
  return Refused(EAFNOSUPPORT, "an address family the socket does not take");
}

}  // namespace

Destination ReadDestination(const SocketKind& socket, AddressUse use, int flags,
                            const void* bytes, size_t len) {
  switch (socket.family) {
    case AF_UNIX:
      return Unix(socket, use, bytes, len);
    case AF_INET:
    case AF_INET6:
      return Ip(socket, use, flags, bytes, len);
    case AF_NETLINK:
      return bytes == nullptr || len == 0 ? Of(Destination::kPeer)
                                          : Of(Destination::kNetlink);
    default:
      return Refused(EAFNOSUPPORT,
                     "a socket of a family the policy does not cover");
  }
}

}  // namespace klaunch
