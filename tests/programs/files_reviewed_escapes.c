/* Escapes found in review (freopen(NULL), realpath's buffer, AT_EMPTY_PATH,
 * /proc/self), for ShimFiles.ReviewedEscapesStayClosed (shim_files_test.cc). */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
int main(int argc, char** argv) {
  /* freopen(NULL, "r+") must not turn a read-only stream writable. */
  FILE* f = fopen(argv[1], "r");
  FILE* g = f ? freopen(NULL, "r+", f) : NULL;
  printf("freopen-null %s\n", g ? "opened" : "refused");
  if (g) {
    fputs("PWNED\n", g);
    fclose(g);
  }
  /* realpath leaves no trace of a refused path in the caller's buffer. */
  char buf[PATH_MAX];
  memset(buf, 'x', sizeof(buf));
  char* r = realpath("denylink", buf);
  printf("realpath %s buf=%s\n", r ? "ok" : "refused",
         buf[0] ? "dirty" : "clean");
  /* AT_EMPTY_PATH on AT_FDCWD works as natively. */
  struct stat st;
  printf("empty-path %d\n",
         fstatat(AT_FDCWD, "", &st, AT_EMPTY_PATH) == 0 ? 0 : errno);
  /* /proc/self is readable under the read-only preset. */
  FILE* s = fopen("/proc/self/status", "r");
  printf("proc-self %s\n", s ? "ok" : "refused");
  return 0;
}
