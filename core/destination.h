// What a connect, bind or send does with the address it is given, on the
// socket it is given, as Linux reads those bytes: the one meaning that the
// shim and the seccomp supervisor judge (and that the supervisor then hands
// the kernel, the same bytes, on the same socket).
//
//   Destination d = ReadDestination({AF_INET, SOCK_DGRAM}, AddressUse::kSend,
//                                   0, bytes, len);
//   if (d.kind == Destination::kIp) ... judge d.ip, d.port ...
//
// The kernel's own quirks are followed, not the address's face value: a UDP
// datagram to AF_UNSPEC goes where its sockaddr_in says (udp_sendmsg takes
// AF_UNSPEC as AF_INET); an IPv6 socket sends to an AF_INET or v4-mapped
// address over IPv4 (unless IPV6_V6ONLY); a TCP send's address counts only
// with MSG_FASTOPEN; connect(AF_UNSPEC) forgets the peer. An address the
// judge does not understand, or that the kernel would refuse anyway, is
// kRefused with the errno to answer: unknown means no.
//
// Pure: no system calls. The caller reads the socket's family, type,
// protocol and IPV6_V6ONLY (getsockopt) and the address bytes.

#ifndef KLAUNCH_CORE_DESTINATION_H_
#define KLAUNCH_CORE_DESTINATION_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/network.h"

namespace klaunch {

struct SocketKind {
  int family = 0;  // AF_UNIX, AF_INET, AF_INET6, AF_NETLINK, ...
  int type = 0;    // SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET, SOCK_RAW
  bool v6only = false;
};

enum class AddressUse { kConnect, kBind, kSend };

struct Destination {
  enum Kind {
    kPeer,          // no address the kernel reads: the connected peer
    kDisconnect,    // connect(AF_UNSPEC): the socket forgets its peer
    kIp,            // `ip`, `port`
    kUnixPath,      // `name`: the socket file's path as written
    kUnixAbstract,  // `name`: the abstract name, without its leading NUL
    kUnixUnnamed,   // bind: autobind
    kNetlink,       // a netlink address: the kernel, or a process's socket
    kOwnPort,       // bind of an IP socket: a port of its own
    kRefused,       // answered `error`, as the kernel (or the judge) would
  };
  Kind kind = kRefused;
  IpAddress ip;
  uint16_t port = 0;
  std::string name;
  int error = 0;    // kRefused
  std::string why;  // kRefused: why, for the record
};

// `bytes`, `len`: the address as the call passes it (null or 0: none).
// `flags`: the send's flags (MSG_FASTOPEN matters).
Destination ReadDestination(const SocketKind& socket, AddressUse use, int flags,
                            const void* bytes, size_t len);

}  // namespace klaunch

#endif  // KLAUNCH_CORE_DESTINATION_H_
