// Wrappers of the calls that look at a path without opening it: the stat
// family (and glibc's old __xstat forms), statx, access, faccessat,
// readlink, chdir, realpath. Looking is refused only by `deny` entries, so a
// program cannot learn that ~/.ssh/id_rsa exists; access(W_OK) and friends
// answer for the access they ask about, as the policy would.

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstring>

#include "shim/known.h"
#include "shim/pin.h"

namespace klaunch::shim {
namespace {

constexpr Access kS = Access::kStat;

// With no deny entry, stat is admitted everywhere: nothing to resolve.
bool StatIsFree() {
  const Config& c = GetConfig();
  return c.engine != nullptr && !c.engine->has_deny_rules();
}

// What newfstatat would have written, from a statx of the same object.
void StatOfStatx(const struct statx& sx, struct stat* st) {
  std::memset(st, 0, sizeof(*st));
  st->st_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
  st->st_ino = sx.stx_ino;
  st->st_nlink = sx.stx_nlink;
  st->st_mode = sx.stx_mode;
  st->st_uid = sx.stx_uid;
  st->st_gid = sx.stx_gid;
  st->st_rdev = makedev(sx.stx_rdev_major, sx.stx_rdev_minor);
  st->st_size = static_cast<off_t>(sx.stx_size);
  st->st_blksize = sx.stx_blksize;
  st->st_blocks = static_cast<blkcnt_t>(sx.stx_blocks);
  st->st_atim = {sx.stx_atime.tv_sec, sx.stx_atime.tv_nsec};
  st->st_mtim = {sx.stx_mtime.tv_sec, sx.stx_mtime.tv_nsec};
  st->st_ctim = {sx.stx_ctime.tv_sec, sx.stx_ctime.tv_nsec};
}

long StatJudged(const char* op, int dirfd, const char* path, struct stat* buf,
                int flags) {
  if ((flags & AT_SYMLINK_NOFOLLOW) && !((flags & AT_EMPTY_PATH) && !*path)) {
    return AtName(op, kS, dirfd, path, [&](int d, const char* n) {
      return sys(SYS_newfstatat, d, n, buf, flags);
    });
  }
  return AtObject(
      op, kS, dirfd, path, true,
      [&](int d, const char* p, int fd) {
        if (fd < 0) return sys(SYS_newfstatat, d, p, buf, flags);
        return sys(SYS_newfstatat, fd, "", buf, AT_EMPTY_PATH);
      },
      (flags & AT_EMPTY_PATH) != 0);
}

long StatAt(const char* op, int dirfd, const char* path, struct stat* buf,
            int flags) {
  if (path == nullptr || Scope::Active() || StatIsFree()) {
    return Ret(sys(SYS_newfstatat, dirfd, path, buf, flags));
  }
  // Look first: an object this process was already allowed to look at is
  // answered from that look (shim/known.h); anything else is judged, and
  // remembered when the object judged is the object looked at.
  struct statx sx;
  ObjectId id;
  const bool named =
      Remembering() &&
      sys(SYS_statx, dirfd, path,
          flags & (AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT),
          STATX_BASIC_STATS | STATX_MNT_ID, &sx) == 0 &&
      IdOfStatx(sx, &id);
  if (named && Known(id, kS)) {
    StatOfStatx(sx, buf);
    return 0;
  }
  const long r = StatJudged(op, dirfd, path, buf, flags);
  if (r == 0 && named && SameObject(id, *buf)) Remember(id, kS);
  return r;
}

long StatxAt(int dirfd, const char* path, int flags, unsigned mask,
             struct statx* buf) {
  if (path == nullptr || Scope::Active() || StatIsFree()) {
    return Ret(sys(SYS_statx, dirfd, path, flags, mask, buf));
  }
  if ((flags & AT_SYMLINK_NOFOLLOW) && !((flags & AT_EMPTY_PATH) && !*path)) {
    return AtName("statx", kS, dirfd, path, [&](int d, const char* n) {
      return sys(SYS_statx, d, n, flags, mask, buf);
    });
  }
  return AtObject(
      "statx", kS, dirfd, path, true,
      [&](int d, const char* p, int fd) {
        if (fd < 0) return sys(SYS_statx, d, p, flags, mask, buf);
        return sys(SYS_statx, fd, "",
                   (flags & ~AT_SYMLINK_NOFOLLOW) | AT_EMPTY_PATH, mask, buf);
      },
      (flags & AT_EMPTY_PATH) != 0);
}

long AccessAt(const char* op, int dirfd, const char* path, int mode,
              int flags) {
  return AtFlags(op, AccessModeAccess(mode), dirfd, path, flags,
                 [&](int d, const char* p, int f) {
                   return sys(SYS_faccessat2, d, p, mode, f);
                 });
}

long ReadlinkAt(int dirfd, const char* path, char* buf, size_t size) {
  return AtName("readlink", kS, dirfd, path, [&](int d, const char* n) {
    return sys(SYS_readlinkat, d, n, buf, size);
  });
}

char* Realpath(const char* op, const char* path, char* resolved, bool alloc) {
  char* r = alloc ? KL_REAL(canonicalize_file_name)(path)
                  : KL_REAL(realpath)(path, resolved);
  Scope scope;
  if (scope.nested() || path == nullptr) return r;
  if (r == nullptr) {
    const int err = errno;
    if (!AllowMissing(op, kS, AT_FDCWD, path)) return nullptr;
    errno = err;
    return nullptr;
  }
  if (!AllowPath(op, kS, r)) {
    if (alloc || resolved == nullptr) {
      free(r);
    } else {
      resolved[0] = '\0';  // leave no trace of the refused path
    }
    return nullptr;
  }
  scope.RestoreErrno();
  return r;
}

}  // namespace
}  // namespace klaunch::shim

