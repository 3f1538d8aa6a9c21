/* The program the exec attacks of tests/attack_race_test.cc try to run.
 * Built static, and copied as `good-prog` (which the policy admits) and
 * `evil-prog` (which it denies). It tells which command it ran as by its
 * own executable (/proc/self/exe, what the kernel ran, whatever argv[0]
 * says) and its arguments: run as a command the policy denies (evil-prog,
 * or any argument starting "evil"), it prints DENIED-COMMAND-RAN, creates
 * DENIED-COMMAND-RAN in its working directory and exits 42; otherwise it
 * exits 0 and says nothing. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  char exe[4096];
  long n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  exe[n > 0 ? n : 0] = '\0';
  const char* base = strrchr(exe, '/');
  base = base ? base + 1 : exe;
  int denied = strncmp(base, "evil", 4) == 0;
  for (int i = 1; i < argc; ++i) denied |= strncmp(argv[i], "evil", 4) == 0;
  if (!denied) return 0;
  printf("DENIED-COMMAND-RAN: %s", exe);
  for (int i = 1; i < argc; ++i) printf(" %s", argv[i]);
  printf("\n");
  fflush(stdout);
  int fd = open("DENIED-COMMAND-RAN", O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd >= 0) {
    (void)write(fd, exe, strlen(exe));
    (void)write(fd, "\n", 1);
    close(fd);
  }
  return 42;
}
