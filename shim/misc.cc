// Wrappers of the remaining libc functions that reach the filesystem on a
// path the program names, found by review: lchmod, glibc's old __xmknod
// forms, POSIX shared memory and semaphores (files in /dev/shm), and the
// utmp/wtmp file functions.

#include <fcntl.h>
#include <semaphore.h>
#include <stdarg.h>
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

}  // namespace
}  // namespace klaunch::shim

using namespace klaunch::shim;  // NOLINT: the wrappers below are C symbols

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

KL_EXPORT int shm_unlink(const char* name) {
  char path[kPathMax];
  if (!ShmPath(name, "", path, sizeof(path))) {
    errno = ENOENT;
    return -1;
  }
  return unlink(path);
}

KL_EXPORT sem_t* sem_open(const char* name, int oflag, ...) {
  va_list ap;
  va_start(ap, oflag);
  const mode_t mode = (oflag & O_CREAT) ? va_arg(ap, mode_t) : 0;
  const unsigned value = (oflag & O_CREAT) ? va_arg(ap, unsigned) : 0;
  va_end(ap);
  char path[kPathMax];
  if (ShmPath(name, "sem.", path, sizeof(path))) {
    Scope scope;
    const klaunch::Access access = (oflag & O_CREAT) ? klaunch::Access::kWrite : klaunch::Access::kRead;
    if (!AllowPath("sem_open", access, path)) return SEM_FAILED;
    scope.RestoreErrno();
  }
  return KL_REAL(sem_open)(name, oflag, mode, value);
}

KL_EXPORT int sem_unlink(const char* name) {
  char path[kPathMax];
  if (!ShmPath(name, "sem.", path, sizeof(path))) {
    errno = ENOENT;
    return -1;
  }
  return unlink(path);
}

// utmpname names the file later getutent/pututline read and write; judge it
// as both, since libc opens it read-write when it can.
KL_EXPORT int utmpname(const char* file) {
  if (file != nullptr) {
    Scope scope;
    char where[kPathMax];
    ApproximatePath(AT_FDCWD, file, where, sizeof(where));
    if (!AllowPath("utmpname", klaunch::Access::kWrite, where)) return -1;
    scope.RestoreErrno();
  }
  return KL_REAL(utmpname)(file);
}

KL_EXPORT void updwtmp(const char* file, const struct utmp* ut) {
  if (file != nullptr) {
    Scope scope;
    char where[kPathMax];
    ApproximatePath(AT_FDCWD, file, where, sizeof(where));
    if (!AllowPath("updwtmp", klaunch::Access::kWrite, where)) return;
    scope.RestoreErrno();
  }
  KL_REAL(updwtmp)(file, ut);
}
