/* Reads a.txt twice, moves it into the denied tree by a raw system call (unseen
 * by the shim), then reads it there, for
 * ShimFiles.AFileMovedIntoADeniedTreeAfterItWasReadIsRefusedThere. */

#define _GNU_SOURCE
#include <sys/syscall.h>

#include "files_prelude.h"

int main(int argc, char** argv) {
  root = argv[1];
  struct stat st;
  for (int i = 0; i < 2; ++i) {
    show_fd("read a.txt", open("a.txt", O_RDONLY));
    show("stat a.txt", stat("a.txt", &st));
  }
  show("move", syscall(SYS_renameat2, AT_FDCWD, "a.txt", AT_FDCWD,
                       P("secret/moved.txt"), 0));
  show_fd("read moved", open(P("secret/moved.txt"), O_RDONLY));
  show("stat moved", stat(P("secret/moved.txt"), &st));
  return 0;
}
