/* A thread swaps ws/race between links to a harmless and the denied file while
 * main opens it; prints the leaks. For
 * ShimFiles.ASymlinkSwappedInALoopNeverLeaksOrChangesTheDeniedFile. */

#include "files_prelude.h"

static volatile int stop;
static const char *link_, *tmp_, *harmless, *secret;
static void* swapper(void* arg) {
  (void)arg;
  while (!stop) {
    unlink(tmp_);
    symlink(harmless, tmp_);
    rename(tmp_, link_);
    unlink(tmp_);
    symlink(secret, tmp_);
    rename(tmp_, link_);
  }
  return NULL;
}
int main(int argc, char** argv) {
  root = argv[1];
  link_ = P("ws/race");
  tmp_ = P("ws/race.tmp");
  harmless = P("ws/harmless.txt");
  secret = P("secret/key.txt");
  symlink(harmless, link_);
  pthread_t t;
  pthread_create(&t, NULL, swapper, NULL);
  int leaks = 0, ok = 0, refused = 0, other = 0;
  for (int i = 0; i < 20000; ++i) {
    int fd = open(link_, (i & 1) ? O_RDONLY : O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      if (errno == EACCES)
        ++refused;
      else
        ++other;
      continue;
    }
    char buf[64] = "";
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    if (n > 0) buf[n] = '\0';
    if (strstr(buf, "TOPSECRET"))
      ++leaks;
    else if (strstr(buf, "harmless"))
      ++ok;
    else
      ++other;
    close(fd);
  }
  int wleaks = 0, wok = 0, wrefused = 0;
  for (int i = 0; i < 5000; ++i) {
    int fd = open(link_, O_WRONLY | O_APPEND);
    if (fd < 0) {
      if (errno == EACCES) ++wrefused;
      continue;
    }
    struct stat st;
    fstat(fd, &st);
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    char real[PATH_MAX] = "";
    ssize_t n = readlink(path, real, sizeof(real) - 1);
    if (n > 0) real[n] = '\0';
    if (strstr(real, "secret"))
      ++wleaks;
    else
      ++wok;
    close(fd);
  }
  stop = 1;
  pthread_join(t, NULL);
  printf("leaks=%d\nwrite-leaks=%d\n", leaks, wleaks);
  fprintf(stderr, "ok=%d refused=%d other=%d wok=%d wrefused=%d\n", ok, refused,
          other, wok, wrefused);
  return 0;
}
