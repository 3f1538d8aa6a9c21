// The calls that look at a path without opening it, made without the shim:
// stat, lstat, newfstatat, statx, access, faccessat(2), readlink(at), the
// extended attributes' get*xattr and list*xattr, inotify_add_watch. A deny
// entry hides a file's existence, size and times as well as its bytes, so
// these are judged as the shim judges them (shim/stat.cc): a followed name
// by the object it reaches, a name not followed (lstat, readlink) by
// itself, access(2) by the access its mode asks. The supervisor then looks
// at the object it pinned and writes the answer into the target's memory,
// so a name rewritten by another thread after the judgement changes
// nothing.
//
// Decoding is decode.h's (DecodeLook). Not here: fd-only looks. The filter
// lets AT_EMPTY_PATH calls on a descriptor through unasked, because libc's
// own fstat is one, and BPF cannot read whether the name is really empty
// (SECURITY.md).

#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

#include "supervisor/supervise.h"

namespace klaunch::supervise {
namespace {

// Pins and judges what `look` names; 0 or the -errno to answer with.
int Judge(Call& c, const LookCall& look, Access access, Resolved* r) {
  int rc;
  if (look.path.empty() && (look.flags & AT_EMPTY_PATH)) {
    rc = OpenStart(c.target(), look.dirfd, look.path, &r->object);
  } else {
    rc = Resolve(c.target(), look.dirfd, look.path,
                 !(look.flags & AT_SYMLINK_NOFOLLOW), r);
  }
  if (!c.Live()) return -ENOENT;
  if (rc < 0) {
    if (!c.JudgeMissing(look.op, access, look.dirfd, look.path)) return -EACCES;
    return rc;
  }
  // An object with no path (a pipe, a socket) says nothing about files.
  if (!c.JudgePath(look.op, access, KernelPath(r->object.get()))) {
    return -EACCES;
  }
  return 0;
}

// A path that reaches what was pinned: through the object's pin, or, for a
// call that does not follow a final symlink, through its directory's pin
// and its name (a magic link through /proc/self/fd would be followed).
std::string Via(const Resolved& r, bool nofollow) {
  if (nofollow && r.parent.valid()) {
    return ProcFd(r.parent.get()) + "/" + r.last;
  }
  return ProcFd(r.object.get());
}

// Writes `size` bytes of the answer where the call asked for them.
Answer Give(Call& c, uint64_t out, const void* data, size_t size,
            int64_t value) {
  if (!c.target().Write(out, data, size)) return Answer::Error(EFAULT);
  return Answer::Value(value);
}

Answer Look(Call& c, const LookCall& look) {
  const Access access = look.kind == LookCall::kAccess
                            ? AccessModeAccess(look.mode)
                            : Access::kStat;
  Resolved r;
  if (int e = Judge(c, look, access, &r); e < 0) return Answer::Error(-e);
  const int pin = r.object.get();
  switch (look.kind) {
    case LookCall::kStat: {
      // The pinned object's, as resolving saw it (one system call less).
      struct stat st = r.st;
      if (!r.stat_known && fstatat(pin, "", &st, AT_EMPTY_PATH) != 0) {
        return Answer::Error(errno);
      }
      return Give(c, look.out, &st, sizeof(st), 0);
    }
    case LookCall::kStatx: {
      struct statx sx;
      const int flags = AT_EMPTY_PATH | (look.flags & AT_STATX_SYNC_TYPE);
      if (syscall(SYS_statx, pin, "", flags, look.mask, &sx) != 0) {
        return Answer::Error(errno);
      }
      return Give(c, look.out, &sx, sizeof(sx), 0);
    }
    case LookCall::kAccess: {
      const int flags = AT_EMPTY_PATH | (look.flags & AT_EACCESS);
      if (syscall(SYS_faccessat2, pin, "", look.mode, flags) != 0) {
        return Answer::Error(errno);
      }
      return Answer::Value(0);
    }
    case LookCall::kReadlink: {
      struct stat st = r.st;
      if (!r.stat_known && fstatat(pin, "", &st, AT_EMPTY_PATH) != 0) {
        return Answer::Error(errno);
      }
      if (!S_ISLNK(st.st_mode)) return Answer::Error(EINVAL);
      std::vector<char> buf(std::min<uint64_t>(look.size, 1 << 16));
      const ssize_t n = readlinkat(pin, "", buf.data(), buf.size());
      if (n < 0) return Answer::Error(errno);
      return Give(c, look.out, buf.data(), n, n);
    }
    case LookCall::kGetXattr:
    case LookCall::kListXattr: {
      const bool get = look.kind == LookCall::kGetXattr;
      const bool link = look.flags & AT_SYMLINK_NOFOLLOW;
      const std::string via = Via(r, link);
      std::vector<char> buf(look.size);
      const ssize_t n =
          get ? (link ? lgetxattr(via.c_str(), look.name.c_str(), buf.data(),
                                  buf.size())
                      : getxattr(via.c_str(), look.name.c_str(), buf.data(),
                                 buf.size()))
              : (link ? llistxattr(via.c_str(), buf.data(), buf.size())
                      : listxattr(via.c_str(), buf.data(), buf.size()));
      if (n < 0) return Answer::Error(errno);
      if (look.size == 0) return Answer::Value(n);  // only the size asked
      return Give(c, look.out, buf.data(), n, n);
    }
    case LookCall::kWatch: {
      // On the target's own inotify instance, through klaunch's copy.
      const int mine = c.target().GetFd(look.fd);
      if (mine < 0) return Answer::Error(-mine);
      Fd inotify(mine);
      const int wd = inotify_add_watch(
          inotify.get(), Via(r, look.flags & AT_SYMLINK_NOFOLLOW).c_str(),
          look.watch);
      return wd < 0 ? Answer::Error(errno) : Answer::Value(wd);
    }
  }
  return Answer::Error(ENOSYS);
}

}  // namespace

Answer SuperviseStat(Call& c) {
  LookCall look;
  if (int e = DecodeLook(c.args(), c.target(), &look); e < 0) {
    return Answer::Error(-e);
  }
  return Look(c, look);
}

}  // namespace klaunch::supervise