using namespace klaunch::shim;  // NOLINT: the wrappers below are C symbols

KL_EXPORT int stat(const char* path, struct stat* buf) {
  return StatAt("stat", AT_FDCWD, path, buf, 0);
}
KL_EXPORT int stat64(const char* path, struct stat64* buf) {
  return StatAt("stat", AT_FDCWD, path, reinterpret_cast<struct stat*>(buf), 0);
}
KL_EXPORT int lstat(const char* path, struct stat* buf) {
  return StatAt("lstat", AT_FDCWD, path, buf, AT_SYMLINK_NOFOLLOW);
}
KL_EXPORT int lstat64(const char* path, struct stat64* buf) {
  return StatAt("lstat", AT_FDCWD, path, reinterpret_cast<struct stat*>(buf),
                AT_SYMLINK_NOFOLLOW);
}
KL_EXPORT int fstatat(int dirfd, const char* path, struct stat* buf,
                      int flags) {
  return StatAt("fstatat", dirfd, path, buf, flags);
}
KL_EXPORT int fstatat64(int dirfd, const char* path, struct stat64* buf,
                        int flags) {
  return StatAt("fstatat", dirfd, path, reinterpret_cast<struct stat*>(buf),
                flags);
}
// Binaries linked against glibc before 2.33 call these. On x86_64 their
// struct is the kernel's, whatever the version argument says.
KL_EXPORT int __xstat(int, const char* path, struct stat* buf) {
  return StatAt("stat", AT_FDCWD, path, buf, 0);
}
KL_EXPORT int __xstat64(int, const char* path, struct stat64* buf) {
  return StatAt("stat", AT_FDCWD, path, reinterpret_cast<struct stat*>(buf), 0);
}
KL_EXPORT int __lxstat(int, const char* path, struct stat* buf) {
  return StatAt("lstat", AT_FDCWD, path, buf, AT_SYMLINK_NOFOLLOW);
}
KL_EXPORT int __lxstat64(int, const char* path, struct stat64* buf) {
  return StatAt("lstat", AT_FDCWD, path, reinterpret_cast<struct stat*>(buf),
                AT_SYMLINK_NOFOLLOW);
}
KL_EXPORT int __fxstatat(int, int dirfd, const char* path, struct stat* buf,
                         int flags) {
  return StatAt("fstatat", dirfd, path, buf, flags);
}
KL_EXPORT int __fxstatat64(int, int dirfd, const char* path, struct stat64* buf,
                           int flags) {
  return StatAt("fstatat", dirfd, path, reinterpret_cast<struct stat*>(buf),
                flags);
}
KL_EXPORT int statx(int dirfd, const char* path, int flags, unsigned mask,
                    struct statx* buf) {
  return StatxAt(dirfd, path, flags, mask, buf);
}

KL_EXPORT int access(const char* path, int mode) {
  return AccessAt("access", AT_FDCWD, path, mode, 0);
}
KL_EXPORT int faccessat(int dirfd, const char* path, int mode, int flags) {
  return AccessAt("faccessat", dirfd, path, mode, flags);
}
KL_EXPORT int euidaccess(const char* path, int mode) {
  return AccessAt("euidaccess", AT_FDCWD, path, mode, AT_EACCESS);
}
KL_EXPORT int eaccess(const char* path, int mode) {
  return AccessAt("eaccess", AT_FDCWD, path, mode, AT_EACCESS);
}

KL_EXPORT ssize_t readlink(const char* path, char* buf, size_t size) {
  return ReadlinkAt(AT_FDCWD, path, buf, size);
}
KL_EXPORT ssize_t readlinkat(int dirfd, const char* path, char* buf,
                             size_t size) {
  return ReadlinkAt(dirfd, path, buf, size);
}

KL_EXPORT int chdir(const char* path) {
  return AtObject("chdir", kS, AT_FDCWD, path, true,
                  [&](int, const char* p, int fd) {
                    if (fd < 0) return sys(SYS_chdir, p);
                    return sys(SYS_fchdir, fd);
                  });
}

KL_EXPORT char* realpath(const char* path, char* resolved) {
  return Realpath("realpath", path, resolved, false);
}
KL_EXPORT char* canonicalize_file_name(const char* path) {
  return Realpath("realpath", path, nullptr, true);
}
