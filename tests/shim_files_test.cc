// The shim against real programs that try to reach files the policy keeps
// from them: cat, sh, python3, coreutils and small C programs, each run with
// the real libklaunch-shim.so preloaded. Every attack checks the refusal (the
// program's own report, the audit log naming the target) and that nothing
// happened: no file created, truncated, renamed, unlinked or changed.
//
// Most tests use kPolicy: the read-only system roots, a writable workspace
// (ROOT/ws), ROOT/secret denied. ROOT itself (a fresh directory under /tmp)
// is then outside every root: not readable, not writable, but stat-able.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "tests/run_process.h"
#include "tests/sandbox.h"

namespace klaunch::testing {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

constexpr char kPython[] = "/usr/bin/python3";
constexpr char kSecret[] = "TOPSECRET-7f3a\n";
constexpr char kOutside[] = "outside-original\n";

constexpr char kPolicy[] =
    "extends = \"read-only\"\n"
    "[filesystem]\n"
    "workspace_writable = true\n"
    "deny = [\"@ROOT@/secret\"]\n";

// The files every test starts from.
struct Files {
  std::string secret;      // ROOT/secret/key.txt, denied
  std::string secret_dir;  // ROOT/secret
  std::string outside;     // ROOT/outside.txt, outside every root
  std::string ws_file;     // ROOT/ws/a.txt
};

Files Populate(const Sandbox& box) {
  Files f;
  f.secret = box.Write("secret/key.txt", kSecret);
  f.secret_dir = box.Path("secret");
  f.outside = box.Write("outside.txt", kOutside);
  f.ws_file = box.Write("ws/a.txt", "hello\n");
  return f;
}

struct stat StatOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
  return st;
}

// Runs a shell command natively (no shim), for setting up symlinks.
void Native(const std::string& command) {
  ProcessResult r = RunProcess({"/bin/sh", "-c", command});
  ASSERT_EQ(r.exit_code, 0) << command << ": " << r.err;
}

std::string Lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// What every C helper starts with: `root` (argv[1]), P(rel) for a path under
// it, and show(), which prints "what: ok" or "what: -1 ERRNO_NAME".
constexpr char kPrelude[] = R"C(
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

static const char* root = "";
static char* P(const char* rel) {
  char* p = malloc(strlen(root) + strlen(rel) + 2);
  sprintf(p, "%s/%s", root, rel);
  return p;
}
static void show(const char* what, long r) {
  int e = errno;
  if (r < 0) printf("%s: -1 %s\n", what, strerrorname_np(e));
  else printf("%s: ok\n", what);
}
static void show_fd(const char* what, int fd) {
  show(what, fd);
  if (fd >= 0) close(fd);
}
static void show_file(const char* what, FILE* f) {
  show(what, f ? 0 : -1);
  if (f) fclose(f);
}
)C";

std::string Program(const Sandbox& box, const std::string& name,
                    const std::string& body,
                    const std::vector<std::string>& flags = {}) {
  return box.CompileC(name, std::string(kPrelude) + body, flags);
}

// --- 1. cat ---------------------------------------------------------------

TEST(ShimFiles, CatOfADeniedFileIsRefusedAndPrintsNothing) {
  Sandbox box(kPolicy);
  const Files f = Populate(box);
  ProcessResult r = box.Run({"/bin/cat", f.secret});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("Permission denied"));
  EXPECT_THAT(box.RefusedTargets(), Contains(f.secret));
  EXPECT_EQ(ReadFile(f.secret), kSecret);
}

TEST(ShimFiles, CatOfAFileOutsideEveryRootIsRefused) {
  Sandbox box(kPolicy);
  const Files f = Populate(box);
  ProcessResult r = box.Run({"/bin/cat", f.outside});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("Permission denied"));
  EXPECT_THAT(box.RefusedTargets(), Contains(f.outside));
}

TEST(ShimFiles, CatOfAWorkspaceFileSucceedsWithoutAnyRefusal) {
  Sandbox box(kPolicy);
  const Files f = Populate(box);
  ProcessResult r = box.Run({"/bin/cat", f.ws_file, "a.txt"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "hello\nhello\n");
  EXPECT_THAT(box.AuditLines(), IsEmpty());
}

// --- 2. python3 -----------------------------------------------------------

TEST(ShimFiles, PythonCreatesListsAndDeletesFilesInsideTheWorkspace) {
  Sandbox box(kPolicy);
  Populate(box);
  const std::string script = R"PY(
import os, sys
ws = sys.argv[1]
p = os.path.join(ws, "py.txt")
with open(p, "w") as f:
    f.write("written by python\n")
with open(p, "a") as f:
    f.write("and appended\n")
print(open(p).read(), end="")
print(sorted(os.listdir(ws)))
os.mkdir(os.path.join(ws, "pydir"))
os.rename(p, os.path.join(ws, "pydir", "moved.txt"))
print(sorted(os.listdir(os.path.join(ws, "pydir"))))
os.remove(os.path.join(ws, "pydir", "moved.txt"))
os.rmdir(os.path.join(ws, "pydir"))
print(sorted(os.listdir(ws)))
)PY";
  ProcessResult r = box.Run({kPython, "-c", script, box.ws()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "written by python\nand appended\n['a.txt', 'py.txt']\n"
            "['moved.txt']\n['a.txt']\n");
  EXPECT_THAT(box.AuditLines(), IsEmpty());
  EXPECT_FALSE(Exists(box.Path("ws/py.txt")));
  EXPECT_FALSE(Exists(box.Path("ws/pydir")));
}

TEST(ShimFiles, PythonCannotReadWriteListOrDeleteOutsideTheWorkspace) {
  Sandbox box(kPolicy);
  const Files f = Populate(box);
  box.Write("emptydir/.keep", "");
  const std::string script = R"PY(
import errno, os, sys
root, outside, secret = sys.argv[1], sys.argv[2], sys.argv[3]
def attempt(label, fn):
    try:
        fn()
        print(label, "DONE")
    except OSError as e:
        print(label, errno.errorcode[e.errno])
attempt("create", lambda: open(os.path.join(root, "py_new.txt"), "w").write("x"))
attempt("overwrite", lambda: open(outside, "w").write("pwned"))
attempt("append", lambda: open(outside, "a").write("pwned"))
attempt("read", lambda: open(outside).read())
attempt("read-secret", lambda: print(open(secret).read()))
attempt("list", lambda: print(os.listdir(root)))
attempt("list-secret", lambda: print(os.listdir(os.path.dirname(secret))))
attempt("remove", lambda: os.remove(outside))
attempt("remove-secret", lambda: os.remove(secret))
attempt("mkdir", lambda: os.mkdir(os.path.join(root, "py_dir")))
attempt("rmtree-file", lambda: os.remove(os.path.join(root, "emptydir", ".keep")))
attempt("rename-out", lambda: os.rename("a.txt", os.path.join(root, "moved.txt")))
)PY";
  ProcessResult r = box.Run({kPython, "-c", script, box.root(), f.outside,
                             f.secret});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "create EACCES\noverwrite EACCES\nappend EACCES\nread EACCES\n"
            "read-secret EACCES\nlist EACCES\nlist-secret EACCES\n"
            "remove EACCES\nremove-secret EACCES\nmkdir EACCES\n"
            "rmtree-file EACCES\nrename-out EACCES\n");
  EXPECT_THAT(r.out, Not(HasSubstr("TOPSECRET")));
  const std::vector<std::string> refused = box.RefusedTargets();
  EXPECT_THAT(refused, Contains(box.Path("py_new.txt")));
  EXPECT_THAT(refused, Contains(f.outside));
  EXPECT_THAT(refused, Contains(f.secret));
  EXPECT_THAT(refused, Contains(box.root()));
  EXPECT_THAT(refused, Contains(f.secret_dir));
  EXPECT_THAT(refused, Contains(box.Path("py_dir")));
  // Nothing happened.
  EXPECT_FALSE(Exists(box.Path("py_new.txt")));
  EXPECT_FALSE(Exists(box.Path("py_dir")));
  EXPECT_FALSE(Exists(box.Path("moved.txt")));
  EXPECT_TRUE(Exists(box.Path("emptydir/.keep")));
  EXPECT_EQ(ReadFile(f.outside), kOutside);
  EXPECT_EQ(ReadFile(f.secret), kSecret);
  EXPECT_EQ(ReadFile(f.ws_file), "hello\n");
}

// --- 3. fopen ---------------------------------------------------------------

