/* Reads and stats the denied file three times, for
 * ShimFiles.AuditModeRecordsARepeatedWouldDenyEveryTime
 * (shim_files_test.cc). */

#include "files_prelude.h"

int main(int argc, char** argv) {
  root = argv[1];
  struct stat st;
  for (int i = 0; i < 3; ++i) {
    show_fd("read", open(P("secret/key.txt"), O_RDONLY));
    show("stat", stat(P("secret/key.txt"), &st));
  }
  return 0;
}
