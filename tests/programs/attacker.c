/* The seccomp layer's adversary: one program, many escapes, chosen by
 * argv[1]. Built by tests/seccomp_test.cc both static (no shim can load)
 * and dynamic (for raw syscalls next to the shim, and an exec with an empty
 * environment). It prints what happened; the test checks the world. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;

static void show_open(const char* how, long fd) {
  if (fd < 0) {
    printf("%s: error %s\n", how, strerror(errno));
    return;
  }
  char buf[256];
  long n = read((int)fd, buf, sizeof(buf) - 1);
  buf[n > 0 ? n : 0] = '\0';
  printf("%s: read '%s'\n", how, buf);
  close((int)fd);
}

static long asm_openat(const char* path) {
  long ret;
  register long r10 __asm__("r10") = 0;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"((long)SYS_openat), "D"((long)AT_FDCWD), "S"(path),
                     "d"((long)O_RDONLY), "r"(r10)
                   : "rcx", "r11", "memory");
  if (ret < 0) {
    errno = (int)-ret;
    return -1;
  }
  return ret;
}

static char low_path[4096]; /* below 4 GiB in a non-PIE binary */

static long int80_open(const char* path) {
  strncpy(low_path, path, sizeof(low_path) - 1);
  long ret;
  __asm__ volatile("int $0x80"
                   : "=a"(ret)
                   : "a"(5L), "b"((long)(unsigned long)low_path), "c"(0L),
                     "d"(0L)
                   : "memory");
  return ret;
}

struct race {
  const char* link;
  const char* ok;
  const char* secret;
  volatile int stop;
  volatile int swaps;
};

static void* swapper(void* arg) {
  struct race* r = arg;
  char tmp[4200];
  snprintf(tmp, sizeof(tmp), "%s.tmp", r->link);
  for (int i = 0; !r->stop; ++i) {
    unlink(tmp);
    symlink(i % 2 ? r->secret : r->ok, tmp);
    rename(tmp, r->link);
    r->swaps = i + 1;
  }
  return NULL;
}

/* The path an open points at, rewritten in place between an admitted name
 * and another while the open is judged: what the kernel reads again after
 * a verdict. */
struct reread {
  char path[4096];
  const char* ok;
  const char* other;
  volatile int stop;
  volatile int flips;
};

static void* rewriter(void* arg) {
  struct reread* r = arg;
  for (int i = 0; !r->stop; ++i) {
    const char* next = i % 2 ? r->other : r->ok;
    memcpy(r->path, next, strlen(next) + 1);
    r->flips = i + 1;
  }
  return NULL;
}

/* What `rounds` direct read opens of `name` gave: how many opened, how
 * many were refused (EACCES), how many read `marker`. */
struct read_counts {
  int opened, refused, leaked;
};

static struct read_counts read_loop(const char* name, const char* marker,
                                    int rounds) {
  struct read_counts n = {0, 0, 0};
  for (int i = 0; i < rounds; ++i) {
    int fd = (int)syscall(SYS_openat, AT_FDCWD, name, O_RDONLY);
    if (fd < 0) {
      n.refused += errno == EACCES;
      continue;
    }
    ++n.opened;
    char buf[256];
    long got = read(fd, buf, sizeof(buf) - 1);
    buf[got > 0 ? got : 0] = '\0';
    if (strstr(buf, marker)) ++n.leaked;
    close(fd);
  }
  return n;
}

struct storm {
  const char* ok;
  const char* denied;
  int rounds;
  int wrong;
};

static void* storm_thread(void* arg) {
  struct storm* s = arg;
  for (int i = 0; i < s->rounds; ++i) {
    int fd = open(s->ok, O_RDONLY);
    if (fd < 0)
      __atomic_add_fetch(&s->wrong, 1, __ATOMIC_RELAXED);
    else
      close(fd);
    fd = open(s->denied, O_RDONLY);
    if (fd >= 0 || errno != EACCES) {
      __atomic_add_fetch(&s->wrong, 1, __ATOMIC_RELAXED);
      if (fd >= 0) close(fd);
    }
  }
  return NULL;
}

