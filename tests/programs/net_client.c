/* The network client every shim_net_test.cc test runs under the shim: one
 * connect, send or bind per run, as the mode argv[1] says (below); prints "ok"
 * or "errno=N". */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int inet(const char* host, const char* port, struct sockaddr_storage* ss,
                socklen_t* len) {
  memset(ss, 0, sizeof(*ss));
  struct sockaddr_in* in = (struct sockaddr_in*)ss;
  struct sockaddr_in6* in6 = (struct sockaddr_in6*)ss;
  if (inet_pton(AF_INET, host, &in->sin_addr) == 1) {
    in->sin_family = AF_INET;
    in->sin_port = htons(atoi(port));
    *len = sizeof(*in);
    return AF_INET;
  }
  if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(atoi(port));
    *len = sizeof(*in6);
    return AF_INET6;
  }
  printf("bad address %s\n", host);
  exit(4);
}

static socklen_t unix_addr(const char* path, struct sockaddr_un* un) {
  memset(un, 0, sizeof(*un));
  un->sun_family = AF_UNIX;
  if (path[0] == '@') { /* abstract */
    memcpy(un->sun_path + 1, path + 1, strlen(path) - 1);
    return offsetof(struct sockaddr_un, sun_path) + strlen(path);
  }
  snprintf(un->sun_path, sizeof(un->sun_path), "%s", path);
  return sizeof(*un);
}

static int report(int ok) {
  if (ok) {
    printf("ok\n");
    return 0;
  }
  printf("errno=%d\n", errno);
  return 1;
}

int main(int argc, char** argv) {
  const char* mode = argv[1];
  struct sockaddr_storage ss;
  socklen_t len;
  if (!strcmp(mode, "tcp")) { /* tcp ADDRESS PORT */
    int family = inet(argv[2], argv[3], &ss, &len);
    int s = socket(family, SOCK_STREAM, 0);
    return report(connect(s, (struct sockaddr*)&ss, len) == 0);
  }
  if (!strcmp(mode, "resolve")) { /* resolve NAME PORT */
    struct addrinfo hints, *res;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    int r = getaddrinfo(argv[2], argv[3], &hints, &res);
    if (r != 0) {
      printf("getaddrinfo: %s\n", gai_strerror(r));
      return 4;
    }
    int s = socket(res->ai_family, res->ai_socktype, res->ai_protocol);
    return report(connect(s, res->ai_addr, res->ai_addrlen) == 0);
  }
  if (!strcmp(mode, "gethostbyname")) { /* gethostbyname NAME PORT */
    struct hostent* h = gethostbyname(argv[2]);
    if (h == NULL) {
      printf("gethostbyname failed\n");
      return 4;
    }
    struct sockaddr_in in;
    memset(&in, 0, sizeof(in));
    in.sin_family = AF_INET;
    in.sin_port = htons(atoi(argv[3]));
    memcpy(&in.sin_addr, h->h_addr_list[0], 4);
    int s = socket(AF_INET, SOCK_STREAM, 0);
    return report(connect(s, (struct sockaddr*)&in, sizeof(in)) == 0);
  }
  if (!strcmp(mode, "sendto")) { /* sendto ADDRESS PORT MESSAGE */
    int family = inet(argv[2], argv[3], &ss, &len);
    int s = socket(family, SOCK_DGRAM, 0);
    return report(sendto(s, argv[4], strlen(argv[4]), 0, (struct sockaddr*)&ss,
                         len) >= 0);
  }
  if (!strcmp(mode, "sendmsg")) { /* sendmsg ADDRESS PORT MESSAGE */
    int family = inet(argv[2], argv[3], &ss, &len);
    int s = socket(family, SOCK_DGRAM, 0);
    struct iovec iov = {argv[4], strlen(argv[4])};
    struct msghdr msg;
    memset(&msg, 0, sizeof(msg));
    msg.msg_name = &ss;
    msg.msg_namelen = len;
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    return report(sendmsg(s, &msg, 0) >= 0);
  }
  if (!strcmp(mode, "sendmmsg")) { /* sendmmsg ADDRESS PORT MSG PORT2 MSG2 */
    struct sockaddr_storage ss2;
    socklen_t len2;
    int family = inet(argv[2], argv[3], &ss, &len);
    inet(argv[2], argv[5], &ss2, &len2);
    int s = socket(family, SOCK_DGRAM, 0);
    struct iovec iov[2] = {{argv[4], strlen(argv[4])},
                           {argv[6], strlen(argv[6])}};
    struct mmsghdr m[2];
    memset(m, 0, sizeof(m));
    m[0].msg_hdr.msg_name = &ss;
    m[0].msg_hdr.msg_namelen = len;
    m[0].msg_hdr.msg_iov = &iov[0];
    m[0].msg_hdr.msg_iovlen = 1;
    m[1].msg_hdr.msg_name = &ss2;
    m[1].msg_hdr.msg_namelen = len2;
    m[1].msg_hdr.msg_iov = &iov[1];
    m[1].msg_hdr.msg_iovlen = 1;
    int n = sendmmsg(s, m, 2, 0);
    if (n >= 0) {
      printf("sent %d\n", n);
      return n == 2 ? 0 : 1;
    }
    return report(0);
  }
  if (!strcmp(mode, "udp-connect")) { /* udp-connect ADDRESS PORT MESSAGE */
    int family = inet(argv[2], argv[3], &ss, &len);
    int s = socket(family, SOCK_DGRAM, 0);
    if (connect(s, (struct sockaddr*)&ss, len) != 0) return report(0);
    return report(send(s, argv[4], strlen(argv[4]), 0) >= 0);
  }
  if (!strcmp(mode, "unix-connect")) { /* unix-connect PATH|@NAME */
    struct sockaddr_un un;
    socklen_t l = unix_addr(argv[2], &un);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    return report(connect(s, (struct sockaddr*)&un, l) == 0);
  }
  if (!strcmp(mode, "unix-bind")) { /* unix-bind PATH|@NAME */
    struct sockaddr_un un;
    socklen_t l = unix_addr(argv[2], &un);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    return report(bind(s, (struct sockaddr*)&un, l) == 0);
  }
  if (!strcmp(mode, "unix-sendto")) { /* unix-sendto PATH MESSAGE */
    struct sockaddr_un un;
    socklen_t l = unix_addr(argv[2], &un);
    int s = socket(AF_UNIX, SOCK_DGRAM, 0);
    return report(
        sendto(s, argv[3], strlen(argv[3]), 0, (struct sockaddr*)&un, l) >= 0);
  }
  printf("unknown mode %s\n", mode);
  return 5;
}
