/* Opens, truncates and chmods through workspace links to the denied and the
 * outside file, for
 * ShimFiles.ASymlinkInTheWorkspaceToADeniedFileCannotBeReadOrWritten. */

#include "files_prelude.h"

int main(int argc, char** argv) {
  root = argv[1];
  show_fd("open link-secret rdonly", open("link-secret", O_RDONLY));
  show_fd("open link-secret trunc", open("link-secret", O_WRONLY | O_TRUNC));
  show_fd("open link-secret append", open("link-secret", O_WRONLY | O_APPEND));
  show_fd("open link-secret rdwr", open("link-secret", O_RDWR));
  show_fd("open link-outside trunc", open("link-outside", O_WRONLY | O_TRUNC));
  show_fd("creat link-outside", creat("link-outside", 0644));
  show_file("fopen link-outside w", fopen("link-outside", "w"));
  show("truncate link-outside", truncate("link-outside", 0));
  show("chmod link-outside", chmod("link-outside", 0777));
  show("truncate rel-secret", truncate("rel-secret", 0));
  return 0;
}
