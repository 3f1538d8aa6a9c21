/* stat, access, readlink and realpath of denied paths, existing or not, and
 * of outside ones, for
 * ShimFiles.StatOfADeniedPathIsRefusedEvenWhenItDoesNotExist. */

#include "files_prelude.h"

int main(int argc, char** argv) {
  root = argv[1];
  const char* secret = P("secret/key.txt");
  const char* nope = P("secret/nope.txt");
  struct stat st;
  struct statx sx;
  char buf[PATH_MAX];
  show("stat secret", stat(secret, &st));
  show("lstat secret", lstat(secret, &st));
  show("fstatat secret", fstatat(AT_FDCWD, secret, &st, 0));
  show("fstatat secret nofollow",
       fstatat(AT_FDCWD, secret, &st, AT_SYMLINK_NOFOLLOW));
  show("statx secret", statx(AT_FDCWD, secret, 0, STATX_BASIC_STATS, &sx));
  show("access secret F_OK", access(secret, F_OK));
  show("faccessat secret R_OK", faccessat(AT_FDCWD, secret, R_OK, AT_EACCESS));
  show("stat secret dir", stat(P("secret"), &st));
  show("access secret dir", access(P("secret"), F_OK));
  show("readlink secret", readlink(secret, buf, sizeof(buf)));
  show("realpath secret", realpath(secret, buf) ? 0 : -1);
  show("chdir secret dir", chdir(P("secret")));
  show("stat via ws link", stat("link-secret", &st));
  show("stat missing under deny", stat(nope, &st));
  show("lstat missing under deny", lstat(nope, &st));
  show("statx missing under deny",
       statx(AT_FDCWD, nope, 0, STATX_BASIC_STATS, &sx));
  show("access missing under deny", access(nope, F_OK));
  show("readlink missing under deny", readlink(nope, buf, sizeof(buf)));
  show("realpath missing under deny", realpath(nope, buf) ? 0 : -1);
  show("open missing under deny", open(nope, O_RDONLY));
  show("stat deep missing under deny", stat(P("secret/a/b/c"), &st));
  show("stat dotdot missing under deny", stat(P("ws/../secret/a/b"), &st));
  show("stat relative missing under deny", stat("../secret/a/b", &st));
  show("stat via dangling ws link", stat("link-nope", &st));
  show("access via dangling ws link", access("link-nope", F_OK));
  show_fd("open via dangling ws link", open("link-nope", O_RDONLY));
  int d = open(root, O_PATH | O_DIRECTORY);
  show("fstatat dirfd missing under deny",
       fstatat(d, "secret/nope.txt", &st, 0));
  show("stat outside", stat(P("outside.txt"), &st));
  show("lstat outside", lstat(P("outside.txt"), &st));
  show("statx outside",
       statx(AT_FDCWD, P("outside.txt"), 0, STATX_BASIC_STATS, &sx));
  show("access outside F_OK", access(P("outside.txt"), F_OK));
  show("stat root", stat(root, &st));
  show("stat missing outside", stat(P("nope.txt"), &st));
  show("stat ws file", stat("a.txt", &st));
  show("lstat ws link", lstat("link-secret", &st));
  return 0;
}
