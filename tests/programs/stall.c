/* Objects the program controls that can make klaunch's supervisor wait:
 * the supervisor performs opens, creates, truncates, connects and sends on
 * the program's behalf, in klaunch's own process, and its receiving thread
 * answers opens and mutations itself. Built static (every call goes to the
 * supervisor) and dynamic (the shim tags its calls, so they never queue
 * behind the supervisor) by tests/attack_block_test.cc. One attack per
 * argv[1]; each ends with the same probe:
 *
 *   PROBE = STATIC FILE SOCK: a separate process (STATIC, run as
 *   "probe-call FILE SOCK") opens FILE, which the policy admits except in
 *   log-lease (an open the receiving thread answers), then binds a Unix
 *   listener at SOCK and connects to it (a connect the supervisor's pool
 *   answers). The attacker waits for it at most kProbeSeconds, then says
 *   whether it completed and kills it (its own child) if not.
 *
 *   fifo-create NAME TRIES STATIC FILE SOCK   (dynamic)
 *       A static child ("create-loop NAME TRIES") opens NAME
 *       O_WRONLY|O_CREAT over and over; this process's thread meanwhile
 *       unlinks NAME and makes a FIFO there, through the shim. The
 *       supervisor's create path finds NAME missing, judges, and opens it
 *       with the program's flags: a FIFO swapped in between is opened for
 *       writing without O_NONBLOCK and waits for a reader.
 *   fifo-open NAME STATIC FILE SOCK          (static)
 *       Opens an existing FIFO for reading (and closes it), then for
 *       writing with no reader, neither with O_NONBLOCK.
 *   stream-backlog SOCK N STATIC FILE SOCK   (static)
 *       A Unix stream listener with backlog 0 that never accepts; N
 *       threads connect to it.
 *   dgram-full SOCK N STATIC FILE SOCK       (static)
 *       A Unix datagram socket bound at SOCK, its receive queue filled
 *       (MSG_DONTWAIT), then N threads send to it from the same socket
 *       without MSG_DONTWAIT.
 *   lease HOW FILE STATIC FILE SOCK          (static)
 *       Takes a lease on FILE (its own, in the workspace) and never lets
 *       it go while the probe runs; the lease holder catches the break
 *       signal (SIGIO) and does nothing about it. HOW: "open-trunc" (read
 *       lease; another thread opens FILE O_WRONLY|O_TRUNC), "truncate"
 *       (read lease; truncate(FILE, 0)),
 *       "open-read" (write lease; open(FILE, O_RDONLY)), "exec" (write
 *       lease on a script; a child execs it).
 *   log-lease DENIED TRIES STATIC FILE SOCK  (dynamic)
 *       Takes the audit log's descriptor from the shim (it opens the log in
 *       this process for each refusal it records: a second thread scans
 *       descriptors 3..64 while the main thread opens DENIED, refused, up
 *       to TRIES times) and takes a write lease on the log with it, which
 *       any other open of the log breaks. The probe's FILE is a denied
 *       file, so that the supervisor has a refusal to record.
 *
 * The program prints what happened; the test checks the world. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Generous bounds that turn a hang into a line of output; a call the
 * supervisor answers normally takes milliseconds. */
enum { kProbeSeconds = 10, kSettleSeconds = 10, kRaceSeconds = 10 };

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void nap_ms(int ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static int unix_addr(const char* path, struct sockaddr_un* a) {
  memset(a, 0, sizeof(*a));
  a->sun_family = AF_UNIX;
  snprintf(a->sun_path, sizeof(a->sun_path), "%s", path);
  return (int)sizeof(*a);
}

/* Waits up to `seconds` for `pid` (a child) to exit: 1 when it did. */
static int wait_bounded(pid_t pid, int seconds, int* status) {
  const double end = now() + seconds;
  while (now() < end) {
    const pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid) return 1;
    if (r < 0 && errno != EINTR) return 1;
    nap_ms(20);
  }
  return 0;
}

/* --- the probe ------------------------------------------------------------ */

