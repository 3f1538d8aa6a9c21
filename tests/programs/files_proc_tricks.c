/* Reaches the denied and outside files through /proc/self/root, /proc/PID/root
 * and reopens of /proc/self/fd/N, for
 * ShimFiles.ProcSelfRootAndProcSelfFdReopenTricksAreRefused. */

#include "files_prelude.h"

static char buf[PATH_MAX];
static const char* J(const char* a, const char* b) {
  static char out[8][PATH_MAX];
  static int n;
  char* o = out[n++ % 8];
  snprintf(o, PATH_MAX, "%s%s", a, b);
  return o;
}
int main(int argc, char** argv) {
  root = argv[1];
  const char* secret = P("secret/key.txt");
  const char* outside = P("outside.txt");
  show_fd("open /proc/self/root secret",
          open(J("/proc/self/root", secret), O_RDONLY));
  show_fd("open /proc/thread-self/root secret",
          open(J("/proc/thread-self/root", secret), O_RDONLY));
  snprintf(buf, sizeof(buf), "/proc/%d/root%s", (int)getpid(), secret);
  show_fd("open /proc/PID/root secret", open(buf, O_RDONLY));
  show_fd("open /proc/self/root outside trunc",
          open(J("/proc/self/root", outside), O_WRONLY | O_TRUNC));
  show_fd(
      "open /proc/self/root creat",
      open(J("/proc/self/root", P("proc_made.txt")), O_WRONLY | O_CREAT, 0644));
  show_fd("open /proc/self/cwd/../secret/key.txt",
          open("/proc/self/cwd/../secret/key.txt", O_RDONLY));
  show_fd("O_PATH secret", open(secret, O_PATH));
  int o = open(outside, O_PATH);
  show("O_PATH outside", o);
  char fdp[64];
  snprintf(fdp, sizeof(fdp), "/proc/self/fd/%d", o);
  show_fd("reopen outside rdonly", open(fdp, O_RDONLY));
  show_fd("reopen outside trunc", open(fdp, O_WRONLY | O_TRUNC));
  show_file("fopen reopen outside w", fopen(fdp, "w"));
  show("truncate reopen outside", truncate(fdp, 0));
  show("chmod reopen outside", chmod(fdp, 0777));
  show("linkat reopen outside into ws",
       linkat(AT_FDCWD, fdp, AT_FDCWD, "hard-via-proc", AT_SYMLINK_FOLLOW));
  int r = open(root, O_PATH | O_DIRECTORY);
  show("O_PATH root", r);
  snprintf(buf, sizeof(buf), "/proc/self/fd/%d/secret/key.txt", r);
  show_fd("open root-fd/secret/key.txt", open(buf, O_RDONLY));
  snprintf(buf, sizeof(buf), "/proc/self/fd/%d/proc_made2.txt", r);
  show_fd("creat root-fd/proc_made2.txt", open(buf, O_WRONLY | O_CREAT, 0644));
  snprintf(buf, sizeof(buf), "/proc/self/fd/%d", r);
  DIR* dir = opendir(buf);
  show("opendir root-fd", dir ? 0 : -1);
  if (dir) closedir(dir);
  int w = open("a.txt", O_RDONLY);
  snprintf(buf, sizeof(buf), "/proc/self/fd/%d", w);
  show_fd("reopen ws file", open(buf, O_RDONLY));
  return 0;
}