/* The root powers the filter refuses, each tried for real. Arguments that
 * would do harm natively are kept harmless where the call allows (reboot
 * with a bad magic number, kexec with no file). */
static long root_power(const char* name, const char* arg) {
  if (!strcmp(name, "mount")) return mount("none", arg, "tmpfs", 0, NULL);
  if (!strcmp(name, "umount2")) return umount2(arg, MNT_DETACH);
  if (!strcmp(name, "open_tree"))
    return syscall(428, AT_FDCWD, arg, 1 /* OPEN_TREE_CLONE */);
  if (!strcmp(name, "move_mount"))
    return syscall(429, AT_FDCWD, arg, AT_FDCWD, arg, 0);
  if (!strcmp(name, "fsopen")) return syscall(430, "tmpfs", 0);
  if (!strcmp(name, "fsmount")) return syscall(432, 0, 0, 0);
  if (!strcmp(name, "pivot_root")) return syscall(SYS_pivot_root, arg, arg);
  if (!strcmp(name, "chroot")) return chroot(arg);
  if (!strcmp(name, "unshare-mount")) return unshare(CLONE_NEWNS);
  if (!strcmp(name, "unshare-user")) return unshare(CLONE_NEWUSER);
  if (!strcmp(name, "setns")) return setns(0, 0);
  if (!strcmp(name, "clone-mount")) {
    long pid = syscall(SYS_clone, CLONE_NEWNS | SIGCHLD, 0, 0, 0, 0);
    if (pid == 0) _exit(0);
    if (pid > 0) waitpid((pid_t)pid, NULL, 0);
    return pid;
  }
  if (!strcmp(name, "clone3")) {
    unsigned long args[11] = {0};
    args[0] = CLONE_NEWUSER;
    args[4] = SIGCHLD; /* exit_signal */
    long pid = syscall(435, args, sizeof(args));
    if (pid == 0) _exit(0);
    if (pid > 0) waitpid((pid_t)pid, NULL, 0);
    return pid;
  }
  if (!strcmp(name, "init_module"))
    return syscall(SYS_init_module, NULL, 0, "");
  if (!strcmp(name, "finit_module"))
    return syscall(SYS_finit_module, -1, "", 0);
  if (!strcmp(name, "delete_module"))
    return syscall(SYS_delete_module, "klaunch_none", 0);
  if (!strcmp(name, "bpf")) return syscall(SYS_bpf, 0, NULL, 0);
  if (!strcmp(name, "kexec_file_load"))
    return syscall(SYS_kexec_file_load, -1, -1, 0, "", 0);
  if (!strcmp(name, "kexec_load"))
    return syscall(SYS_kexec_load, 0, 0, NULL, 0);
  if (!strcmp(name, "reboot")) return syscall(SYS_reboot, 0, 0, 0, NULL);
  if (!strcmp(name, "mknod")) return mknod(arg, S_IFCHR | 0600, makedev(1, 3));
  if (!strcmp(name, "ptrace-init")) return ptrace(PTRACE_ATTACH, 1, 0, 0);
  if (!strcmp(name, "mount-private")) {
    /* With namespaces and mounts opted in: a mount of its own, elsewhere
     * invisible. */
    if (unshare(CLONE_NEWNS) != 0) return -1;
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return -1;
    return mount("none", arg, "tmpfs", 0, NULL);
  }
  errno = EINVAL;
  return -1;
}

/* Finds the seccomp cookie in the shim's memory the way a hostile program
 * could: every word of the shim's writable mappings that looks random is
 * tried as the tag of an open the policy denies; the one the kernel runs
 * unjudged is the cookie. Returns 0 when none is. */
