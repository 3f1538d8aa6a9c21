/* posix_spawns cat with file actions opening argv[1] as its stdin, then argv[2]
 * as its stdout; prints each spawn's error. For
 * ShimExec.PosixSpawnFileActionsAreJudgedLikeOpens. */

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>
extern char** environ;
static int run(const char* in, const char* out) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (in) posix_spawn_file_actions_addopen(&fa, 0, in, O_RDONLY, 0);
  if (out)
    posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
  char* argv[] = {"cat", 0};
  pid_t pid;
  int r = posix_spawn(&pid, "/bin/cat", &fa, 0, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (r != 0) return r;
  int status;
  waitpid(pid, &status, 0);
  return 0;
}
int main(int argc, char** argv) {
  fflush(stdout);
  int a = run(argv[1], 0);
  int b = run("ok.txt", argv[2]);
  int c = run("ok.txt", 0);
  fflush(stdout);
  printf("secret=%d outside=%d ok=%d\n", a, b, c);
  return 0;
}
