#include "supervisor/target.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/path.h"

namespace klaunch::supervise {
namespace {

constexpr int kMaxLinks = 40;  // the kernel's own limit
constexpr ino_t kProcRootIno = 1;

std::string ReadLinkAt(int dirfd, const char* path) {
  char buf[4096];
  const ssize_t n = readlinkat(dirfd, path, buf, sizeof(buf));
  if (n <= 0 || n == static_cast<ssize_t>(sizeof(buf))) return "";
  return std::string(buf, n);
}

bool OnProc(int fd) {
  struct statfs fs;
  return fstatfs(fd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
}

bool IsProcRoot(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 && st.st_ino == kProcRootIno && OnProc(fd);
}

int OpenPath(int dirfd, const char* name, int extra) {
  return openat(dirfd, name, O_PATH | O_CLOEXEC | extra);
}

// The directories of `parts` but the last, from `start` (the target's root
// for an absolute path), in one openat2 call where that is the walk
// Resolve makes one component at a time: no magic link (the kernel's jump
// through /proc/PID/fd, cwd, root, exe); absolute symlinks against the
// target's root (RESOLVE_IN_ROOT), or none at all for a relative path; and
// nothing that ends on /proc, where /proc/self and thread-self would have
// been klaunch's. An invalid Fd otherwise (the walk then does it all, and
// says why a lookup fails): the walk costs three calls per directory, this
// three in all (openat2, the check of /proc, the close of the start;
// docs/performance.md).
Fd OpenDirectories(int start, bool absolute,
                   const std::deque<std::string>& parts) {
  const std::string dirs = absl::StrJoin(parts.begin(), parts.end() - 1, "/");
  struct open_how how;
  std::memset(&how, 0, sizeof(how));
  how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
  how.resolve = RESOLVE_NO_MAGICLINKS |
                (absolute ? RESOLVE_IN_ROOT : RESOLVE_NO_SYMLINKS);
  Fd fd(static_cast<int>(
      syscall(SYS_openat2, start, dirs.c_str(), &how, sizeof(how))));
  if (!fd.valid() || OnProc(fd.get())) return Fd();
  return fd;
}

}  // namespace

Fd& Fd::operator=(Fd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) close(fd_);
    fd_ = o.release();
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) close(fd_);
}

std::string ProcFd(int fd) { return absl::StrCat("/proc/self/fd/", fd); }

std::string KernelPath(int fd) {
  std::string p = ReadLinkAt(AT_FDCWD, ProcFd(fd).c_str());
  if (p.empty() || p[0] != '/') return "";
  constexpr absl::string_view kDeleted = " (deleted)";
  if (absl::EndsWith(p, kDeleted)) p.resize(p.size() - kDeleted.size());
  return p;
}