static unsigned long find_cookie(const char* denied) {
  FILE* maps = fopen("/proc/self/maps", "r");
  if (maps == NULL) return 0;
  char line[512];
  int after_shim = 0;
  unsigned long found = 0;
  while (!found && fgets(line, sizeof(line), maps)) {
    unsigned long lo, hi;
    char perms[8];
    if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3) continue;
    const int shim = strstr(line, "libklaunch-shim") != NULL;
    const int anonymous =
        strchr(line, '/') == NULL && strchr(line, '[') == NULL;
    const int scan = perms[0] == 'r' && perms[1] == 'w' &&
                     (shim || (after_shim && anonymous));
    after_shim = shim;
    if (!scan) continue;
    for (unsigned long* w = (unsigned long*)lo; w < (unsigned long*)hi; ++w) {
      const unsigned long v = *w;
      if ((v >> 48) == 0 || (v >> 48) == 0xffff)
        continue; /* small or a pointer */
      long fd = syscall(SYS_openat, AT_FDCWD, denied, O_RDONLY, 0, 0, v);
      if (fd >= 0) {
        close((int)fd);
        found = v;
        break;
      }
    }
  }
  fclose(maps);
  return found;
}

/* As find_cookie, but each candidate is tried as the tag of an O_PATH open
 * of a file the policy admits: the supervisor cannot hand an O_PATH
 * descriptor back (docs/design.md), so only a call that skipped it gets
 * one. A second way in, for when opening a denied file no longer tells. */
static unsigned long find_cookie_by_opath(const char* admitted) {
  FILE* maps = fopen("/proc/self/maps", "r");
  if (maps == NULL) return 0;
  char line[512];
  int after_shim = 0;
  unsigned long found = 0;
  while (!found && fgets(line, sizeof(line), maps)) {
    unsigned long lo, hi;
    char perms[8];
    if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3) continue;
    const int shim = strstr(line, "libklaunch-shim") != NULL;
    const int anonymous =
        strchr(line, '/') == NULL && strchr(line, '[') == NULL;
    const int scan = perms[0] == 'r' && perms[1] == 'w' &&
                     (shim || (after_shim && anonymous));
    after_shim = shim;
    if (!scan) continue;
    for (unsigned long* w = (unsigned long*)lo; w < (unsigned long*)hi; ++w) {
      const unsigned long v = *w;
      if ((v >> 48) == 0 || (v >> 48) == 0xffff) continue;
      long fd = syscall(SYS_openat, AT_FDCWD, admitted, O_PATH, 0, 0, v);
      if (fd >= 0) {
        close((int)fd);
        found = v;
        break;
      }
    }
  }
  fclose(maps);
  return found;
}

static void tag_say(const char* what, long r) {
  if (r >= 0)
    printf("tag %s: done\n", what);
  else
    printf("tag %s: %s\n", what, strerror(errno));
}

/* tag PROBE OP ARGS...: the cookie found in the shim's memory, then one
 * forbidden operation made of raw calls carrying it, so that neither the
 * shim nor the supervisor sees them (tests/attack_tag_test.cc). */
