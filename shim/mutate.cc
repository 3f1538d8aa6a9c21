// Wrappers of the calls that change the filesystem, each judged as a write
// of what it changes: unlink, rmdir, remove, rename*, mkdir*, mknod*,
// mkfifo*, link*, symlink* (the link's location), truncate*, chmod,
// fchmodat, chown, lchown, fchownat, utime*, futimesat, *setxattr,
// *removexattr.

#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <unistd.h>
#include <utime.h>

#include <cstdio>

#include "core/two_names.h"
#include "shim/pin.h"

namespace klaunch::shim {
namespace {

constexpr Access kW = Access::kWrite;

// A path naming `name` inside the pinned directory `dirfd`, for the calls
// that take no directory descriptor.
const char* NameUnder(int dirfd, const char* name, char* buf, size_t size) {
  if (dirfd == AT_FDCWD || name[0] == '/') return name;
  std::snprintf(buf, size, "/proc/self/fd/%d/%s", dirfd, name);
  return buf;
}

long Utimens(const char* op, int dirfd, const char* path,
             const struct timespec* ts, int flags) {
  if (path == nullptr) {
    // utimensat(fd, NULL, ...) acts on an open descriptor: nothing to judge.
    return Ret(sys(SYS_utimensat, dirfd, path, ts, flags));
  }
  return AtFlags(op, kW, dirfd, path, flags, [&](int d, const char* p, int f) {
    return sys(SYS_utimensat, d, p, ts, f);
  });
}

bool ToTimespec(const struct timeval* tv, struct timespec ts[2]) {
  if (tv == nullptr) return false;
  for (int i = 0; i < 2; ++i) {
    ts[i].tv_sec = tv[i].tv_sec;
    ts[i].tv_nsec = tv[i].tv_usec * 1000;
  }
  return true;
}

// How the shim judges one end of a rename or a link (core/two_names.h).
class ShimEnds final : public EndJudge {
 public:
  explicit ShimEnds(const char* op) : op_(op) {}
  bool Write(const char* path) override { return AllowPath(op_, kW, path); }
  bool LinkSource(const char* path) override {
    return AllowLinkSource(op_, path);
  }
  bool Move(const char* path) override { return AllowMove(op_, path); }

