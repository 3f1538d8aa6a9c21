// The process behind a seccomp notification, as the supervisor sees it:
// its memory (read with process_vm_readv), its descriptors (pidfd_getfd),
// its umask, and paths resolved the way its own call would resolve them.
//
// Resolving walks the path one component at a time from the target's root,
// cwd or dirfd (opened through /proc/TID), reading each symlink itself, so
// that /proc/self and /proc/thread-self mean the target, not klaunch: a
// static binary opening /dev/stdin gets its own standard input. Symlinks
// inside /proc/PID (fd/N, cwd, exe) are the kernel's own and are followed by
// the kernel. Every descriptor is O_PATH until the caller reopens the object
// it judged through /proc/self/fd/N, so nothing can be swapped in between.
//
// Nothing here decides; supervise.h judges what this module names.

#ifndef KLAUNCH_SUPERVISOR_TARGET_H_
#define KLAUNCH_SUPERVISOR_TARGET_H_

#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "supervisor/decode.h"

namespace klaunch::supervise {

// An owned descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    const int f = fd_;
    fd_ = -1;
    return f;
  }

 private:
  int fd_ = -1;
};

// "/proc/self/fd/N".
std::string ProcFd(int fd);

// The kernel's path of a descriptor klaunch holds, " (deleted)" removed;
// empty when it names no filesystem path (a pipe, a socket).
std::string KernelPath(int fd);

// Reading its memory is the Memory of decode.h, whose ReadString it has.
class Target : public Memory {
 public:
  explicit Target(pid_t tid) : tid_(tid) {}

  pid_t tid() const { return tid_; }
  pid_t tgid();       // from /proc/TID/status; tid when unreadable
  pid_t ppid();       // from /proc/TID/status; 0 when unreadable
  mode_t umask();     // from /proc/TID/status; 022 when unreadable
  std::string exe();  // readlink /proc/TID/exe

  // False when the memory cannot be read (unmapped, or the process is gone).
  bool Read(uint64_t addr, void* out, size_t size) const override;
  bool Write(uint64_t addr, const void* data, size_t size) const;

  // A copy of the target's descriptor `fd` (pidfd_getfd), or -errno.
  int GetFd(int fd);

  // The policy's view of a kernel path: the target's own /proc/PID entries
  // are /proc/self (and /proc/thread-self for its thread).
  std::string SelfView(const std::string& path);

 private:
  bool ReadStatus();

  pid_t tid_;
  pid_t tgid_ = 0;
  pid_t ppid_ = 0;
  mode_t umask_ = 022;
  bool status_read_ = false;
  int pidfd_ = -1;
  Fd pidfd_owner_;
};

struct Resolved {
  Fd object;         // the final object, O_PATH; invalid when it is missing
  Fd parent;         // the directory holding `last`, O_PATH
  std::string last;  // the final component ("" for "/"; "." or ".." kept)
  // The final-component symlinks followed, as kernel paths of the links
  // (an exec's chain of names: mypy -> python3 -> python3.11).
  std::vector<std::string> links;
  bool trailing_slash = false;
  // What fstat said of `object` while resolving, when `stat_known`: a
  // supervised open need not ask again (each system call counts,
  // PERFORMANCE.md).
  struct stat st {};
  bool stat_known = false;

  // The parent's kernel path joined with `last`.
  std::string NamePath() const;
  // `last` as a call on the entry itself (mkdir, rmdir, unlink, rename)
  // hands it to the kernel: with the trailing slash, which never follows a
  // symlink there but asks for a directory.
  std::string EntryName() const { return trailing_slash ? last + "/" : last; }
};

// Resolves (dirfd, path) as the target's own call would, following a final
// symlink when `follow`. Returns 0; -ENOENT with `parent` set when only the
// final component is missing; or the -errno the call would have failed with.
int Resolve(Target& target, int dirfd, const std::string& path, bool follow,
            Resolved* out);

// Where the target's lookup of (dirfd, path) starts, as an O_PATH
// descriptor: its root, its cwd or what `dirfd` names (with an empty path,
// the object an AT_EMPTY_PATH call acts on). 0 or -errno.
int OpenStart(Target& target, int dirfd, const std::string& path, Fd* out);

// Best effort for a path that does not resolve: where it would be, for
// deciding whether a deny rule covers a missing target.
std::string ApproximatePath(Target& target, int dirfd, const std::string& path);

}  // namespace klaunch::supervise

#endif  // KLAUNCH_SUPERVISOR_TARGET_H_