TEST(ShimFiles, FopenOfADeniedPathIsRefusedAndFopenForWritingOutsideCreatesNothing) {
  Sandbox box(kPolicy);
  const Files f = Populate(box);
  const std::string prog = Program(box, "fopen", R"C(
int main(int argc, char** argv) {
  root = argv[1];
  const char* secret = P("secret/key.txt");
  const char* outside = P("outside.txt");
  show_file("fopen r secret", fopen(secret, "r"));
  show_file("fopen re secret", fopen(secret, "re"));
  show_file("fopen rb secret", fopen(secret, "rb"));
  show_file("fopen r+ secret", fopen(secret, "r+"));
  show_file("fopen ccs secret", fopen(secret, "r,ccs=UTF-8"));
  show_file("fopen64 r secret", fopen64(secret, "r"));
  show_file("fopen r outside", fopen(outside, "r"));
  show_file("fopen w new outside", fopen(P("fopen_w.txt"), "w"));
  show_file("fopen a new outside", fopen(P("fopen_a.txt"), "a"));
  show_file("fopen wx new outside", fopen(P("fopen_wx.txt"), "wx"));
  show_file("fopen w+ new outside", fopen(P("fopen_wplus.txt"), "w+"));
  show_file("fopen w outside", fopen(outside, "w"));
  show_file("fopen a outside", fopen(outside, "a"));
  show_file("fopen w secret", fopen(secret, "w"));
  show_file("fopen w new in secret", fopen(P("secret/new.txt"), "w"));
  FILE* s = fopen("a.txt", "r");
  show("freopen secret", freopen(secret, "r", s) ? 0 : -1);
  FILE* g = fopen("a.txt", "r");
  char line[64] = "";
  if (g && fgets(line, sizeof(line), g)) printf("ws read: %s", line);
  if (g) fclose(g);
  FILE* w = fopen("written.txt", "w");
  show("fopen w ws", w ? 0 : -1);
  if (w) { fputs("via stdio\n", w); fclose(w); }
  return 0;
}
)C");
  ProcessResult r = box.Run({prog, box.root()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, Lines({"fopen r secret: -1 EACCES",
                          "fopen re secret: -1 EACCES",
                          "fopen rb secret: -1 EACCES",
                          "fopen r+ secret: -1 EACCES",
                          "fopen ccs secret: -1 EACCES",
                          "fopen64 r secret: -1 EACCES",
                          "fopen r outside: -1 EACCES",
                          "fopen w new outside: -1 EACCES",
                          "fopen a new outside: -1 EACCES",
                          "fopen wx new outside: -1 EACCES",
                          "fopen w+ new outside: -1 EACCES",
                          "fopen w outside: -1 EACCES",
                          "fopen a outside: -1 EACCES",
                          "fopen w secret: -1 EACCES",
                          "fopen w new in secret: -1 EACCES",
                          "freopen secret: -1 EACCES",
                          "ws read: hello",
                          "fopen w ws: ok"}));
  const std::vector<std::string> refused = box.RefusedTargets();
  EXPECT_THAT(refused, Contains(f.secret));
  EXPECT_THAT(refused, Contains(f.outside));
  EXPECT_THAT(refused, Contains(box.Path("fopen_w.txt")));
  EXPECT_THAT(refused, Contains(box.Path("secret/new.txt")));
  for (const char* name : {"fopen_w.txt", "fopen_a.txt", "fopen_wx.txt",
                           "fopen_wplus.txt", "secret/new.txt"}) {
    EXPECT_FALSE(Exists(box.Path(name))) << name << " was created";
  }
  EXPECT_EQ(ReadFile(f.outside), kOutside);
  EXPECT_EQ(ReadFile(f.secret), kSecret);
  EXPECT_EQ(ReadFile(box.Path("ws/written.txt")), "via stdio\n");
}

// --- 4. dirfds and .. --------------------------------------------------------

TEST(ShimFiles, OpenatWithADirfdAndDotDotCannotLeaveTheWorkspace) {
  Sandbox box(kPolicy);
  const Files f = Populate(box);
  box.Write("ws/dir/inner.txt", "inner\n");
  Native("ln -s " + box.root() + " " + box.Path("ws/up"));
  const std::string prog = Program(box, "openat", R"C(
int main(int argc, char** argv) {
  root = argv[1];
  int d = open(P("ws"), O_RDONLY | O_DIRECTORY);
  show("open ws dir", d);
  show_fd("openat a.txt", openat(d, "a.txt", O_RDONLY));
  show_fd("openat dir/inner.txt", openat(d, "dir/inner.txt", O_RDONLY));
  show_fd("openat ../secret/key.txt", openat(d, "../secret/key.txt", O_RDONLY));
  show_fd("openat dir/../../secret/key.txt",
          openat(d, "dir/../../secret/key.txt", O_RDONLY));
  show_fd("openat ../outside.txt", openat(d, "../outside.txt", O_RDONLY));
  show_fd("openat ../outside.txt trunc",
          openat(d, "../outside.txt", O_WRONLY | O_TRUNC));
  show_fd("openat ../made.txt creat",
          openat(d, "../made.txt", O_WRONLY | O_CREAT, 0644));
  show_fd("openat ../secret/made.txt creat",
          openat(d, "../secret/made.txt", O_WRONLY | O_CREAT, 0644));
  show("mkdirat ../made_dir", mkdirat(d, "../made_dir", 0755));
  show("unlinkat ../outside.txt", unlinkat(d, "../outside.txt", 0));
  int dd = open(P("ws/dir"), O_RDONLY | O_DIRECTORY);
  show_fd("openat dir-fd ../../outside.txt",
          openat(dd, "../../outside.txt", O_RDONLY));
  show_fd("openat dir-fd ../a.txt", openat(dd, "../a.txt", O_RDONLY));
  int r = open(root, O_PATH | O_DIRECTORY);
  show("O_PATH root", r);
  show_fd("openat root-fd secret/key.txt", openat(r, "secret/key.txt", O_RDONLY));
  show_fd("openat root-fd outside.txt", openat(r, "outside.txt", O_RDONLY));
  show_fd("openat root-fd made2.txt creat",
          openat(r, "made2.txt", O_WRONLY | O_CREAT, 0644));
  show_fd("openat root-fd ws/a.txt", openat(r, "ws/a.txt", O_RDONLY));
  show_fd("open ws/../secret/key.txt", open(P("ws/../secret/key.txt"), O_RDONLY));
  show_fd("open ws/dir/../../outside.txt",
          open(P("ws/dir/../../outside.txt"), O_RDONLY));
  show_fd("open ../secret/key.txt", open("../secret/key.txt", O_RDONLY));
  show_fd("open ws/../ws/a.txt", open(P("ws/../ws/a.txt"), O_RDONLY));
  show_fd("open up/secret/key.txt", open("up/secret/key.txt", O_RDONLY));
  show_fd("open up/outside.txt", open("up/outside.txt", O_RDONLY));
  show_fd("open up/made3.txt creat", open("up/made3.txt", O_WRONLY | O_CREAT, 0644));
  show_fd("open up/ws/a.txt", open("up/ws/a.txt", O_RDONLY));
  return 0;
}
)C");
  ProcessResult r = box.Run({prog, box.root()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, Lines({"open ws dir: ok",
                          "openat a.txt: ok",
                          "openat dir/inner.txt: ok",
                          "openat ../secret/key.txt: -1 EACCES",
                          "openat dir/../../secret/key.txt: -1 EACCES",
                          "openat ../outside.txt: -1 EACCES",
                          "openat ../outside.txt trunc: -1 EACCES",
                          "openat ../made.txt creat: -1 EACCES",
                          "openat ../secret/made.txt creat: -1 EACCES",
                          "mkdirat ../made_dir: -1 EACCES",
                          "unlinkat ../outside.txt: -1 EACCES",
                          "openat dir-fd ../../outside.txt: -1 EACCES",
                          "openat dir-fd ../a.txt: ok",
                          "O_PATH root: ok",
                          "openat root-fd secret/key.txt: -1 EACCES",
                          "openat root-fd outside.txt: -1 EACCES",
                          "openat root-fd made2.txt creat: -1 EACCES",
                          "openat root-fd ws/a.txt: ok",
                          "open ws/../secret/key.txt: -1 EACCES",
                          "open ws/dir/../../outside.txt: -1 EACCES",
                          "open ../secret/key.txt: -1 EACCES",
                          "open ws/../ws/a.txt: ok",
                          "open up/secret/key.txt: -1 EACCES",
                          "open up/outside.txt: -1 EACCES",
                          "open up/made3.txt creat: -1 EACCES",
                          "open up/ws/a.txt: ok"}));
  const std::vector<std::string> refused = box.RefusedTargets();
  EXPECT_THAT(refused, Contains(f.secret));
  EXPECT_THAT(refused, Contains(f.outside));
  EXPECT_THAT(refused, Contains(box.Path("made.txt")));
  EXPECT_THAT(refused, Contains(box.Path("made_dir")));
  for (const char* name :
       {"made.txt", "made2.txt", "made3.txt", "secret/made.txt", "made_dir"}) {
    EXPECT_FALSE(Exists(box.Path(name))) << name << " was created";
  }
  EXPECT_EQ(ReadFile(f.outside), kOutside);
  EXPECT_EQ(ReadFile(f.secret), kSecret);
}

TEST(ShimFiles, CatThroughDotDotOutOfTheWorkspaceIsRefused) {
  Sandbox box(kPolicy);
  const Files f = Populate(box);
  for (const std::string& path :
       {std::string("../secret/key.txt"), box.Path("ws/../secret/key.txt"),
        std::string("./../outside.txt"), box.Path("ws//..//outside.txt")}) {
    ProcessResult r = box.Run({"/bin/cat", path});
    EXPECT_EQ(r.exit_code, 1) << path;
    EXPECT_EQ(r.out, "") << path;
    EXPECT_THAT(r.err, HasSubstr("Permission denied")) << path;
  }
  const std::vector<std::string> refused = box.RefusedTargets();
  EXPECT_THAT(refused, Contains(f.secret));
  EXPECT_THAT(refused, Contains(f.outside));
}

// --- 5. symlinks -------------------------------------------------------------

TEST(ShimFiles, ASymlinkInTheWorkspaceToADeniedFileCannotBeReadOrWritten) {
  Sandbox box(kPolicy);
  const Files f = Populate(box);
  Native("cd " + box.ws() + " && ln -s " + f.secret + " link-secret && ln -s " +
         f.outside + " link-outside && ln -s ../secret/key.txt rel-secret");
  const struct stat before = StatOf(f.outside);
  ProcessResult cat = box.Run({"/bin/cat", "link-secret"});
  EXPECT_EQ(cat.exit_code, 1);
  EXPECT_EQ(cat.out, "");
  EXPECT_THAT(cat.err, HasSubstr("Permission denied"));
  ProcessResult cat_rel = box.Run({"/bin/cat", "rel-secret"});
  EXPECT_EQ(cat_rel.exit_code, 1);
  EXPECT_EQ(cat_rel.out, "");
  ProcessResult sh = box.Run(
      {"/bin/sh", "-c", "echo pwned > link-secret; echo pwned >> link-outside"});
  EXPECT_THAT(sh.err, HasSubstr("Permission denied"));
  const std::string prog = Program(box, "symlink_write", R"C(
int main(int argc, char** argv) {
  root = argv[1];
  show_fd("open link-secret rdonly", open("link-secret", O_RDONLY));
  show_fd("open link-secret trunc", open("link-secret", O_WRONLY | O_TRUNC));
  show_fd("open link-secret append", open("link-secret", O_WRONLY | O_APPEND));
  show_fd("open link-secret rdwr", open("link-secret", O_RDWR));
  show_fd("open link-outside trunc", open("link-outside", O_WRONLY | O_TRUNC));
  show_fd("creat link-outside", creat("link-outside", 0644));
  show_file("fopen link-outside w", fopen("link-outside", "w"));
  show("truncate link-outside", truncate("link-outside", 0));
  show("chmod link-outside", chmod("link-outside", 0777));
  show("truncate rel-secret", truncate("rel-secret", 0));
  return 0;
}
)C");
  ProcessResult r = box.Run({prog, box.root()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, Lines({"open link-secret rdonly: -1 EACCES",
                          "open link-secret trunc: -1 EACCES",
                          "open link-secret append: -1 EACCES",
                          "open link-secret rdwr: -1 EACCES",
                          "open link-outside trunc: -1 EACCES",
                          "creat link-outside: -1 EACCES",
                          "fopen link-outside w: -1 EACCES",
                          "truncate link-outside: -1 EACCES",
                          "chmod link-outside: -1 EACCES",
                          "truncate rel-secret: -1 EACCES"}));
  const std::vector<std::string> refused = box.RefusedTargets();
  EXPECT_THAT(refused, Contains(f.secret));
  EXPECT_THAT(refused, Contains(f.outside));
  EXPECT_EQ(ReadFile(f.secret), kSecret);
  EXPECT_EQ(ReadFile(f.outside), kOutside);
  EXPECT_EQ(StatOf(f.outside).st_mode, before.st_mode);
  // The links themselves are still links.
  EXPECT_TRUE(S_ISLNK(StatOf(box.Path("ws/link-secret")).st_mode));
  EXPECT_TRUE(S_ISLNK(StatOf(box.Path("ws/link-outside")).st_mode));
}

TEST(ShimFiles, ADanglingSymlinkOutOfTheWriteRootsCannotCreateItsTarget) {
  Sandbox box(kPolicy);
  const Files f = Populate(box);
  Native("cd " + box.ws() + " && ln -s " + box.Path("dangled.txt") +
         " dangling && ln -s ../reldangled.txt rel-dangling && ln -s " +
         box.Path("secret/dangled.txt") + " dangling-secret && ln -s " +
         "dangling chain && ln -s " + box.Path("nodir/x.txt") +
         " dangling-nodir && ln -s inside-target.txt dangling-inside");
  const std::string prog = Program(box, "dangling", R"C(
int main(int argc, char** argv) {
  root = argv[1];
  show_fd("open dangling creat", open("dangling", O_WRONLY | O_CREAT, 0644));
  show_fd("open dangling creat trunc",
          open("dangling", O_RDWR | O_CREAT | O_TRUNC, 0644));
  show_fd("creat dangling", creat("dangling", 0644));
  show_file("fopen dangling w", fopen("dangling", "w"));
  show_file("fopen dangling a", fopen("dangling", "a"));
  show_fd("open rel-dangling creat", open("rel-dangling", O_WRONLY | O_CREAT, 0644));
  show_fd("open dangling-secret creat",
          open("dangling-secret", O_WRONLY | O_CREAT, 0644));
  show_fd("open chain creat", open("chain", O_WRONLY | O_CREAT, 0644));
  int d = open(".", O_RDONLY | O_DIRECTORY);
  show_fd("openat dangling creat", openat(d, "dangling", O_WRONLY | O_CREAT, 0644));
  show_fd("open dangling-inside creat",
          open("dangling-inside", O_WRONLY | O_CREAT, 0644));
  return 0;
}
)C");
  ProcessResult r = box.Run({prog, box.root()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, Lines({"open dangling creat: -1 EACCES",
                          "open dangling creat trunc: -1 EACCES",
                          "creat dangling: -1 EACCES",
                          "fopen dangling w: -1 EACCES",
                          "fopen dangling a: -1 EACCES",
                          "open rel-dangling creat: -1 EACCES",
                          "open dangling-secret creat: -1 EACCES",
                          "open chain creat: -1 EACCES",
                          "openat dangling creat: -1 EACCES",
                          "open dangling-inside creat: ok"}));
  ProcessResult sh = box.Run({"/bin/sh", "-c", "echo pwned > dangling"});
  EXPECT_NE(sh.exit_code, 0);
  EXPECT_THAT(sh.err, HasSubstr("Permission denied"));
  ProcessResult py = box.Run(
      {kPython, "-c", "open('rel-dangling', 'w').write('pwned')"});
  EXPECT_NE(py.exit_code, 0);
  EXPECT_THAT(py.err, HasSubstr("PermissionError"));
  const std::vector<std::string> refused = box.RefusedTargets();
  EXPECT_THAT(refused, Contains(box.Path("dangled.txt")));
  EXPECT_THAT(refused, Contains(box.Path("reldangled.txt")));
  EXPECT_THAT(refused, Contains(box.Path("secret/dangled.txt")));
  EXPECT_FALSE(Exists(box.Path("dangled.txt")));
  EXPECT_FALSE(Exists(box.Path("reldangled.txt")));
  EXPECT_FALSE(Exists(box.Path("secret/dangled.txt")));
  EXPECT_TRUE(Exists(box.Path("ws/inside-target.txt")));
  EXPECT_TRUE(S_ISLNK(StatOf(box.Path("ws/dangling")).st_mode));
  EXPECT_EQ(ReadFile(f.secret), kSecret);
}

// --- 6. /proc ----------------------------------------------------------------

TEST(ShimFiles, ProcSelfRootAndProcSelfFdReopenTricksAreRefused) {
  Sandbox box(kPolicy);
  const Files f = Populate(box);
  ProcessResult cat = box.Run({"/bin/cat", "/proc/self/root" + f.secret});
  EXPECT_EQ(cat.exit_code, 1);
  EXPECT_EQ(cat.out, "");
  EXPECT_THAT(cat.err, HasSubstr("Permission denied"));
  ProcessResult cwd = box.Run({"/bin/cat", "/proc/self/cwd/../secret/key.txt"});
  EXPECT_EQ(cwd.exit_code, 1);
  EXPECT_EQ(cwd.out, "");
  const std::string prog = Program(box, "proc", R"C(
static char buf[PATH_MAX];
static const char* J(const char* a, const char* b) {
  static char out[8][PATH_MAX];
  static int n;
  char* o = out[n++ % 8];
  snprintf(o, PATH_MAX, "%s%s", a, b);
  return o;
}
int main(int argc, char** argv) {
  root = argv[1];
  const char* secret = P("secret/key.txt");
  const char* outside = P("outside.txt");
  show_fd("open /proc/self/root secret", open(J("/proc/self/root", secret), O_RDONLY));
  show_fd("open /proc/thread-self/root secret",
          open(J("/proc/thread-self/root", secret), O_RDONLY));
  snprintf(buf, sizeof(buf), "/proc/%d/root%s", (int)getpid(), secret);
  show_fd("open /proc/PID/root secret", open(buf, O_RDONLY));
  show_fd("open /proc/self/root outside trunc",
          open(J("/proc/self/root", outside), O_WRONLY | O_TRUNC));
  show_fd("open /proc/self/root creat",
          open(J("/proc/self/root", P("proc_made.txt")), O_WRONLY | O_CREAT, 0644));
  show_fd("open /proc/self/cwd/../secret/key.txt",
          open("/proc/self/cwd/../secret/key.txt", O_RDONLY));
  show_fd("O_PATH secret", open(secret, O_PATH));
  int o = open(outside, O_PATH);
  show("O_PATH outside", o);
  char fdp[64];
  snprintf(fdp, sizeof(fdp), "/proc/self/fd/%d", o);
  show_fd("reopen outside rdonly", open(fdp, O_RDONLY));
  show_fd("reopen outside trunc", open(fdp, O_WRONLY | O_TRUNC));
  show_file("fopen reopen outside w", fopen(fdp, "w"));
  show("truncate reopen outside", truncate(fdp, 0));
  show("chmod reopen outside", chmod(fdp, 0777));
  show("linkat reopen outside into ws",
       linkat(AT_FDCWD, fdp, AT_FDCWD, "hard-via-proc", AT_SYMLINK_FOLLOW));
  int r = open(root, O_PATH | O_DIRECTORY);
  show("O_PATH root", r);
  snprintf(buf, sizeof(buf), "/proc/self/fd/%d/secret/key.txt", r);
  show_fd("open root-fd/secret/key.txt", open(buf, O_RDONLY));
  snprintf(buf, sizeof(buf), "/proc/self/fd/%d/proc_made2.txt", r);
  show_fd("creat root-fd/proc_made2.txt", open(buf, O_WRONLY | O_CREAT, 0644));
  snprintf(buf, sizeof(buf), "/proc/self/fd/%d", r);
  DIR* dir = opendir(buf);
  show("opendir root-fd", dir ? 0 : -1);
  if (dir) closedir(dir);
  int w = open("a.txt", O_RDONLY);
  snprintf(buf, sizeof(buf), "/proc/self/fd/%d", w);
  show_fd("reopen ws file", open(buf, O_RDONLY));
  return 0;
}
)C");
  const struct stat before = StatOf(f.outside);
  ProcessResult r = box.Run({prog, box.root()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, Lines({"open /proc/self/root secret: -1 EACCES",
                          "open /proc/thread-self/root secret: -1 EACCES",
                          "open /proc/PID/root secret: -1 EACCES",
                          "open /proc/self/root outside trunc: -1 EACCES",
                          "open /proc/self/root creat: -1 EACCES",
                          "open /proc/self/cwd/../secret/key.txt: -1 EACCES",
                          "O_PATH secret: -1 EACCES",
                          "O_PATH outside: ok",
                          "reopen outside rdonly: -1 EACCES",
                          "reopen outside trunc: -1 EACCES",
                          "fopen reopen outside w: -1 EACCES",
                          "truncate reopen outside: -1 EACCES",
                          "chmod reopen outside: -1 EACCES",
                          "linkat reopen outside into ws: -1 EACCES",
                          "O_PATH root: ok",
                          "open root-fd/secret/key.txt: -1 EACCES",
                          "creat root-fd/proc_made2.txt: -1 EACCES",
                          "opendir root-fd: -1 EACCES",
                          "reopen ws file: ok"}));
  const std::vector<std::string> refused = box.RefusedTargets();
  EXPECT_THAT(refused, Contains(f.secret));
  EXPECT_THAT(refused, Contains(f.outside));
  EXPECT_THAT(refused, Contains(box.root()));
  EXPECT_EQ(ReadFile(f.secret), kSecret);
  EXPECT_EQ(ReadFile(f.outside), kOutside);
  EXPECT_EQ(StatOf(f.outside).st_mode, before.st_mode);
  EXPECT_EQ(StatOf(f.outside).st_nlink, 1u);
  EXPECT_FALSE(Exists(box.Path("proc_made.txt")));
  EXPECT_FALSE(Exists(box.Path("proc_made2.txt")));
  EXPECT_FALSE(Exists(box.Path("ws/hard-via-proc")));
}

// --- 7. races ----------------------------------------------------------------

TEST(ShimFiles, ASymlinkSwappedInALoopNeverLeaksOrChangesTheDeniedFile) {
  Sandbox box(kPolicy);
  const Files f = Populate(box);
  box.Write("ws/harmless.txt", "harmless\n");
  const std::string prog = Program(box, "race", R"C(
static volatile int stop;
static const char *link_, *tmp_, *harmless, *secret;
static void* swapper(void* arg) {
  (void)arg;
  while (!stop) {
    unlink(tmp_);
    symlink(harmless, tmp_);
    rename(tmp_, link_);
    unlink(tmp_);
    symlink(secret, tmp_);
    rename(tmp_, link_);
  }
  return NULL;
}
int main(int argc, char** argv) {
  root = argv[1];
  link_ = P("ws/race");
  tmp_ = P("ws/race.tmp");
  harmless = P("ws/harmless.txt");
  secret = P("secret/key.txt");
  symlink(harmless, link_);
  pthread_t t;
  pthread_create(&t, NULL, swapper, NULL);
  int leaks = 0, ok = 0, refused = 0, other = 0;
  for (int i = 0; i < 20000; ++i) {
    int fd = open(link_, (i & 1) ? O_RDONLY : O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      if (errno == EACCES) ++refused; else ++other;
      continue;
    }
    char buf[64] = "";
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    if (n > 0) buf[n] = '\0';
    if (strstr(buf, "TOPSECRET")) ++leaks;
    else if (strstr(buf, "harmless")) ++ok;
    else ++other;
    close(fd);
  }
  int wleaks = 0, wok = 0, wrefused = 0;
  for (int i = 0; i < 5000; ++i) {
    int fd = open(link_, O_WRONLY | O_APPEND);
    if (fd < 0) {
      if (errno == EACCES) ++wrefused;
      continue;
    }
    struct stat st;
    fstat(fd, &st);
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    char real[PATH_MAX] = "";
    ssize_t n = readlink(path, real, sizeof(real) - 1);
    if (n > 0) real[n] = '\0';
    if (strstr(real, "secret")) ++wleaks;
    else ++wok;
    close(fd);
  }
  stop = 1;
  pthread_join(t, NULL);
  printf("leaks=%d\nwrite-leaks=%d\n", leaks, wleaks);
  fprintf(stderr, "ok=%d refused=%d other=%d wok=%d wrefused=%d\n", ok, refused,
          other, wok, wrefused);
  return 0;
}
)C",
                                   {"-pthread"});
  ProcessResult r = box.Run({prog, box.root()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "leaks=0\nwrite-leaks=0\n") << r.err;
  // The race was really run: both targets were seen.
  int ok = 0, refused = 0;
  ASSERT_EQ(std::sscanf(r.err.c_str(), "ok=%d refused=%d", &ok, &refused), 2)
      << r.err;
  EXPECT_GT(ok, 0) << r.err;
  EXPECT_GT(refused, 0) << r.err;
  EXPECT_EQ(ReadFile(f.secret), kSecret);
  EXPECT_THAT(box.RefusedTargets(), Contains(f.secret));
}

// --- 8. native behaviour -------------------------------------------------------

TEST(ShimFiles, ErrnoAndReturnValuesMatchNativeBehaviour) {
  Sandbox box(kPolicy);
  Populate(box);
  box.Write("ws/dir/inner.txt", "inner\n");
  box.Write("ws/nonempty/x", "x\n");
  Native("cd " + box.ws() +
         " && ln -s a.txt link-to-a && ln -s no-such-target dangling");
  const std::string prog = Program(box, "errnos", R"C(
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
  show_fd("open link-to-a excl", open("link-to-a", O_WRONLY | O_CREAT | O_EXCL, 0644));
  show_fd("open dangling excl", open("dangling", O_WRONLY | O_CREAT | O_EXCL, 0644));
  show_fd("open dir excl", open("dir", O_WRONLY | O_CREAT | O_EXCL, 0644));
  show_fd("open a.txt/x", open("a.txt/x", O_RDONLY));
  show_fd("open a.txt/x creat", open("a.txt/x", O_WRONLY | O_CREAT, 0644));
  show_fd("open a.txt directory", open("a.txt", O_RDONLY | O_DIRECTORY));
  show_fd("open link-to-a nofollow", open("link-to-a", O_RDONLY | O_NOFOLLOW));
  show_fd("open link-to-a wr nofollow", open("link-to-a", O_WRONLY | O_NOFOLLOW));
  show_fd("open empty", open("", O_RDONLY));
  show_fd("open empty creat", open("", O_WRONLY | O_CREAT, 0644));
  show_fd("open dir/ trailing creat", open("newdir/", O_WRONLY | O_CREAT, 0644));
  show_fd("openat bad fd", openat(999, "a.txt", O_RDONLY));
  show_fd("openat bad fd creat", openat(999, "x.txt", O_WRONLY | O_CREAT, 0644));
  show_fd("openat file as dirfd", openat(open("a.txt", O_RDONLY), "x", O_RDONLY));
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
  errno = 1234; fd = open("a.txt", O_RDONLY); keep("open ok", fd); close(fd);
  errno = 1234; fd = open("new.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  keep("open creat ok", fd); close(fd);
  errno = 1234; fd = open("new.txt", O_WRONLY | O_TRUNC); keep("open trunc ok", fd);
  close(fd);
  errno = 1234; FILE* f = fopen("a.txt", "r"); keep("fopen ok", f ? 0 : -1);
  fclose(f);
  errno = 1234; f = fopen("new.txt", "w"); keep("fopen w ok", f ? 0 : -1);
  fclose(f);
  errno = 1234; keep("stat ok", stat("a.txt", &st));
  errno = 1234; keep("lstat ok", lstat("link-to-a", &st));
  errno = 1234; keep("access ok", access("a.txt", R_OK));
  errno = 1234; keep("mkdir ok", mkdir("tmpd", 0755));
  errno = 1234; keep("rename ok", rename("new.txt", "tmpd/new.txt"));
  errno = 1234; keep("unlink ok", unlink("tmpd/new.txt"));
  errno = 1234; keep("rmdir ok", rmdir("tmpd"));
  errno = 1234; keep("chmod ok", chmod("a.txt", 0644));
  errno = 1234; keep("readlink ok", readlink("link-to-a", buf, sizeof(buf)));
  errno = 1234; DIR* d = opendir("."); keep("opendir ok", d ? 0 : -1); closedir(d);
  errno = 1234; keep("realpath ok", realpath("a.txt", buf) ? 0 : -1);
  return 0;
}
)C");
  ProcessOptions native_options;
  native_options.cwd = box.ws();
  native_options.env =
      std::vector<std::string>{"PATH=/usr/bin:/bin", "LANG=C.UTF-8"};
  ProcessResult native = RunProcess({prog, box.root()}, native_options);
  ASSERT_EQ(native.exit_code, 0) << native.err;
  ASSERT_THAT(native.out, HasSubstr("open missing: -1 ENOENT"));
  ASSERT_THAT(native.out, HasSubstr("open dir wronly: -1 EISDIR"));
  ASSERT_THAT(native.out, HasSubstr("open a.txt excl: -1 EEXIST"));
  ASSERT_THAT(native.out, HasSubstr("open ok: ok errno=1234"));
  ProcessResult shimmed = box.Run({prog, box.root()});
  EXPECT_EQ(shimmed.exit_code, 0) << shimmed.err;
  EXPECT_EQ(shimmed.out, native.out);
  EXPECT_THAT(box.AuditLines(), IsEmpty());
}

TEST(ShimFiles, OpenReturnsTheLowestFreeDescriptorAsNativelyDoes) {
  Sandbox box(kPolicy);
  Populate(box);
  const std::string prog = Program(box, "lowest", R"C(
int main(int argc, char** argv) {
  root = argv[1];
  close(0);
  int a = open("/dev/null", O_RDWR);          /* the daemon idiom: becomes 0 */
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
)C");
  ProcessOptions native_options;
  native_options.cwd = box.ws();
  ProcessResult native = RunProcess({prog, box.root()}, native_options);
  ASSERT_EQ(native.exit_code, 0);
  ASSERT_EQ(native.out, "0 3 3 3 3\n");
  ProcessResult shimmed = box.Run({prog, box.root()});
  EXPECT_EQ(shimmed.out, native.out);
}

// --- 9. mutations --------------------------------------------------------------

TEST(ShimFiles, MutationsOutsideTheWriteRootsAreRefusedAndChangeNothing) {
  Sandbox box(kPolicy);
  const Files f = Populate(box);
  box.Write("emptydir/.placeholder", "");
  Native("rm " + box.Path("emptydir/.placeholder") + " && touch -d 2001-02-03 " +
         f.outside);
  const struct stat before = StatOf(f.outside);
  const struct stat ws_before = StatOf(f.ws_file);
  const std::string prog = Program(box, "mutate", R"C(
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
  show("renameat outside->ws", renameat(AT_FDCWD, outside, AT_FDCWD, "stolen3.txt"));
  show("renameat2 exchange", renameat2(AT_FDCWD, "a.txt", AT_FDCWD, outside,
                                       RENAME_EXCHANGE));
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
)C");
  ProcessResult r = box.Run({prog, box.root()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, Lines({"unlink outside: -1 EACCES",
                          "unlinkat outside: -1 EACCES",
                          "remove outside: -1 EACCES",
                          "unlink secret: -1 EACCES",
                          "rename ws->outside: -1 EACCES",
                          "rename outside->ws: -1 EACCES",
                          "rename secret->ws: -1 EACCES",
                          "renameat outside->ws: -1 EACCES",
                          "renameat2 exchange: -1 EACCES",
                          "rename ws over outside: -1 EACCES",
                          "mkdir outside: -1 EACCES",
                          "mkdir in secret: -1 EACCES",
                          "rmdir outside: -1 EACCES",
                          "chmod outside: -1 EACCES",
                          "fchmodat outside: -1 EACCES",
                          "chown outside: -1 EACCES",
                          "lchown outside: -1 EACCES",
                          "truncate outside: -1 EACCES",
                          "truncate secret: -1 EACCES",
                          "link outside->ws: -1 EACCES",
                          "linkat follow outside->ws: -1 EACCES",
                          "link secret->ws: -1 EACCES",
                          "link ws->outside: -1 EACCES",
                          "symlink outside: -1 EACCES",
                          "symlink in secret: -1 EACCES",
                          "symlinkat outside: -1 EACCES",
                          "utimes outside: -1 EACCES",
                          "utimes null outside: -1 EACCES",
                          "utime outside: -1 EACCES",
                          "utimensat outside: -1 EACCES",
                          "lutimes outside: -1 EACCES",
                          "mkfifo outside: -1 EACCES",
                          "mknod outside: -1 EACCES",
                          "setxattr outside: -1 EACCES",
                          "removexattr outside: -1 EACCES"}));
  const std::vector<std::string> refused = box.RefusedTargets();
  for (const std::string& target :
       {f.outside, f.secret, box.Path("moved.txt"), box.Path("newdir"),
        box.Path("emptydir"), box.Path("hard4.txt"), box.Path("newlink"),
        box.Path("fifo"), box.Path("node")}) {
    EXPECT_THAT(refused, Contains(target));
  }
  // Nothing changed.
  const struct stat after = StatOf(f.outside);
  EXPECT_EQ(ReadFile(f.outside), kOutside);
  EXPECT_EQ(after.st_mode, before.st_mode);
  EXPECT_EQ(after.st_nlink, 1u);
  EXPECT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
  EXPECT_EQ(after.st_atim.tv_sec, before.st_atim.tv_sec);
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_EQ(ReadFile(f.secret), kSecret);
  EXPECT_EQ(StatOf(f.secret).st_nlink, 1u);
  EXPECT_EQ(ReadFile(f.ws_file), "hello\n");
  EXPECT_EQ(StatOf(f.ws_file).st_ino, ws_before.st_ino);
  EXPECT_EQ(StatOf(f.ws_file).st_nlink, 1u);
  EXPECT_TRUE(Exists(box.Path("emptydir")));
  for (const char* name :
       {"moved.txt", "ws/stolen.txt", "ws/stolen2.txt", "ws/stolen3.txt",
        "newdir", "secret/newdir", "ws/hard.txt", "ws/hard2.txt",
        "ws/hard3.txt", "hard4.txt", "newlink", "newlink2", "secret/newlink",
        "fifo", "node"}) {
    EXPECT_FALSE(Exists(box.Path(name))) << name << " was created";
  }
}

TEST(ShimFiles, CoreutilsMutationsOutsideTheWriteRootsFailAndChangeNothing) {
  Sandbox box(kPolicy);
  const Files f = Populate(box);
  box.Write("emptydir/.placeholder", "");
  Native("rm " + box.Path("emptydir/.placeholder") + " && touch -d 2001-02-03 " +
         f.outside);
  const struct stat before = StatOf(f.outside);
  const std::string R = box.root();
  const std::string script =
      "rm -f " + R + "/outside.txt; echo rm=$?\n"
      "rm -rf " + R + "/secret; echo rm-r=$?\n"
      "mv a.txt " + R + "/moved.txt; echo mv-out=$?\n"
      "mv " + R + "/outside.txt stolen.txt; echo mv-in=$?\n"
      "mkdir " + R + "/newdir; echo mkdir=$?\n"
      "mkdir -p " + R + "/p/q; echo mkdir-p=$?\n"
      "rmdir " + R + "/emptydir; echo rmdir=$?\n"
      "chmod 777 " + R + "/outside.txt; echo chmod=$?\n"
      "truncate -s 0 " + R + "/outside.txt; echo truncate=$?\n"
      "ln " + R + "/outside.txt hard.txt; echo ln=$?\n"
      "ln -s a.txt " + R + "/newlink; echo ln-s=$?\n"
      "touch -d 2010-01-01 " + R + "/outside.txt; echo touch=$?\n"
      "touch " + R + "/touched.txt; echo touch-new=$?\n"
      "cp a.txt " + R + "/copied.txt; echo cp=$?\n"
      "cp " + R + "/secret/key.txt stolen.txt; echo cp-secret=$?\n"
      "echo pwned > " + R + "/outside.txt; echo redirect=$?\n"
      "echo pwned >> " + R + "/outside.txt; echo append=$?\n";
  ProcessResult r = box.Run({"/bin/sh", "-c", script});
  EXPECT_EQ(r.out,
            "rm=1\nrm-r=1\nmv-out=1\nmv-in=1\nmkdir=1\nmkdir-p=1\nrmdir=1\n"
            "chmod=1\ntruncate=1\nln=1\nln-s=1\ntouch=1\ntouch-new=1\ncp=1\n"
            "cp-secret=1\nredirect=2\nappend=2\n")
      << r.err;
  EXPECT_THAT(r.err, HasSubstr("Permission denied"));
  EXPECT_THAT(r.err, Not(HasSubstr("No such file")));
  const struct stat after = StatOf(f.outside);
  EXPECT_EQ(ReadFile(f.outside), kOutside);
  EXPECT_EQ(after.st_mode, before.st_mode);
  EXPECT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
  EXPECT_EQ(after.st_nlink, 1u);
  EXPECT_EQ(ReadFile(f.secret), kSecret);
  EXPECT_EQ(ReadFile(f.ws_file), "hello\n");
  EXPECT_TRUE(Exists(box.Path("emptydir")));
  for (const char* name :
       {"moved.txt", "ws/stolen.txt", "newdir", "p", "ws/hard.txt", "newlink",
        "touched.txt", "copied.txt"}) {
    EXPECT_FALSE(Exists(box.Path(name))) << name << " was created";
  }
  const std::vector<std::string> refused = box.RefusedTargets();
  EXPECT_THAT(refused, Contains(f.outside));
  EXPECT_THAT(refused, Contains(box.Path("moved.txt")));
  EXPECT_THAT(refused, Contains(box.Path("newdir")));
  EXPECT_THAT(refused, Contains(box.Path("touched.txt")));
}

// --- 10. stat ---------------------------------------------------------------

TEST(ShimFiles, StatOfADeniedPathIsRefusedEvenWhenItDoesNotExist) {
  Sandbox box(kPolicy);
  const Files f = Populate(box);
  Native("cd " + box.ws() + " && ln -s " + f.secret + " link-secret && ln -s " +
         box.Path("secret/nope.txt") + " link-nope");
  const std::string prog = Program(box, "stat", R"C(
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
  show("fstatat secret nofollow", fstatat(AT_FDCWD, secret, &st, AT_SYMLINK_NOFOLLOW));
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
  show("statx missing under deny", statx(AT_FDCWD, nope, 0, STATX_BASIC_STATS, &sx));
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
  show("fstatat dirfd missing under deny", fstatat(d, "secret/nope.txt", &st, 0));
  show("stat outside", stat(P("outside.txt"), &st));
  show("lstat outside", lstat(P("outside.txt"), &st));
  show("statx outside", statx(AT_FDCWD, P("outside.txt"), 0, STATX_BASIC_STATS, &sx));
  show("access outside F_OK", access(P("outside.txt"), F_OK));
  show("stat root", stat(root, &st));
  show("stat missing outside", stat(P("nope.txt"), &st));
  show("stat ws file", stat("a.txt", &st));
  show("lstat ws link", lstat("link-secret", &st));
  return 0;
}
)C");
  ProcessResult r = box.Run({prog, box.root()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, Lines({"stat secret: -1 EACCES",
                          "lstat secret: -1 EACCES",
                          "fstatat secret: -1 EACCES",
                          "fstatat secret nofollow: -1 EACCES",
                          "statx secret: -1 EACCES",
                          "access secret F_OK: -1 EACCES",
                          "faccessat secret R_OK: -1 EACCES",
                          "stat secret dir: -1 EACCES",
                          "access secret dir: -1 EACCES",
                          "readlink secret: -1 EACCES",
                          "realpath secret: -1 EACCES",
                          "chdir secret dir: -1 EACCES",
                          "stat via ws link: -1 EACCES",
                          "stat missing under deny: -1 EACCES",
                          "lstat missing under deny: -1 EACCES",
                          "statx missing under deny: -1 EACCES",
                          "access missing under deny: -1 EACCES",
                          "readlink missing under deny: -1 EACCES",
                          "realpath missing under deny: -1 EACCES",
                          "open missing under deny: -1 EACCES",
                          "stat deep missing under deny: -1 EACCES",
                          "stat dotdot missing under deny: -1 EACCES",
                          "stat relative missing under deny: -1 EACCES",
                          "stat via dangling ws link: -1 EACCES",
                          "access via dangling ws link: -1 EACCES",
                          "open via dangling ws link: -1 EACCES",
                          "fstatat dirfd missing under deny: -1 EACCES",
                          "stat outside: ok",
                          "lstat outside: ok",
                          "statx outside: ok",
                          "access outside F_OK: ok",
                          "stat root: ok",
                          "stat missing outside: -1 ENOENT",
                          "stat ws file: ok",
                          "lstat ws link: ok"}));
  const std::vector<std::string> refused = box.RefusedTargets();
  EXPECT_THAT(refused, Contains(f.secret));
  EXPECT_THAT(refused, Contains(f.secret_dir));
  EXPECT_THAT(refused, Contains(box.Path("secret/nope.txt")));
  EXPECT_THAT(refused, Not(Contains(f.outside)));
  EXPECT_FALSE(Exists(box.Path("secret/nope.txt")));
}

TEST(ShimFiles, LsOfADeniedPathSaysPermissionDeniedWhetherOrNotItExists) {
  Sandbox box(kPolicy);
  const Files f = Populate(box);
  ProcessResult present = box.Run({"/bin/ls", "-l", f.secret});
  ProcessResult missing = box.Run({"/bin/ls", "-l", box.Path("secret/nope.txt")});
  ProcessResult dir = box.Run({"/bin/ls", f.secret_dir});
  for (const ProcessResult* r : {&present, &missing, &dir}) {
    EXPECT_NE(r->exit_code, 0);
    EXPECT_EQ(r->out, "");
    EXPECT_THAT(r->err, HasSubstr("Permission denied"));
    EXPECT_THAT(r->err, Not(HasSubstr("No such file")));
  }
  ProcessResult outside = box.Run({"/bin/ls", "-l", f.outside});
  EXPECT_EQ(outside.exit_code, 0) << outside.err;
  EXPECT_THAT(outside.out, HasSubstr("outside.txt"));
  const std::vector<std::string> refused = box.RefusedTargets();
  EXPECT_THAT(refused, Contains(f.secret));
  EXPECT_THAT(refused, Contains(box.Path("secret/nope.txt")));
  EXPECT_THAT(refused, Contains(f.secret_dir));
}

TEST(ShimFiles, ADenyGlobHidesMatchingFilesAtAnyDepthWhetherOrNotTheyExist) {
  Sandbox box(
      "extends = \"read-only\"\n[filesystem]\nworkspace_writable = true\n"
      "deny = [\"**/.env\"]\n");
  box.Write("ws/sub/.env", "API_KEY=hunter2\n");
  box.Write("ws/sub/ok.txt", "fine\n");
  const std::string prog = Program(box, "glob", R"C(
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
)C");
  ProcessResult r = box.Run({prog});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, Lines({"stat sub/.env: -1 EACCES",
                          "stat .env (missing): -1 EACCES",
                          "stat sub/deeper/.env (missing): -1 EACCES",
                          "open sub/.env: -1 EACCES",
                          "creat .env: -1 EACCES",
                          "rename onto sub/.env: -1 EACCES",
                          "rename sub/.env away: -1 EACCES",
                          "stat sub/ok.txt: ok"}));
  EXPECT_THAT(box.RefusedTargets(), Contains(box.Path("ws/sub/.env")));
  EXPECT_EQ(ReadFile(box.Path("ws/sub/.env")), "API_KEY=hunter2\n");
  EXPECT_EQ(ReadFile(box.Path("ws/sub/ok.txt")), "fine\n");
  EXPECT_FALSE(Exists(box.Path("ws/.env")));
  EXPECT_FALSE(Exists(box.Path("ws/sub/env.txt")));
}

// --- 11. audit mode ------------------------------------------------------------

TEST(ShimFiles, AuditModePerformsWhatEnforceWouldRefuseAndLogsItAsWouldDeny) {
  Sandbox box(std::string("mode = \"audit\"\n") + kPolicy);
  const Files f = Populate(box);
  ProcessResult cat = box.Run({"/bin/cat", f.secret});
  EXPECT_EQ(cat.exit_code, 0) << cat.err;
  EXPECT_EQ(cat.out, kSecret);
  const std::string R = box.root();
  ProcessResult sh = box.Run(
      {"/bin/sh", "-c",
       "echo created > " + R + "/audit_created.txt && mkdir " + R +
           "/auditdir && rm " + R + "/outside.txt && mv a.txt " + R +
           "/moved.txt && stat " + R + "/secret/nope.txt; echo stat=$?"});
  EXPECT_EQ(sh.out, "stat=1\n") << sh.err;
  EXPECT_THAT(sh.err, HasSubstr("No such file"));
  EXPECT_EQ(ReadFile(box.Path("audit_created.txt")), "created\n");
  EXPECT_TRUE(Exists(box.Path("auditdir")));
  EXPECT_FALSE(Exists(f.outside));
  EXPECT_EQ(ReadFile(box.Path("moved.txt")), "hello\n");
  const std::vector<std::string> lines = box.AuditLines();
  ASSERT_FALSE(lines.empty());
  for (const std::string& line : lines) {
    EXPECT_THAT(line, HasSubstr("\"verdict\":\"would_deny\"")) << line;
    EXPECT_THAT(line, Not(HasSubstr("\"verdict\":\"deny\""))) << line;
  }
  const std::vector<std::string> refused = box.RefusedTargets();
  for (const std::string& target :
       {f.secret, box.Path("audit_created.txt"), box.Path("auditdir"),
        f.outside, box.Path("moved.txt"), box.Path("secret/nope.txt")}) {
    EXPECT_THAT(refused, Contains(target));
  }
}

// --- 12. threads ---------------------------------------------------------------

TEST(ShimFiles, EightThreadsOpeningAtOnceGetEveryDecisionRight) {
  Sandbox box(kPolicy);
  const Files f = Populate(box);
  const std::string prog = Program(box, "threads", R"C(
static pthread_barrier_t barrier;
static int errors;
static const char *secret, *outside;
static void bad(int t, int i, const char* what) {
  __atomic_fetch_add(&errors, 1, __ATOMIC_SEQ_CST);
  fprintf(stderr, "thread %d iteration %d: %s (errno %d)\n", t, i, what, errno);
}
static void* worker(void* arg) {
  int t = (int)(long)arg;
  char mine[64], outside_new[PATH_MAX], buf[64];
  snprintf(mine, sizeof(mine), "t%d.txt", t);
  pthread_barrier_wait(&barrier);
  for (int i = 0; i < 300; ++i) {
    int fd = open("a.txt", O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
    if (fd < 0 || n != 6 || memcmp(buf, "hello\n", 6) != 0) bad(t, i, "ws read");
    if (fd >= 0) close(fd);
    errno = 0;
    fd = open(secret, O_RDONLY);
    if (fd >= 0 || errno != EACCES) bad(t, i, "secret read not refused");
    if (fd >= 0) close(fd);
    errno = 0;
    fd = open(outside, (i & 1) ? O_RDONLY : O_WRONLY | O_TRUNC);
    if (fd >= 0 || errno != EACCES) bad(t, i, "outside open not refused");
    if (fd >= 0) close(fd);
    snprintf(outside_new, sizeof(outside_new), "%s/t%d_%d.txt", root, t, i);
    errno = 0;
    fd = open(outside_new, O_WRONLY | O_CREAT, 0644);
    if (fd >= 0 || errno != EACCES) bad(t, i, "outside create not refused");
    if (fd >= 0) close(fd);
    fd = open(mine, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, "mine\n", 5) != 5) bad(t, i, "ws write");
    if (fd >= 0) close(fd);
    struct stat st;
    errno = 0;
    if (stat(secret, &st) == 0 || errno != EACCES) bad(t, i, "secret stat");
    if (stat(outside, &st) != 0) bad(t, i, "outside stat");
    FILE* f = fopen(secret, "r");
    if (f != NULL) { bad(t, i, "secret fopen"); fclose(f); }
  }
  return NULL;
}
int main(int argc, char** argv) {
  root = argv[1];
  secret = P("secret/key.txt");
  outside = P("outside.txt");
  pthread_barrier_init(&barrier, NULL, 8);
  pthread_t th[8];
  for (long t = 0; t < 8; ++t) pthread_create(&th[t], NULL, worker, (void*)t);
  for (int t = 0; t < 8; ++t) pthread_join(th[t], NULL);
  printf("errors=%d\n", errors);
  return 0;
}
)C",
                                   {"-pthread"});
  ProcessResult r = box.Run({prog, box.root()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "errors=0\n") << r.err.substr(0, 4000);
  EXPECT_EQ(ReadFile(f.outside), kOutside);
  EXPECT_EQ(ReadFile(f.secret), kSecret);
  for (int t = 0; t < 8; ++t) {
    EXPECT_EQ(ReadFile(box.Path("ws/t" + std::to_string(t) + ".txt")), "mine\n");
  }
  ProcessResult ls = RunProcess({"/bin/ls", box.root()});
  EXPECT_EQ(ls.out, "audit.jsonl\neffective.toml\noutside.txt\npolicy.toml\n"
                    "secret\nthreads\nthreads.c\nws\n");
  // Every refusal was recorded, whole lines only.
  const std::vector<std::string> lines = box.AuditLines();
  EXPECT_GE(lines.size(), 8u * 300u * 5u);
  for (const std::string& line : lines) {
    ASSERT_EQ(line.front(), '{') << line;
    ASSERT_EQ(line.back(), '}') << line;
  }
}

// --- 13. exported symbols --------------------------------------------------------

TEST(ShimFiles, TheShimExportsOnlyLibcEntryPoints) {
  const std::string shim = RequiredEnv("KLAUNCH_SHIM");
  ProcessResult r = RunProcess({"/usr/bin/nm", "-D", "--defined-only", shim});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> names;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string word, last;
    while (words >> word) last = word;
    if (last.empty()) continue;
    names.push_back(last.substr(0, last.find('@')));
  }
  ASSERT_FALSE(names.empty());
  for (const char* expected : {"open", "openat", "fopen", "stat", "unlink",
                               "rename", "execve", "connect"}) {
    EXPECT_THAT(names, Contains(expected));
  }
  for (const std::string& name : names) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
    EXPECT_EQ(lower.find("klaunch"), std::string::npos) << name;
    EXPECT_EQ(lower.find("absl"), std::string::npos) << name;
    EXPECT_EQ(lower.find("re2"), std::string::npos) << name;
    EXPECT_EQ(lower.find("toml"), std::string::npos) << name;
    EXPECT_NE(name.rfind("_Z", 0), 0u) << name << " is a C++ symbol";
  }
}

// Every process under klaunch loads the shim: building the standard streams
// and the classic locale there cost each one a third of a millisecond
// (shim/stream_init.cc). Read from the symbol table of the shim as built.
TEST(ShimFiles, TheShimLeavesTheStandardStreamsUnmade) {
  const std::string shim = RequiredEnv("KLAUNCH_SHIM");
  ProcessResult r = RunProcess({"/usr/bin/nm", "--defined-only", shim});
  if (r.exit_code != 0 && r.err.find("no symbols") != std::string::npos) {
    GTEST_SKIP() << shim << " is stripped: its symbols cannot say";
  }
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> defined;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    defined.push_back(line.substr(line.rfind(' ') + 1));
  }
  // The wrappers are there, and the constructor they stand for is not.
  EXPECT_THAT(defined, Contains("__wrap__ZNSt8ios_base4InitC1Ev"));
  EXPECT_THAT(defined, Not(Contains("_ZNSt8ios_base4InitC1Ev")));
  EXPECT_THAT(defined, Not(Contains("_ZNSt8ios_base4InitC2Ev")));
}

// Most programs (sh, coreutils, git) load no libm of their own: the shim
// must not make each load one more library, and, under the seccomp layer,
// make the loader open one more file the supervisor judges
// (shim/no_libm.cc).
TEST(ShimFiles, TheShimNeedsOnlyLibc) {
  const std::string shim = RequiredEnv("KLAUNCH_SHIM");
  ProcessResult r = RunProcess({"/usr/bin/readelf", "-d", shim});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> needed;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    const size_t open = line.find("Shared library: [");
    if (open == std::string::npos) continue;
    const size_t from = open + 17;
    needed.push_back(line.substr(from, line.find(']', from) - from));
  }
  for (const std::string& lib : needed) {
    if (lib.rfind("libabsl", 0) == 0 || lib.rfind("libre2", 0) == 0) {
      GTEST_SKIP() << shim << " links Abseil and RE2 as shared libraries "
                   << "(built without deps/: scripts/fetch-pic-sources)";
    }
    if (lib.rfind("libubsan", 0) == 0) {
      GTEST_SKIP() << shim << " is a sanitized build, which links the "
                   << "sanitizer's runtime and libm with it";
    }
  }
  EXPECT_THAT(needed, ::testing::UnorderedElementsAre("libc.so.6",
                                                      "ld-linux-x86-64.so.2"));
}

// --- 14. ordinary work -----------------------------------------------------------

constexpr char kCoreutilsScript[] = R"SH(set -e
mkdir -p a/b/c
echo hello > a/b/c/f.txt
printf '3\n1\n2\n' > nums
sort nums > sorted
sort -r -o rsorted nums
cp sorted a/b/
cp -r a copy
cp -a a preserved
mv copy moved
mv sorted moved/
ln -s ../nums moved/nums-link
ln nums nums-hard
touch -d 2001-01-01 nums
chmod 600 nums
ls -la moved moved/b/c > listing
ls -R a > /dev/null
stat nums > /dev/null
tar cf arch.tar a moved
mkdir x
tar -C x -xf arch.tar
cat x/a/b/c/f.txt
cat moved/nums-link rsorted | sort | uniq | tr '\n' ' '
echo
find . -name f.txt | sort
du -s a > /dev/null
wc -l < nums
rm -r a moved x preserved
rm nums-hard arch.tar
ls
)SH";

constexpr char kCoreutilsOut[] =
    "hello\n"
    "1 2 3 \n"
    "./a/b/c/f.txt\n"
    "./moved/b/c/f.txt\n"
    "./preserved/b/c/f.txt\n"
    "./x/a/b/c/f.txt\n"
    "./x/moved/b/c/f.txt\n"
    "3\n"
    "a.txt\nlisting\nnums\nrsorted\n";

TEST(ShimFiles, OrdinaryCoreutilsWorkInTheWorkspaceRaisesNoRefusal) {
  Sandbox box("extends = \"workspace-write\"\n");
  box.Write("ws/a.txt", "hello\n");
  ProcessResult r = box.Run({"/bin/sh", "-c", kCoreutilsScript});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, kCoreutilsOut);
  EXPECT_THAT(box.AuditLines(), IsEmpty());
}