static int probe_call(const char* file, const char* sock) {
  const int fd = open(file, O_RDONLY);
  if (fd < 0) {
    printf("probe-call: open error %s\n", strerror(errno));
  } else {
    printf("probe-call: open ok\n");
    close(fd);
  }
  unlink(sock);
  const int l = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un a;
  const int len = unix_addr(sock, &a);
  if (bind(l, (struct sockaddr*)&a, len) != 0 || listen(l, 8) != 0) {
    printf("probe-call: listen error %s\n", strerror(errno));
    return 1;
  }
  const int c = socket(AF_UNIX, SOCK_STREAM, 0);
  if (connect(c, (struct sockaddr*)&a, len) != 0) {
    printf("probe-call: connect error %s\n", strerror(errno));
  } else {
    printf("probe-call: connect ok\n");
  }
  return 0;
}

/* Runs the probe in a process of its own and says whether it completed. */
static void probe(const char* stat_bin, const char* file, const char* sock) {
  const pid_t pid = fork();
  if (pid == 0) {
    execl(stat_bin, stat_bin, "probe-call", file, sock, (char*)NULL);
    printf("probe: exec error %s\n", strerror(errno));
    _exit(127);
  }
  int status = 0;
  if (wait_bounded(pid, kProbeSeconds, &status)) {
    printf("probe: completed (status %d)\n",
           WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return;
  }
  printf("probe: no answer within %d s\n", kProbeSeconds);
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
}

/* --- fifo-create ---------------------------------------------------------- */

static int create_loop(const char* name, int tries) {
  int regular = 0, fifo = 0, other = 0, errors = 0;
  for (int i = 0; i < tries; ++i) {
    const int fd = open(name, O_WRONLY | O_CREAT, 0600);
    if (fd < 0) {
      ++errors;
      continue;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
      ++regular;
    } else if (S_ISFIFO(st.st_mode)) {
      ++fifo;
    } else {
      ++other;
    }
    close(fd);
  }
  printf("create-loop: %d tries: %d regular files, %d FIFOs, %d errors\n",
         tries, regular, fifo, errors);
  return 0;
}

struct swapper {
  const char* name;
  volatile int stop;
  long swaps;
};

static void* swap_in_fifos(void* arg) {
  struct swapper* s = arg;
  while (!s->stop) {
    unlink(s->name);
    if (mkfifo(s->name, 0600) == 0) ++s->swaps;
  }
  return NULL;
}

static int fifo_create(char** a) {
  const char* name = a[0];
  const char* tries = a[1];
  const char* stat_bin = a[2];
  const pid_t opener = fork();
  if (opener == 0) {
    execl(stat_bin, stat_bin, "create-loop", name, tries, (char*)NULL);
    _exit(127);
  }
  struct swapper s = {name, 0, 0};
  pthread_t t;
  pthread_create(&t, NULL, swap_in_fifos, &s);
  int status;
  const int done = wait_bounded(opener, kRaceSeconds, &status);
  s.stop = 1;
  pthread_join(t, NULL);
  printf("fifo-create: %ld FIFOs swapped in; the opener %s\n", s.swaps,
         done ? "finished" : "has not finished");
  if (!done) {
    kill(opener, SIGKILL);
    waitpid(opener, NULL, 0);
  }
  unlink(name);
  probe(stat_bin, a[3], a[4]);
  return 0;
}

/* --- fifo-open ------------------------------------------------------------ */

struct fifo_open {
  const char* name;
  int flags;
  volatile int done;
  int result;
};

static void* open_fifo(void* arg) {
  struct fifo_open* f = arg;
  const int fd = open(f->name, f->flags);
  f->result = fd < 0 ? -errno : 0;
  /* No reader stays: the open for writing that follows finds none. */
  if (fd >= 0) close(fd);
  f->done = 1;
  return NULL;
}

static int fifo_opens(char** a) {
  const char* name = a[0];
  unlink(name);
  if (mkfifo(name, 0600) != 0) {
    printf("fifo-open: mkfifo error %s\n", strerror(errno));
    return 1;
  }
  struct fifo_open o[2] = {{name, O_RDONLY, 0, 0}, {name, O_WRONLY, 0, 0}};
  for (int i = 0; i < 2; ++i) {
    pthread_t t;
    pthread_create(&t, NULL, open_fifo, &o[i]);
    pthread_detach(t);
    const double end = now() + kSettleSeconds;
    while (!o[i].done && now() < end) nap_ms(20);
    if (o[i].done) {
      printf("fifo-open %s: %s\n", i == 0 ? "read" : "write",
             o[i].result == 0 ? "opened" : strerror(-o[i].result));
    } else {
      printf("fifo-open %s: still waiting after %d s\n",
             i == 0 ? "read" : "write", kSettleSeconds);
    }
  }
  probe(a[1], a[2], a[3]);
  return 0;
}

/* --- blocked sockets ------------------------------------------------------ */

struct blocked {
  int kind; /* 0: stream connect, 1: datagram send */
  int sock; /* datagram: the socket to send from */
  struct sockaddr_un addr;
  int len;
};

static volatile int issued, returned;

static void* block_on_socket(void* arg) {
  struct blocked* b = arg;
  __atomic_add_fetch(&issued, 1, __ATOMIC_SEQ_CST);
  if (b->kind == 0) {
    const int c = socket(AF_UNIX, SOCK_STREAM, 0);
    connect(c, (struct sockaddr*)&b->addr, b->len);
  } else {
    sendto(b->sock, "x", 1, 0, (struct sockaddr*)&b->addr, b->len);
  }
  __atomic_add_fetch(&returned, 1, __ATOMIC_SEQ_CST);
  return NULL;
}

static void start_blocked(struct blocked* b, int n) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int started = 0;
  for (int i = 0; i < n; ++i) {
    pthread_t t;
    started += pthread_create(&t, &attr, block_on_socket, b) == 0;
  }
  const double end = now() + kSettleSeconds;
  while (issued < started && now() < end) nap_ms(20);
  /* Every call issued: give the supervisor time to take each of them up
   * (a pool thread per call), so that the probe comes after them. */
  nap_ms(1000);
  printf("%s: %d calls issued, %d returned\n",
         b->kind == 0 ? "stream-backlog" : "dgram-full", issued, returned);
}

