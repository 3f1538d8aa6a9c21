/* Reads a workspace hard link to the denied file twice, then the denied name,
 * for ShimFiles.AHardLinkReadThroughTheWorkspaceDoesNotOpenItsDeniedName. */

#include "files_prelude.h"

int main(int argc, char** argv) {
  root = argv[1];
  struct stat st;
  for (int i = 0; i < 2; ++i) {
    show_fd("read link", open("link.txt", O_RDONLY));
    show("stat link", stat("link.txt", &st));
  }
  show_fd("read denied name", open(P("secret/key.txt"), O_RDONLY));
  show("stat denied name", stat(P("secret/key.txt"), &st));
  return 0;
}
