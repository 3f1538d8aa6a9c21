/* Class 1 of the attack tests (tests/attack_race_test.cc): a value is
 * judged, then the kernel reads the program's memory again. One thread makes
 * the call over and over while another keeps flipping what the call points
 * at (an address, a msghdr's name, an exec's path or argv) or what a path
 * names on disk. Built both dynamic (the shim judges) and static (the
 * supervisor judges). It counts what it saw and prints one summary line;
 * the test checks the world (a listener, a receiver, a marker).
 *
 * Every attack stops after SECONDS or MAX attempts, whichever comes first,
 * and as soon as it has seen the escape work. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif

extern char** environ;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The attempts budget: SECONDS and MAX from the command line. */
struct budget {
  double until;
  long max;
};

static struct budget budget_from(const char* seconds, const char* max) {
  struct budget b = {now() + atof(seconds), atol(max)};
  return b;
}

static int budget_left(const struct budget* b, long done) {
  return done < b->max && now() < b->until;
}

/* --- the flipper: a thread that keeps storing one of two words ----------- */

struct flipper {
  void* where; /* an aligned 2-, 4- or 8-byte word */
  int size;
  uint64_t a, b;
  volatile int stop;
  volatile long flips;
  pthread_t thread;
};

static void store(void* where, int size, uint64_t v) {
  switch (size) {
    case 2:
      __atomic_store_n((uint16_t*)where, (uint16_t)v, __ATOMIC_RELAXED);
      break;
    case 4:
      __atomic_store_n((uint32_t*)where, (uint32_t)v, __ATOMIC_RELAXED);
      break;
    default:
      __atomic_store_n((uint64_t*)where, v, __ATOMIC_RELAXED);
      break;
  }
}

/* Holds a value for a short random while (none to a microsecond or two),
 * so that across attempts every alignment of the flips with the judge's
 * read and the kernel's comes up, whatever the size of the window. */
static void hold(uint32_t* seed) {
  *seed ^= *seed << 13;
  *seed ^= *seed >> 17;
  *seed ^= *seed << 5;
  for (uint32_t i = *seed % 64; i > 0; --i) __builtin_ia32_pause();
}

static void* flip_loop(void* arg) {
  struct flipper* f = arg;
  uint32_t seed = 2463534242u;
  while (!f->stop) {
    store(f->where, f->size, f->a);
    hold(&seed);
    store(f->where, f->size, f->b);
    hold(&seed);
    f->flips++;
  }
  store(f->where, f->size, f->a);
  return NULL;
}

static void flipper_start(struct flipper* f, void* where, int size, uint64_t a,
                          uint64_t b) {
  f->where = where;
  f->size = size;
  f->a = a;
  f->b = b;
  f->stop = 0;
  f->flips = 0;
  pthread_create(&f->thread, NULL, flip_loop, f);
  while (f->flips < 100) sched_yield(); /* flipping is under way */
}

static void flipper_stop(struct flipper* f) {
  f->stop = 1;
  pthread_join(f->thread, NULL);
}

static uint32_t ip4(const char* text) {
  struct in_addr a;
  if (inet_pton(AF_INET, text, &a) != 1) {
    printf("bad address %s\n", text);
    exit(2);
  }
  return a.s_addr;
}

static void drop(int s, int escaped) {
  if (escaped) {
    /* Closed gently, and late: the listener surely sees it. */
    usleep(300000);
    close(s);
    return;
  }
  /* No TIME_WAIT left behind by thousands of connections. */
  struct linger l = {1, 0};
  setsockopt(s, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
  close(s);
}

/* Where a connected TCP socket's peer is: 1 when it is `forbidden`. */
static int peer_is(int s, uint32_t forbidden_ip, uint16_t port) {
  struct sockaddr_in p;
  socklen_t len = sizeof(p);
  if (getpeername(s, (struct sockaddr*)&p, &len) != 0) return 0;
  return p.sin_addr.s_addr == forbidden_ip && p.sin_port == htons(port);
}

/* --- TCP connect ----------------------------------------------------------
 * connect ALLOWED_IP FORBIDDEN_IP PORT SECONDS MAX: one address buffer, its
 * sin_addr flipping between the two; a new socket per attempt. */
static int attack_connect(char** argv) {
  const uint32_t allowed = ip4(argv[2]), forbidden = ip4(argv[3]);
  const uint16_t port = (uint16_t)atoi(argv[4]);
  struct budget b = budget_from(argv[5], argv[6]);
  static struct sockaddr_in addr __attribute__((aligned(64)));
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = allowed;
  struct flipper f;
  flipper_start(&f, &addr.sin_addr.s_addr, 4, allowed, forbidden);
  long attempts = 0, connected = 0, refused = 0, other = 0, escaped = 0;
  while (budget_left(&b, attempts) && escaped == 0) {
    ++attempts;
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) {
      ++other;
      continue;
    }
    int here = 0;
    if (connect(s, (struct sockaddr*)&addr, sizeof(addr)) == 0) {
      ++connected;
      here = peer_is(s, forbidden, port);
    } else if (errno == EACCES || errno == EPERM) {
      ++refused;
    } else {
      ++other;
    }
    escaped += here;
    drop(s, here);
  }
  flipper_stop(&f);
  printf(
      "connect: attempts %ld connected %ld refused %ld other %ld "
      "reached-forbidden %ld\n",
      attempts, connected, refused, other, escaped);
  return 0;
}

