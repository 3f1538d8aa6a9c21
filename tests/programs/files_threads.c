/* Eight threads open, create and stat allowed, denied and outside files at
 * once; prints the wrong decisions. For
 * ShimFiles.EightThreadsOpeningAtOnceGetEveryDecisionRight. */

#include "files_prelude.h"

static pthread_barrier_t barrier;
static int errors;
static const char *secret, *outside;
static void bad(int t, int i, const char* what) {
  __atomic_fetch_add(&errors, 1, __ATOMIC_SEQ_CST);
  fprintf(stderr, "thread %d iteration %d: %s (errno %d)\n", t, i, what, errno);
}
static void* worker(void* arg) {
  int t = (int)(long)arg;
  char mine[64], outside_new[PATH_MAX], buf[64];
  snprintf(mine, sizeof(mine), "t%d.txt", t);
  pthread_barrier_wait(&barrier);
  for (int i = 0; i < 300; ++i) {
    int fd = open("a.txt", O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
    if (fd < 0 || n != 6 || memcmp(buf, "hello\n", 6) != 0)
      bad(t, i, "ws read");
    if (fd >= 0) close(fd);
    errno = 0;
    fd = open(secret, O_RDONLY);
    if (fd >= 0 || errno != EACCES) bad(t, i, "secret read not refused");
    if (fd >= 0) close(fd);
    errno = 0;
    fd = open(outside, (i & 1) ? O_RDONLY : O_WRONLY | O_TRUNC);
    if (fd >= 0 || errno != EACCES) bad(t, i, "outside open not refused");
    if (fd >= 0) close(fd);
    snprintf(outside_new, sizeof(outside_new), "%s/t%d_%d.txt", root, t, i);
    errno = 0;
    fd = open(outside_new, O_WRONLY | O_CREAT, 0644);
    if (fd >= 0 || errno != EACCES) bad(t, i, "outside create not refused");
    if (fd >= 0) close(fd);
    fd = open(mine, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, "mine\n", 5) != 5) bad(t, i, "ws write");
    if (fd >= 0) close(fd);
    struct stat st;
    errno = 0;
    if (stat(secret, &st) == 0 || errno != EACCES) bad(t, i, "secret stat");
    if (stat(outside, &st) != 0) bad(t, i, "outside stat");
    FILE* f = fopen(secret, "r");
    if (f != NULL) {
      bad(t, i, "secret fopen");
      fclose(f);
    }
  }
  return NULL;
}
int main(int argc, char** argv) {
  root = argv[1];
  secret = P("secret/key.txt");
  outside = P("outside.txt");
  pthread_barrier_init(&barrier, NULL, 8);
  pthread_t th[8];
  for (long t = 0; t < 8; ++t) pthread_create(&th[t], NULL, worker, (void*)t);
  for (int t = 0; t < 8; ++t) pthread_join(th[t], NULL);
  printf("errors=%d\n", errors);
  return 0;
}
