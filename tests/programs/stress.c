/* Load for tests/stress_test.cc: many short-lived processes and threads
 * making judged calls at once. Built by the test both dynamic (the shim
 * judges its calls) and static (only the seccomp supervisor sees them).
 *
 *   stress KIND WS OKPORT DENYPORT WORKERS THREADS ROUNDS
 *
 * Forks WORKERS processes of THREADS threads each; every thread, ROUNDS
 * times, reads, appends to and stats a file of WS/allow and one of
 * WS/deny, creates and unlinks a file in WS/out, connects to 127.0.0.1 at
 * OKPORT and at DENYPORT, and in its first round fork+execs /bin/true and
 * /bin/false. A call aimed at a denied target is an "attempt"; one that
 * failed with EACCES or EPERM is "refused"; an admitted call that failed is
 * "bad". Each worker prints one line (a single write) of its counts:
 *
 *   counts KIND read A R B write A R B stat A R B connect A R B exec A R B
 *
 * The program decides nothing: the test compares these counts with the
 * audit log. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kRead, kWrite, kStat, kConnect, kExec, kKinds };
static const char* const kNames[kKinds] = {"read", "write", "stat", "connect",
                                           "exec"};

struct counts {
  int attempts[kKinds];
  int refused[kKinds];
  int bad[kKinds];
};

static const char* ws;
static int ok_port, deny_port, rounds;
static pthread_barrier_t start_line;
static pthread_mutex_t sum_lock = PTHREAD_MUTEX_INITIALIZER;
static struct counts total;

static int refusal(int err) { return err == EACCES || err == EPERM; }

/* A call on a denied target: counted as attempted, and as refused when it
 * failed with a refusal's errno. `err` is read after the call returned (a
 * statement of its own: argument order is unspecified). */
static void denied(struct counts* c, int kind, int failed, int err) {
  c->attempts[kind]++;
  if (failed && refusal(err)) c->refused[kind]++;
}

static void admitted(struct counts* c, int kind, int failed) {
  if (failed) c->bad[kind]++;
}

/* Returns 0 and -1 like connect, with errno kept. */
static int connect_to(int port) {
  int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return -1;
  struct sockaddr_in a;
  memset(&a, 0, sizeof(a));
  a.sin_family = AF_INET;
  a.sin_port = htons((unsigned short)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int r = connect(s, (struct sockaddr*)&a, sizeof(a));
  int err = errno;
  close(s);
  errno = err;
  return r;
}

/* The child's exit status: the program's own, or 42 when the exec was
 * refused (43 when it failed otherwise). */
static int run_child(const char* path) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    char* argv[] = {(char*)path, NULL};
    char* envp[] = {NULL};
    execve(path, argv, envp);
    _exit(refusal(errno) ? 42 : 43);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void* worker_thread(void* arg) {
  const int t = (int)(long)arg;
  struct counts c;
  memset(&c, 0, sizeof(c));
  char ok[4096], no_read[4096], no_write[4096], out[4096];
  snprintf(ok, sizeof(ok), "%s/allow/a%d", ws, t % 4);
  snprintf(no_read, sizeof(no_read), "%s/deny/r%d", ws, t % 4);
  snprintf(no_write, sizeof(no_write), "%s/deny/w%d", ws, t % 4);
  pthread_barrier_wait(&start_line);
  for (int r = 0; r < rounds; ++r) {
    int fd = open(ok, O_RDONLY | O_CLOEXEC);
    admitted(&c, kRead, fd < 0);
    if (fd >= 0) close(fd);
    fd = open(no_read, O_RDONLY | O_CLOEXEC);
    denied(&c, kRead, fd < 0, errno);
    if (fd >= 0) close(fd);

    fd = open(ok, O_WRONLY | O_APPEND | O_CLOEXEC);
    admitted(&c, kWrite, fd < 0);
    if (fd >= 0) close(fd);
    fd = open(no_write, O_WRONLY | O_APPEND | O_CLOEXEC);
    denied(&c, kWrite, fd < 0, errno);
    if (fd >= 0) close(fd);
    snprintf(out, sizeof(out), "%s/out/%d-%d-%d", ws, (int)getpid(), t, r);
    fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    admitted(&c, kWrite, fd < 0);
    if (fd >= 0) close(fd);
    admitted(&c, kWrite, unlink(out) != 0);

    struct stat st;
    admitted(&c, kStat, stat(ok, &st) != 0);
    int failed = stat(no_read, &st) != 0;
    denied(&c, kStat, failed, errno);

    admitted(&c, kConnect, connect_to(ok_port) != 0);
    failed = connect_to(deny_port) != 0;
    denied(&c, kConnect, failed, errno);

    if (r == 0) {
      admitted(&c, kExec, run_child("/bin/true") != 0);
      const int status = run_child("/bin/false");
      c.attempts[kExec]++;
      if (status == 42) c.refused[kExec]++;
      /* Run, /bin/false says 1; anything else is neither outcome. */
      if (status != 42 && status != 1) c.bad[kExec]++;
    }
  }
  pthread_mutex_lock(&sum_lock);
  for (int k = 0; k < kKinds; ++k) {
    total.attempts[k] += c.attempts[k];
    total.refused[k] += c.refused[k];
    total.bad[k] += c.bad[k];
  }
  pthread_mutex_unlock(&sum_lock);
  return NULL;
}

static void worker(const char* kind, int threads) {
  pthread_t ids[256];
  pthread_barrier_init(&start_line, NULL, (unsigned)threads);
  for (int i = 0; i < threads; ++i) {
    if (pthread_create(&ids[i], NULL, worker_thread, (void*)(long)i) != 0) {
      dprintf(2, "stress: pthread_create failed\n");
      _exit(3);
    }
  }
  for (int i = 0; i < threads; ++i) pthread_join(ids[i], NULL);
  char line[1024];
  int n = snprintf(line, sizeof(line), "counts %s", kind);
  for (int k = 0; k < kKinds; ++k) {
    n += snprintf(line + n, sizeof(line) - n, " %s %d %d %d", kNames[k],
                  total.attempts[k], total.refused[k], total.bad[k]);
  }
  n += snprintf(line + n, sizeof(line) - n, "\n");
  if (write(1, line, (size_t)n) != n) _exit(4);
  _exit(0);
}

int main(int argc, char** argv) {
  if (argc != 8) {
    fprintf(stderr,
            "usage: stress KIND WS OKPORT DENYPORT WORKERS THREADS ROUNDS\n");
    return 2;
  }
  ws = argv[2];
  ok_port = atoi(argv[3]);
  deny_port = atoi(argv[4]);
  const int workers = atoi(argv[5]);
  const int threads = atoi(argv[6]);
  rounds = atoi(argv[7]);
  if (threads < 1 || threads > 256) return 2;
  for (int w = 0; w < workers; ++w) {
    pid_t pid = fork();
    if (pid < 0) {
      perror("stress: fork");
      return 3;
    }
    if (pid == 0) worker(argv[1], threads);
  }
  int failed = 0, status;
  while (wait(&status) > 0) {
    failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  }
  if (failed)
    fprintf(stderr, "stress %s: %d workers failed\n", argv[1], failed);
  return failed ? 1 : 0;
}
