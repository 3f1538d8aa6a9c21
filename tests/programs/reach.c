/* A program reaching out of its run: at klaunch (its parent) and at a
 * process outside the run. Built by tests/attack_reach_test.cc static and
 * dynamic as "reach-attack". It prints what it got; the test checks the
 * world (klaunch alive, a victim's record of signals, limits, priorities).
 *
 * TARGET is "parent" (getppid(), read once, while klaunch waits for this
 * program) or a pid the test gave. It never signals a pid below 2, never a
 * process group, never its own: such a target is "no target".
 *
 *   getfd TARGET            pidfd_getfd of descriptors 0..64 of TARGET
 *   proc TARGET             opens /proc/TARGET/{environ,maps,mem,fd/0..64}
 *   signal METHOD TARGET SIG
 *                           SIG is KILL or USR1; METHOD is kill, tgkill,
 *                           rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd
 *                           (pidfd_open), procfd (an fd of /proc/TARGET),
 *                           sigio (F_SETOWN on a pipe, then a write)
 *   prlimit TARGET N        sets TARGET's RLIMIT_NOFILE to N, says so, then
 *                           waits for a line (or EOF) on stdin
 *   nice TARGET             setpriority(PRIO_PROCESS, TARGET, 19)
 *   affinity TARGET         TARGET's CPU mask narrowed to its first CPU
 *   vmread [noptrace]       reads a hex address of its parent on stdin,
 *                           process_vm_readv there, PTRACE_SEIZE (unless
 *                           noptrace), says so, then waits for a line (or
 *                           EOF) on stdin
 *   spread                  kill(-1, SIGUSR1) (only in a pid namespace)
 *   group                   kill(0, SIGUSR1): its process group
 *   victim FILE [SECRET]    outside the run: records each signal it gets in
 *                           FILE, keeps SECRET open, waits forever */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

/* The pid TARGET names, or 0 when it names none this program will touch
 * (getppid() is 0 when the parent is outside the program's pid namespace). */
static pid_t target_of(const char* word) {
  const pid_t pid = !strcmp(word, "parent") ? getppid() : (pid_t)atoi(word);
  return pid < 2 || pid == getpid() ? 0 : pid;
}

/* What descriptor `fd` of this process is, as far as it can tell. */
static void describe(int fd, char* out, size_t size) {
  char link[64], target[512] = "?";
  snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, target, sizeof(target) - 1);
  if (n > 0) target[n] = '\0';
  struct stat st;
  const char* type = "?";
  if (fstat(fd, &st) == 0) {
    type = S_ISREG(st.st_mode)    ? "file"
           : S_ISDIR(st.st_mode)  ? "dir"
           : S_ISFIFO(st.st_mode) ? "fifo"
           : S_ISSOCK(st.st_mode) ? "socket"
           : S_ISCHR(st.st_mode)  ? "chardev"
                                  : "other";
  }
  snprintf(out, size, "%s %s", type, target);
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    char head[65];
    const ssize_t got = pread(fd, head, sizeof(head) - 1, 0);
    if (got > 0) {
      head[got] = '\0';
      for (ssize_t i = 0; i < got; ++i) {
        if (head[i] == '\n' || head[i] == '\0') head[i] = ' ';
      }
      const size_t used = strlen(out);
      snprintf(out + used, size - used, " holding '%s'", head);
    }
  }
}

static void wait_for_line(void) {
  char line[128];
  if (fgets(line, sizeof(line), stdin) == NULL) {
  }
}

static int getfd(pid_t pid) {
  if (pid == 0) {
    printf("getfd: no target\n");
    return 0;
  }
  const int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (pidfd < 0) {
    printf("getfd: pidfd_open %s\n", strerror(errno));
    return 0;
  }
  int got = 0;
  for (int n = 0; n <= 64; ++n) {
    const int fd = (int)syscall(SYS_pidfd_getfd, pidfd, n, 0);
    if (fd < 0) {
      if (errno != EBADF) printf("getfd %d: %s\n", n, strerror(errno));
      continue;
    }
    char what[700];
    describe(fd, what, sizeof(what));
    printf("getfd %d: got %s\n", n, what);
    ++got;
    close(fd);
  }
  printf("getfd: %d descriptor(s) taken\n", got);
  return 0;
}