TEST(ShimFiles, OrdinaryCoreutilsWorkRaisesNoRefusalWhenDenyRulesExistToo) {
  Sandbox box(
      "extends = \"workspace-write\"\n[filesystem]\n"
      "deny = [\"@ROOT@/secret\", \"**/.env\"]\n");
  box.Write("ws/a.txt", "hello\n");
  box.Write("secret/key.txt", kSecret);
  ProcessResult r = box.Run({"/bin/sh", "-c", kCoreutilsScript});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, kCoreutilsOut);
  EXPECT_THAT(box.AuditLines(), IsEmpty());
}

}  // namespace
}  // namespace klaunch::testing

namespace klaunch::testing {
namespace {

TEST(ShimFiles, RenamingADirectoryCannotCarryADeniedFileOutFromUnderItsRule) {
  Sandbox box(
      "extends = \"read-only\"\n[filesystem]\nworkspace_writable = true\n"
      "deny = [\"@WS@/config/credentials.json\", \"**/secrets/*.pem\"]\n");
  box.Write("ws/config/credentials.json", "CREDENTIALS\n");
  box.Write("ws/keys/secrets/a.pem", "PEM\n");
  box.Write("ws/app/.env", "ENV\n");
  ProcessResult r = box.Run(
      {"/bin/sh", "-c",
       "mv config config2; cat config2/credentials.json; "
       "mv keys/secrets keys/open; cat keys/open/a.pem; "
       "mv keys keys2; cat keys2/secrets/a.pem; "
       "mv app app2 && echo moved-app"});
  EXPECT_THAT(r.out, Not(HasSubstr("CREDENTIALS")));
  EXPECT_THAT(r.out, Not(HasSubstr("PEM")));
  EXPECT_TRUE(Exists(box.Path("ws/config/credentials.json")));
  // Moving keys/ is fine: **/secrets/*.pem still covers keys2/secrets/a.pem
  // (and the cat above was refused), but renaming secrets/ itself is not.
  EXPECT_TRUE(Exists(box.Path("ws/keys2/secrets/a.pem")));
  // A directory whose move no rule depends on still moves.
  EXPECT_THAT(r.out, HasSubstr("moved-app"));
  EXPECT_THAT(LinesMentioning(box, "out from under it").size(), 2u) << Dump(box);
}

}  // namespace
}  // namespace klaunch::testing