static int stream_backlog(char** a) {
  struct blocked b = {0, -1, {0}, 0};
  unlink(a[0]);
  b.len = unix_addr(a[0], &b.addr);
  const int l = socket(AF_UNIX, SOCK_STREAM, 0);
  if (bind(l, (struct sockaddr*)&b.addr, b.len) != 0 || listen(l, 0) != 0) {
    printf("stream-backlog: listen error %s\n", strerror(errno));
    return 1;
  }
  start_blocked(&b, atoi(a[1]));
  probe(a[2], a[3], a[4]);
  _exit(0); /* the blocked threads end with the process */
}

static int dgram_full(char** a) {
  struct blocked b = {1, -1, {0}, 0};
  unlink(a[0]);
  b.len = unix_addr(a[0], &b.addr);
  b.sock = socket(AF_UNIX, SOCK_DGRAM, 0);
  if (bind(b.sock, (struct sockaddr*)&b.addr, b.len) != 0) {
    printf("dgram-full: bind error %s\n", strerror(errno));
    return 1;
  }
  int queued = 0;
  while (queued < 100000 && sendto(b.sock, "x", 1, MSG_DONTWAIT,
                                   (struct sockaddr*)&b.addr, b.len) == 1) {
    ++queued;
  }
  printf("dgram-full: %d datagrams queued, then %s\n", queued, strerror(errno));
  start_blocked(&b, atoi(a[1]));
  probe(a[2], a[3], a[4]);
  _exit(0);
}

/* --- leases --------------------------------------------------------------- */

static volatile sig_atomic_t broken;
static void on_break(int sig) {
  (void)sig;
  broken = 1;
}

struct leased {
  const char* how;
  const char* file;
  volatile int done;
  int result;
};

static void* break_lease(void* arg) {
  struct leased* l = arg;
  long r;
  if (!strcmp(l->how, "open-trunc")) {
    r = open(l->file, O_WRONLY | O_TRUNC);
  } else if (!strcmp(l->how, "truncate")) {
    r = truncate(l->file, 0);
  } else {
    r = open(l->file, O_RDONLY);
  }
  l->result = r < 0 ? -errno : 0;
  l->done = 1;
  return NULL;
}

