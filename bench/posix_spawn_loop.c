/* N (default 1000) posix_spawn of a program (default /bin/true) + wait,
   printing microseconds per round. glibc's posix_spawn is a
   clone(CLONE_VM|CLONE_VFORK) and an execve made inside libc, which no
   LD_PRELOAD library sees: the supervisor alone judges it. */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

extern char** environ;

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1000;
  char* prog = argc > 2 ? argv[2] : "/bin/true";
  char* args[] = {prog, NULL};
  double a = now_us();
  for (int i = 0; i < n; ++i) {
    pid_t pid;
    if (posix_spawn(&pid, prog, NULL, NULL, args, environ) != 0) return 2;
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
      fprintf(stderr, "posix_spawn_loop: %s failed\n", prog);
      return 1;
    }
  }
  printf("%.3f\n", (now_us() - a) / n);
  return 0;
}
