// Naming what the kernel will use: the shim never judges the path a program
// wrote, but the path of the object the kernel resolved it to.
//
//   PinnedObject o;
//   if (PinObject(AT_FDCWD, "ws/link", /*follow=*/true, &o) == 0) {
//     // o.fd is an O_PATH descriptor of the object itself, o.path its
//     // kernel path ("/etc/shadow" for a link to it); act through
//     // o.proc ("/proc/self/fd/N") so nothing can be swapped in between.
//   }
//
// For calls that act on a name rather than an object (unlink, mkdir, rename,
// lstat, ...), PinParent pins the directory and keeps the last component, so
// the call is made relative to the pinned directory.
//
// Stack buffers only; no allocation, no locks. Descriptors are closed by the
// destructors.

#ifndef KLAUNCH_SHIM_RESOLVE_H_
#define KLAUNCH_SHIM_RESOLVE_H_

#include <cstddef>

namespace klaunch::shim {

constexpr size_t kPathMax = 4096;

// The kernel's path of `fd` (readlink of /proc/self/fd/N), with a
// " (deleted)" suffix removed. Returns its length, or 0 when the descriptor
// names no filesystem path (a pipe, a socket, an anonymous inode), or -errno.
long FdPath(int fd, char* out, size_t size);

// "/proc/self/fd/N" for `fd`.
void ProcFdPath(int fd, char* out, size_t size);

struct PinnedObject {
  int fd = -1;
  char path[kPathMax];  // empty when the object has no filesystem path
  char proc[32];
  PinnedObject() { path[0] = proc[0] = '\0'; }
  ~PinnedObject();
  PinnedObject(const PinnedObject&) = delete;
  PinnedObject& operator=(const PinnedObject&) = delete;
};

// Opens `path` relative to `dirfd` with O_PATH (following a final symlink
// when `follow`), then reads the kernel's path of what it opened. With
// `empty_path` and an empty path, pins `dirfd` itself. Returns 0 or -errno.
int PinObject(int dirfd, const char* path, bool follow, PinnedObject* out,
              bool empty_path = false);

struct PinnedParent {
  int fd = -1;            // O_PATH descriptor of the directory
  const char* last = "";  // the final component as written (may end in '/')
  char path[kPathMax];    // the directory's kernel path + "/" + last, clean
  bool dot_last = false;  // the final component is "." or ".."
  PinnedParent() { path[0] = '\0'; }
  ~PinnedParent();
  PinnedParent(const PinnedParent&) = delete;
  PinnedParent& operator=(const PinnedParent&) = delete;

 private:
  friend int PinParent(int, const char*, PinnedParent*);
  char dir_[kPathMax];
};

// Pins the directory that holds the final component of `path`. Returns 0 or
// -errno (the directory's own error: ENOENT, ENOTDIR, ...).
int PinParent(int dirfd, const char* path, PinnedParent* out);

// Best effort for a path that does not resolve: the directory's kernel path
// when it exists, else `path` made absolute lexically against `dirfd`.
// Used only to decide whether a deny rule covers a missing target.
void ApproximatePath(int dirfd, const char* path, char* out, size_t size);

}  // namespace klaunch::shim

#endif  // KLAUNCH_SHIM_RESOLVE_H_
