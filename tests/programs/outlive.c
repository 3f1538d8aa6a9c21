/* Processes that try to outlive their klaunch run. Built static by
 * tests/attack_orphan_test.cc as "outlive-attack" (the name the test looks
 * for in /proc/PID/comm).
 *
 *   outlive-attack DIR THEN [KIND...]
 *
 * Starts one process of each KIND, waits until each has started its
 * heartbeat (one byte appended to DIR/KIND.beat every 20 ms), beats in
 * DIR/cmd.beat itself until DIR/go exists (the test has found every
 * process), then does THEN:
 *
 *   exit     exits 0 (the descendants are orphans)
 *   block    beats forever
 *   zleader  its main thread exits (pthread_exit) while another thread
 *            beats forever: the thread-group leader is a zombie in /proc,
 *            the process runs on
 *
 * KINDs:
 *   daemon   double-forked: fork, setsid, fork; the grandchild beats
 *   noterm   ignores SIGTERM, SIGINT and SIGHUP
 *   pgrp     a process group of its own (same session)
 *   session  a session of its own
 *   zleader  like THEN zleader: a zombie leader whose other thread beats
 *
 * The test finds each process as the one holding its heartbeat file open,
 * not by a pid it reports (which would be another namespace's if klaunch
 * ran the program in a pid namespace). Each beat file is opened once, by
 * its own process, after that process's last fork.
 *
 * It never signals anything. Descendants close stdin, stdout and stderr. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char* dir;

static int open_beat(const char* name) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s.beat", dir, name);
  const int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    fprintf(stderr, "outlive: cannot open %s: %s\n", path, strerror(errno));
    _exit(3);
  }
  return fd;
}

static void nap(void) {
  struct timespec ts = {0, 20 * 1000 * 1000};
  nanosleep(&ts, NULL);
}

static void* beat_forever(void* arg) {
  const int fd = (int)(long)arg;
  for (;;) {
    if (write(fd, ".", 1) != 1) {
      /* keep trying: a full disk is not the test's subject */
    }
    nap();
  }
  return NULL;
}

static void start_beat_thread(int fd) {
  pthread_t t;
  if (pthread_create(&t, NULL, beat_forever, (void*)(long)fd) != 0) _exit(4);
}

static void close_stdio(void) {
  close(0);
  close(1);
  close(2);
}

/* Tells the starter that this process runs, then never returns. */
static void run(const char* kind, int ready) {
  if (!strcmp(kind, "noterm")) {
    signal(SIGTERM, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
  } else if (!strcmp(kind, "pgrp")) {
    if (setpgid(0, 0) != 0) _exit(5);
  } else if (!strcmp(kind, "session")) {
    if (setsid() < 0) _exit(5);
  }
  const int fd = open_beat(kind);
  close_stdio();
  if (!strcmp(kind, "zleader")) {
    start_beat_thread(fd);
    if (write(ready, "r", 1) != 1) _exit(6);
    close(ready);
    pthread_exit(NULL);
  }
  if (write(ready, "r", 1) != 1) _exit(6);
  close(ready);
  beat_forever((void*)(long)fd);
}

static void start(const char* kind, int ready) {
  const pid_t child = fork();
  if (child < 0) {
    perror("outlive: fork");
    exit(2);
  }
  if (child > 0) {
    if (!strcmp(kind, "daemon")) waitpid(child, NULL, 0);
    return;
  }
  if (!strcmp(kind, "daemon")) {
    if (setsid() < 0) _exit(5);
    const pid_t grandchild = fork();
    if (grandchild != 0) _exit(grandchild < 0 ? 5 : 0);
    run(kind, ready);
  }
  run(kind, ready);
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: outlive-attack DIR exit|block|zleader [KIND...]\n");
    return 2;
  }
  dir = argv[1];
  const char* then = argv[2];
  int ready[2];
  if (pipe(ready) != 0) return 2;
  for (int i = 3; i < argc; ++i) {
    start(argv[i], ready[1]);
    char c;
    if (read(ready[0], &c, 1) != 1) {
      fprintf(stderr, "outlive: %s never started\n", argv[i]);
      return 2;
    }
  }
  close(ready[0]);
  close(ready[1]);
  printf("outlive: all started\n");
  fflush(stdout);
  const int fd = open_beat("cmd");
  char go[4096];
  snprintf(go, sizeof(go), "%s/go", dir);
  for (struct stat st; stat(go, &st) != 0;) {
    if (write(fd, ".", 1) != 1) {
    }
    nap();
  }
  if (!strcmp(then, "exit")) return 0;
  if (!strcmp(then, "zleader")) {
    start_beat_thread(fd);
    pthread_exit(NULL);
  }
  beat_forever((void*)(long)fd);
  return 0;
}
