// Wrappers of the open family: open, openat, creat and their 64-bit and
// fortified forms; fopen, freopen, opendir.
//
// Every open pins the object (O_PATH) or, to create, its directory, judges
// what was pinned and acts through it: a symlink swapped in after the
// judgement cannot redirect the call, a refused path is never created or
// truncated, and no descriptor that could read a refused file ever exists
// in the process, where another thread could use it.

#include "shim/open.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>

#include <cstring>

#include "shim/judge.h"
#include "shim/known.h"
#include "shim/resolve.h"
#include "shim/state.h"
#include "shim/sys.h"

namespace klaunch::shim {
namespace {

// Dangling symlinks followed while creating, at most (the kernel allows 40;
// each level costs the shim a few kilobytes of stack).
constexpr int kMaxCreateLinks = 8;

int Fail(long err) {
  errno = static_cast<int>(-err);
  return -1;
}

// The descriptor a native open would have returned is the lowest free one,
// which the pinning descriptor holds: move the opened file onto it.
int TakeLowest(long fd, int* pinned, int flags) {
  if (fd < 0 || *pinned < 0 || *pinned > fd) return static_cast<int>(Ret(fd));
  if (sys(SYS_dup3, fd, *pinned, flags & O_CLOEXEC) < 0) {
    return static_cast<int>(fd);
  }
  sys_close(fd);
  const int lowest = *pinned;
  *pinned = -1;  // now the opened file: no longer the pin's to close
  return lowest;
}

// `access`: kWrite, or kReadWrite for an open that also reads.
int OpenForWrite(const char* op, Access access, int dirfd, const char* path,
                 int flags, mode_t mode, const Scope& scope, int depth) {
  const bool excl = (flags & O_CREAT) && (flags & O_EXCL);
  const bool nofollow = excl || (flags & O_NOFOLLOW);
  {
    PinnedObject obj;
    int r = PinObject(dirfd, path, !nofollow, &obj);
    if (r == 0) {
      // The kernel's answers before any permission: the name exists, or
      // is a directory, which nobody opens for writing.
      if (MaySee(obj.path)) {
        if (excl) return Fail(-EEXIST);
        struct stat st;
        if ((flags & O_TMPFILE) != O_TMPFILE &&
            sys(SYS_fstat, obj.fd, &st) == 0 && S_ISDIR(st.st_mode)) {
          return Fail(-EISDIR);
        }
      }
      if (!AllowObject(op, access, obj.path, dirfd, path)) return -1;
      if (excl) return Fail(-EEXIST);
      if (flags & O_NOFOLLOW) {
        struct stat st;
        if (sys(SYS_fstat, obj.fd, &st) == 0 && S_ISLNK(st.st_mode)) {
          return Fail(-ELOOP);
        }
      }
      scope.RestoreErrno();
      return TakeLowest(
          sys_openat(AT_FDCWD, obj.proc,
                     flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW), mode),
          &obj.fd, flags);
    }
    if (r != -ENOENT || !(flags & O_CREAT)) {
      if (!AllowMissing(op, access, dirfd, path)) return -1;
      return Fail(r);
    }
  }
  // Creating: pin the directory and create the name inside it.
  PinnedParent parent;
  int r = PinParent(dirfd, path, &parent);
  if (r < 0) {
    if (!AllowMissing(op, access, dirfd, path)) return -1;
    return Fail(r);
  }
  struct stat st;
  if (!nofollow &&
      sys(SYS_newfstatat, parent.fd, parent.last, &st, AT_SYMLINK_NOFOLLOW) ==
          0 &&
      S_ISLNK(st.st_mode)) {
    // A dangling symlink: O_CREAT creates its target, so judge that.
    if (depth >= kMaxCreateLinks) return Fail(-ELOOP);
    char target[kPathMax];
    long n = sys_readlinkat(parent.fd, parent.last, target, sizeof(target) - 1);
    if (n < 0) return Fail(n);
    target[n] = '\0';
    return OpenForWrite(op, access, parent.fd, target, flags, mode, scope,
                        depth + 1);
  }
  if (!AllowPath(op, access, parent.path)) return -1;
  scope.RestoreErrno();
  // O_NOFOLLOW: a symlink raced in after the judgement fails, not followed.
  return TakeLowest(
      sys_openat(parent.fd, parent.last, flags | O_NOFOLLOW, mode), &parent.fd,
      flags);
}

mode_t ModeOf(int flags, va_list ap) {
  if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {
    return static_cast<mode_t>(va_arg(ap, int));
  }
  return 0;
}

FILE* Fopen(const char* op, const char* path, const char* mode) {
  const int flags = FopenFlags(mode);
  if (flags < 0 || std::strstr(mode, ",ccs=") != nullptr) {
    // Modes fdopen cannot take: judge the path, then let libc open it.
    if (path == nullptr || flags < 0) return KL_REAL(fopen)(path, mode);
    int fd = OpenAt(op, AT_FDCWD, path,
                    (flags < 0 ? O_RDONLY : flags) | O_CLOEXEC, 0666);
    if (fd < 0) return nullptr;
    sys_close(fd);
    return KL_REAL(fopen)(path, mode);
  }
  int fd = OpenAt(op, AT_FDCWD, path, flags, 0666);
  if (fd < 0) return nullptr;
  char fdmode[4];
  size_t n = 0;
  fdmode[n++] = mode[0];
  if (std::strchr(mode, '+') != nullptr) fdmode[n++] = '+';
  fdmode[n] = '\0';
  FILE* f = fdopen(fd, fdmode);
  if (f == nullptr) {
    const int err = errno;
    sys_close(fd);
    errno = err;
  }
  return f;
}

FILE* Freopen(const char* op, const char* path, const char* mode,
              FILE* stream) {
  if (Scope::Active()) return KL_REAL(freopen)(path, mode, stream);
  if (path == nullptr) {
    // A new mode for the same file: libc reopens /proc/self/fd/N itself,
    // so judge the file for the access the new mode asks.
    const int flags = FopenFlags(mode);
    const int fd = stream != nullptr ? fileno(stream) : -1;
    if (fd >= 0 && flags >= 0) {
      Scope scope;
      char real[kPathMax];
      const long n = FdPath(fd, real, sizeof(real));
      const Access access = OpenAccess(flags);
      if (n > 0 && !AllowPath(op, access, real)) return nullptr;
      scope.RestoreErrno();
    }
    return KL_REAL(freopen)(path, mode, stream);
  }
  const int flags = FopenFlags(mode);
  int fd = OpenAt(op, AT_FDCWD, path,
                  (flags < 0 ? O_RDONLY : flags) | O_CLOEXEC, 0666);
  if (fd < 0) return nullptr;
  // Reopen through the judged object; drop 'x', which would now fail.
  char proc[32], again[16];
  ProcFdPath(fd, proc, sizeof(proc));
  size_t n = 0;
  for (const char* m = mode; *m && n + 1 < sizeof(again); ++m) {
    if (*m != 'x') again[n++] = *m;
  }
  again[n] = '\0';
  FILE* f = KL_REAL(freopen)(proc, again, stream);
  const int err = errno;
  sys_close(fd);
  errno = err;
  return f;
}

}  // namespace

