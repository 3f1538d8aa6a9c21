/* A SIGALRM handler opens the denied file argv[1] while main loops on stat, a
 * judgement interrupting another, for
 * ShimFiles.ASignalHandlerInterruptingAJudgementIsJudgedToo. */

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
static const char* secret;
static volatile int runs, leaks;
static void handler(int sig) {
  (void)sig;
  ++runs;
  int fd = open(secret, O_RDONLY);
  if (fd >= 0) {
    ++leaks;
    close(fd);
  }
}
int main(int argc, char** argv) {
  secret = argv[1];
  signal(SIGALRM, handler);
  // Each refusal is a round trip to klaunch (only klaunch writes the log),
  // longer than a tight timer's period: a handler refused every 50 us
  // would run back to back and starve the loop.
  struct itimerval t = {{0, 1000}, {0, 1000}};
  setitimer(ITIMER_REAL, &t, 0);
  struct stat st;
  for (int i = 0; i < 200000 && runs < 2000; ++i) stat("f", &st);
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, 0);
  printf("runs=%d leaks=%d\n", runs > 0, leaks);
  return 0;
}
