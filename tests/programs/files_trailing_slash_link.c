/* fchmodat, lchown and lstat of "LINK/" for workspace links out of the roots,
 * for ShimFiles.ATrailingSlashCannotMakeANameCallFollowALinkOutOfTheRoots. */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
int main(void) {
  struct stat st;
  printf("fchmodat %d\n",
         fchmodat(AT_FDCWD, "odlink/", 0700, AT_SYMLINK_NOFOLLOW) == 0 ? 0
                                                                       : errno);
  printf("lchown %d\n", lchown("odlink/", 0, 0) == 0 ? 0 : errno);
  printf("lstat-denied %d\n", lstat("denylink/", &st) == 0 ? 0 : errno);
  printf("lstat-ok %d\n", lstat("odlink/", &st) == 0 ? 0 : errno);
  return 0;
}
