/* Runs ARGV[1..] with KLAUNCH_PROGRAMS emptied and every other variable
 * kept: built static (no shim to hand the variable back), it is a process
 * inside a program section telling the shim of the program it runs that
 * no section is in force. tests/ask_test.cc. */
#include <string.h>
#include <unistd.h>

extern char** environ;

int main(int argc, char** argv) {
  static char empty[] = "KLAUNCH_PROGRAMS=";
  char* env[512];
  int n = 0;
  for (char** e = environ; *e != NULL && n < 510; ++e) {
    if (strncmp(*e, empty, sizeof(empty) - 1) != 0) env[n++] = *e;
  }
  env[n++] = empty;
  env[n] = NULL;
  if (argc < 2) return 2;
  execve(argv[1], argv + 1, env);
  return 127;
}
