/* stat, open and rename of .env files, existing or not, at several depths, for
 * ShimFiles.ADenyGlobHidesMatchingFilesAtAnyDepthWhetherOrNotTheyExist. */

#include "files_prelude.h"

int main(int argc, char** argv) {
  struct stat st;
  show("stat sub/.env", stat("sub/.env", &st));
  show("stat .env (missing)", stat(".env", &st));
  show("stat sub/deeper/.env (missing)", stat("sub/deeper/.env", &st));
  show_fd("open sub/.env", open("sub/.env", O_RDONLY));
  show_fd("creat .env", open(".env", O_WRONLY | O_CREAT, 0644));
  show("rename onto sub/.env", rename("sub/ok.txt", "sub/.env"));
  show("rename sub/.env away", rename("sub/.env", "sub/env.txt"));
  show("stat sub/ok.txt", stat("sub/ok.txt", &st));
  return 0;
}
