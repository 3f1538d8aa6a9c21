/* Prints the descriptors opens and creat return after close(0), for
 * ShimFiles.OpenReturnsTheLowestFreeDescriptorAsNativelyDoes. */

#include "files_prelude.h"

int main(int argc, char** argv) {
  root = argv[1];
  close(0);
  int a = open("/dev/null", O_RDWR); /* the daemon idiom: becomes 0 */
  int b = open("a.txt", O_RDONLY);
  close(b);
  int c = open("a.txt", O_WRONLY | O_APPEND);
  close(c);
  int d = open("new.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  close(d);
  int e = creat("new2.txt", 0644);
  close(e);
  printf("%d %d %d %d %d\n", a, b, c, d, e);
  unlink("new.txt");
  unlink("new2.txt");
  return 0;
}
