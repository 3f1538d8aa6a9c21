/* Execs /bin/rm named "git" (with an argument, /usr/bin/git named "rm") and
 * prints the errno of a refusal, for
 * ShimExec.ASpoofedArgvZeroDoesNotMakeRmPassAsGit. */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
extern char** environ;
int main(int argc, char** argv) {
  char* args[] = {"git", "status", NULL};
  char* real[] = {"rm", "--version", NULL};
  if (argc > 1) { /* the other way round: git named as rm */
    execve("/usr/bin/git", real, environ);
  } else {
    execve("/bin/rm", args, environ);
  }
  printf("errno=%d\n", errno);
  return 3;
}
