/* Calls on a directory entry named with a trailing slash (mkdir, rmdir,
   unlink, rename, mknod, symlink), in the current directory, printing each
   errno (0 for success). The answers must be the kernel's own: the test
   runs it natively and under klaunch and compares. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHOW(what, call) printf("%s %d\n", what, (call) == 0 ? 0 : errno)

int main(void) {
  SHOW("mkdir d", mkdir("d", 0755));
  SHOW("mkdir d/", mkdir("d/", 0755)); /* git init does this: EEXIST */
  SHOW("mkdir d/e/", mkdir("d/e/", 0755));
  SHOW("mkdir d/e/ again", mkdir("d/e/", 0755));
  SHOW("symlink l", symlink("d", "l"));
  SHOW("mkdir l/", mkdir("l/", 0755));
  SHOW("rmdir l/", rmdir("l/"));
  SHOW("unlink l/", unlink("l/"));
  SHOW("rename d/e/ d/f/", rename("d/e/", "d/f/"));
  SHOW("rename l/ m", rename("l/", "m"));
  SHOW("mknod d/p/", mknod("d/p/", S_IFIFO | 0644, 0));
  SHOW("symlink d/s/", symlink("x", "d/s/"));
  SHOW("unlink d/f/", unlink("d/f/"));
  SHOW("rmdir d/f/", rmdir("d/f/"));
  SHOW("rmdir d/missing/", rmdir("d/missing/"));
  struct stat st;
  printf("d is there %d, l is a link %d\n", stat("d", &st) == 0,
         lstat("l", &st) == 0 && S_ISLNK(st.st_mode));
  return 0;
}
