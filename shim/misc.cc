// Wrappers of the remaining libc functions that reach the filesystem on a
// path the program names, found by review: lchmod, glibc's old __xmknod
// forms, POSIX shared memory and semaphores (files in /dev/shm), the
// utmp/wtmp file functions, and the temporary-file makers (mkstemp and
// friends, mkdtemp, tmpfile), which libc implements with internal opens no
// wrapper sees. Those are re-implemented on the judged open and mkdir.

#include <fcntl.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <utmp.h>

#include <cstdio>
#include <cstring>

#include "shim/open.h"
#include "shim/pin.h"

extern "C" int mknodat(int dirfd, const char* path, mode_t mode, dev_t dev);
extern "C" int fchmodat(int dirfd, const char* path, mode_t mode, int flags);
extern "C" int unlink(const char* path);

namespace klaunch::shim {
namespace {

// "/dev/shm/NAME" for a POSIX shared-memory name, as glibc builds it; false
// for a name glibc would refuse.
bool ShmPath(const char* name, const char* prefix, char* out, size_t size) {
  if (name == nullptr) return false;
  while (*name == '/') ++name;
  if (*name == '\0' || std::strchr(name, '/') != nullptr) return false;
  return std::snprintf(out, size, "/dev/shm/%s%s", prefix, name) <
         static_cast<int>(size);
}

int UnlinkShm(const char* name, const char* prefix) {
  char path[kPathMax];
  if (!ShmPath(name, prefix, path, sizeof(path))) {
    errno = ENOENT;
    return -1;
  }
  return unlink(path);
}

// For a file libc will open later, by itself: judged as a write of where it
// would be. errno is kept when it may.
bool AllowWriteOfNamed(const char* op, const char* file) {
  if (file == nullptr) return true;
  Scope scope;
  char where[kPathMax];
  ApproximatePath(AT_FDCWD, file, where, sizeof(where));
  if (!AllowPath(op, klaunch::Access::kWrite, where)) return false;
  scope.RestoreErrno();
  return true;
}

// Fills the six X's before `suffix_len` characters with random letters, as
// glibc does, and calls make(template) until it does not fail with EEXIST.
template <typename Make>
int MakeUnique(char* tmpl, int suffix_len, Make make) {
  static constexpr char kLetters[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  const size_t len = tmpl ? std::strlen(tmpl) : 0;
  if (tmpl == nullptr || suffix_len < 0 ||
      len < 6 + static_cast<size_t>(suffix_len) ||
      std::memcmp(tmpl + len - suffix_len - 6, "XXXXXX", 6) != 0) {
    errno = EINVAL;
    return -1;
  }
  char* x = tmpl + len - suffix_len - 6;
  for (int attempt = 0; attempt < 1000; ++attempt) {
    unsigned char random[6];
    if (sys(SYS_getrandom, random, sizeof(random), 0) != sizeof(random)) {
      errno = EIO;
      return -1;
    }
    for (int i = 0; i < 6; ++i) x[i] = kLetters[random[i] % 62];
    const int r = make(tmpl);
    if (r >= 0 || errno != EEXIST) return r;
  }
  errno = EEXIST;
  return -1;
}

int MakeTemp(char* tmpl, int suffix_len, int flags) {
  return MakeUnique(tmpl, suffix_len, [&](const char* path) {
    return OpenAt("mkstemp", AT_FDCWD, path,
                  (flags & ~O_ACCMODE) | O_RDWR | O_CREAT | O_EXCL, 0600);
  });
}

}  // namespace
}  // namespace klaunch::shim

using namespace klaunch::shim;  // NOLINT: the wrappers below are C symbols

KL_EXPORT int mkstemp(char* tmpl) { return MakeTemp(tmpl, 0, 0); }
KL_EXPORT int mkstemp64(char* tmpl) { return MakeTemp(tmpl, 0, 0); }
KL_EXPORT int mkostemp(char* tmpl, int flags) {
  return MakeTemp(tmpl, 0, flags);
}
KL_EXPORT int mkostemp64(char* tmpl, int flags) {
  return MakeTemp(tmpl, 0, flags);
}
KL_EXPORT int mkstemps(char* tmpl, int suffix_len) {
  return MakeTemp(tmpl, suffix_len, 0);
}
KL_EXPORT int mkstemps64(char* tmpl, int suffix_len) {
  return MakeTemp(tmpl, suffix_len, 0);
}
KL_EXPORT int mkostemps(char* tmpl, int suffix_len, int flags) {
  return MakeTemp(tmpl, suffix_len, flags);
}
KL_EXPORT int mkostemps64(char* tmpl, int suffix_len, int flags) {
  return MakeTemp(tmpl, suffix_len, flags);
}

extern "C" int mkdir(const char* path, mode_t mode);

KL_EXPORT char* mkdtemp(char* tmpl) {
  const int r =
      MakeUnique(tmpl, 0, [](const char* path) { return mkdir(path, 0700); });
  return r < 0 ? nullptr : tmpl;
}

// tmpfile(): an unnamed file in /tmp, as glibc makes it (O_TMPFILE), judged
// as a write of /tmp.
KL_EXPORT FILE* tmpfile(void) {
  int fd =
      OpenAt("tmpfile", AT_FDCWD, "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0 && errno != EACCES) {
    char name[] = "/tmp/tmpfXXXXXX";
    fd = MakeTemp(name, 0, O_CLOEXEC);
    if (fd >= 0) unlink(name);
  }
  if (fd < 0) return nullptr;
  // glibc's own tmpfile gives a descriptor without close-on-exec.
  sys(SYS_fcntl, fd, F_SETFD, 0);
  FILE* f = fdopen(fd, "w+");
  if (f == nullptr) {
    const int err = errno;
    sys_close(fd);
    errno = err;
  }
  return f;
}
KL_EXPORT FILE* tmpfile64(void) { return tmpfile(); }

KL_EXPORT int lchmod(const char* path, mode_t mode) {
  return fchmodat(AT_FDCWD, path, mode, AT_SYMLINK_NOFOLLOW);
}

KL_EXPORT int __xmknod(int, const char* path, mode_t mode, dev_t* dev) {
  return mknodat(AT_FDCWD, path, mode, dev ? *dev : 0);
}
KL_EXPORT int __xmknodat(int, int dirfd, const char* path, mode_t mode,
                         dev_t* dev) {
  return mknodat(dirfd, path, mode, dev ? *dev : 0);
}

KL_EXPORT int shm_open(const char* name, int oflag, mode_t mode) {
  char path[kPathMax];
  if (!ShmPath(name, "", path, sizeof(path))) {
    errno = EINVAL;
    return -1;
  }
  return OpenAt("shm_open", AT_FDCWD, path,
                oflag | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, mode);
}

KL_EXPORT int shm_unlink(const char* name) { return UnlinkShm(name, ""); }

KL_EXPORT sem_t* sem_open(const char* name, int oflag, ...) {
  va_list ap;
  va_start(ap, oflag);
  const mode_t mode = (oflag & O_CREAT) ? va_arg(ap, mode_t) : 0;
  const unsigned value = (oflag & O_CREAT) ? va_arg(ap, unsigned) : 0;
  va_end(ap);
  char path[kPathMax];
  if (ShmPath(name, "sem.", path, sizeof(path))) {
    Scope scope;
    const klaunch::Access access =
        (oflag & O_CREAT) ? klaunch::Access::kWrite : klaunch::Access::kRead;
    if (!AllowPath("sem_open", access, path)) return SEM_FAILED;
    scope.RestoreErrno();
  }
  return KL_REAL(sem_open)(name, oflag, mode, value);
}

KL_EXPORT int sem_unlink(const char* name) { return UnlinkShm(name, "sem."); }

// utmpname names the file later getutent/pututline read and write; judge it
// as both, since libc opens it read-write when it can.
KL_EXPORT int utmpname(const char* file) {
  if (!AllowWriteOfNamed("utmpname", file)) return -1;
  return KL_REAL(utmpname)(file);
}

KL_EXPORT void updwtmp(const char* file, const struct utmp* ut) {
  if (!AllowWriteOfNamed("updwtmp", file)) return;
  KL_REAL(updwtmp)(file, ut);
}
