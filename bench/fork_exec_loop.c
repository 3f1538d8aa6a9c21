/* N (default 1000) rounds of starting a program (default /bin/true) and
   waiting for it, printing microseconds per round. The exec paths of
   bench/run: fork + execve, or, with a third argument "posix_spawn",
   glibc's posix_spawn, a clone(CLONE_VM|CLONE_VFORK) and an execve made
   inside libc, which no LD_PRELOAD library sees (the supervisor alone
   judges it). */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static pid_t start(char* prog, char** args, int spawn) {
  pid_t pid;
  if (spawn) {
    return posix_spawn(&pid, prog, NULL, NULL, args, environ) == 0 ? pid : -1;
  }
  pid = fork();
  if (pid == 0) {
    execve(prog, args, environ);
    _exit(127);
  }
  return pid;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1000;
  char* prog = argc > 2 ? argv[2] : "/bin/true";
  const int spawn = argc > 3 && strcmp(argv[3], "posix_spawn") == 0;
  char* args[] = {prog, NULL};
  double a = now_us();
  for (int i = 0; i < n; ++i) {
    pid_t pid = start(prog, args, spawn);
    if (pid < 0) return 2;
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
      fprintf(stderr, "fork_exec_loop: %s failed\n", prog);
      return 1;
    }
  }
  printf("%.3f\n", (now_us() - a) / n);
  return 0;
}
