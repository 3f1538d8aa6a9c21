// The calls that look at a path without opening it, made without the shim:
// stat, lstat, newfstatat, statx, access, faccessat(2), readlink(at). A deny
// entry hides a file's existence, size and times as well as its bytes, so
// these are judged as the shim judges them (shim/stat.cc): a followed name
// by the object it reaches, a name not followed (lstat, readlink) by
// itself, access(2) by the access its mode asks. The supervisor then looks
// at the object it pinned and writes the answer into the target's memory,
// so a name rewritten by another thread after the judgement changes
// nothing.
//
// Not here: fd-only looks. The filter lets AT_EMPTY_PATH calls on a
// descriptor through unasked, because libc's own fstat is one, and BPF
// cannot read whether the name is really empty (SECURITY.md).

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

#include "launcher/supervise.h"

namespace klaunch::supervise {
namespace {

constexpr int kStatFlags = AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT;

// What the call looks at, as its arguments say.
struct Look {
  const char* op = "";
  int dirfd = AT_FDCWD;
  uint64_t path_arg = 0;
  int flags = 0;  // AT_* flags
  Access access = Access::kStat;
};

Access AccessOfMode(int mode) {
  if (mode & W_OK) return Access::kWrite;
  if (mode & R_OK) return Access::kRead;
  if (mode & X_OK) return Access::kExec;
  return Access::kStat;
}

// Pins and judges what `look` names; 0 or the -errno to answer with.
int Judge(Call& c, const Look& look, Resolved* r) {
  std::string path;
  if (int e = c.target().ReadString(look.path_arg, &path); e < 0) return e;
  int rc;
  if (path.empty() && (look.flags & AT_EMPTY_PATH)) {
    rc = OpenStart(c.target(), look.dirfd, path, &r->object);
  } else {
    rc = Resolve(c.target(), look.dirfd, path,
                 !(look.flags & AT_SYMLINK_NOFOLLOW), r);
  }
  if (!c.Live()) return -ENOENT;
  if (rc < 0) {
    if (!c.JudgeMissing(look.op, look.access, look.dirfd, path)) return -EACCES;
    return rc;
  }
  // An object with no path (a pipe, a socket) says nothing about files.
  if (!c.JudgePath(look.op, look.access, KernelPath(r->object.get()))) {
    return -EACCES;
  }
  return 0;
}

Answer Stat(Call& c, const Look& look, uint64_t out) {
  if (look.flags & ~kStatFlags) return Answer::Error(EINVAL);
  Resolved r;
  if (int e = Judge(c, look, &r); e < 0) return Answer::Error(-e);
  struct stat st;
  if (fstatat(r.object.get(), "", &st, AT_EMPTY_PATH) != 0) {
    return Answer::Error(errno);
  }
  if (!c.target().Write(out, &st, sizeof(st))) return Answer::Error(EFAULT);
  return Answer::Value(0);
}

Answer Statx(Call& c, const Look& look, unsigned mask, uint64_t out) {
  if (look.flags & ~(kStatFlags | AT_STATX_SYNC_TYPE)) {
    return Answer::Error(EINVAL);
  }
  Resolved r;
  if (int e = Judge(c, look, &r); e < 0) return Answer::Error(-e);
  struct statx sx;
  const int flags = AT_EMPTY_PATH | (look.flags & AT_STATX_SYNC_TYPE);
  if (syscall(SYS_statx, r.object.get(), "", flags, mask, &sx) != 0) {
    return Answer::Error(errno);
  }
  if (!c.target().Write(out, &sx, sizeof(sx))) return Answer::Error(EFAULT);
  return Answer::Value(0);
}

Answer Access(Call& c, Look look, int mode) {
  if (mode & ~(R_OK | W_OK | X_OK)) return Answer::Error(EINVAL);
  if (look.flags & ~(AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)) {
    return Answer::Error(EINVAL);
  }
  look.access = AccessOfMode(mode);
  Resolved r;
  if (int e = Judge(c, look, &r); e < 0) return Answer::Error(-e);
  const int flags = AT_EMPTY_PATH | (look.flags & AT_EACCESS);
  return Answer::Result(
      syscall(SYS_faccessat2, r.object.get(), "", mode, flags) == 0 ? 0
                                                                    : -errno);
}

Answer Readlink(Call& c, Look look, uint64_t out, int64_t size) {
  if (size <= 0) return Answer::Error(EINVAL);
  look.flags = AT_SYMLINK_NOFOLLOW;
  Resolved r;
  if (int e = Judge(c, look, &r); e < 0) return Answer::Error(-e);
  struct stat st;
  if (fstatat(r.object.get(), "", &st, AT_EMPTY_PATH) != 0) {
    return Answer::Error(errno);
  }
  if (!S_ISLNK(st.st_mode)) return Answer::Error(EINVAL);
  std::vector<char> buf(std::min<int64_t>(size, 1 << 16));
  const ssize_t n = readlinkat(r.object.get(), "", buf.data(), buf.size());
  if (n < 0) return Answer::Error(errno);
  if (!c.target().Write(out, buf.data(), n)) return Answer::Error(EFAULT);
  return Answer::Value(n);
}

}  // namespace

Answer SuperviseStat(Call& c) {
  Look look;
  switch (c.nr()) {
    case SYS_stat:
    case SYS_lstat:
      look.op = c.nr() == SYS_stat ? "stat" : "lstat";
      look.path_arg = c.arg(0);
      look.flags = c.nr() == SYS_lstat ? AT_SYMLINK_NOFOLLOW : 0;
      return Stat(c, look, c.arg(1));
    case SYS_newfstatat:
      look.op = "newfstatat";
      look.dirfd = c.iarg(0);
      look.path_arg = c.arg(1);
      look.flags = c.iarg(3);
      return Stat(c, look, c.arg(2));
    case SYS_statx:
      look.op = "statx";
      look.dirfd = c.iarg(0);
      look.path_arg = c.arg(1);
      look.flags = c.iarg(2);
      return Statx(c, look, static_cast<unsigned>(c.arg(3)), c.arg(4));
    case SYS_access:
      look.op = "access";
      look.path_arg = c.arg(0);
      return Access(c, look, c.iarg(1));
    case SYS_faccessat:
    case SYS_faccessat2:
      look.op = c.nr() == SYS_faccessat ? "faccessat" : "faccessat2";
      look.dirfd = c.iarg(0);
      look.path_arg = c.arg(1);
      look.flags = c.nr() == SYS_faccessat2 ? c.iarg(3) : 0;
      return Access(c, look, c.iarg(2));
    case SYS_readlink:
      look.op = "readlink";
      look.path_arg = c.arg(0);
      return Readlink(c, look, c.arg(1), static_cast<int64_t>(c.arg(2)));
    case SYS_readlinkat:
      look.op = "readlinkat";
      look.dirfd = c.iarg(0);
      look.path_arg = c.arg(1);
      return Readlink(c, look, c.arg(2), static_cast<int64_t>(c.arg(3)));
  }
  return Answer::Error(ENOSYS);
}

}  // namespace klaunch::supervise