static int proc(pid_t pid) {
  if (pid == 0) {
    printf("proc: no target\n");
    return 0;
  }
  char path[128];
  unsigned long address = 0;
  snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    printf("proc environ: %s\n", strerror(errno));
  } else {
    static char buf[65536];
    const ssize_t n = read(fd, buf, sizeof(buf) - 1);
    for (ssize_t i = 0; i < n; ++i) {
      if (buf[i] == '\0') buf[i] = '\n';
    }
    buf[n > 0 ? n : 0] = '\0';
    printf("proc environ: opened, read %zd bytes:\n%s\n", n, buf);
    close(fd);
  }
  snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
  fd = open(path, O_RDONLY);
  if (fd < 0) {
    printf("proc maps: %s\n", strerror(errno));
  } else {
    char buf[256];
    const ssize_t n = read(fd, buf, sizeof(buf) - 1);
    buf[n > 0 ? n : 0] = '\0';
    address = strtoul(buf, NULL, 16);
    printf("proc maps: opened, first mapping at %lx\n", address);
    close(fd);
  }
  snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
  fd = open(path, O_RDONLY);
  if (fd < 0) {
    printf("proc mem: %s\n", strerror(errno));
  } else {
    unsigned char buf[16];
    const ssize_t n =
        address != 0 ? pread(fd, buf, sizeof(buf), (off_t)address) : -1;
    if (n > 0) {
      printf("proc mem: opened, read %zd bytes at %lx\n", n, address);
    } else {
      printf("proc mem: opened, no read (%s)\n",
             address != 0 ? strerror(errno) : "no address");
    }
    close(fd);
  }
  int opened = 0;
  for (int n = 0; n <= 64; ++n) {
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, n);
    fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
      if (errno != ENOENT) printf("proc fd/%d: %s\n", n, strerror(errno));
      continue;
    }
    char what[700];
    describe(fd, what, sizeof(what));
    printf("proc fd/%d: opened %s\n", n, what);
    ++opened;
    close(fd);
  }
  printf("proc: %d descriptor(s) opened\n", opened);
  return 0;
}

static int send_by(const char* method, pid_t pid, int sig) {
  if (pid == 0) {
    printf("signal %s: no target\n", method);
    return 0;
  }
  long r = -1;
  siginfo_t si;
  memset(&si, 0, sizeof(si));
  si.si_signo = sig;
  si.si_code = SI_QUEUE;
  si.si_pid = getpid();
  si.si_uid = getuid();
  if (!strcmp(method, "kill")) {
    r = syscall(SYS_kill, pid, sig);
  } else if (!strcmp(method, "tgkill")) {
    r = syscall(SYS_tgkill, pid, pid, sig);
  } else if (!strcmp(method, "rt_sigqueueinfo")) {
    r = syscall(SYS_rt_sigqueueinfo, pid, sig, &si);
  } else if (!strcmp(method, "rt_tgsigqueueinfo")) {
    r = syscall(SYS_rt_tgsigqueueinfo, pid, pid, sig, &si);
  } else if (!strcmp(method, "pidfd")) {
    const int fd = (int)syscall(SYS_pidfd_open, pid, 0);
    r = fd < 0 ? -1 : syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
  } else if (!strcmp(method, "procfd")) {
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d", (int)pid);
    const int fd = open(path, O_RDONLY | O_DIRECTORY);
    r = fd < 0 ? -1 : syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
  } else if (!strcmp(method, "sigio")) {
    int p[2];
    if (pipe(p) == 0 && fcntl(p[0], F_SETOWN, (int)pid) == 0 &&
        fcntl(p[0], F_SETSIG, sig) == 0 &&
        fcntl(p[0], F_SETFL, O_ASYNC | O_NONBLOCK) == 0) {
      r = write(p[1], "x", 1) == 1 ? 0 : -1;
    }
  } else {
    printf("signal: unknown method %s\n", method);
    return 2;
  }
  printf("signal %s: %s\n", method, r == 0 ? "sent" : strerror(errno));
  return 0;
}

static volatile int record_fd = -1;

static void record(int sig, siginfo_t* info, void* ctx) {
  (void)ctx;
  char line[96];
  const int n = snprintf(line, sizeof(line), "signal %d from %d code %d\n", sig,
                         (int)info->si_pid, info->si_code);
  if (write(record_fd, line, n) != n) {
  }
}

