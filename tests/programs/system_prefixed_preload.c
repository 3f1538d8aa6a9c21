/* Sets LD_PRELOAD to the shim's path plus ".x" (a prefix only), then
 * system("cat ARGV1"), for
 * ShimExec.SystemRunsItsShellUnderTheShimWhateverTheProgramDidToLdPreload. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char** argv) {
  char bogus[4200];
  snprintf(bogus, sizeof(bogus), "%s.x", getenv("KLAUNCH_SHIM"));
  setenv("LD_PRELOAD", bogus, 1); /* the shim's path as a prefix only */
  char cmd[4200];
  snprintf(cmd, sizeof(cmd), "cat %s", argv[1]);
  return system(cmd) == 0 ? 0 : 1;
}
