/* N (default 200k) open+close and N stat of one file, printing microseconds
   per call for each. The open and stat paths of bench/run (dynamically
   linked: the shim's path; built -static: the supervisor's path). A failed
   call fails the run, so a refusal is never timed as a fast call. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: open_stat_loop FILE [N]\n");
    return 2;
  }
  const int n = argc > 2 ? atoi(argv[2]) : 200000;
  struct stat st;
  double a = now_us();
  for (int i = 0; i < n; ++i) {
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
      perror("open_stat_loop: open");
      return 1;
    }
    close(fd);
  }
  double b = now_us();
  for (int i = 0; i < n; ++i) {
    if (stat(argv[1], &st) != 0) {
      perror("open_stat_loop: stat");
      return 1;
    }
  }
  double c = now_us();
  printf("%.3f %.3f\n", (b - a) / n, (c - b) / n);
  return 0;
}