int FopenFlags(const char* mode) {
  if (mode == nullptr) return -1;
  int flags;
  switch (mode[0]) {
    case 'r':
      flags = O_RDONLY;
      break;
    case 'w':
      flags = O_WRONLY | O_CREAT | O_TRUNC;
      break;
    case 'a':
      flags = O_WRONLY | O_CREAT | O_APPEND;
      break;
    default:
      return -1;
  }
  for (const char* m = mode + 1; *m && *m != ','; ++m) {
    switch (*m) {
      case '+':
        flags = (flags & ~O_ACCMODE) | O_RDWR;
        break;
      case 'x':
        flags |= O_EXCL;
        break;
      case 'e':
        flags |= O_CLOEXEC;
        break;
      default:
        break;  // 'b', 'm', 'c' change nothing the kernel sees
    }
  }
  return flags;
}

int OpenAt(const char* op, int dirfd, const char* path, int flags,
           mode_t mode) {
  Scope scope;
  if (scope.nested() || path == nullptr) {
    return static_cast<int>(Ret(sys_openat(dirfd, path, flags, mode)));
  }
  const Access access = OpenAccess(flags);
  if (!Writes(access)) {
    // Pinned first (O_PATH opens nothing: no FIFO waits, no device opens),
    // judged, and only then opened through the pin: a descriptor that can
    // read the object never exists before the verdict, so another thread
    // cannot read a refused file through it.
    long pin =
        sys_openat(dirfd, path, O_PATH | O_CLOEXEC | (flags & O_NOFOLLOW), 0);
    if (pin < 0) {
      if (!AllowMissing(op, access, dirfd, path)) return -1;
      return Fail(pin);
    }
    int pinned = static_cast<int>(pin);
    struct Closer {
      int* fd;
      ~Closer() {
        if (*fd >= 0) sys_close(*fd);
      }
    } closer{&pinned};
    // An object this process was already allowed to read: no need to name
    // it again (shim/known.h says why the memo cannot answer for another).
    ObjectId id;
    const bool named = Remembering() && IdOfFd(pinned, &id);
    if (!named || !Known(id, access)) {
      char real[kPathMax];
      const long n = FdPath(pinned, real, sizeof(real));
      if (n < 0) {
        // What cannot be named cannot be judged: refused (performed in
        // audit mode).
        if (!Refuse(op, path,
                    "the shim cannot name the object (is /proc mounted?)")) {
          return -1;
        }
      } else if (!AllowObject(op, access, real, dirfd, path)) {
        return -1;
      } else if (named) {
        Remember(id, access);
      }
    }
    char proc[32];
    ProcFdPath(pinned, proc, sizeof(proc));
    scope.RestoreErrno();
    return TakeLowest(sys_openat(AT_FDCWD, proc, flags & ~O_NOFOLLOW, mode),
                      &pinned, flags);
  }
  if ((flags & O_TMPFILE) == O_TMPFILE) {
    PinnedObject dir;
    int r = PinObject(dirfd, path, true, &dir);
    if (r < 0) {
      if (!AllowMissing(op, access, dirfd, path)) return -1;
      return Fail(r);
    }
    if (!AllowPath(op, access, dir.path)) return -1;
    scope.RestoreErrno();
    return TakeLowest(sys_openat(AT_FDCWD, dir.proc, flags, mode), &dir.fd,
                      flags);
  }
  return OpenForWrite(op, access, dirfd, path, flags, mode, scope, 0);
}

}  // namespace klaunch::shim