namespace klaunch::testing {
namespace {

TEST(ShimFiles, ASignalHandlerInterruptingAJudgementIsJudgedToo) {
  Sandbox box(
      "extends = \"read-only\"\n[filesystem]\nworkspace_writable = true\n"
      "deny = [\"@ROOT@/secret\"]\n");
  box.Write("secret", "TOPSECRET\n");
  box.Write("ws/f", "x\n");
  const std::string prog = box.CompileC("sig", R"C(
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
static const char* secret;
static volatile int runs, leaks;
static void handler(int sig) {
  (void)sig;
  ++runs;
  int fd = open(secret, O_RDONLY);
  if (fd >= 0) { ++leaks; close(fd); }
}
int main(int argc, char** argv) {
  secret = argv[1];
  signal(SIGALRM, handler);
  // Each refusal is a round trip to klaunch (only klaunch writes the log),
  // longer than a tight timer's period: a handler refused every 50 us
  // would run back to back and starve the loop.
  struct itimerval t = {{0, 1000}, {0, 1000}};
  setitimer(ITIMER_REAL, &t, 0);
  struct stat st;
  for (int i = 0; i < 200000 && runs < 2000; ++i) stat("f", &st);
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, 0);
  printf("runs=%d leaks=%d\n", runs > 0, leaks);
  return 0;
}
)C");
  ProcessResult r = box.Run({prog, box.Path("secret")});
  EXPECT_EQ(r.out, "runs=1 leaks=0\n") << Show(r);
}

}  // namespace
}  // namespace klaunch::testing

