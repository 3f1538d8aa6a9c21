/* Reads a.txt twice, swaps it for a link to the denied file and reads again,
 * for ShimFiles.ANameReadBeforeAndThenSwappedForALinkToADeniedFileIsRefused. */

#include "files_prelude.h"

int main(int argc, char** argv) {
  root = argv[1];
  struct stat st;
  for (int i = 0; i < 2; ++i) {
    show_fd("read a.txt", open("a.txt", O_RDONLY));
    show("stat a.txt", stat("a.txt", &st));
    show("lstat a.txt", lstat("a.txt", &st));
  }
  unlink("a.txt");
  symlink(P("secret/key.txt"), "a.txt"); /* natively allowed: ws write */
  show_fd("read swapped", open("a.txt", O_RDONLY));
  show("stat swapped", stat("a.txt", &st));
  return 0;
}
