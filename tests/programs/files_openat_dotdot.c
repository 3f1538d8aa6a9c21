/* openat from workspace and ROOT dirfds, and open, with .. and the link ws/up
 * to ROOT, trying to leave the workspace, for
 * ShimFiles.OpenatWithADirfdAndDotDotCannotLeaveTheWorkspace. */

#include "files_prelude.h"

int main(int argc, char** argv) {
  root = argv[1];
  int d = open(P("ws"), O_RDONLY | O_DIRECTORY);
  show("open ws dir", d);
  show_fd("openat a.txt", openat(d, "a.txt", O_RDONLY));
  show_fd("openat dir/inner.txt", openat(d, "dir/inner.txt", O_RDONLY));
  show_fd("openat ../secret/key.txt", openat(d, "../secret/key.txt", O_RDONLY));
  show_fd("openat dir/../../secret/key.txt",
          openat(d, "dir/../../secret/key.txt", O_RDONLY));
  show_fd("openat ../outside.txt", openat(d, "../outside.txt", O_RDONLY));
  show_fd("openat ../outside.txt trunc",
          openat(d, "../outside.txt", O_WRONLY | O_TRUNC));
  show_fd("openat ../made.txt creat",
          openat(d, "../made.txt", O_WRONLY | O_CREAT, 0644));
  show_fd("openat ../secret/made.txt creat",
          openat(d, "../secret/made.txt", O_WRONLY | O_CREAT, 0644));
  show("mkdirat ../made_dir", mkdirat(d, "../made_dir", 0755));
  show("unlinkat ../outside.txt", unlinkat(d, "../outside.txt", 0));
  int dd = open(P("ws/dir"), O_RDONLY | O_DIRECTORY);
  show_fd("openat dir-fd ../../outside.txt",
          openat(dd, "../../outside.txt", O_RDONLY));
  show_fd("openat dir-fd ../a.txt", openat(dd, "../a.txt", O_RDONLY));
  int r = open(root, O_PATH | O_DIRECTORY);
  show("O_PATH root", r);
  show_fd("openat root-fd secret/key.txt",
          openat(r, "secret/key.txt", O_RDONLY));
  show_fd("openat root-fd outside.txt", openat(r, "outside.txt", O_RDONLY));
  show_fd("openat root-fd made2.txt creat",
          openat(r, "made2.txt", O_WRONLY | O_CREAT, 0644));
  show_fd("openat root-fd ws/a.txt", openat(r, "ws/a.txt", O_RDONLY));
  show_fd("open ws/../secret/key.txt",
          open(P("ws/../secret/key.txt"), O_RDONLY));
  show_fd("open ws/dir/../../outside.txt",
          open(P("ws/dir/../../outside.txt"), O_RDONLY));
  show_fd("open ../secret/key.txt", open("../secret/key.txt", O_RDONLY));
  show_fd("open ws/../ws/a.txt", open(P("ws/../ws/a.txt"), O_RDONLY));
  show_fd("open up/secret/key.txt", open("up/secret/key.txt", O_RDONLY));
  show_fd("open up/outside.txt", open("up/outside.txt", O_RDONLY));
  show_fd("open up/made3.txt creat",
          open("up/made3.txt", O_WRONLY | O_CREAT, 0644));
  show_fd("open up/ws/a.txt", open("up/ws/a.txt", O_RDONLY));
  return 0;
}