namespace klaunch::testing {
namespace {

// Calls on a directory entry named with a trailing slash answer as the
// kernel does under the shim alone (Seccomp.CallsOnANameWithATrailing...
// runs the same program under every layer). The shim acted on an existing
// "d/e/" through its pin (/proc/self/fd/N/), where rmdir fails ENOTDIR.
TEST(ShimFiles, CallsOnANameWithATrailingSlashAnswerAsTheKernelDoes) {
  Sandbox box(
      "extends = \"workspace-write\"\n[filesystem]\n"
      "deny = [\"**/.env\"]\n");
  const std::string prog = box.Path("entry_slash");
  ASSERT_EQ(RunProcess({"/usr/bin/gcc", "-O1", "-o", prog,
                        RequiredEnv("KLAUNCH_TEST_PROGRAMS") +
                            "/entry_slash.c"})
                .exit_code,
            0);
  const ProcessResult want = RunNativelyInAnEmptyDirectory({prog});
  ASSERT_EQ(want.exit_code, 0) << want.err;
  const ProcessResult r = box.Run({prog});
  EXPECT_EQ(r.out, want.out) << Show(r);
  EXPECT_THAT(box.AuditLines(), IsEmpty());
}

TEST(ShimFiles, ATrailingSlashCannotMakeANameCallFollowALinkOutOfTheRoots) {
  Sandbox box(
      "extends = \"read-only\"\n[filesystem]\nworkspace_writable = true\n"
      "deny = [\"@ROOT@/denied\"]\n");
  RunProcess({"/bin/mkdir", "-p", box.Path("outdir"), box.Path("denied")});
  RunProcess({"/bin/chmod", "755", box.Path("outdir")});
  RunProcess({"/bin/ln", "-s", box.Path("outdir"), box.Path("ws/odlink")});
  RunProcess({"/bin/ln", "-s", box.Path("denied"), box.Path("ws/denylink")});
  const std::string prog = box.CompileC("slash", R"C(
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
int main(void) {
  struct stat st;
  printf("fchmodat %d\n", fchmodat(AT_FDCWD, "odlink/", 0700, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : errno);
  printf("lchown %d\n", lchown("odlink/", 0, 0) == 0 ? 0 : errno);
  printf("lstat-denied %d\n", lstat("denylink/", &st) == 0 ? 0 : errno);
  printf("lstat-ok %d\n", lstat("odlink/", &st) == 0 ? 0 : errno);
  return 0;
}
)C");
  ProcessResult r = box.Run({prog});
  EXPECT_THAT(r.out, HasSubstr("fchmodat 13\n")) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("lchown 13\n")) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("lstat-denied 13\n")) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("lstat-ok 0\n")) << Show(r);
  struct stat st;
  ASSERT_EQ(stat(box.Path("outdir").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);
}

}  // namespace
}  // namespace klaunch::testing

