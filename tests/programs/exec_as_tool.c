/* Execs argv[1] as `tool ARGV2`, printing the errno of a refused exec, for
 * ShimExec.AWorkspaceScriptNamedByItsAbsolutePathIsAllowed
 * (shim_exec_test.cc). */

#include <errno.h>
#include <stdio.h>
#include <unistd.h>
extern char** environ;
int main(int argc, char** argv) {
  char* args[] = {"tool", argv[2], NULL};
  execve(argv[1], args, environ);
  printf("errno=%d\n", errno);
  return 3;
}
