/* Creates through workspace symlinks dangling out of the write roots (and one
 * inside), for
 * ShimFiles.ADanglingSymlinkOutOfTheWriteRootsCannotCreateItsTarget. */

#include "files_prelude.h"

int main(int argc, char** argv) {
  root = argv[1];
  show_fd("open dangling creat", open("dangling", O_WRONLY | O_CREAT, 0644));
  show_fd("open dangling creat trunc",
          open("dangling", O_RDWR | O_CREAT | O_TRUNC, 0644));
  show_fd("creat dangling", creat("dangling", 0644));
  show_file("fopen dangling w", fopen("dangling", "w"));
  show_file("fopen dangling a", fopen("dangling", "a"));
  show_fd("open rel-dangling creat",
          open("rel-dangling", O_WRONLY | O_CREAT, 0644));
  show_fd("open dangling-secret creat",
          open("dangling-secret", O_WRONLY | O_CREAT, 0644));
  show_fd("open chain creat", open("chain", O_WRONLY | O_CREAT, 0644));
  int d = open(".", O_RDONLY | O_DIRECTORY);
  show_fd("openat dangling creat",
          openat(d, "dangling", O_WRONLY | O_CREAT, 0644));
  show_fd("open dangling-inside creat",
          open("dangling-inside", O_WRONLY | O_CREAT, 0644));
  return 0;
}