using klaunch::shim::Fopen;
using klaunch::shim::Freopen;
using klaunch::shim::OpenAt;

KL_EXPORT int open(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t mode = klaunch::shim::ModeOf(flags, ap);
  va_end(ap);
  return OpenAt("open", AT_FDCWD, path, flags, mode);
}

// The 64-bit names are the same functions on a 64-bit ABI.
KL_EXPORT int open64(const char* path, int flags, ...)
    __attribute__((alias("open"), copy(open)));
// Other public names of the same function in libc.
KL_EXPORT int __open(const char* path, int flags, ...)
    __attribute__((alias("open"), copy(open)));
KL_EXPORT int __open64(const char* path, int flags, ...)
    __attribute__((alias("open"), copy(open)));
KL_EXPORT int __open_nocancel(const char* path, int flags, ...)
    __attribute__((alias("open"), copy(open)));
KL_EXPORT int __open64_nocancel(const char* path, int flags, ...)
    __attribute__((alias("open"), copy(open)));

KL_EXPORT int openat(int dirfd, const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t mode = klaunch::shim::ModeOf(flags, ap);
  va_end(ap);
  return OpenAt("openat", dirfd, path, flags, mode);
}

KL_EXPORT int openat64(int dirfd, const char* path, int flags, ...)
    __attribute__((alias("openat")));

KL_EXPORT int creat(const char* path, mode_t mode) {
  return OpenAt("creat", AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

KL_EXPORT int creat64(const char* path, mode_t mode)
    __attribute__((alias("creat")));

// The fortified forms: called by _FORTIFY_SOURCE code when the flags need no
// mode.
KL_EXPORT int __open_2(const char* path, int flags) {
  return OpenAt("open", AT_FDCWD, path, flags, 0);
}
KL_EXPORT int __open64_2(const char* path, int flags)
    __attribute__((alias("__open_2")));
KL_EXPORT int __openat_2(int dirfd, const char* path, int flags) {
  return OpenAt("openat", dirfd, path, flags, 0);
}
KL_EXPORT int __openat64_2(int dirfd, const char* path, int flags)
    __attribute__((alias("__openat_2")));

KL_EXPORT FILE* fopen(const char* path, const char* mode) {
  return Fopen("fopen", path, mode);
}
KL_EXPORT FILE* fopen64(const char* path, const char* mode)
    __attribute__((alias("fopen"), copy(fopen)));
KL_EXPORT FILE* _IO_fopen(const char* path, const char* mode)
    __attribute__((alias("fopen"), copy(fopen)));
KL_EXPORT FILE* freopen(const char* path, const char* mode, FILE* stream) {
  return Freopen("freopen", path, mode, stream);
}
KL_EXPORT FILE* freopen64(const char* path, const char* mode, FILE* stream)
    __attribute__((alias("freopen")));

KL_EXPORT DIR* opendir(const char* path) {
  int fd = OpenAt("opendir", AT_FDCWD, path,
                  O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC, 0);
  if (fd < 0) return nullptr;
  DIR* d = fdopendir(fd);
  if (d == nullptr) {
    const int err = errno;
    klaunch::shim::sys_close(fd);
    errno = err;
  }
  return d;
}
