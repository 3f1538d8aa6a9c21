/* Every mutating call (unlink, rename, mkdir, chmod, link, utimes, mknod,
 * xattrs...) on the outside and denied files, for
 * ShimFiles.MutationsOutsideTheWriteRootsAreRefusedAndChangeNothing. */

#include "files_prelude.h"

int main(int argc, char** argv) {
  root = argv[1];
  const char* secret = P("secret/key.txt");
  const char* outside = P("outside.txt");
  show("unlink outside", unlink(outside));
  show("unlinkat outside", unlinkat(AT_FDCWD, outside, 0));
  show("remove outside", remove(outside));
  show("unlink secret", unlink(secret));
  show("rename ws->outside", rename("a.txt", P("moved.txt")));
  show("rename outside->ws", rename(outside, "stolen.txt"));
  show("rename secret->ws", rename(secret, "stolen2.txt"));
  show("renameat outside->ws",
       renameat(AT_FDCWD, outside, AT_FDCWD, "stolen3.txt"));
  show("renameat2 exchange",
       renameat2(AT_FDCWD, "a.txt", AT_FDCWD, outside, RENAME_EXCHANGE));
  show("rename ws over outside", rename("a.txt", outside));
  show("mkdir outside", mkdir(P("newdir"), 0755));
  show("mkdir in secret", mkdir(P("secret/newdir"), 0755));
  show("rmdir outside", rmdir(P("emptydir")));
  show("chmod outside", chmod(outside, 0777));
  show("fchmodat outside", fchmodat(AT_FDCWD, outside, 0777, 0));
  show("chown outside", chown(outside, getuid(), getgid()));
  show("lchown outside", lchown(outside, getuid(), getgid()));
  show("truncate outside", truncate(outside, 0));
  show("truncate secret", truncate(secret, 0));
  show("link outside->ws", link(outside, "hard.txt"));
  show("linkat follow outside->ws",
       linkat(AT_FDCWD, outside, AT_FDCWD, "hard2.txt", AT_SYMLINK_FOLLOW));
  show("link secret->ws", link(secret, "hard3.txt"));
  show("link ws->outside", link("a.txt", P("hard4.txt")));
  show("symlink outside", symlink("ws/a.txt", P("newlink")));
  show("symlink in secret", symlink("x", P("secret/newlink")));
  show("symlinkat outside", symlinkat("x", AT_FDCWD, P("newlink2")));
  struct timeval tv[2] = {{1000, 0}, {1000, 0}};
  show("utimes outside", utimes(outside, tv));
  show("utimes null outside", utimes(outside, NULL));
  struct utimbuf ub = {1000, 1000};
  show("utime outside", utime(outside, &ub));
  struct timespec ts[2] = {{1000, 0}, {1000, 0}};
  show("utimensat outside", utimensat(AT_FDCWD, outside, ts, 0));
  show("lutimes outside", lutimes(outside, tv));
  show("mkfifo outside", mkfifo(P("fifo"), 0644));
  show("mknod outside", mknod(P("node"), S_IFREG | 0644, 0));
  show("setxattr outside", setxattr(outside, "user.k", "v", 1, 0));
  show("removexattr outside", removexattr(outside, "user.k"));
  return 0;
}
