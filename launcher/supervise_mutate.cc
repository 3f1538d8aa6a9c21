// The calls that change the filesystem, made without the shim: unlink,
// rename, mkdir, rmdir, link, symlink, mknod, truncate, chmod, chown,
// utime(s), the xattr setters, and their fd forms. Each name is resolved
// as the target would resolve it and judged as a write; the supervisor then
// makes the call itself, relative to the directory it pinned (for a name)
// or through /proc/self/fd/N of the object it pinned, and answers with the
// result. Creating calls get the target's umask.

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

#include <cerrno>
#include <vector>

#include "absl/strings/str_cat.h"
#include "launcher/supervise.h"

namespace klaunch::supervise {
namespace {

constexpr long kFchmodat2 = 452;
constexpr size_t kMaxXattrValue = 64 << 10;

// A name judged as a write: its directory pinned, the last component kept.
// 0, or -errno to answer with.
int JudgeName(Call& c, const char* op, int dirfd, uint64_t path_arg,
              Resolved* r) {
  std::string path;
  if (int e = c.target().ReadString(path_arg, &path); e < 0) return e;
  const int rc = Resolve(c.target(), dirfd, path, false, r);
  if (rc < 0 && !(rc == -ENOENT && r->parent.valid())) {
    return c.JudgeMissing(op, Access::kWrite, dirfd, path) ? rc : -EACCES;
  }
  if (r->trailing_slash && r->object.valid()) {
    // "name/" names what a symlink there points at.
    Resolved followed;
    if (Resolve(c.target(), dirfd, path, true, &followed) == 0) {
      *r = std::move(followed);
    }
  }
  if (!c.JudgePath(op, Access::kWrite, r->NamePath())) return -EACCES;
  return 0;
}

// An object judged as a write: pinned, following a final symlink when
// `follow`; with `empty` and an empty path, the descriptor `dirfd` itself.
int JudgeObject(Call& c, const char* op, int dirfd, uint64_t path_arg,
                bool follow, bool empty, Resolved* r) {
  std::string path;
  if (path_arg == 0 && empty) {
    path.clear();
  } else if (int e = c.target().ReadString(path_arg, &path); e < 0) {
    return e;
  }
  int rc;
  if (path.empty() && empty) {
    rc = OpenStart(c.target(), dirfd, path, &r->object);
  } else {
    rc = Resolve(c.target(), dirfd, path, follow, r);
  }
  if (rc < 0) {
    return c.JudgeMissing(op, Access::kWrite, dirfd, path) ? rc : -EACCES;
  }
  const std::string real = KernelPath(r->object.get());
  if (real.empty()) return 0;  // a pipe or socket: not the policy's business
  return c.JudgePath(op, Access::kWrite, real) ? 0 : -EACCES;
}

// A descriptor of the target's, judged as a write of what it names.
int JudgeFd(Call& c, const char* op, int fd, Fd* out) {
  const int mine = c.target().GetFd(fd);
  if (mine < 0) return mine;
  *out = Fd(mine);
  const std::string real = KernelPath(mine);
  if (real.empty()) return 0;
  return c.JudgePath(op, Access::kWrite, real) ? 0 : -EACCES;
}

long Done(long r) { return r < 0 ? -errno : r; }

// The name a l*-call acts on: the final component, not followed.
std::string NameVia(const Resolved& r) {
  return absl::StrCat(ProcFd(r.parent.get()), "/", r.last);
}

Answer Rename(Call& c, const char* op, int olddir, uint64_t oldp, int newdir,
              uint64_t newp, unsigned flags) {
  Resolved from, to;
  if (int e = JudgeName(c, op, olddir, oldp, &from); e < 0) {
    return Answer::Error(-e);
  }
  if (int e = JudgeName(c, op, newdir, newp, &to); e < 0) {
    return Answer::Error(-e);
  }
  struct stat st;
  if (from.object.valid() && fstat(from.object.get(), &st) == 0 &&
      S_ISDIR(st.st_mode)) {
    const std::string path = c.target().SelfView(from.NamePath());
    if (!c.Judge(op, path, "write", c.engine().CheckMove(path))) {
      return Answer::Error(EACCES);
    }
  }
  if (!c.Live()) return Answer::Error(ENOENT);
  return Answer::Result(Done(renameat2(from.parent.get(), from.last.c_str(),
                                       to.parent.get(), to.last.c_str(),
                                       flags)));
}

Answer Link(Call& c, int olddir, uint64_t oldp, int newdir, uint64_t newp,
            int flags) {
  Resolved to;
  if (int e = JudgeName(c, "link", newdir, newp, &to); e < 0) {
    return Answer::Error(-e);
  }
  // A hard link is a second name for the source: writing through it writes
  // the source, so the source must be writable as well.
  Resolved from;
  if (flags & (AT_SYMLINK_FOLLOW | AT_EMPTY_PATH)) {
    if (int e = JudgeObject(c, "link", olddir, oldp,
                            (flags & AT_SYMLINK_FOLLOW) != 0,
                            (flags & AT_EMPTY_PATH) != 0, &from);
        e < 0) {
      return Answer::Error(-e);
    }
    if (!c.Live()) return Answer::Error(ENOENT);
    return Answer::Result(Done(linkat(AT_FDCWD,
                                      ProcFd(from.object.get()).c_str(),
                                      to.parent.get(), to.last.c_str(),
                                      AT_SYMLINK_FOLLOW)));
  }
  if (int e = JudgeName(c, "link", olddir, oldp, &from); e < 0) {
    return Answer::Error(-e);
  }
  if (!c.Live()) return Answer::Error(ENOENT);
  return Answer::Result(Done(linkat(from.parent.get(), from.last.c_str(),
                                    to.parent.get(), to.last.c_str(), 0)));
}

// A call on a name (at = the name is not followed) or on the object.
template <typename OnName, typename OnObject>
Answer NameOrObject(Call& c, const char* op, int dirfd, uint64_t path,
                    bool nofollow, bool empty, OnName on_name,
                    OnObject on_object) {
  Resolved r;
  if (nofollow) {
    if (int e = JudgeName(c, op, dirfd, path, &r); e < 0) {
      return Answer::Error(-e);
    }
    if (!r.object.valid()) return Answer::Error(ENOENT);
    if (!c.Live()) return Answer::Error(ENOENT);
    return Answer::Result(Done(on_name(r)));
  }
  if (int e = JudgeObject(c, op, dirfd, path, true, empty, &r); e < 0) {
    return Answer::Error(-e);
  }
  if (!c.Live()) return Answer::Error(ENOENT);
  return Answer::Result(Done(on_object(ProcFd(r.object.get()))));
}

Answer Times(Call& c, const char* op, int dirfd, uint64_t path,
             const timespec* times, int flags) {
  if (path == 0) {
    // utimensat(fd, NULL, ...): futimens.
    Fd fd;
    if (int e = JudgeFd(c, op, dirfd, &fd); e < 0) return Answer::Error(-e);
    return Answer::Result(Done(futimens(fd.get(), times)));
  }
  return NameOrObject(
      c, op, dirfd, path, flags & AT_SYMLINK_NOFOLLOW, flags & AT_EMPTY_PATH,
      [&](const Resolved& r) {
        return utimensat(r.parent.get(), r.last.c_str(), times,
                         AT_SYMLINK_NOFOLLOW);
      },
      [&](const std::string& p) { return utimensat(AT_FDCWD, p.c_str(), times, 0); });
}

// utime's and utimes' arguments as utimensat's; false when unreadable.
bool ReadTimes(Call& c, uint64_t addr, bool timeval_pair, timespec out[2],
               const timespec** use) {
  *use = nullptr;
  if (addr == 0) return true;
  if (timeval_pair) {
    timeval tv[2];
    if (!c.target().Read(addr, tv, sizeof(tv))) return false;
    for (int i = 0; i < 2; ++i) {
      out[i] = {tv[i].tv_sec, tv[i].tv_usec * 1000};
    }
  } else {
    utimbuf ub;
    if (!c.target().Read(addr, &ub, sizeof(ub))) return false;
    out[0] = {ub.actime, 0};
    out[1] = {ub.modtime, 0};
  }
  *use = out;
  return true;
}

Answer Xattr(Call& c, const char* op, bool set, bool nofollow, uint64_t path,
             int fd_arg) {
  const uint64_t name_arg = c.arg(1);
  std::string name;
  if (int e = c.target().ReadString(name_arg, &name, 256); e < 0) {
    return Answer::Error(e == -ENAMETOOLONG ? ERANGE : -e);
  }
  std::vector<char> value;
  if (set) {
    if (c.arg(3) > kMaxXattrValue) return Answer::Error(E2BIG);
    value.resize(c.arg(3));
    if (!c.target().Read(c.arg(2), value.data(), value.size())) {
      return Answer::Error(EFAULT);
    }
  }
  const int flags = set ? c.iarg(4) : 0;
  auto act_path = [&](const std::string& p, bool follow) -> long {
    if (set) {
      return follow ? setxattr(p.c_str(), name.c_str(), value.data(),
                               value.size(), flags)
                    : lsetxattr(p.c_str(), name.c_str(), value.data(),
                                value.size(), flags);
    }
    return follow ? removexattr(p.c_str(), name.c_str())
                  : lremovexattr(p.c_str(), name.c_str());
  };
  if (fd_arg >= 0) {
    Fd fd;
    if (int e = JudgeFd(c, op, fd_arg, &fd); e < 0) return Answer::Error(-e);
    return Answer::Result(Done(
        set ? fsetxattr(fd.get(), name.c_str(), value.data(), value.size(),
                        flags)
            : fremovexattr(fd.get(), name.c_str())));
  }
  return NameOrObject(
      c, op, AT_FDCWD, path, nofollow, false,
      [&](const Resolved& r) { return act_path(NameVia(r), false); },
      [&](const std::string& p) { return act_path(p, true); });
}

}  // namespace

Answer SuperviseMutation(Call& c) {
  const int nr = c.nr();
  Resolved r;
  auto name_call = [&](const char* op, int dirfd, uint64_t path,
                       auto act) -> Answer {
    if (int e = JudgeName(c, op, dirfd, path, &r); e < 0) {
      return Answer::Error(-e);
    }
    if (!c.Live()) return Answer::Error(ENOENT);
    return Answer::Result(Done(act()));
  };
  switch (nr) {
    case SYS_unlink:
      return name_call("unlink", AT_FDCWD, c.arg(0), [&] {
        return unlinkat(r.parent.get(), r.last.c_str(), 0);
      });
    case SYS_unlinkat:
      return name_call("unlinkat", c.iarg(0), c.arg(1), [&] {
        return unlinkat(r.parent.get(), r.last.c_str(), c.iarg(2));
      });
    case SYS_rmdir:
      return name_call("rmdir", AT_FDCWD, c.arg(0), [&] {
        return unlinkat(r.parent.get(), r.last.c_str(), AT_REMOVEDIR);
      });
    case SYS_mkdir:
    case SYS_mkdirat: {
      const bool at = nr == SYS_mkdirat;
      const mode_t mode = static_cast<mode_t>(c.arg(at ? 2 : 1));
      return name_call("mkdir", at ? c.iarg(0) : AT_FDCWD, c.arg(at ? 1 : 0),
                       [&] {
                         return mkdirat(r.parent.get(), r.last.c_str(),
                                        mode & ~c.target().umask());
                       });
    }
    case SYS_mknod:
    case SYS_mknodat: {
      const bool at = nr == SYS_mknodat;
      const mode_t mode = static_cast<mode_t>(c.arg(at ? 2 : 1));
      const dev_t dev = static_cast<dev_t>(c.arg(at ? 3 : 2));
      if ((S_ISCHR(mode) || S_ISBLK(mode)) &&
          !SystemAllows(c.engine().policy(), "devices") &&
          !c.Refuse("mknod", "a device node",
                    "add \"devices\" to system.allow to allow it")) {
        return Answer::Error(EPERM);
      }
      return name_call("mknod", at ? c.iarg(0) : AT_FDCWD, c.arg(at ? 1 : 0),
                       [&] {
                         return mknodat(r.parent.get(), r.last.c_str(),
                                        (mode & S_IFMT) |
                                            (mode & 07777 & ~c.target().umask()),
                                        dev);
                       });
    }
    case SYS_symlink:
    case SYS_symlinkat: {
      const bool at = nr == SYS_symlinkat;
      std::string target;
      if (int e = c.target().ReadString(c.arg(0), &target); e < 0) {
        return Answer::Error(-e);
      }
      // The target is only text until something follows it.
      return name_call("symlink", at ? c.iarg(1) : AT_FDCWD, c.arg(at ? 2 : 1),
                       [&] {
                         return symlinkat(target.c_str(), r.parent.get(),
                                          r.last.c_str());
                       });
    }
    case SYS_rename:
      return Rename(c, "rename", AT_FDCWD, c.arg(0), AT_FDCWD, c.arg(1), 0);
    case SYS_renameat:
      return Rename(c, "renameat", c.iarg(0), c.arg(1), c.iarg(2), c.arg(3), 0);
    case SYS_renameat2:
      return Rename(c, "renameat2", c.iarg(0), c.arg(1), c.iarg(2), c.arg(3),
                    static_cast<unsigned>(c.arg(4)));
    case SYS_link:
      return Link(c, AT_FDCWD, c.arg(0), AT_FDCWD, c.arg(1), 0);
    case SYS_linkat:
      return Link(c, c.iarg(0), c.arg(1), c.iarg(2), c.arg(3), c.iarg(4));
    case SYS_truncate: {
      const off_t len = static_cast<off_t>(c.arg(1));
      return NameOrObject(
          c, "truncate", AT_FDCWD, c.arg(0), false, false,
          [&](const Resolved&) { return -1L; },
          [&](const std::string& p) { return truncate(p.c_str(), len); });
    }
    case SYS_chmod:
    case SYS_fchmodat:
    case kFchmodat2: {
      const bool at = nr != SYS_chmod;
      const mode_t mode = static_cast<mode_t>(c.arg(at ? 2 : 1));
      const int flags = nr == kFchmodat2 ? c.iarg(3) : 0;
      return NameOrObject(
          c, "chmod", at ? c.iarg(0) : AT_FDCWD, c.arg(at ? 1 : 0),
          flags & AT_SYMLINK_NOFOLLOW, flags & AT_EMPTY_PATH,
          [&](const Resolved& r2) {
            return syscall(kFchmodat2, r2.parent.get(), r2.last.c_str(), mode,
                           AT_SYMLINK_NOFOLLOW);
          },
          [&](const std::string& p) { return fchmodat(AT_FDCWD, p.c_str(), mode, 0); });
    }
    case SYS_chown:
    case SYS_lchown:
    case SYS_fchownat: {
      const bool at = nr == SYS_fchownat;
      const uid_t uid = static_cast<uid_t>(c.arg(at ? 2 : 1));
      const gid_t gid = static_cast<gid_t>(c.arg(at ? 3 : 2));
      const int flags = at ? c.iarg(4) : nr == SYS_lchown ? AT_SYMLINK_NOFOLLOW : 0;
      return NameOrObject(
          c, "chown", at ? c.iarg(0) : AT_FDCWD, c.arg(at ? 1 : 0),
          flags & AT_SYMLINK_NOFOLLOW, flags & AT_EMPTY_PATH,
          [&](const Resolved& r2) {
            return fchownat(r2.parent.get(), r2.last.c_str(), uid, gid,
                            AT_SYMLINK_NOFOLLOW);
          },
          [&](const std::string& p) {
            return fchownat(AT_FDCWD, p.c_str(), uid, gid, 0);
          });
    }
    case SYS_fchmod: {
      Fd fd;
      if (int e = JudgeFd(c, "fchmod", c.iarg(0), &fd); e < 0) {
        return Answer::Error(-e);
      }
      return Answer::Result(Done(fchmod(fd.get(), static_cast<mode_t>(c.arg(1)))));
    }
    case SYS_fchown: {
      Fd fd;
      if (int e = JudgeFd(c, "fchown", c.iarg(0), &fd); e < 0) {
        return Answer::Error(-e);
      }
      return Answer::Result(Done(fchown(fd.get(), static_cast<uid_t>(c.arg(1)),
                                        static_cast<gid_t>(c.arg(2)))));
    }
    case SYS_utimensat: {
      timespec ts[2];
      const timespec* use = nullptr;
      if (c.arg(2) != 0) {
        if (!c.target().Read(c.arg(2), ts, sizeof(ts))) {
          return Answer::Error(EFAULT);
        }
        use = ts;
      }
      return Times(c, "utimensat", c.iarg(0), c.arg(1), use, c.iarg(3));
    }
    case SYS_utime:
    case SYS_utimes:
    case SYS_futimesat: {
      const bool at = nr == SYS_futimesat;
      timespec ts[2];
      const timespec* use = nullptr;
      if (!ReadTimes(c, c.arg(at ? 2 : 1), nr != SYS_utime, ts, &use)) {
        return Answer::Error(EFAULT);
      }
      if (c.arg(at ? 1 : 0) == 0) return Answer::Error(EFAULT);
      return Times(c, "utimes", at ? c.iarg(0) : AT_FDCWD, c.arg(at ? 1 : 0),
                   use, 0);
    }
    case SYS_setxattr:
      return Xattr(c, "setxattr", true, false, c.arg(0), -1);
    case SYS_lsetxattr:
      return Xattr(c, "lsetxattr", true, true, c.arg(0), -1);
    case SYS_fsetxattr:
      return Xattr(c, "fsetxattr", true, false, 0, c.iarg(0));
    case SYS_removexattr:
      return Xattr(c, "removexattr", false, false, c.arg(0), -1);
    case SYS_lremovexattr:
      return Xattr(c, "lremovexattr", false, true, c.arg(0), -1);
    case SYS_fremovexattr:
      return Xattr(c, "fremovexattr", false, false, 0, c.iarg(0));
    default:
      return Answer::Error(ENOSYS);
  }
}

}  // namespace klaunch::supervise
