/* Runs `touch ARGV2` through the exec entry point argv[1] names (execve ...
 * system, popen) and prints how it ended, for ShimExecFamily and
 * ShimExec.ACommandASystemShellRunsIsJudgedAgainInsideTheShell. */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
extern char** environ;

int main(int argc, char** argv) {
  const char* api = argv[1];
  char* marker = argv[2];
  char* args[] = {"touch", marker, NULL};
  char cmd[4200];
  snprintf(cmd, sizeof(cmd), "touch %s", marker);
  setvbuf(stdout, NULL, _IONBF, 0);
  if (!strcmp(api, "execve")) {
    execve("/usr/bin/touch", args, environ);
  } else if (!strcmp(api, "execv")) {
    execv("/usr/bin/touch", args);
  } else if (!strcmp(api, "execvp")) {
    execvp("touch", args);
  } else if (!strcmp(api, "execvpe")) {
    execvpe("touch", args, environ);
  } else if (!strcmp(api, "execl")) {
    execl("/usr/bin/touch", "touch", marker, (char*)NULL);
  } else if (!strcmp(api, "execle")) {
    execle("/usr/bin/touch", "touch", marker, (char*)NULL, environ);
  } else if (!strcmp(api, "execlp")) {
    execlp("touch", "touch", marker, (char*)NULL);
  } else if (!strcmp(api, "fexecve")) {
    int fd = open("/usr/bin/touch", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      printf("open errno=%d\n", errno);
      return 4;
    }
    fexecve(fd, args, environ);
  } else if (!strcmp(api, "execveat")) {
    int dir = open("/usr/bin", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) {
      printf("open errno=%d\n", errno);
      return 4;
    }
    execveat(dir, "touch", args, environ, 0);
  } else if (!strcmp(api, "execveat-empty-path")) {
    int fd = open("/usr/bin/touch", O_PATH | O_CLOEXEC);
    if (fd < 0) {
      printf("open errno=%d\n", errno);
      return 4;
    }
    execveat(fd, "", args, environ, AT_EMPTY_PATH);
  } else if (!strcmp(api, "posix_spawn") || !strcmp(api, "posix_spawnp")) {
    pid_t pid;
    int rc =
        !strcmp(api, "posix_spawn")
            ? posix_spawn(&pid, "/usr/bin/touch", NULL, NULL, args, environ)
            : posix_spawnp(&pid, "touch", NULL, NULL, args, environ);
    if (rc != 0) {
      printf("errno=%d\n", rc);
      return 3;
    }
    int status;
    waitpid(pid, &status, 0);
    printf("status=%d\n", status);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 5;
  } else if (!strcmp(api, "vfork")) {
    pid_t pid = vfork();
    if (pid == 0) {
      execv("/usr/bin/touch", args);
      _exit(errno == EACCES ? 77 : 78);
    }
    int status;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
      printf("errno=%d\n", EACCES);
      return 3;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 5;
  } else if (!strcmp(api, "system")) {
    int rc = system(cmd);
    printf("system=%d\n", rc);
    return rc == 0 ? 0 : 3;
  } else if (!strcmp(api, "popen")) {
    FILE* f = popen(cmd, "r");
    if (f == NULL) {
      printf("errno=%d\n", errno);
      return 3;
    }
    int rc = pclose(f);
    printf("pclose=%d\n", rc);
    return rc == 0 ? 0 : 3;
  } else {
    printf("unknown api %s\n", api);
    return 6;
  }
  printf("errno=%d\n", errno);
  return 3;
}