/* --- UDP sendto / sendmsg -------------------------------------------------
 * sendto|sendmsg ALLOWED_PORT FORBIDDEN_PORT SECONDS MAX: 127.0.0.1, the
 * port flipping; one socket. */
static int attack_udp(char** argv, int use_sendmsg) {
  const char* op = use_sendmsg ? "sendmsg" : "sendto";
  const uint16_t allowed = (uint16_t)atoi(argv[2]);
  const uint16_t forbidden = (uint16_t)atoi(argv[3]);
  struct budget b = budget_from(argv[4], argv[5]);
  static struct sockaddr_in addr __attribute__((aligned(64)));
  addr.sin_family = AF_INET;
  addr.sin_port = htons(allowed);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  struct flipper f;
  flipper_start(&f, &addr.sin_port, 2, htons(allowed), htons(forbidden));
  long attempts = 0, sent = 0, refused = 0, other = 0;
  char data[] = "race-datagram";
  while (budget_left(&b, attempts)) {
    ++attempts;
    long r;
    if (use_sendmsg) {
      struct iovec iov = {data, sizeof(data) - 1};
      struct msghdr m;
      memset(&m, 0, sizeof(m));
      m.msg_name = &addr;
      m.msg_namelen = sizeof(addr);
      m.msg_iov = &iov;
      m.msg_iovlen = 1;
      r = sendmsg(s, &m, 0);
    } else {
      r = sendto(s, data, sizeof(data) - 1, 0, (struct sockaddr*)&addr,
                 sizeof(addr));
    }
    if (r >= 0)
      ++sent;
    else if (errno == EACCES || errno == EPERM)
      ++refused;
    else
      ++other;
  }
  flipper_stop(&f);
  printf("%s: attempts %ld sent %ld refused %ld other %ld\n", op, attempts,
         sent, refused, other);
  return 0;
}

/* --- TCP Fast Open --------------------------------------------------------
 * fastopen-msg FORBIDDEN_IP PORT SECONDS MAX: sendmsg(unconnected TCP
 * socket, msg_name NULL, MSG_FASTOPEN) while another thread keeps setting
 * msg_name to the forbidden address and back to NULL.
 * fastopen-sendto ALLOWED_IP FORBIDDEN_IP PORT SECONDS MAX: sendto with
 * MSG_FASTOPEN on an address buffer whose sin_addr flips. */
static int attack_fastopen(char** argv, int use_sendto) {
  const char* op = use_sendto ? "fastopen-sendto" : "fastopen-msg";
  int at = 2;
  const uint32_t allowed = use_sendto ? ip4(argv[at++]) : 0;
  const uint32_t forbidden = ip4(argv[at++]);
  const uint16_t port = (uint16_t)atoi(argv[at++]);
  struct budget b = budget_from(argv[at], argv[at + 1]);
  static struct sockaddr_in addr __attribute__((aligned(64)));
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = use_sendto ? allowed : forbidden;
  char data[] = "fastopen-data";
  struct iovec iov = {data, sizeof(data) - 1};
  static struct msghdr msg __attribute__((aligned(64)));
  memset(&msg, 0, sizeof(msg));
  msg.msg_name = NULL;
  msg.msg_namelen = sizeof(addr); /* the kernel ignores it while name is NULL */
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  struct flipper f;
  if (use_sendto) {
    flipper_start(&f, &addr.sin_addr.s_addr, 4, allowed, forbidden);
  } else {
    flipper_start(&f, &msg.msg_name, 8, 0, (uint64_t)(uintptr_t)&addr);
  }
  long attempts = 0, sent = 0, refused = 0, other = 0, escaped = 0;
  int last_errno = 0;
  while (budget_left(&b, attempts) && escaped == 0) {
    ++attempts;
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) {
      ++other;
      continue;
    }
    int here = 0;
    long r = use_sendto ? sendto(s, data, sizeof(data) - 1,
                                 MSG_FASTOPEN | MSG_NOSIGNAL,
                                 (struct sockaddr*)&addr, sizeof(addr))
                        : sendmsg(s, &msg, MSG_FASTOPEN | MSG_NOSIGNAL);
    if (r >= 0 || errno == EINPROGRESS) {
      ++sent;
      /* Give loopback's handshake a moment, then ask where it went. */
      for (int i = 0; i < 100 && !peer_is(s, forbidden, port); ++i) {
        struct sockaddr_in p;
        socklen_t len = sizeof(p);
        if (getpeername(s, (struct sockaddr*)&p, &len) == 0) break;
        usleep(100);
      }
      here = peer_is(s, forbidden, port);
    } else if (errno == EACCES || errno == EPERM) {
      ++refused;
    } else {
      ++other;
      last_errno = errno;
    }
    escaped += here;
    drop(s, here);
  }
  flipper_stop(&f);
  printf(
      "%s: attempts %ld sent %ld refused %ld other %ld (last: %s) "
      "reached-forbidden %ld\n",
      op, attempts, sent, refused, other,
      last_errno ? strerror(last_errno) : "none", escaped);
  return 0;
}

