// The kernel's reading of an address on a socket, case by case: each
// expectation is what Linux (net/ipv4/udp.c, net/ipv6/udp.c, af_inet.c,
// datagram.c, tcp.c, af_unix.c) does with those bytes, so a judge that
// reads them alike judges what the kernel will use.

#include "core/destination.h"

#include <arpa/inet.h>
#include <errno.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cstring>

namespace klaunch {
namespace {

sockaddr_in In(const char* ip, uint16_t port, sa_family_t family = AF_INET) {
  sockaddr_in a{};
  a.sin_family = family;
  a.sin_port = htons(port);
  inet_pton(AF_INET, ip, &a.sin_addr);
  return a;
}

sockaddr_in6 In6(const char* ip, uint16_t port) {
  sockaddr_in6 a{};
  a.sin6_family = AF_INET6;
  a.sin6_port = htons(port);
  inet_pton(AF_INET6, ip, &a.sin6_addr);
  return a;
}

constexpr SocketKind kUdp{AF_INET, SOCK_DGRAM};
constexpr SocketKind kTcp{AF_INET, SOCK_STREAM};
constexpr SocketKind kUdp6{AF_INET6, SOCK_DGRAM};
constexpr SocketKind kTcp6{AF_INET6, SOCK_STREAM};

TEST(Destination, AUdpDatagramToAfUnspecGoesWhereItsSockaddrInSays) {
  const sockaddr_in a = In("127.0.0.1", 9999, AF_UNSPEC);
  const Destination d =
      ReadDestination(kUdp, AddressUse::kSend, 0, &a, sizeof(a));
  ASSERT_EQ(d.kind, Destination::kIp);
  EXPECT_EQ(d.ip.ToString(), "127.0.0.1");
  EXPECT_EQ(d.port, 9999);
}

TEST(Destination, AnIpv6UdpSocketSendsToAnAfUnspecNameAsToItsPeer) {
  const sockaddr_in a = In("127.0.0.1", 9999, AF_UNSPEC);
  EXPECT_EQ(ReadDestination(kUdp6, AddressUse::kSend, 0, &a, sizeof(a)).kind,
            Destination::kPeer);
}

TEST(Destination, AnIpv6UdpSocketSendsToAnIpv4AddressOverIpv4) {
  const sockaddr_in a = In("10.1.2.3", 53);
  const Destination d =
      ReadDestination(kUdp6, AddressUse::kSend, 0, &a, sizeof(a));
  ASSERT_EQ(d.kind, Destination::kIp);
  EXPECT_FALSE(d.ip.v6);
  EXPECT_EQ(d.ip.ToString(), "10.1.2.3");
  SocketKind only = kUdp6;
  only.v6only = true;
  const Destination refused =
      ReadDestination(only, AddressUse::kSend, 0, &a, sizeof(a));
  EXPECT_EQ(refused.kind, Destination::kRefused);
  EXPECT_EQ(refused.error, ENETUNREACH);
}

TEST(Destination, AV4MappedAddressIsJudgedAsTheIpv4AddressItCarries) {
  const sockaddr_in6 a = In6("::ffff:192.0.2.7", 443);
  const Destination d =
      ReadDestination(kTcp6, AddressUse::kConnect, 0, &a, sizeof(a));
  ASSERT_EQ(d.kind, Destination::kIp);
  EXPECT_FALSE(d.ip.v6);
  EXPECT_EQ(d.ip.ToString(), "192.0.2.7");
}

TEST(Destination, AnIpv6TcpSocketRefusesAnIpv4AddressAsTheKernelDoes) {
  const sockaddr_in a = In("127.0.0.1", 80);
  const Destination d =
      ReadDestination(kTcp6, AddressUse::kConnect, 0, &a, sizeof(a));
  EXPECT_EQ(d.kind, Destination::kRefused);
  EXPECT_EQ(d.error, EAFNOSUPPORT);
}

TEST(Destination, AnIpv6UdpSocketConnectsToAnIpv4AddressOverIpv4) {
  const sockaddr_in a = In("127.0.0.1", 80);
  const Destination d =
      ReadDestination(kUdp6, AddressUse::kConnect, 0, &a, sizeof(a));
  ASSERT_EQ(d.kind, Destination::kIp);
  EXPECT_EQ(d.ip.ToString(), "127.0.0.1");
}

TEST(Destination, ATcpSendsAddressCountsOnlyWithFastOpen) {
  const sockaddr_in a = In("127.0.0.1", 80);
  EXPECT_EQ(ReadDestination(kTcp, AddressUse::kSend, 0, &a, sizeof(a)).kind,
            Destination::kPeer);
  const Destination d =
      ReadDestination(kTcp, AddressUse::kSend, MSG_FASTOPEN, &a, sizeof(a));
  ASSERT_EQ(d.kind, Destination::kIp);
  EXPECT_EQ(d.port, 80);
  const sockaddr_in unspec = In("127.0.0.1", 80, AF_UNSPEC);
  EXPECT_EQ(ReadDestination(kTcp, AddressUse::kSend, MSG_FASTOPEN, &unspec,
                            sizeof(unspec))
                .error,
            EOPNOTSUPP);
}

TEST(Destination, ConnectingToAfUnspecForgetsThePeer) {
  const sockaddr_in a = In("127.0.0.1", 80, AF_UNSPEC);
  for (const SocketKind& s : {kUdp, kTcp, kUdp6, kTcp6}) {
    EXPECT_EQ(ReadDestination(s, AddressUse::kConnect, 0, &a, sizeof(a)).kind,
              Destination::kDisconnect);
  }
}

TEST(Destination, AShortOrForeignAddressIsRefusedWithTheKernelsErrno) {
  const sockaddr_in a = In("127.0.0.1", 80);
  EXPECT_EQ(ReadDestination(kUdp, AddressUse::kSend, 0, &a, 8).error, EINVAL);
  sockaddr_in other = a;
  other.sin_family = AF_APPLETALK;
  EXPECT_EQ(
      ReadDestination(kUdp, AddressUse::kSend, 0, &other, sizeof(other)).error,
      EAFNOSUPPORT);
  const sockaddr_in6 v6 = In6("::1", 80);
  EXPECT_EQ(
      ReadDestination(kUdp, AddressUse::kConnect, 0, &v6, sizeof(v6)).error,
      EAFNOSUPPORT);
  EXPECT_EQ(ReadDestination(kTcp6, AddressUse::kConnect, 0, &v6, 20).error,
            EINVAL);
}

TEST(Destination, NoAddressIsThePeerForASendAndAnErrorForAConnect) {
  EXPECT_EQ(ReadDestination(kUdp, AddressUse::kSend, 0, nullptr, 0).kind,
            Destination::kPeer);
  EXPECT_EQ(ReadDestination(kUdp, AddressUse::kConnect, 0, nullptr, 0).error,
            EINVAL);
}

TEST(Destination, ARawSocketsAddressIsNeverTakenAtItsWord) {
  const sockaddr_in a = In("127.0.0.1", 53);
  const Destination d =
      ReadDestination({AF_INET, SOCK_RAW}, AddressUse::kSend, 0, &a, sizeof(a));
  EXPECT_EQ(d.kind, Destination::kRefused);
}

TEST(Destination, UnixNamesArePathsAbstractNamesOrUnnamed) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strcpy(a.sun_path, "/run/x.sock");
  const socklen_t path_len = offsetof(sockaddr_un, sun_path) + 12;
  Destination d = ReadDestination({AF_UNIX, SOCK_DGRAM}, AddressUse::kSend, 0,
                                  &a, path_len);
  ASSERT_EQ(d.kind, Destination::kUnixPath);
  EXPECT_EQ(d.name, "/run/x.sock");
  sockaddr_un abs{};
  abs.sun_family = AF_UNIX;
  std::memcpy(abs.sun_path, "\0name", 5);
  d = ReadDestination({AF_UNIX, SOCK_STREAM}, AddressUse::kConnect, 0, &abs,
                      offsetof(sockaddr_un, sun_path) + 5);
  ASSERT_EQ(d.kind, Destination::kUnixAbstract);
  EXPECT_EQ(d.name, "name");
  EXPECT_EQ(ReadDestination({AF_UNIX, SOCK_STREAM}, AddressUse::kBind, 0, &a,
                            sizeof(sa_family_t))
                .kind,
            Destination::kUnixUnnamed);
}

TEST(Destination, AUnixStreamSendGoesToItsPeerWhateverNameItCarries) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strcpy(a.sun_path, "/elsewhere");
  for (int type : {SOCK_STREAM, SOCK_SEQPACKET}) {
    EXPECT_EQ(
        ReadDestination({AF_UNIX, type}, AddressUse::kSend, 0, &a, sizeof(a))
            .kind,
        Destination::kPeer);
  }
}