 private:
  const char* op_;
};

long Rename(const char* op, int olddirfd, const char* oldpath, int newdirfd,
            const char* newpath, unsigned flags) {
  Scope scope;
  if (scope.nested() || oldpath == nullptr || newpath == nullptr) {
    return Ret(sys(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, flags));
  }
  PinnedParent from, to;
  int r = PinParent(olddirfd, oldpath, &from);
  if (r < 0) {
    if (!AllowMissing(op, kW, olddirfd, oldpath)) return -1;
    return Failed(r);
  }
  r = PinParent(newdirfd, newpath, &to);
  if (r < 0) {
    if (!AllowMissing(op, kW, newdirfd, newpath)) return -1;
    return Failed(r);
  }
  // The kernel looks the names up before any permission: a missing source,
  // or a target present under RENAME_NOREPLACE, is its answer.
  if (int e = NativeNameError(from, kRenameSourceNeed); e != 0) {
    return Failed(-e);
  }
  if (int e = NativeNameError(to, RenameTargetNeed(flags)); e != 0) {
    return Failed(-e);
  }
  auto is_dir = [](const PinnedParent& p) {
    struct stat st;
    return sys(SYS_newfstatat, p.fd, p.last, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
           S_ISDIR(st.st_mode);
  };
  ShimEnds judge(op);
  const bool allowed =
      JudgeRename(judge, {from.path, [&] { return is_dir(from); }},
                  {to.path, [&] { return is_dir(to); }}, flags);
  if (!allowed) return -1;
  scope.RestoreErrno();
  return Ret(sys(SYS_renameat2, from.fd, from.last, to.fd, to.last, flags));
}

long Link(const char* op, int olddirfd, const char* oldpath, int newdirfd,
          const char* newpath, int flags) {
  Scope scope;
  if (scope.nested() || oldpath == nullptr || newpath == nullptr) {
    return Ret(sys(SYS_linkat, olddirfd, oldpath, newdirfd, newpath, flags));
  }
  PinnedParent to;
  int r = PinParent(newdirfd, newpath, &to);
  if (r < 0) {
    if (!AllowMissing(op, kW, newdirfd, newpath)) return -1;
    return Failed(r);
  }
  ShimEnds judge(op);
  if (const LinkSourceForm form = LinkSourceOf(flags); form.object) {
    PinnedObject src;
    r = PinObject(olddirfd, oldpath, form.follow, &src, form.empty);
    if (r < 0) {
      if (!AllowMissing(op, kW, olddirfd, oldpath)) return -1;
      return Failed(r);
    }
    if (int e = NativeNameError(to, kLinkNameNeed); e != 0) return Failed(-e);
    if (!JudgeLink(judge, src.path, to.path)) return -1;
    scope.RestoreErrno();
    return Ret(
        sys(SYS_linkat, AT_FDCWD, src.proc, to.fd, to.last, AT_SYMLINK_FOLLOW));
  }
  PinnedParent from;
  r = PinParent(olddirfd, oldpath, &from);
  if (r < 0) {
    if (!AllowMissing(op, kW, olddirfd, oldpath)) return -1;
    return Failed(r);
  }
  if (int e = NativeNameError(from, kLinkSourceNeed); e != 0) {
    return Failed(-e);
  }
  if (int e = NativeNameError(to, kLinkNameNeed); e != 0) return Failed(-e);
  if (!JudgeLink(judge, from.path, to.path)) return -1;
  scope.RestoreErrno();
  return Ret(sys(SYS_linkat, from.fd, from.last, to.fd, to.last, 0));
}

long Chmod(const char* op, int dirfd, const char* path, mode_t mode,
           int flags) {
  if (flags & AT_SYMLINK_NOFOLLOW) {
    // As glibc does it: a symlink's own mode cannot be changed on Linux.
    return AtName(op, kW, dirfd, path, [&](int d, const char* n) -> long {
      long fd = sys_openat(d, n, O_PATH | O_NOFOLLOW | O_CLOEXEC, 0);
      if (fd < 0) return fd;
      struct stat st;
      long r = sys(SYS_fstat, fd, &st);
      if (r == 0 && S_ISLNK(st.st_mode)) r = -EOPNOTSUPP;
      if (r == 0) {
        char proc[32];
        ProcFdPath(static_cast<int>(fd), proc, sizeof(proc));
        r = sys(SYS_fchmodat, AT_FDCWD, proc, mode);
      }
      sys_close(fd);
      return r;
    });
  }
  if (flags != 0) return Failed(-EINVAL);
  return AtObject(op, kW, dirfd, path, true, [&](int d, const char* p, int) {
    return sys(SYS_fchmodat, d, p, mode);
  });
}

long Chown(const char* op, int dirfd, const char* path, uid_t uid, gid_t gid,
           int flags) {
  return AtFlags(op, kW, dirfd, path, flags, [&](int d, const char* p, int f) {
    return sys(SYS_fchownat, d, p, uid, gid, f);
  });
}

// *setxattr / *removexattr / *getxattr / *listxattr: `follow` for the plain
// forms, not for the l- forms.
template <typename Call>
long Xattr(const char* op, Access access, const char* path, bool follow,
           Call call) {
  if (follow) {
    return AtObject(op, access, AT_FDCWD, path, true,
                    [&](int, const char* p, int) { return call(p); });
  }
  return AtName(op, access, AT_FDCWD, path, [&](int d, const char* n) {
    char buf[kPathMax];
    return call(NameUnder(d, n, buf, sizeof(buf)));
  });
}

}  // namespace
}  // namespace klaunch::shim

using namespace klaunch::shim;  // NOLINT: the wrappers below are C symbols

KL_EXPORT int unlink(const char* path) {
  return AtName(
      "unlink", kW, AT_FDCWD, path,
      [](int d, const char* n) { return sys(SYS_unlinkat, d, n, 0); },
      Slash::kEntry, klaunch::NameNeed::kExisting);
}

KL_EXPORT int unlinkat(int dirfd, const char* path, int flags) {
  return AtName(
      "unlinkat", kW, dirfd, path,
      [&](int d, const char* n) { return sys(SYS_unlinkat, d, n, flags); },
      Slash::kEntry, klaunch::NameNeed::kExisting);
}

KL_EXPORT int rmdir(const char* path) {
  return AtName(
      "rmdir", kW, AT_FDCWD, path,
      [](int d, const char* n) {
        return sys(SYS_unlinkat, d, n, AT_REMOVEDIR);
      },
      Slash::kEntry, klaunch::NameNeed::kExisting);
}

KL_EXPORT int remove(const char* path) {
  return AtName(
      "remove", kW, AT_FDCWD, path,
      [](int d, const char* n) {
        long r = sys(SYS_unlinkat, d, n, 0);
        if (r == -EISDIR) r = sys(SYS_unlinkat, d, n, AT_REMOVEDIR);
        return r;
      },
      Slash::kEntry, klaunch::NameNeed::kExisting);
}

KL_EXPORT int rename(const char* oldpath, const char* newpath) {
  return Rename("rename", AT_FDCWD, oldpath, AT_FDCWD, newpath, 0);
}
KL_EXPORT int renameat(int olddirfd, const char* oldpath, int newdirfd,
                       const char* newpath) {
  return Rename("renameat", olddirfd, oldpath, newdirfd, newpath, 0);
}
KL_EXPORT int renameat2(int olddirfd, const char* oldpath, int newdirfd,
                        const char* newpath, unsigned flags) {
  return Rename("renameat2", olddirfd, oldpath, newdirfd, newpath, flags);
}

KL_EXPORT int mkdir(const char* path, mode_t mode) {
  return AtName(
      "mkdir", kW, AT_FDCWD, path,
      [&](int d, const char* n) { return sys(SYS_mkdirat, d, n, mode); },
      Slash::kEntry, klaunch::NameNeed::kNew);
}
KL_EXPORT int mkdirat(int dirfd, const char* path, mode_t mode) {
  return AtName(
      "mkdirat", kW, dirfd, path,
      [&](int d, const char* n) { return sys(SYS_mkdirat, d, n, mode); },
      Slash::kEntry, klaunch::NameNeed::kNew);
}

KL_EXPORT int mknodat(int dirfd, const char* path, mode_t mode, dev_t dev) {
  // A device node in a writable root would reach the device behind every
  // path rule (a root program making /tmp/sda reads the disk).
  const Config& c = GetConfig();
  if ((S_ISCHR(mode) || S_ISBLK(mode)) &&
      (c.engine == nullptr || !SystemAllows(c.engine->policy(), "devices")) &&
      !Refuse("mknod", path,
              "it makes a device node; add \"devices\" to system.allow to "
              "allow it")) {
    return -1;
  }
  return AtName(
      "mknod", kW, dirfd, path,
      [&](int d, const char* n) { return sys(SYS_mknodat, d, n, mode, dev); },
      Slash::kEntry, klaunch::NameNeed::kNew);
}
KL_EXPORT int mknod(const char* path, mode_t mode, dev_t dev) {
  return mknodat(AT_FDCWD, path, mode, dev);
}
KL_EXPORT int mkfifoat(int dirfd, const char* path, mode_t mode) {
  return mknodat(dirfd, path, mode | S_IFIFO, 0);
}
KL_EXPORT int mkfifo(const char* path, mode_t mode) {
  return mknodat(AT_FDCWD, path, mode | S_IFIFO, 0);
}

KL_EXPORT int symlinkat(const char* target, int dirfd, const char* linkpath) {
  // The target is only text until something follows it, and is judged then.
  return AtName(
      "symlink", kW, dirfd, linkpath,
      [&](int d, const char* n) { return sys(SYS_symlinkat, target, d, n); },
      Slash::kEntry, klaunch::NameNeed::kNew);
}
KL_EXPORT int symlink(const char* target, const char* linkpath) {
  return symlinkat(target, AT_FDCWD, linkpath);
}

KL_EXPORT int linkat(int olddirfd, const char* oldpath, int newdirfd,
                     const char* newpath, int flags) {
  return Link("link", olddirfd, oldpath, newdirfd, newpath, flags);
}
KL_EXPORT int link(const char* oldpath, const char* newpath) {
  return Link("link", AT_FDCWD, oldpath, AT_FDCWD, newpath, 0);
}

KL_EXPORT int truncate(const char* path, off_t length) {
  return AtObject(
      "truncate", kW, AT_FDCWD, path, true,
      [&](int, const char* p, int) { return sys(SYS_truncate, p, length); });
}
KL_EXPORT int truncate64(const char* path, off64_t length) {
  return truncate(path, length);
}

KL_EXPORT int chmod(const char* path, mode_t mode) {
  return Chmod("chmod", AT_FDCWD, path, mode, 0);
}
KL_EXPORT int fchmodat(int dirfd, const char* path, mode_t mode, int flags) {
  return Chmod("fchmodat", dirfd, path, mode, flags);
}
KL_EXPORT int chown(const char* path, uid_t uid, gid_t gid) {
  return Chown("chown", AT_FDCWD, path, uid, gid, 0);
}
KL_EXPORT int lchown(const char* path, uid_t uid, gid_t gid) {
  return Chown("lchown", AT_FDCWD, path, uid, gid, AT_SYMLINK_NOFOLLOW);
}
KL_EXPORT int fchownat(int dirfd, const char* path, uid_t uid, gid_t gid,
                       int flags) {
  return Chown("fchownat", dirfd, path, uid, gid, flags);
}

KL_EXPORT int utimensat(int dirfd, const char* path,
                        const struct timespec times[2], int flags) {
  return Utimens("utimensat", dirfd, path, times, flags);
}
KL_EXPORT int utime(const char* path, const struct utimbuf* times) {
  struct timespec ts[2];
  if (times != nullptr) {
    ts[0] = {times->actime, 0};
    ts[1] = {times->modtime, 0};
  }
  return Utimens("utime", AT_FDCWD, path, times ? ts : nullptr, 0);
}
KL_EXPORT int utimes(const char* path, const struct timeval times[2]) {
  struct timespec ts[2];
  return Utimens("utimes", AT_FDCWD, path, ToTimespec(times, ts) ? ts : nullptr,
                 0);
}
KL_EXPORT int lutimes(const char* path, const struct timeval times[2]) {
  struct timespec ts[2];
  return Utimens("lutimes", AT_FDCWD, path,
                 ToTimespec(times, ts) ? ts : nullptr, AT_SYMLINK_NOFOLLOW);
}
KL_EXPORT int futimesat(int dirfd, const char* path,
                        const struct timeval times[2]) {
  struct timespec ts[2];
  if (path == nullptr) {
    return Ret(sys(SYS_futimesat, dirfd, path, times));
  }
  return Utimens("futimesat", dirfd, path, ToTimespec(times, ts) ? ts : nullptr,
                 0);
}

KL_EXPORT int setxattr(const char* path, const char* name, const void* value,
                       size_t size, int flags) {
  return Xattr("setxattr", kW, path, true, [&](const char* p) {
    return sys(SYS_setxattr, p, name, value, size, flags);
  });
}
KL_EXPORT int lsetxattr(const char* path, const char* name, const void* value,
                        size_t size, int flags) {
  return Xattr("lsetxattr", kW, path, false, [&](const char* p) {
    return sys(SYS_lsetxattr, p, name, value, size, flags);
  });
}
KL_EXPORT int removexattr(const char* path, const char* name) {
  return Xattr("removexattr", kW, path, true,
               [&](const char* p) { return sys(SYS_removexattr, p, name); });
}
KL_EXPORT int lremovexattr(const char* path, const char* name) {
  return Xattr("lremovexattr", kW, path, false,
               [&](const char* p) { return sys(SYS_lremovexattr, p, name); });
}
KL_EXPORT ssize_t getxattr(const char* path, const char* name, void* value,
                           size_t size) {
  return Xattr(
      "getxattr", klaunch::Access::kRead, path, true,
      [&](const char* p) { return sys(SYS_getxattr, p, name, value, size); });
}
KL_EXPORT ssize_t lgetxattr(const char* path, const char* name, void* value,
                            size_t size) {
  return Xattr(
      "lgetxattr", klaunch::Access::kRead, path, false,
      [&](const char* p) { return sys(SYS_lgetxattr, p, name, value, size); });
}
KL_EXPORT ssize_t listxattr(const char* path, char* list, size_t size) {
  return Xattr(
      "listxattr", klaunch::Access::kRead, path, true,
      [&](const char* p) { return sys(SYS_listxattr, p, list, size); });
}
KL_EXPORT ssize_t llistxattr(const char* path, char* list, size_t size) {
  return Xattr(
      "llistxattr", klaunch::Access::kRead, path, false,
      [&](const char* p) { return sys(SYS_llistxattr, p, list, size); });
}
