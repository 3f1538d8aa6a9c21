/* A program that resolves a host name the way a static or Go binary does:
 * by itself, never through the C library's resolver (so the shim, were it
 * loaded, would learn no name), then connects with a raw system call.
 *
 *   resolve_connect NAME PORT
 *
 * Reads /etc/hosts, takes the first IPv4 address listed for NAME, connects
 * a TCP socket to it at PORT and prints "connect NAME: done" or
 * "connect NAME: error <strerror>". Exits 0 either way: the output says
 * what happened. */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The first IPv4 address /etc/hosts lists for `name`; 0 when none. */
static int find_in_hosts(const char* name, struct in_addr* out) {
  FILE* f = fopen("/etc/hosts", "r");
  if (f == NULL) return 0;
  char line[1024];
  int found = 0;
  while (!found && fgets(line, sizeof(line), f) != NULL) {
    char* hash = strchr(line, '#');
    if (hash != NULL) *hash = '\0';
    char* save = NULL;
    const char* address = strtok_r(line, " \t\r\n", &save);
    if (address == NULL) continue;
    struct in_addr a;
    if (inet_pton(AF_INET, address, &a) != 1) continue; /* IPv6 or junk */
    for (const char* alias = strtok_r(NULL, " \t\r\n", &save); alias != NULL;
         alias = strtok_r(NULL, " \t\r\n", &save)) {
      if (strcasecmp(alias, name) == 0) {
        *out = a;
        found = 1;
        break;
      }
    }
  }
  fclose(f);
  return found;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s NAME PORT\n", argv[0]);
    return 2;
  }
  const char* name = argv[1];
  struct sockaddr_in sa;
  memset(&sa, 0, sizeof(sa));
  sa.sin_family = AF_INET;
  sa.sin_port = htons((unsigned short)atoi(argv[2]));
  if (!find_in_hosts(name, &sa.sin_addr)) {
    printf("connect %s: error not in /etc/hosts\n", name);
    return 0;
  }
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) {
    printf("connect %s: error %s\n", name, strerror(errno));
    return 0;
  }
  /* Raw, so no libc symbol (and no shim) is between the program and the
   * kernel. */
  if (syscall(SYS_connect, fd, &sa, sizeof(sa)) != 0) {
    printf("connect %s: error %s\n", name, strerror(errno));
  } else {
    printf("connect %s: done\n", name);
  }
  close(fd);
  return 0;
}
