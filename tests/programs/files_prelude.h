/* What every C helper of shim_files_test.cc starts with: `root` (argv[1]),
 * P(rel) for a path under it, and show(), which prints "what: ok" or "what: -1
 * ERRNO_NAME". Defines _GNU_SOURCE: include it first. */

#ifndef KLAUNCH_TESTS_PROGRAMS_FILES_PRELUDE_H_
#define KLAUNCH_TESTS_PROGRAMS_FILES_PRELUDE_H_

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

static const char* root = "";
static char* P(const char* rel) {
  char* p = malloc(strlen(root) + strlen(rel) + 2);
  sprintf(p, "%s/%s", root, rel);
  return p;
}
static void show(const char* what, long r) {
  int e = errno;
  if (r < 0)
    printf("%s: -1 %s\n", what, strerrorname_np(e));
  else
    printf("%s: ok\n", what);
}
static void show_fd(const char* what, int fd) {
  show(what, fd);
  if (fd >= 0) close(fd);
}
static void show_file(const char* what, FILE* f) {
  show(what, f ? 0 : -1);
  if (f) fclose(f);
}

#endif /* KLAUNCH_TESTS_PROGRAMS_FILES_PRELUDE_H_ */