bool Target::ReadStatus() {
  if (status_read_) return true;
  char path[64], buf[4096];
  std::snprintf(path, sizeof(path), "/proc/%d/status", tid_);
  Fd fd(open(path, O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return false;
  const ssize_t n = read(fd.get(), buf, sizeof(buf) - 1);
  if (n <= 0) return false;
  buf[n] = '\0';
  for (absl::string_view line :
       absl::StrSplit(absl::string_view(buf, n), '\n')) {
    int v;
    if (absl::ConsumePrefix(&line, "Tgid:")) {
      if (absl::SimpleAtoi(absl::StripAsciiWhitespace(line), &v)) tgid_ = v;
    } else if (absl::ConsumePrefix(&line, "PPid:")) {
      if (absl::SimpleAtoi(absl::StripAsciiWhitespace(line), &v)) ppid_ = v;
    } else if (absl::ConsumePrefix(&line, "Umask:")) {
      umask_ = static_cast<mode_t>(std::strtoul(
          std::string(absl::StripAsciiWhitespace(line)).c_str(), nullptr, 8));
    }
  }
  status_read_ = true;
  return true;
}

pid_t Target::tgid() {
  ReadStatus();
  return tgid_ > 0 ? tgid_ : tid_;
}

pid_t Target::ppid() {
  ReadStatus();
  return ppid_;
}

mode_t Target::umask() {
  ReadStatus();
  return umask_;
}

std::string Target::exe() {
  return ReadLinkAt(AT_FDCWD, absl::StrCat("/proc/", tid_, "/exe").c_str());
}

bool Target::Read(uint64_t addr, void* out, size_t size) const {
  if (size == 0) return true;
  iovec local{out, size};
  iovec remote{reinterpret_cast<void*>(addr), size};
  return process_vm_readv(tid_, &local, 1, &remote, 1, 0) ==
         static_cast<ssize_t>(size);
}

bool Target::Write(uint64_t addr, const void* data, size_t size) const {
  iovec local{const_cast<void*>(data), size};
  iovec remote{reinterpret_cast<void*>(addr), size};
  return process_vm_writev(tid_, &local, 1, &remote, 1, 0) ==
         static_cast<ssize_t>(size);
}

int Target::GetFd(int fd) {
  if (pidfd_ < 0) {
    pidfd_owner_ = Fd(static_cast<int>(syscall(SYS_pidfd_open, tgid(), 0)));
    if (!pidfd_owner_.valid()) return -errno;
    pidfd_ = pidfd_owner_.get();
  }
  const long r = syscall(SYS_pidfd_getfd, pidfd_, fd, 0);
  return r < 0 ? -errno : static_cast<int>(r);
}

std::string Target::SelfView(const std::string& path) {
  if (!absl::StartsWith(path, "/proc/")) return path;
  const std::string self = absl::StrCat("/proc/", tgid());
  if (!PathIsWithin(path, self)) return path;
  const std::string task = absl::StrCat(self, "/task/", tid_);
  if (PathIsWithin(path, task)) {
    return absl::StrCat("/proc/thread-self", path.substr(task.size()));
  }
  return absl::StrCat("/proc/self", path.substr(self.size()));
}

int OpenStart(Target& t, int dirfd, const std::string& path, Fd* out) {
  std::string where;
  if (!path.empty() && path[0] == '/') {
    where = absl::StrCat("/proc/", t.tid(), "/root");
  } else if (dirfd == AT_FDCWD) {
    where = absl::StrCat("/proc/", t.tid(), "/cwd");
  } else if (dirfd < 0) {
    return -EBADF;
  } else {
    where = absl::StrCat("/proc/", t.tid(), "/fd/", dirfd);
  }
  Fd fd(OpenPath(AT_FDCWD, where.c_str(), 0));
  if (!fd.valid()) return errno == ENOENT ? -EBADF : -errno;
  *out = std::move(fd);
  return 0;
}

std::string Resolved::NamePath() const {
  const std::string dir = parent.valid() ? KernelPath(parent.get()) : "";
  if (dir.empty()) return "";
  if (last.empty() || last == ".") return dir;
  absl::StatusOr<std::string> p = NormalizePath(absl::StrCat(dir, "/", last));
  return p.ok() ? *p : dir;
}

int Resolve(Target& target, int dirfd, const std::string& path, bool follow,
            Resolved* out) {
  if (path.empty()) return -ENOENT;
  Fd cur;
  if (int r = OpenStart(target, dirfd, path, &cur); r < 0) return r;
  std::deque<std::string> parts;
  for (absl::string_view p : absl::StrSplit(path, '/', absl::SkipEmpty())) {
    parts.emplace_back(p);
  }
  out->trailing_slash = path.size() > 1 && path.back() == '/';
  if (parts.empty()) {  // "/"
    out->object = Fd(OpenPath(cur.get(), ".", 0));
    out->parent = std::move(cur);
    out->last.clear();
    return out->object.valid() ? 0 : -errno;
  }
  // One directory too: the same three calls as the walk's when it is a
  // directory, eight fewer when it is a symlink (/bin, /lib and /sbin on a
  // merged /usr). Not for /proc's own names, which the walk takes anyway.
  const bool absolute = path[0] == '/';
  const bool under_proc = absolute && parts.front() == "proc";
  if (parts.size() >= 2 && !under_proc) {
    if (Fd dirs = OpenDirectories(cur.get(), absolute, parts); dirs.valid()) {
      cur = std::move(dirs);
      parts.erase(parts.begin(), parts.end() - 1);
    }
  }
  int links = 0;
  while (!parts.empty()) {
    std::string name = std::move(parts.front());
    parts.pop_front();
    const bool is_last = parts.empty();
    if (name == "." && !is_last) continue;
    if (name == ".." && !is_last) {
      Fd up(OpenPath(cur.get(), "..", O_DIRECTORY));
      if (!up.valid()) return -errno;
      cur = std::move(up);
      continue;
    }
    const bool dots = name == "." || name == "..";
    Fd fd(OpenPath(cur.get(), name.c_str(), dots ? 0 : O_NOFOLLOW));
    if (!fd.valid()) {
      const int e = errno;
      if (is_last && e == ENOENT) {
        out->parent = std::move(cur);
        out->last = std::move(name);
        return -ENOENT;
      }
      return -e;
    }
    struct stat st;
    if (fstat(fd.get(), &st) != 0) return -errno;
    const bool follow_this = !is_last || follow || out->trailing_slash;
    if (S_ISLNK(st.st_mode) && follow_this) {
      if (++links > kMaxLinks) return -ELOOP;
      if (is_last) out->links.push_back(KernelPath(cur.get()) + "/" + name);
      std::string text;
      if (OnProc(cur.get())) {
        if (IsProcRoot(cur.get()) && name == "self") {
          text = absl::StrCat(target.tgid());
        } else if (IsProcRoot(cur.get()) && name == "thread-self") {
          text = absl::StrCat(target.tgid(), "/task/", target.tid());
        } else if (!IsProcRoot(cur.get())) {
          // A /proc/PID link (fd/N, cwd, exe, root): the kernel's own jump
          // to an object, which may have no path at all.
          Fd jumped(OpenPath(cur.get(), name.c_str(), 0));
          if (!jumped.valid()) return -errno;
          if (is_last) {
            out->object = std::move(jumped);
            out->parent = std::move(cur);
            out->last = std::move(name);
            return 0;
          }
          cur = std::move(jumped);
          continue;
        } else {
          text = ReadLinkAt(fd.get(), "");
        }
      } else {
        text = ReadLinkAt(fd.get(), "");
      }
      if (text.empty()) return -ENOENT;
      std::vector<std::string> expanded;
      for (absl::string_view p : absl::StrSplit(text, '/', absl::SkipEmpty())) {
        expanded.emplace_back(p);
      }
      parts.insert(parts.begin(), expanded.begin(), expanded.end());
      if (text[0] == '/') {
        Fd root;
        if (int r = OpenStart(target, AT_FDCWD, "/", &root); r < 0) return r;
        cur = std::move(root);
      }
      if (parts.empty()) {  // a link to "/"
        out->object = Fd(OpenPath(cur.get(), ".", 0));
        out->parent = std::move(cur);
        out->last.clear();
        return out->object.valid() ? 0 : -errno;
      }
      continue;
    }
    if (is_last) {
      if (out->trailing_slash && !S_ISDIR(st.st_mode)) return -ENOTDIR;
      out->st = st;
      out->stat_known = true;
      out->object = std::move(fd);
      out->parent = std::move(cur);
      out->last = std::move(name);
      return 0;
    }
    if (!S_ISDIR(st.st_mode)) return -ENOTDIR;
    cur = std::move(fd);
  }
  return -ENOENT;
}

std::string ApproximatePath(Target& target, int dirfd,
                            const std::string& path) {
  std::string base;
  if (path.empty() || path[0] != '/') {
    base =
        dirfd == AT_FDCWD
            ? ReadLinkAt(AT_FDCWD,
                         absl::StrCat("/proc/", target.tid(), "/cwd").c_str())
            : ReadLinkAt(
                  AT_FDCWD,
                  absl::StrCat("/proc/", target.tid(), "/fd/", dirfd).c_str());
    if (base.empty() || base[0] != '/') return "";
  }
  absl::StatusOr<std::string> p =
      NormalizePath(base.empty() ? path : absl::StrCat(base, "/", path));
  return p.ok() ? target.SelfView(*p) : "";
}

}  // namespace klaunch::supervise