namespace klaunch::testing {
namespace {

TEST(ShimFiles, ReviewedEscapesStayClosed) {
  Sandbox box(
      "extends = \"read-only\"\n[filesystem]\nworkspace_writable = true\n"
      "read = [\"@ROOT@/ro\"]\ndeny = [\"@ROOT@/denied\"]\n");
  box.Write("ro/ro.txt", "original\n");
  RunProcess({"/bin/mkdir", "-p", box.Path("denied")});
  RunProcess({"/bin/ln", "-s", box.Path("denied"), box.Path("ws/denylink")});
  const std::string prog = box.CompileC("reviewed", R"C(
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
int main(int argc, char** argv) {
  /* freopen(NULL, "r+") must not turn a read-only stream writable. */
  FILE* f = fopen(argv[1], "r");
  FILE* g = f ? freopen(NULL, "r+", f) : NULL;
  printf("freopen-null %s\n", g ? "opened" : "refused");
  if (g) { fputs("PWNED\n", g); fclose(g); }
  /* realpath leaves no trace of a refused path in the caller's buffer. */
  char buf[PATH_MAX];
  memset(buf, 'x', sizeof(buf));
  char* r = realpath("denylink", buf);
  printf("realpath %s buf=%s\n", r ? "ok" : "refused", buf[0] ? "dirty" : "clean");
  /* AT_EMPTY_PATH on AT_FDCWD works as natively. */
  struct stat st;
  printf("empty-path %d\n", fstatat(AT_FDCWD, "", &st, AT_EMPTY_PATH) == 0 ? 0 : errno);
  /* /proc/self is readable under the read-only preset. */
  FILE* s = fopen("/proc/self/status", "r");
  printf("proc-self %s\n", s ? "ok" : "refused");
  return 0;
}
)C");
  ProcessResult r = box.Run({prog, box.Path("ro/ro.txt")});
  EXPECT_THAT(r.out, HasSubstr("freopen-null refused\n")) << Show(r);
  EXPECT_EQ(ReadFile(box.Path("ro/ro.txt")), "original\n");
  EXPECT_THAT(r.out, HasSubstr("realpath refused buf=clean\n")) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("empty-path 0\n")) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("proc-self ok\n")) << Show(r);
}

