/* Class 2 of the attack tests (tests/attack_address_test.cc): addresses the
 * judge does not understand the way the kernel does. Built dynamic (the shim
 * judges the libc calls) and static (the supervisor does). Each mode sends
 * one datagram, through libc, and prints what the calls returned; the test
 * counts what its own receiver got. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void say(const char* what, long r) {
  if (r >= 0)
    printf("%s: done\n", what);
  else
    printf("%s: %s\n", what, strerror(errno));
}

static struct sockaddr_in loopback(uint16_t port) {
  struct sockaddr_in a;
  memset(&a, 0, sizeof(a));
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

static uint16_t checksum(const void* data, size_t len) {
  const uint8_t* p = data;
  uint32_t sum = 0;
  for (size_t i = 0; i + 1 < len; i += 2)
    sum += (uint32_t)(p[i] << 8 | p[i + 1]);
  if (len & 1) sum += (uint32_t)(p[len - 1] << 8);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return htons((uint16_t)~sum);
}

/* A UDP header and payload to `port` (checksum 0: none, as IPv4 allows). */
static size_t udp_packet(uint8_t* out, uint16_t port, const char* text) {
  struct udphdr* u = (struct udphdr*)out;
  const size_t n = strlen(text);
  u->source = htons(9);
  u->dest = htons(port);
  u->len = htons((uint16_t)(sizeof(*u) + n));
  u->check = 0;
  memcpy(out + sizeof(*u), text, n);
  return sizeof(*u) + n;
}

/* An IPv4 header, then the UDP packet, from and to 127.0.0.1. */
static size_t ip_udp_packet(uint8_t* out, uint16_t port, const char* text) {
  struct iphdr* ip = (struct iphdr*)out;
  const size_t udp = udp_packet(out + sizeof(*ip), port, text);
  memset(ip, 0, sizeof(*ip));
  ip->version = 4;
  ip->ihl = 5;
  ip->ttl = 64;
  ip->protocol = IPPROTO_UDP;
  ip->tot_len = htons((uint16_t)(sizeof(*ip) + udp));
  ip->saddr = htonl(INADDR_LOOPBACK);
  ip->daddr = htonl(INADDR_LOOPBACK);
  ip->check = checksum(ip, sizeof(*ip));
  return sizeof(*ip) + udp;
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc < 3) return 2;
  const char* mode = argv[1];
  const uint16_t port = (uint16_t)atoi(argv[2]);
  /* A second port, for the modes that name one to the judge. */
  const uint16_t other = argc > 3 ? (uint16_t)atoi(argv[3]) : 0;
  const char* text = "address-datagram";

  if (!strcmp(mode, "unspec-sendto") || !strcmp(mode, "unspec-sendmsg")) {
    /* unspec-* PORT: a sockaddr_in to 127.0.0.1:PORT whose family says
     * AF_UNSPEC; udp_sendmsg takes AF_UNSPEC for AF_INET. */
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = loopback(port);
    a.sin_family = AF_UNSPEC;
    if (!strcmp(mode, "unspec-sendto")) {
      say(mode,
          sendto(s, text, strlen(text), 0, (struct sockaddr*)&a, sizeof(a)));
    } else {
      struct iovec iov = {(void*)text, strlen(text)};
      struct msghdr m;
      memset(&m, 0, sizeof(m));
      m.msg_name = &a;
      m.msg_namelen = sizeof(a);
      m.msg_iov = &iov;
      m.msg_iovlen = 1;
      say(mode, sendmsg(s, &m, 0));
    }
  } else if (!strcmp(mode, "v6-sendto-v4")) {
    /* v6-sendto-v4 PORT: an AF_INET6 UDP socket sending to an AF_INET
     * address (udpv6_sendmsg hands it to udp_sendmsg). */
    int s = socket(AF_INET6, SOCK_DGRAM, 0);
    struct sockaddr_in a = loopback(port);
    say(mode,
        sendto(s, text, strlen(text), 0, (struct sockaddr*)&a, sizeof(a)));
  } else if (!strcmp(mode, "v6-connect-v4")) {
    /* v6-connect-v4 PORT: an AF_INET6 UDP socket connected to an AF_INET
     * address, then a send without one. */
    int s = socket(AF_INET6, SOCK_DGRAM, 0);
    struct sockaddr_in a = loopback(port);
    say("v6-connect-v4 connect", connect(s, (struct sockaddr*)&a, sizeof(a)));
    say("v6-connect-v4 send", send(s, text, strlen(text), 0));
  } else if (!strcmp(mode, "raw-udp") || !strcmp(mode, "raw-hdrincl") ||
             !strcmp(mode, "raw-connect")) {
    /* raw-* FORBIDDEN ALLOWED: a raw IPPROTO_UDP socket; the address the
     * judge sees names 127.0.0.1:ALLOWED (a raw socket has no ports: the
     * kernel ignores sin_port), the UDP header made by hand names
     * FORBIDDEN. raw-hdrincl makes the IP header too; raw-connect connects
     * to the address and sends without one. */
    int s = socket(AF_INET, SOCK_RAW, IPPROTO_UDP);
    if (s < 0) {
      say("raw socket", -1);
      return 0;
    }
    uint8_t packet[256];
    size_t n;
    if (!strcmp(mode, "raw-hdrincl")) {
      int one = 1;
      say("raw IP_HDRINCL",
          setsockopt(s, IPPROTO_IP, IP_HDRINCL, &one, sizeof(one)));
      n = ip_udp_packet(packet, port, text);
    } else {
      n = udp_packet(packet, port, text);
    }
    struct sockaddr_in a = loopback(other);
    if (!strcmp(mode, "raw-connect")) {
      say("raw-connect connect", connect(s, (struct sockaddr*)&a, sizeof(a)));
      say("raw-connect send", send(s, packet, n, 0));
    } else {
      say(mode, sendto(s, packet, n, 0, (struct sockaddr*)&a, sizeof(a)));
    }
  } else if (!strcmp(mode, "packet-sendto") || !strcmp(mode, "packet-bound")) {
    /* packet-* FORBIDDEN: an AF_PACKET socket on lo sending an IPv4+UDP
     * packet to 127.0.0.1:FORBIDDEN; packet-sendto names the interface in
     * each send (the frame made by hand, Ethernet header and all), packet-bound
     * binds to it and sends without an address. */
    int s = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_IP));
    if (s < 0) {
      say("packet socket", -1);
      return 0;
    }
    struct sockaddr_ll ll;
    memset(&ll, 0, sizeof(ll));
    ll.sll_family = AF_PACKET;
    ll.sll_protocol = htons(ETH_P_IP);
    ll.sll_ifindex = (int)if_nametoindex("lo");
    ll.sll_halen = ETH_ALEN; /* lo's address is all zeros */
    /* An Ethernet header as lo takes it: both addresses zero, then IPv4. */
    uint8_t packet[256];
    memset(packet, 0, ETH_HLEN);
    packet[12] = 0x08;
    packet[13] = 0x00;
    const size_t n = ETH_HLEN + ip_udp_packet(packet + ETH_HLEN, port, text);
    if (!strcmp(mode, "packet-bound")) {
      say("packet-bound bind", bind(s, (struct sockaddr*)&ll, sizeof(ll)));
      say("packet-bound send", send(s, packet, n, 0));
    } else {
      say(mode, sendto(s, packet, n, 0, (struct sockaddr*)&ll, sizeof(ll)));
    }
  } else {
    printf("net_attacker: unknown mode %s\n", mode);
    return 2;
  }
  return 0;
}
