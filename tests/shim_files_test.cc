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
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

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
  ProcessResult r =
      box.Run({kPython, "-c", script, box.root(), f.outside, f.secret});
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

TEST(ShimFiles,
     FopenOfADeniedPathIsRefusedAndFopenForWritingOutsideCreatesNothing) {
  Sandbox box(kPolicy);
  const Files f = Populate(box);
  const std::string prog = box.CompileProgram("files_fopen.c");
  ProcessResult r = box.Run({prog, box.root()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(
      r.out,
      Lines({"fopen r secret: -1 EACCES", "fopen re secret: -1 EACCES",
             "fopen rb secret: -1 EACCES", "fopen r+ secret: -1 EACCES",
             "fopen ccs secret: -1 EACCES", "fopen64 r secret: -1 EACCES",
             "fopen r outside: -1 EACCES", "fopen w new outside: -1 EACCES",
             "fopen a new outside: -1 EACCES",
             "fopen wx new outside: -1 EACCES",
             "fopen w+ new outside: -1 EACCES", "fopen w outside: -1 EACCES",
             "fopen a outside: -1 EACCES", "fopen w secret: -1 EACCES",
             "fopen w new in secret: -1 EACCES", "freopen secret: -1 EACCES",
             "ws read: hello", "fopen w ws: ok"}));
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
  const std::string prog = box.CompileProgram("files_openat_dotdot.c");
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
  ProcessResult sh =
      box.Run({"/bin/sh", "-c",
               "echo pwned > link-secret; echo pwned >> link-outside"});
  EXPECT_THAT(sh.err, HasSubstr("Permission denied"));
  const std::string prog = box.CompileProgram("files_symlink_write.c");
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
  const std::string prog = box.CompileProgram("files_dangling_symlink.c");
  ProcessResult r = box.Run({prog, box.root()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(
      r.out,
      Lines({"open dangling creat: -1 EACCES",
             "open dangling creat trunc: -1 EACCES",
             "creat dangling: -1 EACCES", "fopen dangling w: -1 EACCES",
             "fopen dangling a: -1 EACCES",
             "open rel-dangling creat: -1 EACCES",
             "open dangling-secret creat: -1 EACCES",
             "open chain creat: -1 EACCES", "openat dangling creat: -1 EACCES",
             "open dangling-inside creat: ok"}));
  ProcessResult sh = box.Run({"/bin/sh", "-c", "echo pwned > dangling"});
  EXPECT_NE(sh.exit_code, 0);
  EXPECT_THAT(sh.err, HasSubstr("Permission denied"));
  ProcessResult py =
      box.Run({kPython, "-c", "open('rel-dangling', 'w').write('pwned')"});
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
  const std::string prog = box.CompileProgram("files_proc_tricks.c");
  const struct stat before = StatOf(f.outside);
  ProcessResult r = box.Run({prog, box.root()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            Lines({"open /proc/self/root secret: -1 EACCES",
                   "open /proc/thread-self/root secret: -1 EACCES",
                   "open /proc/PID/root secret: -1 EACCES",
                   "open /proc/self/root outside trunc: -1 EACCES",
                   "open /proc/self/root creat: -1 EACCES",
                   "open /proc/self/cwd/../secret/key.txt: -1 EACCES",
                   "O_PATH secret: -1 EACCES", "O_PATH outside: ok",
                   "reopen outside rdonly: -1 EACCES",
                   "reopen outside trunc: -1 EACCES",
                   "fopen reopen outside w: -1 EACCES",
                   "truncate reopen outside: -1 EACCES",
                   "chmod reopen outside: -1 EACCES",
                   "linkat reopen outside into ws: -1 EACCES",
                   "O_PATH root: ok", "open root-fd/secret/key.txt: -1 EACCES",
                   "creat root-fd/proc_made2.txt: -1 EACCES",
                   "opendir root-fd: -1 EACCES", "reopen ws file: ok"}));
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
  const std::string prog =
      box.CompileProgram("files_symlink_race.c", {"-pthread"});
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

// --- 8. native behaviour
// -------------------------------------------------------

TEST(ShimFiles, ErrnoAndReturnValuesMatchNativeBehaviour) {
  Sandbox box(kPolicy);
  Populate(box);
  box.Write("ws/dir/inner.txt", "inner\n");
  box.Write("ws/nonempty/x", "x\n");
  Native("cd " + box.ws() +
         " && ln -s a.txt link-to-a && ln -s no-such-target dangling");
  const std::string prog = box.CompileProgram("files_errnos.c");
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
  const std::string prog = box.CompileProgram("files_lowest_fd.c");
  ProcessOptions native_options;
  native_options.cwd = box.ws();
  ProcessResult native = RunProcess({prog, box.root()}, native_options);
  ASSERT_EQ(native.exit_code, 0);
  ASSERT_EQ(native.out, "0 3 3 3 3\n");
  ProcessResult shimmed = box.Run({prog, box.root()});
  EXPECT_EQ(shimmed.out, native.out);
}

// --- 9. mutations
// --------------------------------------------------------------

TEST(ShimFiles, MutationsOutsideTheWriteRootsAreRefusedAndChangeNothing) {
  Sandbox box(kPolicy);
  const Files f = Populate(box);
  box.Write("emptydir/.placeholder", "");
  Native("rm " + box.Path("emptydir/.placeholder") +
         " && touch -d 2001-02-03 " + f.outside);
  const struct stat before = StatOf(f.outside);
  const struct stat ws_before = StatOf(f.ws_file);
  const std::string prog = box.CompileProgram("files_mutate.c");
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
  Native("rm " + box.Path("emptydir/.placeholder") +
         " && touch -d 2001-02-03 " + f.outside);
  const struct stat before = StatOf(f.outside);
  const std::string R = box.root();
  const std::string script = "rm -f " + R +
                             "/outside.txt; echo rm=$?\n"
                             "rm -rf " +
                             R +
                             "/secret; echo rm-r=$?\n"
                             "mv a.txt " +
                             R +
                             "/moved.txt; echo mv-out=$?\n"
                             "mv " +
                             R +
                             "/outside.txt stolen.txt; echo mv-in=$?\n"
                             "mkdir " +
                             R +
                             "/newdir; echo mkdir=$?\n"
                             "mkdir -p " +
                             R +
                             "/p/q; echo mkdir-p=$?\n"
                             "rmdir " +
                             R +
                             "/emptydir; echo rmdir=$?\n"
                             "chmod 777 " +
                             R +
                             "/outside.txt; echo chmod=$?\n"
                             "truncate -s 0 " +
                             R +
                             "/outside.txt; echo truncate=$?\n"
                             "ln " +
                             R +
                             "/outside.txt hard.txt; echo ln=$?\n"
                             "ln -s a.txt " +
                             R +
                             "/newlink; echo ln-s=$?\n"
                             "touch -d 2010-01-01 " +
                             R +
                             "/outside.txt; echo touch=$?\n"
                             "touch " +
                             R +
                             "/touched.txt; echo touch-new=$?\n"
                             "cp a.txt " +
                             R +
                             "/copied.txt; echo cp=$?\n"
                             "cp " +
                             R +
                             "/secret/key.txt stolen.txt; echo cp-secret=$?\n"
                             "echo pwned > " +
                             R +
                             "/outside.txt; echo redirect=$?\n"
                             "echo pwned >> " +
                             R + "/outside.txt; echo append=$?\n";
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
  const std::string prog = box.CompileProgram("files_stat.c");
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
  ProcessResult missing =
      box.Run({"/bin/ls", "-l", box.Path("secret/nope.txt")});
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
  const std::string prog = box.CompileProgram("files_deny_glob.c");
  ProcessResult r = box.Run({prog});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            Lines({"stat sub/.env: -1 EACCES", "stat .env (missing): -1 EACCES",
                   "stat sub/deeper/.env (missing): -1 EACCES",
                   "open sub/.env: -1 EACCES", "creat .env: -1 EACCES",
                   "rename onto sub/.env: -1 EACCES",
                   "rename sub/.env away: -1 EACCES", "stat sub/ok.txt: ok"}));
  EXPECT_THAT(box.RefusedTargets(), Contains(box.Path("ws/sub/.env")));
  EXPECT_EQ(ReadFile(box.Path("ws/sub/.env")), "API_KEY=hunter2\n");
  EXPECT_EQ(ReadFile(box.Path("ws/sub/ok.txt")), "fine\n");
  EXPECT_FALSE(Exists(box.Path("ws/.env")));
  EXPECT_FALSE(Exists(box.Path("ws/sub/env.txt")));
}

// --- 11. audit mode
// ------------------------------------------------------------

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

// --- 12. threads
// ---------------------------------------------------------------

TEST(ShimFiles, EightThreadsOpeningAtOnceGetEveryDecisionRight) {
  Sandbox box(kPolicy);
  const Files f = Populate(box);
  const std::string prog = box.CompileProgram("files_threads.c", {"-pthread"});
  ProcessResult r = box.Run({prog, box.root()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "errors=0\n") << r.err.substr(0, 4000);
  EXPECT_EQ(ReadFile(f.outside), kOutside);
  EXPECT_EQ(ReadFile(f.secret), kSecret);
  for (int t = 0; t < 8; ++t) {
    EXPECT_EQ(ReadFile(box.Path("ws/t" + std::to_string(t) + ".txt")),
              "mine\n");
  }
  ProcessResult ls = RunProcess({"/bin/ls", box.root()});
  EXPECT_EQ(ls.out,
            "audit.jsonl\neffective.toml\nfiles_threads\noutside.txt\n"
            "policy.toml\nsecret\nws\n");
  // Every refusal was recorded, whole lines only.
  const std::vector<std::string> lines = box.AuditLines();
  EXPECT_GE(lines.size(), 8u * 300u * 5u);
  for (const std::string& line : lines) {
    ASSERT_EQ(line.front(), '{') << line;
    ASSERT_EQ(line.back(), '}') << line;
  }
}

// --- 13. exported symbols
// --------------------------------------------------------

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

// --- 14. ordinary work
// -----------------------------------------------------------

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
  ProcessResult r = box.Run({"/bin/sh", "-c",
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
  EXPECT_THAT(LinesMentioning(box, "out from under it").size(), 2u)
      << Dump(box);
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
  const std::string prog = box.CompileProgram("files_signal_handler.c");
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
  ASSERT_EQ(
      RunProcess({"/usr/bin/gcc", "-O1", "-o", prog,
                  RequiredEnv("KLAUNCH_TEST_PROGRAMS") + "/entry_slash.c"})
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
  const std::string prog = box.CompileProgram("files_trailing_slash_link.c");
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
  const std::string prog = box.CompileProgram("files_reviewed_escapes.c");
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
  ProcessResult r = box.Run(
      {"/bin/sh", "-c", "echo INJECTED > " + target + " && echo wrote"});
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
    o.env = std::vector<std::string>{"PATH=/usr/bin:/bin", "LD_PRELOAD=" + shim,
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
  const std::string prog = box.CompileProgram("files_libc_aliases.c");
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
  const std::string prog = box.CompileProgram("files_temp_files.c");
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
  const std::string prog = box.CompileProgram("files_memo_swap.c");
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
  const std::string prog = box.CompileProgram("files_memo_hardlink.c");
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
  const std::string prog = box.CompileProgram("files_memo_moved.c");
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
  const std::string prog = box.CompileProgram("files_proc_child.c");
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
  const std::string prog = box.CompileProgram("files_audit_repeat.c");
  ProcessResult r = box.Run({prog, box.root()});
  EXPECT_THAT(r.out, Not(HasSubstr("-1"))) << Show(r);
  EXPECT_EQ(LinesFor(box, f.secret).size(), 6u) << Dump(box);
}

}  // namespace
}  // namespace klaunch::testing
