/* A workload for tests/fidelity_test.cc: makes each call its arguments name,
 * in order, whatever the previous ones returned, so that what it does never
 * depends on a refusal. Built static (the seccomp supervisor judges it) and
 * dynamic (the shim does).
 *
 *   toucher OP:ARG... where OP is one of
 *     read:PATH  append:PATH  create:PATH  unlink:PATH  mkdir:PATH
 *     stat:PATH  list:PATH  rename:FROM:TO  connect:PORT (127.0.0.1)
 *     exec:PATH[:ARG]  (fork, execve, wait)
 *
 * Prints "OP ARG: ok" or "OP ARG: error <strerror>" per call. Exits 0. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int do_connect(int port) {
  int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return -1;
  struct sockaddr_in a;
  memset(&a, 0, sizeof(a));
  a.sin_family = AF_INET;
  a.sin_port = htons((unsigned short)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int r = connect(s, (struct sockaddr*)&a, sizeof(a));
  int err = errno;
  close(s);
  errno = err;
  return r;
}

static int do_exec(char* path) {
  char* arg = strchr(path, ':');
  if (arg != NULL) *arg++ = '\0';
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) return -1;
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    char* argv[] = {path, arg, NULL};
    execv(path, argv);
    int err = errno;
    if (write(pipefd[1], &err, sizeof(err)) != sizeof(err)) _exit(126);
    _exit(127);
  }
  close(pipefd[1]);
  int err = 0;
  /* The child's exec error, or nothing once it ran (the pipe closed). */
  long n = read(pipefd[0], &err, sizeof(err));
  close(pipefd[0]);
  waitpid(pid, NULL, 0);
  if (n == sizeof(err)) {
    errno = err;
    return -1;
  }
  return 0;
}

static int do_one(const char* op, char* arg) {
  int fd;
  struct stat st;
  if (!strcmp(op, "read")) {
    fd = open(arg, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) close(fd);
    return fd < 0 ? -1 : 0;
  }
  if (!strcmp(op, "append") || !strcmp(op, "create")) {
    const int flags = !strcmp(op, "append") ? O_WRONLY | O_APPEND
                                             : O_WRONLY | O_CREAT | O_TRUNC;
    fd = open(arg, flags | O_CLOEXEC, 0644);
    if (fd >= 0) close(fd);
    return fd < 0 ? -1 : 0;
  }
  if (!strcmp(op, "unlink")) return unlink(arg);
  if (!strcmp(op, "mkdir")) return mkdir(arg, 0755);
  if (!strcmp(op, "stat")) return stat(arg, &st);
  if (!strcmp(op, "list")) {
    DIR* d = opendir(arg);
    if (d == NULL) return -1;
    closedir(d);
    return 0;
  }
  if (!strcmp(op, "rename")) {
    char* to = strchr(arg, ':');
    if (to == NULL) {
      errno = EINVAL;
      return -1;
    }
    *to++ = '\0';
    return rename(arg, to);
  }
  if (!strcmp(op, "connect")) return do_connect(atoi(arg));
  if (!strcmp(op, "exec")) return do_exec(arg);
  errno = EINVAL;
  return -1;
}

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    char* op = argv[i];
    char* arg = strchr(op, ':');
    if (arg == NULL) {
      printf("%s: error no argument\n", op);
      continue;
    }
    *arg++ = '\0';
    char shown[4096];
    snprintf(shown, sizeof(shown), "%s", arg);
    const int r = do_one(op, arg);
    if (r == 0) {
      printf("%s %s: ok\n", op, shown);
    } else {
      printf("%s %s: error %s\n", op, shown, strerror(errno));
    }
    fflush(stdout);
  }
  return 0;
}
