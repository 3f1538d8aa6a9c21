/* A workload for tests/fidelity_test.cc: makes each call its arguments name,
 * in order, whatever the previous ones returned, so that what it does never
 * depends on a refusal. Built static (the seccomp supervisor judges it) and
 * dynamic (the shim does).
 *
 *   toucher OP:ARG... where OP is one of
 *     read:PATH  append:PATH  create:PATH  unlink:PATH  mkdir:PATH
 *     stat:PATH  list:PATH  rename:FROM:TO  link:FROM:TO
 *     connect:PORT (127.0.0.1)
 *     exec:PATH[:ARG]  (fork, execve, wait)
 *     rawexec:PATH[:ARG]  the same by a direct system call, with
 *       KLAUNCH_PROGRAMS taken out of the environment; rawexec-bare: and
 *       KLAUNCH_CGROUP too
 *     ldexec:PATH[:ARG]  the dynamic loader running PATH
 *     signal:parent  kill(getppid(), 0)
 *     clone3cg:DIR:PATH  clone3 with CLONE_INTO_CGROUP into DIR; the child
 *       creates PATH by a direct system call
 *     rdwr:PATH  (open O_RDWR | O_CREAT)
 *     reread:OK:OTHER  3000 read opens (open(2), a direct system call) of
 *       a name a second thread keeps rewriting from OK to OTHER and back;
 *       prints how many opened and how many read other than OK's bytes
 *     tiocsti:TEXT  tiocsti64:TEXT  (push TEXT and a newline into the
 *       terminal's input with TIOCSTI, the request word plain or with bits
 *       above the 32 the kernel reads)
 *
 * Prints "OP ARG: ok" or "OP ARG: error <strerror>" per call. Exits 0. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

static int do_connect(int port) {
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

/* How do_exec's child runs the program. */
enum how { kLibc, kRaw, kRawBare, kLoader };

static int run_child(enum how how, char* path, char* arg);

static int do_exec(char* path, enum how how) {
  char* arg = strchr(path, ':');
  if (arg != NULL) *arg++ = '\0';
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) return -1;
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    run_child(how, path, arg);
    int err = errno;
    if (write(pipefd[1], &err, sizeof(err)) != sizeof(err)) _exit(126);
    _exit(127);
  }
  close(pipefd[1]);
  int err = 0;
  /* The child's exec error, or nothing once it ran (the pipe closed). */
  long n = read(pipefd[0], &err, sizeof(err));
  close(pipefd[0]);
  waitpid(pid, NULL, 0);
  if (n == sizeof(err)) {
    errno = err;
    return -1;
  }
  return 0;
}

static int run_child(enum how how, char* path, char* arg) {
  if (how == kLibc) {
    char* argv[] = {path, arg, NULL};
    return execv(path, argv);
  }
  if (how == kLoader) {
    char* argv[] = {"/lib64/ld-linux-x86-64.so.2", path, arg, NULL};
    return execv(argv[0], argv);
  }
  /* A program that rewrote its environment and execs without libc. */
  static char* env[512];
  int n = 0;
  for (char** e = environ; *e != NULL && n < 511; ++e) {
    if (!strncmp(*e, "KLAUNCH_PROGRAMS=", 17)) continue;
    if (how == kRawBare && !strncmp(*e, "KLAUNCH_CGROUP=", 15)) continue;
    env[n++] = *e;
  }
  env[n] = NULL;
  char* argv[] = {path, arg, NULL};
  errno = -syscall(SYS_execve, path, argv, env);
  return -1;
}

static int do_clone3_into(char* dir) {
  char* path = strchr(dir, ':');
  if (path == NULL) {
    errno = EINVAL;
    return -1;
  }
  *path++ = '\0';
  int cg = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (cg < 0) return -1;
  struct clone_args args;
  memset(&args, 0, sizeof(args));
  args.flags = CLONE_INTO_CGROUP;
  args.exit_signal = SIGCHLD;
  args.cgroup = (unsigned long long)cg;
  long pid = syscall(SYS_clone3, &args, sizeof(args));
  if (pid < 0) {
    close(cg);
    return -1;
  }
  if (pid == 0) {
    long fd = syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT, 0644);
    _exit(fd < 0 ? (int)-fd : 0);
  }
  close(cg);
  int status = 0;
  waitpid((pid_t)pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    errno = WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
    return -1;
  }
  return 0;
}

/* Pushes `text` and a newline into the controlling terminal's input, as
 * though typed. */
static int do_tiocsti(const char* text, unsigned long high) {
  int fd = open("/dev/tty", O_RDWR | O_CLOEXEC);
  if (fd < 0) return -1;
  size_t n = strlen(text);
  int r = 0;
  for (size_t i = 0; i <= n && r == 0; ++i) {
    char c = i < n ? text[i] : '\n';
    r = (int)syscall(SYS_ioctl, fd, high | (unsigned long)TIOCSTI, &c);
  }
  int err = errno;
  close(fd);
  errno = err;
  return r;
}

