#include "shim/resolve.h"

#include <fcntl.h>

#include <cstdio>
#include <cstring>
#include <string_view>

#include "shim/sys.h"

namespace klaunch::shim {
namespace {

// Appends "/" + `name` (without trailing slashes) to `dir` into `out`.
void Join(const char* dir, const char* name, char* out, size_t size) {
  size_t n = strnlen(name, size);
  while (n > 1 && name[n - 1] == '/') --n;
  if (std::strcmp(dir, "/") == 0) {
    std::snprintf(out, size, "/%.*s", static_cast<int>(n), name);
  } else {
    std::snprintf(out, size, "%s/%.*s", dir, static_cast<int>(n), name);
  }
}

}  // namespace

void ApproximatePathAt(int dirfd, const char* path, char* out, size_t size,
                       int depth);

void ProcFdPath(int fd, char* out, size_t size) {
  std::snprintf(out, size, "/proc/self/fd/%d", fd);
}

long FdPath(int fd, char* out, size_t size) {
  char proc[32];
  ProcFdPath(fd, proc, sizeof(proc));
  long n = sys_readlinkat(AT_FDCWD, proc, out, size - 1);
  if (n < 0) return n;
  if (static_cast<size_t>(n) >= size - 1) return -ENAMETOOLONG;
  out[n] = '\0';
  if (out[0] != '/') {
    out[0] = '\0';
    return 0;
  }
  static constexpr char kDeleted[] = " (deleted)";
  constexpr size_t kLen = sizeof(kDeleted) - 1;
  if (static_cast<size_t>(n) > kLen &&
      std::memcmp(out + n - kLen, kDeleted, kLen) == 0) {
    n -= kLen;
    out[n] = '\0';
  }
  return n;
}

PinnedObject::~PinnedObject() {
  if (fd >= 0) sys_close(fd);
}

int PinObject(int dirfd, const char* path, bool follow, PinnedObject* out,
              bool empty_path) {
  if (empty_path && path[0] == '\0') {
    long fd = dirfd == AT_FDCWD
                  ? sys_openat(AT_FDCWD, ".", O_PATH | O_CLOEXEC, 0)
                  : sys(SYS_fcntl, dirfd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) return static_cast<int>(fd);
    out->fd = static_cast<int>(fd);
  } else {
    long fd = sys_openat(dirfd, path,
                         O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW), 0);
    if (fd < 0) return static_cast<int>(fd);
    out->fd = static_cast<int>(fd);
  }
  ProcFdPath(out->fd, out->proc, sizeof(out->proc));
  long n = FdPath(out->fd, out->path, sizeof(out->path));
  if (n < 0) return static_cast<int>(n);
  return 0;
}

PinnedParent::~PinnedParent() {
  if (fd >= 0) sys_close(fd);
}

int PinParent(int dirfd, const char* path, PinnedParent* out) {
  size_t len = strnlen(path, kPathMax);
  if (len >= kPathMax) return -ENAMETOOLONG;
  if (len == 0) return -ENOENT;
  // The final component starts after the last '/' that has a non-'/'
  // character after it; trailing slashes belong to the component.
  size_t end = len;
  while (end > 0 && path[end - 1] == '/') --end;
  size_t start = end;
  while (start > 0 && path[start - 1] != '/') --start;
  out->last = path + start;
  const char* dir = ".";
  if (start > 0) {
    std::memcpy(out->dir_, path, start);
    out->dir_[start] = '\0';
    dir = out->dir_;
  } else if (end == 0 && len > 0) {
    // The path is all slashes: it names "/" itself.
    out->last = ".";
    dir = "/";
  }
  const char* last = out->last;
  size_t last_len = end - start;
  out->dot_last = (last_len == 1 && last[0] == '.') ||
                  (last_len == 2 && last[0] == '.' && last[1] == '.') ||
                  last == std::string_view(".");
  long fd = sys_openat(dirfd, dir, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
  if (fd < 0) return static_cast<int>(fd);
  out->fd = static_cast<int>(fd);
  char dir_path[kPathMax];
  long n = FdPath(out->fd, dir_path, sizeof(dir_path));
  if (n < 0) return static_cast<int>(n);
  if (n == 0) return -ENOENT;
  Join(dir_path, out->last, out->path, sizeof(out->path));
  return 0;
}

void ApproximatePath(int dirfd, const char* path, char* out, size_t size) {
  ApproximatePathAt(dirfd, path, out, size, 0);
}

void ApproximatePathAt(int dirfd, const char* path, char* out, size_t size,
                       int depth) {
  PinnedParent parent;
  if (PinParent(dirfd, path, &parent) == 0) {
    // A dangling symlink names where it points, as following it would.
    char target[kPathMax];
    long n = depth < 8 ? sys_readlinkat(parent.fd, parent.last, target,
                                        sizeof(target) - 1)
                       : -1;
    if (n > 0) {
      target[n] = '\0';
      ApproximatePathAt(parent.fd, target, out, size, depth + 1);
      return;
    }
    std::snprintf(out, size, "%s", parent.path);
    return;
  }
  if (path[0] == '/') {
    std::snprintf(out, size, "%s", path);
    return;
  }
  char base[kPathMax];
  base[0] = '\0';
  if (dirfd == AT_FDCWD) {
    if (sys(SYS_getcwd, base, sizeof(base)) < 0) base[0] = '\0';
  } else if (FdPath(dirfd, base, sizeof(base)) <= 0) {
    base[0] = '\0';
  }
  if (base[0] != '/') {
    std::snprintf(out, size, "/%s", path);  // unknown base: judge as rooted
    return;
  }
  Join(base, path, out, size);
}

}  // namespace klaunch::shim
