/* Spawning through vfork under klaunch (tests/attack_vfork_test.cc).
 *
 *   shared                 a vfork child writes a variable and exits: says
 *                          whether the parent sees it ("shares memory: yes"
 *                          only for a real vfork)
 *   storm N                four threads allocate and free without pause
 *                          while the main thread starts N children, turn
 *                          about through vfork+execve and posix_spawn, of
 *                          /bin/true; says how many exited 0
 *   refused PATH           a vfork child execs PATH; says the errno it got
 *   open FILE              a vfork child opens FILE for reading and reads
 *                          from it, then the parent does; says what each got
 *   mallocs                a vfork child makes refused execs (execve,
 *                          execvp, execl of whoami; build with -rdynamic
 *                          so the shim's allocations meet this program's
 *                          malloc); says how
 *                          many allocations and frees it made meanwhile
 *                          (this program's malloc counts them)
 *   dropenv                a vfork child execs sh with an environment of
 *                          PATH alone; sh says what LD_PRELOAD it got
 *   signal                 a vfork child raises SIGUSR1, whose handler opens
 *                          /dev/null (a judged call, inside the child), then
 *                          execs /bin/true; says whether the handler ran in
 *                          the child and how the child ended
 *
 * The child reports through the memory it shares with its parent, the one
 * thing a vfork child may do besides exec and _exit. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

/* Every allocation of the process, counted while `counting` is set. */
extern void* __libc_malloc(size_t);
extern void* __libc_calloc(size_t, size_t);
extern void* __libc_realloc(void*, size_t);
extern void __libc_free(void*);
static volatile int counting;
static volatile int allocations;
void* malloc(size_t n) {
  if (counting) ++allocations;
  return __libc_malloc(n);
}
void* calloc(size_t a, size_t b) {
  if (counting) ++allocations;
  return __libc_calloc(a, b);
}
void* realloc(void* p, size_t n) {
  if (counting) ++allocations;
  return __libc_realloc(p, n);
}
void free(void* p) {
  if (counting && p != NULL) ++allocations;
  __libc_free(p);
}

static volatile int g_stop;

static void* churn(void* arg) {
  unsigned seed = (unsigned)(unsigned long)arg;
  void* held[64] = {0};
  while (!g_stop) {
    const int slot = rand_r(&seed) % 64;
    free(held[slot]);
    held[slot] = malloc(1 + rand_r(&seed) % 8192);
    if (held[slot] != NULL) memset(held[slot], slot, 16);
  }
  for (int i = 0; i < 64; ++i) free(held[i]);
  return NULL;
}

static int spawn_vfork(const char* path) {
  char* argv[] = {(char*)path, NULL};
  const pid_t pid = vfork();
  if (pid == 0) {
    execve(path, argv, environ);
    _exit(127);
  }
  if (pid < 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int spawn_posix(const char* path) {
  char* argv[] = {(char*)path, NULL};
  pid_t pid;
  if (posix_spawn(&pid, path, NULL, NULL, argv, environ) != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static volatile int g_in_handler_pid;
static volatile int g_handler_fd = -2;

static void on_usr1(int sig) {
  (void)sig;
  g_in_handler_pid = getpid();
  g_handler_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc == 2 && !strcmp(argv[1], "shared")) {
    volatile int seen = 0;
    const pid_t pid = vfork();
    if (pid == 0) {
      seen = 1;
      _exit(0);
    }
    waitpid(pid, NULL, 0);
    printf("shares memory: %s\n", seen ? "yes" : "no");
    return 0;
  }
  if (argc == 3 && !strcmp(argv[1], "storm")) {
    const int n = atoi(argv[2]);
    pthread_t threads[4];
    for (int i = 0; i < 4; ++i) {
      pthread_create(&threads[i], NULL, churn, (void*)(unsigned long)(i + 1));
    }
    int ok = 0;
    for (int i = 0; i < n; ++i) {
      const int r = i % 2 ? spawn_posix("/bin/true") : spawn_vfork("/bin/true");
      if (r == 0)
        ++ok;
      else
        printf("storm: child %d ended %d\n", i, r);
    }
    g_stop = 1;
    for (int i = 0; i < 4; ++i) pthread_join(threads[i], NULL);
    /* The heap is whole: a last round of allocations succeeds. */
    void* p = malloc(1 << 20);
    printf("storm: %d of %d children exited 0, heap %s\n", ok, n,
           p != NULL ? "whole" : "broken");
    free(p);
    return 0;
  }
  if (argc == 3 && !strcmp(argv[1], "refused")) {
    volatile int child_errno = 0;
    char* args[] = {argv[2], NULL};
    const pid_t pid = vfork();
    if (pid == 0) {
      execve(argv[2], args, environ);
      child_errno = errno;
      _exit(126);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    printf("refused: child exit %d, errno %s\n",
           WIFEXITED(status) ? WEXITSTATUS(status) : -1, strerror(child_errno));
    return 0;
  }
  if (argc == 3 && !strcmp(argv[1], "open")) {
    volatile int child_errno = 0;
    volatile long got = -1;
    static char buf[256];
    const pid_t pid = vfork();
    if (pid == 0) {
      const int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        child_errno = errno;
      } else {
        got = read(fd, buf, sizeof(buf) - 1);
        close(fd);
      }
      _exit(0);
    }
    waitpid(pid, NULL, 0);
    if (got >= 0) {
      buf[got] = '\0';
      printf("child open: read \"%s\"\n", buf);
    } else {
      printf("child open: %s\n", strerror(child_errno));
    }
    const int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
    printf("parent open: %s\n", fd >= 0 ? "read it" : strerror(errno));
    return 0;
  }
  if (argc == 2 && !strcmp(argv[1], "mallocs")) {
    volatile int failed = 0;
    const pid_t pid = vfork();
    if (pid == 0) {
      char* args[] = {"whoami", NULL};
      counting = 1;
      /* Names longer than a short string's inline room. */
      const char* longer = "/usr/lib/../bin/../bin/whoami";
      if (execve(longer, args, environ) < 0) ++failed;
      if (execvp("whoami", args) < 0) ++failed;
      if (execl(longer, "whoami", (char*)NULL) < 0) ++failed;
      counting = 0;
      _exit(0);
    }
    waitpid(pid, NULL, 0);
    printf("mallocs: %d execs failed, %d allocations in the child\n", failed,
           allocations);
    return 0;
  }
  if (argc == 2 && !strcmp(argv[1], "dropenv")) {
    char* args[] = {"sh", "-c", "echo \"preload=$LD_PRELOAD\"", NULL};
    char* env[] = {"PATH=/usr/bin:/bin", NULL};
    const pid_t pid = vfork();
    if (pid == 0) {
      execve("/bin/sh", args, env);
      _exit(127);
    }
    waitpid(pid, NULL, 0);
    return 0;
  }
  if (argc == 2 && !strcmp(argv[1], "signal")) {
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    char* args[] = {"/bin/true", NULL};
    const pid_t pid = vfork();
    if (pid == 0) {
      raise(SIGUSR1);
      execve("/bin/true", args, environ);
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    printf("signal: handler ran in the %s, its open %s; child exit %d\n",
           g_in_handler_pid == pid ? "child" : "parent or nowhere",
           g_handler_fd >= 0 ? "worked" : "failed",
           WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    /* Back in the parent: the shim judges here again. */
    const int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    printf("signal: parent open %s\n", fd >= 0 ? "worked" : "failed");
    return 0;
  }
  fprintf(stderr, "vfork_spawn: bad arguments\n");
  return 2;
}
