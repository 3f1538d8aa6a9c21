/* The parent reads its own /proc/PID/status twice, then its child reads it, for
 * ShimFiles.AChildDoesNotInheritItsParentsProcSelfAsItsOwn. */

#define _GNU_SOURCE
#include <sys/wait.h>

#include "files_prelude.h"

int main(int argc, char** argv) {
  root = argv[1];
  char mine[64];
  snprintf(mine, sizeof(mine), "/proc/%d/status", (int)getpid());
  for (int i = 0; i < 2; ++i)
    show_fd("parent reads its own", open(mine, O_RDONLY));
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    show_fd("child reads the parent's", open(mine, O_RDONLY));
    fflush(stdout);
    _exit(0);
  }
  waitpid(pid, NULL, 0);
  return 0;
}
