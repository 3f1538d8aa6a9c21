/* mkstemp, mkostemps, mkdtemp and tmpfile in the workspace and in argv[1], for
 * ShimFiles.TemporaryFilesAreMadeOnlyWhereThePolicyLetsThemBe
 * (shim_files_test.cc). */

#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char** argv) {
  char out[4200], out2[4200], in[4200], dout[4200], din[4200];
  snprintf(out, sizeof(out), "%s/outside-XXXXXX", argv[1]);
  snprintf(out2, sizeof(out2), "%s/outside-XXXXXX.txt", argv[1]);
  snprintf(in, sizeof(in), "inside-XXXXXX");
  snprintf(dout, sizeof(dout), "%s/dir-XXXXXX", argv[1]);
  snprintf(din, sizeof(din), "dir-XXXXXX");
  printf("mkstemp outside %d\n", mkstemp(out) >= 0 ? 0 : errno);
  int fd = mkstemp(in);
  printf("mkstemp inside %d %s\n", fd >= 0 ? 0 : errno,
         strncmp(in, "inside-", 7) == 0 && strcmp(in, "inside-XXXXXX") != 0
             ? "named"
             : "unnamed");
  printf("mkostemps outside %d\n", mkostemps(out2, 4, 0) >= 0 ? 0 : errno);
  printf("mkdtemp outside %s\n", mkdtemp(dout) ? "made" : "refused");
  printf("mkdtemp inside %s\n", mkdtemp(din) ? "made" : "refused");
  printf("tmpfile %s\n", tmpfile() ? "made" : "refused");
  return 0;
}