static int victim(const char* file, const char* secret) {
  record_fd = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (record_fd < 0) return 3;
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = record;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (int sig = 1; sig < 32; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &sa, NULL);
  }
  if (secret != NULL) {
    /* A few times, so a low and a middling descriptor both hold it. */
    for (int i = 0; i < 3; ++i) {
      if (open(secret, O_RDONLY) < 0) return 3;
    }
  }
  const char ready[] = "ready\n";
  if (write(record_fd, ready, sizeof(ready) - 1) != sizeof(ready) - 1) return 3;
  for (;;) pause();
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc < 2) return 2;
  const char* mode = argv[1];
  if (!strcmp(mode, "victim") && argc >= 3) {
    return victim(argv[2], argc > 3 ? argv[3] : NULL);
  }
  if (!strcmp(mode, "getfd") && argc == 3) return getfd(target_of(argv[2]));
  if (!strcmp(mode, "proc") && argc == 3) return proc(target_of(argv[2]));
  if (!strcmp(mode, "signal") && argc == 5) {
    const int sig = !strcmp(argv[4], "KILL")   ? SIGKILL
                    : !strcmp(argv[4], "USR1") ? SIGUSR1
                                               : 0;
    if (sig == 0) return 2;
    return send_by(argv[2], target_of(argv[3]), sig);
  }
  if (!strcmp(mode, "spread") && argc == 2) {
    /* kill(-1): every process the caller may signal. Run only where the
     * test confines it to a pid namespace of its own. */
    printf("spread: %s\n", kill(-1, SIGUSR1) == 0 ? "sent" : strerror(errno));
    return 0;
  }
  if (!strcmp(mode, "group") && argc == 2) {
    /* kill(0): the caller's process group, which klaunch shares. */
    printf("group: %s\n", kill(0, SIGUSR1) == 0 ? "sent" : strerror(errno));
    return 0;
  }
  if (!strcmp(mode, "prlimit") && argc == 4) {
    const pid_t pid = target_of(argv[2]);
    struct rlimit64 want = {strtoull(argv[3], NULL, 10),
                            strtoull(argv[3], NULL, 10)};
    const long r =
        pid == 0 ? -1 : syscall(SYS_prlimit64, pid, RLIMIT_NOFILE, &want, NULL);
    printf("prlimit: %s\n", pid == 0 ? "no target"
                            : r == 0 ? "set"
                                     : strerror(errno));
    wait_for_line();
    return 0;
  }
  if (!strcmp(mode, "nice") && argc == 3) {
    const pid_t pid = target_of(argv[2]);
    const int r = pid == 0 ? -1 : setpriority(PRIO_PROCESS, (id_t)pid, 19);
    printf("nice: %s\n", pid == 0 ? "no target"
                         : r == 0 ? "set"
                                  : strerror(errno));
    return 0;
  }
  if (!strcmp(mode, "affinity") && argc == 3) {
    const pid_t pid = target_of(argv[2]);
    if (pid == 0) {
      printf("affinity: no target\n");
      return 0;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(pid, sizeof(set), &set) != 0) {
      printf("affinity: get %s\n", strerror(errno));
      return 0;
    }
    cpu_set_t one;
    CPU_ZERO(&one);
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) {
        CPU_SET(cpu, &one);
        break;
      }
    }
    const int r = sched_setaffinity(pid, sizeof(one), &one);
    printf("affinity: %s\n", r == 0 ? "set" : strerror(errno));
    return 0;
  }
  if (!strcmp(mode, "vmread") && (argc == 2 || argc == 3)) {
    /* With a third word ("noptrace"), no ptrace: for a native control run
     * whose parent is the test itself. */
    const pid_t pid = target_of("parent");
    char line[64];
    if (fgets(line, sizeof(line), stdin) == NULL) return 2;
    const unsigned long address = strtoul(line, NULL, 16);
    if (pid == 0) {
      printf("vmread: no target\n");
    } else {
      unsigned char buf[16];
      struct iovec local = {buf, sizeof(buf)};
      struct iovec remote = {(void*)address, sizeof(buf)};
      const long n =
          syscall(SYS_process_vm_readv, pid, &local, 1, &remote, 1, 0);
      if (n > 0)
        printf("vmread: got %ld bytes\n", n);
      else
        printf("vmread: %s\n", strerror(errno));
      if (argc == 2) {
        const long t = ptrace(PTRACE_SEIZE, pid, 0, 0);
        printf("ptrace: %s\n", t == 0 ? "seized" : strerror(errno));
      }
    }
    printf("vmread: done\n");
    wait_for_line();
    return 0;
  }
  printf("reach: bad arguments\n");
  return 2;
}