/* --- exec -----------------------------------------------------------------
 * The strings an exec reads live in a MAP_SHARED page, so that a flipper
 * thread in this process keeps changing them in every forked child too; each
 * attempt is a child that calls execve (through libc: the shim judges it in
 * the dynamic build) and exits 100 when the exec is refused (EACCES,
 * EPERM), 101 when it fails otherwise (a torn path names nothing). The
 * marker program (tests/programs/exec_marker.c) exits 0 when it ran as the
 * allowed command and 42 when it ran as the denied one. */

struct shared {
  char path[1024] __attribute__((aligned(64)));
  char arg[256] __attribute__((aligned(64)));
  char* argv[4];
};

static struct shared* shared_page(void) {
  void* p = mmap(NULL, sizeof(struct shared), PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(2);
  }
  memset(p, 0, sizeof(struct shared));
  return p;
}

struct exec_counts {
  long attempts, allowed_ran, denied_ran, refused, other;
  int last_other;
};

/* One attempt: fork, exec `path` with `args`, wait. */
static void exec_once(const char* path, char* const* args,
                      struct exec_counts* c) {
  ++c->attempts;
  pid_t pid = fork();
  if (pid == 0) {
    execve(path, args, environ);
    _exit(errno == EACCES || errno == EPERM ? 100 : 101);
  }
  if (pid < 0) {
    ++c->other;
    return;
  }
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const int code =
      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  switch (code) {
    case 0:
      ++c->allowed_ran;
      break;
    case 42:
      ++c->denied_ran;
      break;
    case 100:
      ++c->refused;
      break;
    default:
      ++c->other;
      c->last_other = code;
      break;
  }
}

static void exec_report(const char* op, const struct exec_counts* c) {
  printf(
      "%s: attempts %ld allowed-ran %ld denied-ran %ld refused %ld other %ld"
      " (last other exit %d)\n",
      op, c->attempts, c->allowed_ran, c->denied_ran, c->refused, c->other,
      c->last_other);
}

/* A thread that keeps rewriting a string between two of one length, a
 * byte at a time (a torn mix of both names nothing, and fails). */
struct string_flipper {
  volatile char* where;
  const char* a;
  const char* b;
  size_t len;
  volatile int stop;
  volatile long flips;
  pthread_t thread;
};

static void* string_flip_loop(void* arg) {
  struct string_flipper* f = arg;
  uint32_t seed = 2463534242u;
  while (!f->stop) {
    for (size_t i = 0; i < f->len; ++i) f->where[i] = f->a[i];
    hold(&seed);
    for (size_t i = 0; i < f->len; ++i) f->where[i] = f->b[i];
    hold(&seed);
    f->flips++;
  }
  for (size_t i = 0; i < f->len; ++i) f->where[i] = f->a[i];
  return NULL;
}

static void string_flipper_start(struct string_flipper* f, char* where,
                                 const char* a, const char* b) {
  if (strlen(a) != strlen(b)) {
    printf("the two strings must be of one length: %s %s\n", a, b);
    exit(2);
  }
  /* Only the span where they differ is rewritten. */
  size_t first = 0, last = strlen(a);
  while (first < last && a[first] == b[first]) ++first;
  while (last > first && a[last - 1] == b[last - 1]) --last;
  f->where = where + first;
  f->a = a + first;
  f->b = b + first;
  f->len = last - first;
  f->stop = 0;
  f->flips = 0;
  pthread_create(&f->thread, NULL, string_flip_loop, f);
  while (f->flips < 100) sched_yield();
}

static void string_flipper_stop(struct string_flipper* f) {
  f->stop = 1;
  pthread_join(f->thread, NULL);
}