TEST(Destination, AUnixDatagramSocketConnectedToAfUnspecForgetsItsPeer) {
  const sa_family_t unspec = AF_UNSPEC;
  EXPECT_EQ(ReadDestination({AF_UNIX, SOCK_DGRAM}, AddressUse::kConnect, 0,
                            &unspec, sizeof(unspec))
                .kind,
            Destination::kDisconnect);
  EXPECT_EQ(ReadDestination({AF_UNIX, SOCK_STREAM}, AddressUse::kConnect, 0,
                            &unspec, sizeof(unspec))
                .kind,
            Destination::kRefused);
}

TEST(Destination, AnIpSocketsBindIsAPortOfItsOwn) {
  const sockaddr_in a = In("0.0.0.0", 8080);
  EXPECT_EQ(ReadDestination(kTcp, AddressUse::kBind, 0, &a, sizeof(a)).kind,
            Destination::kOwnPort);
}

TEST(Destination, ASocketOfAnotherFamilyIsRefused) {
  const sockaddr_in a = In("127.0.0.1", 80);
  EXPECT_EQ(ReadDestination({40 /* AF_VSOCK */, SOCK_STREAM},
                            AddressUse::kConnect, 0, &a, sizeof(a))
                .kind,
            Destination::kRefused);
}

}  // namespace
}  // namespace klaunch