static int tag_attack(int argc, char** argv) {
  const char* probe = argv[2];
  const char* op = argv[3];
  const char* a = argc > 4 ? argv[4] : "";
  const char* b = argc > 5 ? argv[5] : "";
  const char* how = "denied open";
  unsigned long cookie = find_cookie(probe);
  if (!cookie) {
    how = "O_PATH open";
    cookie = find_cookie_by_opath(".");
  }
  if (!cookie) {
    printf("tag: no cookie found\n");
    return 0;
  }
  printf("tag: found the cookie (probe: %s)\n", how);
  const unsigned long c = cookie;
  if (!strcmp(op, "chmod")) { /* chmod PATH MODE */
    const long mode = strtol(b, NULL, 8);
    tag_say("chmod", syscall(SYS_chmod, a, mode, 0, 0, 0, c));
    tag_say("fchmodat", syscall(SYS_fchmodat, AT_FDCWD, a, mode, 0, 0, c));
    tag_say("fchmodat2",
            syscall(452 /* fchmodat2 */, AT_FDCWD, a, mode, 0, 0, c));
  } else if (!strcmp(op, "chown")) { /* chown PATH UID */
    const long uid = atol(b);
    tag_say("chown", syscall(SYS_chown, a, uid, uid, 0, 0, c));
    tag_say("lchown", syscall(SYS_lchown, a, uid, uid, 0, 0, c));
    tag_say("fchownat", syscall(SYS_fchownat, AT_FDCWD, a, uid, uid, 0, c));
  } else if (!strcmp(op, "utimes")) { /* utimes PATH */
    struct timespec ts[2] = {{1000000000, 0}, {1000000000, 0}};
    struct timeval tv[2] = {{1000000000, 0}, {1000000000, 0}};
    tag_say("utimensat", syscall(SYS_utimensat, AT_FDCWD, a, ts, 0, 0, c));
    tag_say("utimes", syscall(SYS_utimes, a, tv, 0, 0, 0, c));
    tag_say("futimesat", syscall(SYS_futimesat, AT_FDCWD, a, tv, 0, 0, c));
  } else if (!strcmp(op, "setxattr")) { /* setxattr PATH NAME */
    tag_say("setxattr", syscall(SYS_setxattr, a, b, "forged", 6, 0, c));
    tag_say("lsetxattr", syscall(SYS_lsetxattr, a, b, "forged", 6, 0, c));
  } else if (!strcmp(op, "unix")) { /* unix PATH */
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un un = {.sun_family = AF_UNIX};
    strncpy(un.sun_path, a, sizeof(un.sun_path) - 1);
    tag_say("unix connect", syscall(SYS_connect, s, &un, sizeof(un), 0, 0, c));
  } else if (!strcmp(op, "abstract")) { /* abstract NAME */
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un un = {.sun_family = AF_UNIX};
    const size_t n = strnlen(a, sizeof(un.sun_path) - 1);
    memcpy(un.sun_path + 1, a, n);
    tag_say("abstract connect",
            syscall(SYS_connect, s, &un,
                    offsetof(struct sockaddr_un, sun_path) + 1 + n, 0, 0, c));
  } else if (!strcmp(op, "udp")) { /* udp PORT */
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in in = {.sin_family = AF_INET, .sin_port = htons(atoi(a))};
    in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    char data[] = "forged-datagram";
    struct iovec iov = {data, sizeof(data) - 1};
    struct msghdr m = {.msg_name = &in,
                       .msg_namelen = sizeof(in),
                       .msg_iov = &iov,
                       .msg_iovlen = 1};
    tag_say("udp sendmsg", syscall(SYS_sendmsg, s, &m, 0, 0, 0, c));
  } else if (!strcmp(op, "tcp")) { /* tcp ADDRESS PORT */
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in in = {.sin_family = AF_INET, .sin_port = htons(atoi(b))};
    inet_pton(AF_INET, a, &in.sin_addr);
    tag_say("tcp connect", syscall(SYS_connect, s, &in, sizeof(in), 0, 0, c));
  } else if (!strcmp(op, "write")) { /* write PATH TEXT */
    long fd = syscall(SYS_openat, AT_FDCWD, a, O_WRONLY | O_TRUNC, 0, 0, c);
    if (fd >= 0 && write((int)fd, b, strlen(b)) == (long)strlen(b))
      tag_say("write", 0);
    else
      tag_say("write", -1);
  } else if (!strcmp(op, "read")) { /* read PATH */
    long fd = syscall(SYS_openat, AT_FDCWD, a, O_RDONLY, 0, 0, c);
    if (fd < 0) {
      tag_say("read", -1);
    } else {
      char buf[256];
      long n = read((int)fd, buf, sizeof(buf) - 1);
      buf[n > 0 ? n : 0] = '\0';
      printf("tag read: read '%s'\n", buf);
    }
  } else {
    printf("tag: unknown operation %s\n", op);
    return 2;
  }
  return 0;
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc < 2) return 2;
  const char* mode = argv[1];
  const char* arg = argc > 2 ? argv[2] : "";
  if (!strcmp(mode, "read")) {
    show_open("read", open(arg, O_RDONLY));
  } else if (!strcmp(mode, "raw")) {
    show_open("raw", syscall(SYS_openat, AT_FDCWD, arg, O_RDONLY));
  } else if (!strcmp(mode, "asm")) {
    show_open("asm", asm_openat(arg));
  } else if (!strcmp(mode, "openat2")) {
    struct open_how how = {.flags = O_RDONLY};
    show_open("openat2",
              syscall(SYS_openat2, AT_FDCWD, arg, &how, sizeof(how)));
  } else if (!strcmp(mode, "look")) {
    /* Every way of looking at a name without opening it, as raw calls, so
     * the static and the dynamic build make the same ones. */
    struct stat st;
    struct statx sx;
    char link[256];
    long r;
#define LOOK(name, call)                                    \
  do {                                                      \
    r = (call);                                             \
    if (r < 0)                                              \
      printf("look %s: error %s\n", name, strerror(errno)); \
    else                                                    \
      printf("look %s: ok\n", name);                        \
  } while (0)
    LOOK("stat", syscall(SYS_stat, arg, &st));
    LOOK("lstat", syscall(SYS_lstat, arg, &st));
    LOOK("newfstatat", syscall(SYS_newfstatat, AT_FDCWD, arg, &st, 0));
    LOOK("newfstatat-empty-path-flag",
         syscall(SYS_newfstatat, AT_FDCWD, arg, &st, AT_EMPTY_PATH));
    LOOK("statx", syscall(SYS_statx, AT_FDCWD, arg, 0, STATX_SIZE, &sx));
    LOOK("access", syscall(SYS_access, arg, F_OK));
    LOOK("faccessat", syscall(SYS_faccessat, AT_FDCWD, arg, R_OK));
    LOOK("faccessat2", syscall(SYS_faccessat2, AT_FDCWD, arg, F_OK, 0));
    LOOK("readlink", syscall(SYS_readlink, arg, link, sizeof(link)));
    LOOK("readlinkat",
         syscall(SYS_readlinkat, AT_FDCWD, arg, link, sizeof(link)));
#undef LOOK
  } else if (!strcmp(mode, "write")) {
    long fd = open(arg, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0 && write((int)fd, "escaped", 7) == 7)
      printf("write: done\n");
    else
      printf("write: error %s\n", strerror(errno));
  } else if (!strcmp(mode, "exec")) {
    execve(arg, argv + 2, environ);
    printf("exec: error %s\n", strerror(errno));
  } else if (!strcmp(mode, "execveat")) {
    syscall(SYS_execveat, AT_FDCWD, arg, argv + 2, environ, 0);
    printf("execveat: error %s\n", strerror(errno));
  } else if (!strcmp(mode, "noenv")) {
    /* Re-run this program with nothing in its environment: no LD_PRELOAD. */
    /* The raw call: the shim's execve would hand its variables back. */
    char* empty[] = {NULL};
    syscall(SYS_execve, argv[2], argv + 2, empty);
    printf("noenv: error %s\n", strerror(errno));
  } else if (!strcmp(mode, "env")) {
    for (char** e = environ; *e; ++e) printf("env: %s\n", *e);
  } else if (!strcmp(mode, "connect")) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons(atoi(arg))};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(s, (struct sockaddr*)&a, sizeof(a)) == 0)
      printf("connect: done\n");
    else
      printf("connect: error %s\n", strerror(errno));
  } else if (!strcmp(mode, "sendto")) {
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons(atoi(arg))};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (sendto(s, "leak", 4, 0, (struct sockaddr*)&a, sizeof(a)) == 4)
      printf("sendto: done\n");
    else
      printf("sendto: error %s\n", strerror(errno));
  } else if (!strcmp(mode, "uring")) {
    char params[120] = {0};
    long fd = syscall(425 /* io_uring_setup */, 8, params);
    if (fd >= 0)
      printf("uring: AVAILABLE\n");
    else
      printf("uring: error %s\n", strerror(errno));
  } else if (!strcmp(mode, "int80")) {
    long r = int80_open(arg);
    printf("int80: %s\n", r >= 0 ? "OPENED" : strerror((int)-r));
  } else if (!strcmp(mode, "x32")) {
    long r = syscall(0x40000000L | 257, AT_FDCWD, arg, O_RDONLY);
    printf("x32: %s\n", r >= 0 ? "OPENED" : strerror(errno));
  } else if (!strcmp(mode, "race")) {
    struct race r = {argv[2], argv[3], argv[4], 0, 0};
    const char* marker = argv[5];
    int rounds = atoi(argv[6]);
    pthread_t t;
    pthread_create(&t, NULL, swapper, &r);
    while (r.swaps < 10) usleep(100); /* the swapping is under way */
    struct read_counts n = read_loop(r.link, marker, rounds);
    r.stop = 1;
    pthread_join(t, NULL);
    printf("race: opened %d leaked %d\n", n.opened, n.leaked);
  } else if (!strcmp(mode, "opath")) {
    /* opath PATH: an O_PATH open and an fstat of what it gives. */
    long fd = syscall(SYS_openat, AT_FDCWD, argv[2], O_PATH | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
      printf("opath: error %s\n", strerror(errno));
    } else if (fstat((int)fd, &st) != 0) {
      printf("opath: fstat error %s\n", strerror(errno));
    } else {
      printf("opath: size %lld\n", (long long)st.st_size);
    }
  } else if (!strcmp(mode, "reread")) {
    /* reread OK OTHER MARKER ROUNDS: reads through one buffer that a
     * second thread keeps rewriting from OK to OTHER and back. */
    static struct reread r;
    r.ok = argv[2];
    r.other = argv[3];
    snprintf(r.path, sizeof(r.path), "%s", r.ok);
    const char* marker = argv[4];
    int rounds = atoi(argv[5]);
    pthread_t t;
    pthread_create(&t, NULL, rewriter, &r);
    while (r.flips < 10) usleep(100); /* the rewriting is under way */
    struct read_counts n = read_loop(r.path, marker, rounds);
    r.stop = 1;
    pthread_join(t, NULL);
    printf("reread: opened %d refused %d leaked %d\n", n.opened, n.refused,
           n.leaked);
  } else if (!strcmp(mode, "storm")) {
    int procs = atoi(argv[2]), threads = atoi(argv[3]);
    struct storm s = {argv[4], argv[5], atoi(argv[6]), 0};
    for (int p = 0; p < procs; ++p) {
      if (fork() == 0) {
        pthread_t ts[64];
        for (int i = 0; i < threads; ++i)
          pthread_create(&ts[i], NULL, storm_thread, &s);
        for (int i = 0; i < threads; ++i) pthread_join(ts[i], NULL);
        _exit(s.wrong > 0 ? 1 : 0);
      }
    }
    int bad = 0, status;
    while (wait(&status) > 0)
      bad += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    printf("storm: %d processes wrong\n", bad);
  } else if (!strcmp(mode, "query")) {
    long r = syscall(SYS_tuxcall);
    printf("query: %s\n", r == -1 ? strerror(errno) : "GOT A COOKIE");
  } else if (!strcmp(mode, "listener")) {
    struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog prog = {1, &allow};
    long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                      SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
    printf("listener: %s\n", fd >= 0 ? "INSTALLED" : strerror(errno));
  } else if (!strcmp(mode, "ptrace")) {
    long r = ptrace(PTRACE_ATTACH, getppid(), 0, 0);
    printf("ptrace: %s\n", r == 0 ? "ATTACHED" : strerror(errno));
  } else if (!strcmp(mode, "vmwrite")) {
    char src[4] = "abc", dst[4] = "xyz";
    struct iovec l = {src, 4}, r = {dst, 4};
    long n = syscall(SYS_process_vm_writev, getpid(), &l, 1, &r, 1, 0);
    printf("vmwrite: %s\n", n == 4 ? "WRITTEN" : strerror(errno));
  } else if (!strcmp(mode, "personality")) {
    int query = personality(0xffffffff);
    long r = personality(PER_LINUX32);
    printf("personality: query %s, linux32 %s\n", query >= 0 ? "ok" : "failed",
           r == -1 ? strerror(errno) : "CHANGED");
  } else if (!strcmp(mode, "fds")) {
    DIR* d = opendir("/proc/self/fd");
    struct dirent* e;
    while (d && (e = readdir(d))) {
      char p[300], t[300];
      snprintf(p, sizeof(p), "/proc/self/fd/%s", e->d_name);
      long n = readlink(p, t, sizeof(t) - 1);
      if (n > 0) {
        t[n] = 0;
        printf("fd %s: %s\n", e->d_name, t);
      }
    }
  } else if (!strcmp(mode, "root")) {
    /* root NAME [ARG]: one power of root. */
    long r = root_power(arg, argc > 3 ? argv[3] : "");
    printf("%s: %s\n", arg, r >= 0 ? "DONE" : strerror(errno));
  } else if (!strcmp(mode, "forge")) {
    /* forge DENIED OUTSIDE PORT */
    unsigned long cookie = find_cookie(arg);
    if (!cookie) cookie = find_cookie_by_opath(".");
    printf("forge: %s\n", cookie ? "found the cookie" : "no cookie found");
    if (!cookie) return 0;
    long fd = syscall(SYS_openat, AT_FDCWD, argv[3],
                      O_WRONLY | O_CREAT | O_TRUNC, 0644, 0, cookie);
    if (fd >= 0 && write((int)fd, "escaped", 7) == 7)
      printf("forge write: done\n");
    else
      printf("forge write: %s\n", strerror(errno));
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons(atoi(argv[4]))};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (syscall(SYS_connect, s, &a, sizeof(a), 0, 0, cookie) == 0)
      printf("forge connect: done\n");
    else
      printf("forge connect: %s\n", strerror(errno));
    long rfd = syscall(SYS_openat, AT_FDCWD, arg, O_RDONLY, 0, 0, cookie);
    if (rfd >= 0)
      printf("forge read: done\n");
    else
      printf("forge read: %s\n", strerror(errno));
  } else if (!strcmp(mode, "tag") && argc > 3) {
    /* tag PROBE OP ARGS...: class 3 of tests/attack_tag_test.cc. */
    return tag_attack(argc, argv);
  } else if (!strcmp(mode, "abstract")) {
    /* abstract NAME: connect to an abstract Unix socket. */
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strncpy(a.sun_path + 1, arg, sizeof(a.sun_path) - 2);
    socklen_t len = offsetof(struct sockaddr_un, sun_path) + 1 + strlen(arg);
    if (connect(s, (struct sockaddr*)&a, len) == 0)
      printf("abstract: done\n");
    else
      printf("abstract: %s\n", strerror(errno));
  } else if (!strcmp(mode, "signal")) {
    /* signal PID: probe a process outside the sandbox with signal 0. */
    if (kill(atoi(arg), 0) == 0)
      printf("signal: done\n");
    else
      printf("signal: %s\n", strerror(errno));
  } else if (!strcmp(mode, "loop")) {
    for (int i = 0; i < atoi(argv[3]); ++i) {
      int fd = open(arg, O_RDONLY);
      printf("loop: %s\n", fd >= 0 ? "opened" : strerror(errno));
      if (fd >= 0) close(fd);
      usleep(20000);
    }
  } else {
    return 2;
  }
  return 0;
}