/* exec-path GOOD EVIL SECONDS MAX: the path string flips between two
 * programs of one length. */
static int attack_exec_path(char** argv) {
  const char* good = argv[2];
  const char* evil = argv[3];
  struct budget b = budget_from(argv[4], argv[5]);
  struct shared* sh = shared_page();
  snprintf(sh->path, sizeof(sh->path), "%s", good);
  sh->argv[0] = sh->path;
  sh->argv[1] = NULL;
  struct string_flipper f;
  string_flipper_start(&f, sh->path, good, evil);
  struct exec_counts c = {0};
  while (budget_left(&b, c.attempts) && c.denied_ran == 0) {
    exec_once(sh->path, sh->argv, &c);
  }
  string_flipper_stop(&f);
  exec_report("exec-path", &c);
  return 0;
}

/* exec-argv PROGRAM GOOD_ARG EVIL_ARG SECONDS MAX: argv[1] flips. */
static int attack_exec_argv(char** argv) {
  const char* program = argv[2];
  const char* good = argv[3];
  const char* evil = argv[4];
  struct budget b = budget_from(argv[5], argv[6]);
  struct shared* sh = shared_page();
  snprintf(sh->path, sizeof(sh->path), "%s", program);
  snprintf(sh->arg, sizeof(sh->arg), "%s", good);
  sh->argv[0] = sh->path;
  sh->argv[1] = sh->arg;
  sh->argv[2] = NULL;
  struct string_flipper f;
  string_flipper_start(&f, sh->arg, good, evil);
  struct exec_counts c = {0};
  while (budget_left(&b, c.attempts) && c.denied_ran == 0) {
    exec_once(sh->path, sh->argv, &c);
  }
  string_flipper_stop(&f);
  exec_report("exec-argv", &c);
  return 0;
}

/* --- a name swapped on disk -----------------------------------------------
 * A thread keeps replacing NAME, atomically (rename over it), by a symlink
 * to GOOD and one to EVIL (exec-swap-link), or by a hard link of the file
 * GOOD and one of the file EVIL (exec-swap-file), while the main thread
 * executes NAME. */

struct swapper {
  const char* name;
  const char* good;
  const char* evil;
  int links; /* 1: symlinks, 0: hard links */
  volatile int stop;
  volatile long swaps;
  pthread_t thread;
};

static void* swap_loop(void* arg) {
  struct swapper* s = arg;
  char tmp[4200];
  snprintf(tmp, sizeof(tmp), "%s.swap", s->name);
  for (long i = 0; !s->stop; ++i) {
    const char* to = i % 2 ? s->evil : s->good;
    unlink(tmp);
    if (s->links ? symlink(to, tmp) : link(to, tmp)) continue;
    rename(tmp, s->name);
    s->swaps = i + 1;
  }
  unlink(tmp);
  return NULL;
}

static int attack_exec_swap(char** argv, int links) {
  const char* op = links ? "exec-swap-link" : "exec-swap-file";
  struct swapper s = {argv[2], argv[3], argv[4], links, 0, 0, 0};
  struct budget b = budget_from(argv[5], argv[6]);
  pthread_create(&s.thread, NULL, swap_loop, &s);
  while (s.swaps < 10) sched_yield();
  char* args[] = {(char*)s.name, NULL};
  struct exec_counts c = {0};
  while (budget_left(&b, c.attempts) && c.denied_ran == 0) {
    exec_once(s.name, args, &c);
  }
  s.stop = 1;
  pthread_join(s.thread, NULL);
  exec_report(op, &c);
  printf("%s: swaps %ld\n", op, s.swaps);
  return 0;
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc < 2) return 2;
  const char* mode = argv[1];
  if (!strcmp(mode, "connect") && argc == 7) return attack_connect(argv);
  if (!strcmp(mode, "sendto") && argc == 6) return attack_udp(argv, 0);
  if (!strcmp(mode, "sendmsg") && argc == 6) return attack_udp(argv, 1);
  if (!strcmp(mode, "fastopen-msg") && argc == 6)
    return attack_fastopen(argv, 0);
  if (!strcmp(mode, "fastopen-sendto") && argc == 7)
    return attack_fastopen(argv, 1);
  if (!strcmp(mode, "exec-path") && argc == 6) return attack_exec_path(argv);
  if (!strcmp(mode, "exec-argv") && argc == 7) return attack_exec_argv(argv);
  if (!strcmp(mode, "exec-swap-link") && argc == 7)
    return attack_exec_swap(argv, 1);
  if (!strcmp(mode, "exec-swap-file") && argc == 7)
    return attack_exec_swap(argv, 0);
  printf("race_attacker: unknown mode or wrong arguments: %s\n", mode);
  return 2;
}
