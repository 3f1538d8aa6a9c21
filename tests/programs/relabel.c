/* Runs ARGV[1..] with KLAUNCH_PROGRAMS emptied and every other variable
 * kept: built static (no shim to hand the variable back), it is a process
 * inside a program section telling the shim of the program it runs that
 * no section is in force. With --bare first, KLAUNCH_CGROUP goes too (the
 * run's cgroup, by which the shim finds the sections its process is in).
 * tests/ask_test.cc. */
#include <string.h>
#include <unistd.h>

extern char** environ;

int main(int argc, char** argv) {
  static char empty[] = "KLAUNCH_PROGRAMS=";
  const int bare = argc > 1 && strcmp(argv[1], "--bare") == 0;
  char* env[512];
  int n = 0;
  for (char** e = environ; *e != NULL && n < 510; ++e) {
    if (strncmp(*e, empty, sizeof(empty) - 1) == 0) continue;
    if (bare && strncmp(*e, "KLAUNCH_CGROUP=", 15) == 0) continue;
    env[n++] = *e;
  }
  env[n++] = empty;
  env[n] = NULL;
  if (argc < 2 + bare) return 2;
  execve(argv[1 + bare], argv + 1 + bare, env);
  return 127;
}
