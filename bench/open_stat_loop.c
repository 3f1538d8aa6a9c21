/* N (default 200k) open+close and N stat of one file, printing microseconds
   per call. Used by bench/quick; the full suite of issue 7 will supersede it. */
#include <fcntl.h>
#include <stdlib.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char** argv) {
  const int n = argc > 2 ? atoi(argv[2]) : 200000;
  struct stat st;
  double a = now_us();
  for (int i = 0; i < n; ++i) close(open(argv[1], O_RDONLY));
  double b = now_us();
  for (int i = 0; i < n; ++i) stat(argv[1], &st);
  double c = now_us();
  printf("%.3f %.3f\n", (b - a) / n, (c - b) / n);
  return 0;
}