TEST(ShimFiles, AnotherProcesssPipeReachedThroughProcIsJudgedByThePathWritten) {
  Sandbox box(
      "extends = \"read-only\"\n[filesystem]\nworkspace_writable = true\n");
  // A process outside the sandbox whose stdout is a pipe to a file.
  const std::string out = box.Path("pipe_out.txt");
  ProcessOptions o;
  o.timeout_seconds = 20;
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t reader = fork();
  if (reader == 0) {
    close(fds[1]);
    dup2(fds[0], 0);
    execl("/bin/sh", "sh", "-c", ("cat > " + out).c_str(), (char*)nullptr);
    _exit(127);
  }
  close(fds[0]);
  pid_t writer = fork();
  if (writer == 0) {
    dup2(fds[1], 1);
    close(fds[1]);
    execl("/bin/sleep", "sleep", "20", (char*)nullptr);
    _exit(127);
  }
  close(fds[1]);
  const std::string target = "/proc/" + std::to_string(writer) + "/fd/1";
  ProcessResult r =
      box.Run({"/bin/sh", "-c", "echo INJECTED > " + target + " && echo wrote"});
  kill(writer, SIGKILL);
  waitpid(writer, nullptr, 0);
  waitpid(reader, nullptr, 0);
  EXPECT_THAT(r.out, Not(HasSubstr("wrote"))) << Show(r);
  EXPECT_THAT(ReadFile(out), Not(HasSubstr("INJECTED")));
  // Its own stdout, by the same route, stays usable.
  ProcessResult own = box.Run({"/bin/sh", "-c", "echo mine > /dev/stdout"});
  EXPECT_EQ(own.out, "mine\n") << Show(own);
}

}  // namespace
}  // namespace klaunch::testing