static int lease(char** a) {
  const char* how = a[0];
  const char* file = a[1];
  const int exec = !strcmp(how, "exec");
  const int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0755);
  const char* text = exec ? "#!/bin/sh\nexit 0\n" : "leased-file\n";
  if (fd < 0 || write(fd, text, strlen(text)) < 0) {
    printf("lease: cannot write the file: %s\n", strerror(errno));
    return 1;
  }
  close(fd);
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_break;
  sigaction(SIGIO, &sa, NULL);
  const int lfd = open(file, O_RDONLY);
  const int type = !strcmp(how, "open-trunc") || !strcmp(how, "truncate")
                       ? F_RDLCK
                       : F_WRLCK;
  if (lfd < 0 || fcntl(lfd, F_SETLEASE, type) != 0) {
    printf("lease: unavailable: %s\n", strerror(errno));
    return 0;
  }
  printf("lease: holding a %s lease\n", type == F_RDLCK ? "read" : "write");
  struct leased l = {how, file, 0, 0};
  pid_t child = -1;
  if (exec) {
    child = fork();
    if (child == 0) {
      execl(file, file, (char*)NULL);
      _exit(127);
    }
  } else {
    pthread_t t;
    pthread_create(&t, NULL, break_lease, &l);
    pthread_detach(t);
  }
  /* The break begins when someone opens (or truncates) the file: the
   * holder is told with SIGIO. Then the probe. */
  const double end = now() + kSettleSeconds;
  while (!broken && !l.done && now() < end) nap_ms(20);
  printf("lease: %s\n", broken ? "the break began" : "no break began");
  probe(a[2], a[3], a[4]);
  if (exec) {
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
  } else {
    printf("lease: the %s %s\n", how,
           l.done ? (l.result == 0 ? "returned" : strerror(-l.result))
                  : "has not returned");
  }
  _exit(0); /* the lease ends with the process */
}

/* --- log-lease ----------------------------------------------------------- */

static volatile int stop_scan, log_fd = -1;

static void* scan_for_log(void* arg) {
  (void)arg;
  while (!stop_scan) {
    for (int fd = 3; fd <= 64 && !stop_scan; ++fd) {
      const int fl = fcntl(fd, F_GETFL);
      if (fl < 0 || (fl & O_ACCMODE) != O_WRONLY || !(fl & O_APPEND)) continue;
      const int mine = fcntl(fd, F_DUPFD_CLOEXEC, 200);
      if (mine < 0) continue;
      const int again = fcntl(mine, F_GETFL);
      if (again >= 0 && (again & O_ACCMODE) == O_WRONLY && (again & O_APPEND)) {
        log_fd = mine;
        stop_scan = 1;
        return NULL;
      }
      close(mine);
    }
  }
  return NULL;
}

static int log_lease(char** a) {
  const char* denied = a[0];
  const int tries = atoi(a[1]);
  pthread_t t;
  pthread_create(&t, NULL, scan_for_log, NULL);
  int refused = 0;
  for (int i = 0; i < tries && !stop_scan; ++i) {
    const int fd = open(denied, O_RDONLY);
    if (fd >= 0) {
      close(fd);
    } else {
      ++refused;
    }
  }
  stop_scan = 1;
  pthread_join(t, NULL);
  printf("log-lease: %d refusals\n", refused);
  if (log_fd < 0) {
    printf("log-lease: never caught the log's descriptor\n");
  } else {
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_break;
    sigaction(SIGIO, &sa, NULL);
    /* Only while no one else has the log open: the shim and the
     * supervisor open it for a moment per record. */
    int r = -1;
    for (int i = 0; i < 1000 && r != 0; ++i) {
      r = fcntl(log_fd, F_SETLEASE, F_WRLCK);
      if (r != 0) nap_ms(1);
    }
    printf("log-lease: write lease on the log: %s\n",
           r == 0 ? "taken" : strerror(errno));
  }
  probe(a[2], a[3], a[4]);
  _exit(0); /* the lease ends with the process */
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  const char* mode = argc > 1 ? argv[1] : "";
  if (argc == 4 && !strcmp(mode, "probe-call"))
    return probe_call(argv[2], argv[3]);
  if (argc == 4 && !strcmp(mode, "create-loop")) {
    return create_loop(argv[2], atoi(argv[3]));
  }
  if (argc == 7 && !strcmp(mode, "fifo-create")) return fifo_create(argv + 2);
  if (argc == 6 && !strcmp(mode, "fifo-open")) return fifo_opens(argv + 2);
  if (argc == 7 && !strcmp(mode, "stream-backlog"))
    return stream_backlog(argv + 2);
  if (argc == 7 && !strcmp(mode, "dgram-full")) return dgram_full(argv + 2);
  if (argc == 7 && !strcmp(mode, "lease")) return lease(argv + 2);
  if (argc == 7 && !strcmp(mode, "log-lease")) return log_lease(argv + 2);
  fprintf(stderr, "%s: unknown mode or arguments\n", argv[0]);
  return 2;
}
