/* Failing calls, and successful ones after errno = 1234, printing what each
 * returned; ShimFiles.ErrnoAndReturnValuesMatchNativeBehaviour runs it natively
 * and under the shim and compares. */

#include "files_prelude.h"

static void keep(const char* what, long r) {
  printf("%s: %s errno=%d\n", what, r < 0 ? "-1" : "ok", errno);
}
int main(int argc, char** argv) {
  root = argv[1];
  struct stat st;
  char buf[PATH_MAX];
  show_fd("open missing", open("missing.txt", O_RDONLY));
  show_fd("open nodir/x", open("nodir/x", O_RDONLY));
  show_fd("open nodir/x creat", open("nodir/x", O_WRONLY | O_CREAT, 0644));
  show_fd("open dir wronly", open("dir", O_WRONLY));
  show_fd("open dir rdwr creat", open("dir", O_RDWR | O_CREAT, 0644));
  show_fd("open dir rdonly", open("dir", O_RDONLY));
  show_fd("open a.txt excl", open("a.txt", O_WRONLY | O_CREAT | O_EXCL, 0644));
  show_fd("open link-to-a excl",
          open("link-to-a", O_WRONLY | O_CREAT | O_EXCL, 0644));
  show_fd("open dangling excl",
          open("dangling", O_WRONLY | O_CREAT | O_EXCL, 0644));
  show_fd("open dir excl", open("dir", O_WRONLY | O_CREAT | O_EXCL, 0644));
  show_fd("open a.txt/x", open("a.txt/x", O_RDONLY));
  show_fd("open a.txt/x creat", open("a.txt/x", O_WRONLY | O_CREAT, 0644));
  show_fd("open a.txt directory", open("a.txt", O_RDONLY | O_DIRECTORY));
  show_fd("open link-to-a nofollow", open("link-to-a", O_RDONLY | O_NOFOLLOW));
  show_fd("open link-to-a wr nofollow",
          open("link-to-a", O_WRONLY | O_NOFOLLOW));
  show_fd("open empty", open("", O_RDONLY));
  show_fd("open empty creat", open("", O_WRONLY | O_CREAT, 0644));
  show_fd("open dir/ trailing creat",
          open("newdir/", O_WRONLY | O_CREAT, 0644));
  show_fd("openat bad fd", openat(999, "a.txt", O_RDONLY));
  show_fd("openat bad fd creat",
          openat(999, "x.txt", O_WRONLY | O_CREAT, 0644));
  show_fd("openat file as dirfd",
          openat(open("a.txt", O_RDONLY), "x", O_RDONLY));
  show_file("fopen missing", fopen("missing.txt", "r"));
  show_file("fopen dir w", fopen("dir", "w"));
  show_file("fopen a.txt wx", fopen("a.txt", "wx"));
  show_file("fopen bad mode", fopen("a.txt", "z"));
  show("stat missing", stat("missing.txt", &st));
  show("lstat missing", lstat("missing.txt", &st));
  show("stat dangling", stat("dangling", &st));
  show("lstat dangling", lstat("dangling", &st));
  show("stat a.txt/x", stat("a.txt/x", &st));
  show("access missing", access("missing.txt", F_OK));
  show("access a.txt X_OK", access("a.txt", X_OK));
  show("mkdir dir", mkdir("dir", 0755));
  show("mkdir nodir/x", mkdir("nodir/x", 0755));
  show("rmdir nonempty", rmdir("nonempty"));
  show("rmdir a.txt", rmdir("a.txt"));
  show("rmdir missing", rmdir("missing"));
  show("rmdir .", rmdir("."));
  show("unlink dir", unlink("dir"));
  show("unlink missing", unlink("missing.txt"));
  show("unlink a.txt/", unlink("a.txt/"));
  show("rename missing", rename("missing.txt", "x.txt"));
  show("rename dir into itself", rename("dir", "dir/sub"));
  show("rename a.txt over dir", rename("a.txt", "dir"));
  show("link missing", link("missing.txt", "x.txt"));
  show("link onto existing", link("a.txt", "link-to-a"));
  show("symlink onto existing", symlink("x", "a.txt"));
  show("readlink a.txt", readlink("a.txt", buf, sizeof(buf)));
  show("readlink missing", readlink("missing.txt", buf, sizeof(buf)));
  show("chmod missing", chmod("missing.txt", 0644));
  show("truncate dir", truncate("dir", 0));
  show("truncate missing", truncate("missing.txt", 0));
  show("truncate negative", truncate("a.txt", -1));
  show("chdir missing", chdir("missing"));
  show("chdir a.txt", chdir("a.txt"));
  show("realpath missing", realpath("missing.txt", buf) ? 0 : -1);
  show("opendir missing", opendir("missing") ? 0 : -1);
  show("opendir a.txt", opendir("a.txt") ? 0 : -1);
  /* errno survives successful calls */
  int fd;
  errno = 1234;
  fd = open("a.txt", O_RDONLY);
  keep("open ok", fd);
  close(fd);
  errno = 1234;
  fd = open("new.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  keep("open creat ok", fd);
  close(fd);
  errno = 1234;
  fd = open("new.txt", O_WRONLY | O_TRUNC);
  keep("open trunc ok", fd);
  close(fd);
  errno = 1234;
  FILE* f = fopen("a.txt", "r");
  keep("fopen ok", f ? 0 : -1);
  fclose(f);
  errno = 1234;
  f = fopen("new.txt", "w");
  keep("fopen w ok", f ? 0 : -1);
  fclose(f);
  errno = 1234;
  keep("stat ok", stat("a.txt", &st));
  errno = 1234;
  keep("lstat ok", lstat("link-to-a", &st));
  errno = 1234;
  keep("access ok", access("a.txt", R_OK));
  errno = 1234;
  keep("mkdir ok", mkdir("tmpd", 0755));
  errno = 1234;
  keep("rename ok", rename("new.txt", "tmpd/new.txt"));
  errno = 1234;
  keep("unlink ok", unlink("tmpd/new.txt"));
  errno = 1234;
  keep("rmdir ok", rmdir("tmpd"));
  errno = 1234;
  keep("chmod ok", chmod("a.txt", 0644));
  errno = 1234;
  keep("readlink ok", readlink("link-to-a", buf, sizeof(buf)));
  errno = 1234;
  DIR* d = opendir(".");
  keep("opendir ok", d ? 0 : -1);
  closedir(d);
  errno = 1234;
  keep("realpath ok", realpath("a.txt", buf) ? 0 : -1);
  return 0;
}