namespace klaunch::testing {
namespace {

TEST(ShimFiles, WithoutAnEffectivePolicyTheShimRefusesEverythingItJudges) {
  TempDir dir;
  const std::string file = dir.Write("f.txt", "content\n");
  const std::string shim = RequiredEnv("KLAUNCH_SHIM");
  for (const std::string& policy :
       {dir.Write("empty.toml", ""), dir.Path("missing.toml"),
        dir.Write("hand.toml", "extends = \"full-access\"\n")}) {
    ProcessOptions o;
    o.env = std::vector<std::string>{"PATH=/usr/bin:/bin",
                                     "LD_PRELOAD=" + shim,
                                     "KLAUNCH_POLICY_FILE=" + policy};
    ProcessResult r = RunProcess({"/bin/cat", file}, o);
    EXPECT_NE(r.exit_code, 0) << policy;
    EXPECT_THAT(r.out, Not(HasSubstr("content"))) << policy;
  }
}

}  // namespace
}  // namespace klaunch::testing

namespace klaunch::testing {
namespace {

TEST(ShimFiles, OtherPublicNamesOfLibcEntryPointsAreJudgedToo) {
  Sandbox box(
      "extends = \"read-only\"\n[filesystem]\nworkspace_writable = true\n"
      "read = [\"@ROOT@/ro\"]\ndeny = [\"@ROOT@/secret\"]\n");
  box.Write("secret", "TOPSECRET\n");
  box.Write("ro/ro.txt", "original\n");
  const std::string prog = box.CompileC("aliases", R"C(
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
int __open64(const char*, int, ...);
int __open(const char*, int, ...);
FILE* _IO_fopen(const char*, const char*);
int lchmod(const char*, mode_t);
int main(int argc, char** argv) {
  printf("__open64 %d\n", __open64(argv[1], O_RDONLY) >= 0 ? 0 : errno);
  printf("__open %d\n", __open(argv[2], O_WRONLY | O_TRUNC) >= 0 ? 0 : errno);
  printf("_IO_fopen %d\n", _IO_fopen(argv[1], "r") ? 0 : errno);
  printf("lchmod %d\n", lchmod(argv[2], 0777) == 0 ? 0 : errno);
  printf("shm_open %d\n", shm_open("/klaunch-test-shm", O_CREAT | O_RDWR, 0600) >= 0 ? 0 : errno);
  return 0;
}
)C");
  ProcessResult r = box.Run({prog, box.Path("secret"), box.Path("ro/ro.txt")});
  EXPECT_EQ(r.out,
            "__open64 13\n__open 13\n_IO_fopen 13\nlchmod 13\nshm_open 13\n")
      << Show(r);
  EXPECT_EQ(ReadFile(box.Path("ro/ro.txt")), "original\n");
  EXPECT_FALSE(Exists("/dev/shm/klaunch-test-shm"));
}

}  // namespace
}  // namespace klaunch::testing

namespace klaunch::testing {
namespace {

TEST(ShimFiles, TemporaryFilesAreMadeOnlyWhereThePolicyLetsThemBe) {
  Sandbox box(
      "extends = \"read-only\"\n[filesystem]\nworkspace_writable = true\n");
  const std::string prog = box.CompileC("temps", R"C(
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
             ? "named" : "unnamed");
  printf("mkostemps outside %d\n", mkostemps(out2, 4, 0) >= 0 ? 0 : errno);
  printf("mkdtemp outside %s\n", mkdtemp(dout) ? "made" : "refused");
  printf("mkdtemp inside %s\n", mkdtemp(din) ? "made" : "refused");
  printf("tmpfile %s\n", tmpfile() ? "made" : "refused");
  return 0;
}
)C");
  ProcessResult r = box.Run({prog, box.root()});
  EXPECT_THAT(r.out, HasSubstr("mkstemp outside 13\n")) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("mkstemp inside 0 named\n")) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("mkostemps outside 13\n")) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("mkdtemp outside refused\n")) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("mkdtemp inside made\n")) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("tmpfile refused\n")) << Show(r);
  // Nothing was made in the test's root outside ws/.
  ProcessResult ls = RunProcess({"/bin/ls", box.root()});
  EXPECT_THAT(ls.out, Not(HasSubstr("outside-"))) << ls.out;
  EXPECT_THAT(ls.out, Not(HasSubstr("dir-"))) << ls.out;
}

// --- the memo of allowed objects (shim/known.h) ----------------------------
// Each program first makes the shim remember an allowed object (opened or
// stat-ed twice), then changes what the same name, inode or path means; the
// memo must never answer for what it did not judge.

TEST(ShimFiles, ANameReadBeforeAndThenSwappedForALinkToADeniedFileIsRefused) {
  Sandbox box(kPolicy);
  const Files f = Populate(box);
  const std::string prog = Program(box, "swap", R"C(
int main(int argc, char** argv) {
  root = argv[1];
  struct stat st;
  for (int i = 0; i < 2; ++i) {
    show_fd("read a.txt", open("a.txt", O_RDONLY));
    show("stat a.txt", stat("a.txt", &st));
    show("lstat a.txt", lstat("a.txt", &st));
  }
  unlink("a.txt");
  symlink(P("secret/key.txt"), "a.txt");  /* natively allowed: ws write */
  show_fd("read swapped", open("a.txt", O_RDONLY));
  show("stat swapped", stat("a.txt", &st));
  return 0;
}
)C");
  ProcessResult r = box.Run({prog, box.root()});
  EXPECT_THAT(r.out, HasSubstr("read a.txt: ok"));
  EXPECT_THAT(r.out, HasSubstr("read swapped: -1 EACCES")) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("stat swapped: -1 EACCES")) << Show(r);
  EXPECT_THAT(box.RefusedTargets(), Contains(f.secret)) << Dump(box);
}

TEST(ShimFiles, AHardLinkReadThroughTheWorkspaceDoesNotOpenItsDeniedName) {
  Sandbox box(kPolicy);
  const Files f = Populate(box);
  // Made before the run: the same inode under an allowed and a denied name.
  Native("ln " + f.secret + " " + box.Path("ws/link.txt"));
  const std::string prog = Program(box, "hardlink", R"C(
int main(int argc, char** argv) {
  root = argv[1];
  struct stat st;
  for (int i = 0; i < 2; ++i) {
    show_fd("read link", open("link.txt", O_RDONLY));
    show("stat link", stat("link.txt", &st));
  }
  show_fd("read denied name", open(P("secret/key.txt"), O_RDONLY));
  show("stat denied name", stat(P("secret/key.txt"), &st));
  return 0;
}
)C");
  ProcessResult r = box.Run({prog, box.root()});
  EXPECT_THAT(r.out, HasSubstr("read link: ok"));
  EXPECT_THAT(r.out, HasSubstr("read denied name: -1 EACCES")) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("stat denied name: -1 EACCES")) << Show(r);
}

TEST(ShimFiles, AFileMovedIntoADeniedTreeAfterItWasReadIsRefusedThere) {
  Sandbox box(kPolicy);
  const Files f = Populate(box);
  // The move is a raw system call, which the shim does not see: it stands
  // for another process outside the sandbox moving the file.
  const std::string prog = Program(box, "moved", R"C(
#include <sys/syscall.h>
int main(int argc, char** argv) {
  root = argv[1];
  struct stat st;
  for (int i = 0; i < 2; ++i) {
    show_fd("read a.txt", open("a.txt", O_RDONLY));
    show("stat a.txt", stat("a.txt", &st));
  }
  show("move", syscall(SYS_renameat2, AT_FDCWD, "a.txt", AT_FDCWD,
                       P("secret/moved.txt"), 0));
  show_fd("read moved", open(P("secret/moved.txt"), O_RDONLY));
  show("stat moved", stat(P("secret/moved.txt"), &st));
  return 0;
}
)C");
  ProcessResult r = box.Run({prog, box.root()});
  EXPECT_THAT(r.out, HasSubstr("move: ok")) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("read moved: -1 EACCES")) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("stat moved: -1 EACCES")) << Show(r);
  EXPECT_THAT(box.RefusedTargets(), Contains(f.secret_dir + "/moved.txt"))
      << Dump(box);
}

TEST(ShimFiles, AChildDoesNotInheritItsParentsProcSelfAsItsOwn) {
  // The parent may read its own /proc/self/status; its child, reading the
  // parent's /proc/PID/status, reads another process's entry, which
  // read-only does not admit.
  Sandbox box(kPolicy);
  Populate(box);
  const std::string prog = Program(box, "procchild", R"C(
#include <sys/wait.h>
int main(int argc, char** argv) {
  root = argv[1];
  char mine[64];
  snprintf(mine, sizeof(mine), "/proc/%d/status", (int)getpid());
  for (int i = 0; i < 2; ++i) show_fd("parent reads its own", open(mine, O_RDONLY));
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    show_fd("child reads the parent's", open(mine, O_RDONLY));
    fflush(stdout);
    _exit(0);
  }
  waitpid(pid, NULL, 0);
  return 0;
}
)C");
  ProcessResult r = box.Run({prog, box.root()});
  EXPECT_THAT(r.out, HasSubstr("parent reads its own: ok")) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("child reads the parent's: -1 EACCES"))
      << Show(r);
}

TEST(ShimFiles, AuditModeRecordsARepeatedWouldDenyEveryTime) {
  // Enforcement refuses each of the three reads; the dry run must record
  // each, not remember the first as allowed.
  Sandbox box(std::string("mode = \"audit\"\n") + kPolicy);
  const Files f = Populate(box);
  const std::string prog = Program(box, "auditrepeat", R"C(
int main(int argc, char** argv) {
  root = argv[1];
  struct stat st;
  for (int i = 0; i < 3; ++i) {
    show_fd("read", open(P("secret/key.txt"), O_RDONLY));
    show("stat", stat(P("secret/key.txt"), &st));
  }
  return 0;
}
)C");
  ProcessResult r = box.Run({prog, box.root()});
  EXPECT_THAT(r.out, Not(HasSubstr("-1"))) << Show(r);
  EXPECT_EQ(LinesFor(box, f.secret).size(), 6u) << Dump(box);
}

}  // namespace
}  // namespace klaunch::testing