struct reread {
  char name[4096];
  const char* ok;
  const char* other;
  volatile int stop;
  volatile int flips;
};

static void* rewrite_name(void* p) {
  struct reread* r = p;
  for (int i = 0; !r->stop; ++i) {
    const char* next = i % 2 ? r->other : r->ok;
    memcpy(r->name, next, strlen(next) + 1);
    r->flips = i + 1;
  }
  return NULL;
}

static int read_all(int fd, char* buf, size_t size) {
  long n = read(fd, buf, size - 1);
  buf[n > 0 ? n : 0] = '\0';
  return (int)(n > 0 ? n : 0);
}

static int do_reread(char* arg) {
  static struct reread r;
  char* other = strchr(arg, ':');
  if (other == NULL) {
    errno = EINVAL;
    return -1;
  }
  *other++ = '\0';
  char want[256];
  int fd = open(arg, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  read_all(fd, want, sizeof(want));
  close(fd);
  r.ok = arg;
  r.other = other;
  snprintf(r.name, sizeof(r.name), "%s", arg);
  pthread_t t;
  if (pthread_create(&t, NULL, rewrite_name, &r) != 0) return -1;
  while (r.flips < 10) usleep(100);
  int opened = 0, leaked = 0, refused = 0;
  for (int i = 0; i < 3000; ++i) {
    fd = (int)syscall(SYS_open, r.name, O_RDONLY);
    if (fd < 0) {
      refused += errno == EACCES;
      continue;
    }
    ++opened;
    char got[256];
    read_all(fd, got, sizeof(got));
    leaked += strcmp(got, want) != 0;
    close(fd);
  }
  r.stop = 1;
  pthread_join(t, NULL);
  printf("reread: opened %d refused %d leaked %d\n", opened, refused, leaked);
  return 0;
}

static int do_one(const char* op, char* arg) {
  int fd;
  struct stat st;
  if (!strcmp(op, "read")) {
    fd = open(arg, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) close(fd);
    return fd < 0 ? -1 : 0;
  }
  if (!strcmp(op, "append") || !strcmp(op, "create")) {
    const int flags = !strcmp(op, "append") ? O_WRONLY | O_APPEND
                                            : O_WRONLY | O_CREAT | O_TRUNC;
    fd = open(arg, flags | O_CLOEXEC, 0644);
    if (fd >= 0) close(fd);
    return fd < 0 ? -1 : 0;
  }
  if (!strcmp(op, "rdwr")) {
    fd = open(arg, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) close(fd);
    return fd < 0 ? -1 : 0;
  }
  if (!strcmp(op, "tiocsti")) return do_tiocsti(arg, 0);
  if (!strcmp(op, "tiocsti64")) return do_tiocsti(arg, 1UL << 32);
  if (!strcmp(op, "unlink")) return unlink(arg);
  if (!strcmp(op, "mkdir")) return mkdir(arg, 0755);
  if (!strcmp(op, "stat")) return stat(arg, &st);
  if (!strcmp(op, "list")) {
    DIR* d = opendir(arg);
    if (d == NULL) return -1;
    closedir(d);
    return 0;
  }
  if (!strcmp(op, "rename")) {
    char* to = strchr(arg, ':');
    if (to == NULL) {
      errno = EINVAL;
      return -1;
    }
    *to++ = '\0';
    return rename(arg, to);
  }
  if (!strcmp(op, "link")) {
    char* to = strchr(arg, ':');
    if (to == NULL) {
      errno = EINVAL;
      return -1;
    }
    *to++ = '\0';
    return link(arg, to);
  }
  if (!strcmp(op, "connect")) return do_connect(atoi(arg));
  if (!strcmp(op, "exec")) return do_exec(arg, kLibc);
  if (!strcmp(op, "rawexec")) return do_exec(arg, kRaw);
  if (!strcmp(op, "rawexec-bare")) return do_exec(arg, kRawBare);
  if (!strcmp(op, "ldexec")) return do_exec(arg, kLoader);
  if (!strcmp(op, "signal")) return kill(getppid(), 0);
  if (!strcmp(op, "clone3cg")) return do_clone3_into(arg);
  if (!strcmp(op, "reread")) return do_reread(arg);
  errno = EINVAL;
  return -1;
}

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    char* op = argv[i];
    char* arg = strchr(op, ':');
    if (arg == NULL) {
      printf("%s: error no argument\n", op);
      continue;
    }
    *arg++ = '\0';
    char shown[4096];
    snprintf(shown, sizeof(shown), "%s", arg);
    const int r = do_one(op, arg);
    if (r == 0) {
      printf("%s %s: ok\n", op, shown);
    } else {
      printf("%s %s: error %s\n", op, shown, strerror(errno));
    }
    fflush(stdout);
  }
  return 0;
}
