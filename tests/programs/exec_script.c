/* Execs the script argv[1] directly, printing the errno of a refused exec, for
 * ShimExec.AScriptWhoseInterpreterLiesOutsideEveryReadableRootIsRefused. */

#include <errno.h>
#include <stdio.h>
#include <unistd.h>
extern char** environ;
int main(int argc, char** argv) {
  char* args[] = {argv[1], NULL};
  execve(argv[1], args, environ);
  printf("errno=%d\n", errno);
  return 3;
}
