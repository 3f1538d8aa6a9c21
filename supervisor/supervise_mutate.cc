// The calls that change the filesystem, made without the shim: unlink,
// rename, mkdir, rmdir, link, symlink, mknod, truncate, chmod, chown,
// utime(s), the xattr setters, and their fd forms. Each name is resolved
// as the target would resolve it and judged as a write; the supervisor then
// makes the call itself, relative to the directory it pinned (for a name)
// or through /proc/self/fd/N of the object it pinned, and answers with the
// result. Creating calls get the target's umask.

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/name_need.h"
#include "core/two_names.h"
#include "supervisor/supervise.h"
#include "supervisor/syscall_table.h"

namespace klaunch::supervise {
namespace {

// How a call treats a final "name/": a call on the directory entry itself
// (mkdir, rmdir, unlink, mknod, symlink, rename, link) never follows a
// symlink there, the slash only asks for a directory, and the kernel is
// handed the name with its slash (Resolved::EntryName); the AT_SYMLINK_NOFOLLOW
// forms of the other calls follow it, as a lookup does.
enum class Slash { kEntry, kFollows };

// A name found as the kernel would find it: its directory pinned, the last
// component kept. 0 when r->NamePath() is to be judged; else -errno to
// answer with, -EACCES where a deny rule covers a missing name's place.
int FindName(Call& c, const char* op, int dirfd, const PathArg& arg,
             Slash slash, Resolved* r, NameNeed need) {
  if (arg.error < 0) return arg.error;
  const std::string& path = arg.path;
  // An entry call's "name/" is resolved as "name" (Resolve follows a final
  // symlink under a slash), and the slash given back to the kernel.
  std::string entry = path;
  bool slashed = false;
  while (slash == Slash::kEntry && entry.size() > 1 && entry.back() == '/') {
    entry.pop_back();
    slashed = true;
  }
  const int rc = Resolve(c.target(), dirfd, entry, false, r);
  if (slashed) r->trailing_slash = true;
  if (rc < 0 && !(rc == -ENOENT && r->parent.valid())) {
    return c.JudgeMissing(op, Access::kWrite, dirfd, path) ? rc : -EACCES;
  }
  if (slash == Slash::kFollows && r->trailing_slash && r->object.valid()) {
    // "name/" names what a symlink there points at.
    Resolved followed;
    if (Resolve(c.target(), dirfd, path, true, &followed) == 0) {
      *r = std::move(followed);
    }
  }
  // The kernel's answer before any permission, where the program may see
  // the name (core/name_need.h): nothing to judge or record.
  if (const int e = ErrorBeforePermission(need, r->object.valid());
      e != 0 && c.MaySee(r->NamePath())) {
    return -e;
  }
  return 0;
}

// A name judged as a write. 0, or -errno to answer with.
int JudgeName(Call& c, const char* op, int dirfd, const PathArg& arg,
              Slash slash, Resolved* r, NameNeed need = NameNeed::kAny) {
  if (int e = FindName(c, op, dirfd, arg, slash, r, need); e < 0) return e;
  return c.JudgePath(op, Access::kWrite, r->NamePath()) ? 0 : -EACCES;
}

// An object found: pinned, following a final symlink when `follow`; with
// `empty` and an empty path, the descriptor `dirfd` itself. 0 with `*real`
// its path ("" for a pipe or socket: not the policy's business), or -errno
// to answer with.
int FindObject(Call& c, const char* op, int dirfd, const PathArg& arg,
               bool follow, bool empty, Resolved* r, std::string* real) {
  std::string path;
  if (arg.addr == 0 && empty) {
    path.clear();
  } else if (arg.error < 0) {
    return arg.error;
  } else {
    path = arg.path;
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
  *real = KernelPath(r->object.get());
  return 0;
}

// An object judged as a write. 0, or -errno to answer with.
int JudgeObject(Call& c, const char* op, int dirfd, const PathArg& arg,
                bool follow, bool empty, Resolved* r) {
  std::string real;
  if (int e = FindObject(c, op, dirfd, arg, follow, empty, r, &real); e < 0) {
    return e;
  }
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

// How the supervisor judges one end of a rename or a link
// (core/two_names.h).
class SupervisorEnds final : public EndJudge {
 public:
  SupervisorEnds(Call& c, const char* op) : c_(c), op_(op) {}
  bool Write(const char* path) override {
    return c_.JudgePath(op_, Access::kWrite, path);
  }
  bool LinkSource(const char* path) override {
    return c_.JudgePath(op_, Access::kWrite, path, "link");
  }
  bool Move(const char* path) override {
    const std::string view = c_.target().SelfView(path);
    return c_.Judge(op_, view, "write", c_.engine().CheckMove(view), "",
                    /*trace=*/false);
  }

 private:
  Call& c_;
  const char* op_;
};

bool IsDirectory(const Resolved& r) {
  struct stat st;
  return r.object.valid() && fstat(r.object.get(), &st) == 0 &&
         S_ISDIR(st.st_mode);
}

Answer Rename(Call& c, const MutationCall& m) {
  const char* op = m.op;
  Resolved from, to;
  const int e_from =
      FindName(c, op, m.dirfd, m.path, Slash::kEntry, &from, kRenameSourceNeed);
  if (e_from < 0) return Answer::Error(-e_from);
  const int e_to = FindName(c, op, m.new_dirfd, m.new_path, Slash::kEntry, &to,
                            RenameTargetNeed(m.flags));
  if (e_to < 0) return Answer::Error(-e_to);
  const std::string from_path = from.NamePath();
  const std::string to_path = to.NamePath();
  SupervisorEnds judge(c, op);
  if (!JudgeRename(judge,
                   {from_path.c_str(), [&] { return IsDirectory(from); }},
                   {to_path.c_str(), [&] { return IsDirectory(to); }},
                   static_cast<unsigned>(m.flags))) {
    return Answer::Error(EACCES);
  }
  if (!c.Live()) return Answer::Error(ENOENT);
  return Answer::Result(Done(
      renameat2(from.parent.get(), from.EntryName().c_str(), to.parent.get(),
                to.EntryName().c_str(), static_cast<unsigned>(m.flags))));
}

Answer Link(Call& c, const MutationCall& m) {
  const char* op = "link";
  Resolved to;
  const int e_to = FindName(c, op, m.new_dirfd, m.new_path, Slash::kEntry, &to,
                            kLinkNameNeed);
  if (e_to < 0) return Answer::Error(-e_to);
  const std::string to_path = to.NamePath();
  SupervisorEnds judge(c, op);
  Resolved from;
  if (const LinkSourceForm form = LinkSourceOf(m.flags); form.object) {
    std::string real;
    if (int e = FindObject(c, op, m.dirfd, m.path, form.follow, form.empty,
                           &from, &real);
        e < 0) {
      return Answer::Error(-e);
    }
    if (!JudgeLink(judge, real.c_str(), to_path.c_str())) {
      return Answer::Error(EACCES);
    }
    if (!c.Live()) return Answer::Error(ENOENT);
    return Answer::Result(Done(
        linkat(AT_FDCWD, ProcFd(from.object.get()).c_str(), to.parent.get(),
               to.EntryName().c_str(), AT_SYMLINK_FOLLOW)));
  }
  if (int e = FindName(c, op, m.dirfd, m.path, Slash::kEntry, &from,
                       kLinkSourceNeed);
      e < 0) {
    return Answer::Error(-e);
  }
  if (!JudgeLink(judge, from.NamePath().c_str(), to_path.c_str())) {
    return Answer::Error(EACCES);
  }
  if (!c.Live()) return Answer::Error(ENOENT);
  return Answer::Result(
      Done(linkat(from.parent.get(), from.EntryName().c_str(), to.parent.get(),
                  to.EntryName().c_str(), 0)));
}

// A call on a name (at = the name is not followed) or on the object.
template <typename OnName, typename OnObject>
Answer NameOrObject(Call& c, const char* op, int dirfd, const PathArg& path,
                    bool nofollow, bool empty, OnName on_name,
                    OnObject on_object) {
  Resolved r;
  if (nofollow) {
    if (int e = JudgeName(c, op, dirfd, path, Slash::kFollows, &r); e < 0) {
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

// truncate(2) breaks a lease its holder keeps and waits for it: a file is
// opened for writing without waiting (the waiter retries while the lease
// holds), then truncated through that descriptor.
Answer Truncate(Call& c, const MutationCall& m) {
  Resolved r;
  if (int e = JudgeObject(c, m.op, AT_FDCWD, m.path, true, false, &r); e < 0) {
    return Answer::Error(-e);
  }
  if (!c.Live()) return Answer::Error(ENOENT);
  struct stat st;
  if (fstat(r.object.get(), &st) != 0) return Answer::Error(errno);
  const std::string via = ProcFd(r.object.get());
  if (!S_ISREG(st.st_mode)) {
    // No lease on anything else; the kernel's own answer (EISDIR, EINVAL).
    return Answer::Result(Done(truncate(via.c_str(), m.length)));
  }
  auto pin = std::make_shared<Fd>(std::move(r.object));
  const off_t length = m.length;
  return Answer::Wait(Fd(), 0, [pin, length]() -> std::optional<Answer> {
    Fd fd(open(ProcFd(pin->get()).c_str(),
               O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    if (!fd.valid()) {
      if (errno == EWOULDBLOCK) return std::nullopt;
      return Answer::Error(errno);
    }
    return Answer::Result(Done(ftruncate(fd.get(), length)));
  });
}

Answer Times(Call& c, const char* op, int dirfd, const PathArg& path,
             const timespec* times, int flags) {
  if (path.addr == 0) {
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
      [&](const std::string& p) {
        return utimensat(AT_FDCWD, p.c_str(), times, 0);
      });
}

Answer Xattr(Call& c, const MutationCall& m) {
  const XattrArg& x = m.xattr;
  if (x.error < 0) return Answer::Error(-x.error);
  const bool set = x.set;
  const std::string& name = x.name;
  const std::vector<char>& value = x.value;
  const int flags = x.flags;
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
  if (m.fd >= 0) {
    Fd fd;
    if (int e = JudgeFd(c, m.op, m.fd, &fd); e < 0) return Answer::Error(-e);
    return Answer::Result(
        Done(set ? fsetxattr(fd.get(), name.c_str(), value.data(), value.size(),
                             flags)
                 : fremovexattr(fd.get(), name.c_str())));
  }
  return NameOrObject(
      c, m.op, AT_FDCWD, m.path, x.nofollow, false,
      [&](const Resolved& r) { return act_path(NameVia(r), false); },
      [&](const std::string& p) { return act_path(p, true); });
}

}  // namespace

Answer SuperviseMutation(Call& c) {
  MutationCall m;
  if (int e = DecodeMutation(c.args(), c.target(), &m); e < 0) {
    return Answer::Error(-e);
  }
  const int nr = c.nr();
  Resolved r;
  auto name_call = [&](NameNeed need, auto act) -> Answer {
    if (int e = JudgeName(c, m.op, m.dirfd, m.path, Slash::kEntry, &r, need);
        e < 0) {
      return Answer::Error(-e);
    }
    if (!c.Live()) return Answer::Error(ENOENT);
    return Answer::Result(Done(act()));
  };
  switch (nr) {
    case SYS_unlink:
    case SYS_unlinkat:
      return name_call(NameNeed::kExisting, [&] {
        return unlinkat(r.parent.get(), r.EntryName().c_str(), m.flags);
      });
    case SYS_rmdir:
      return name_call(NameNeed::kExisting, [&] {
        return unlinkat(r.parent.get(), r.EntryName().c_str(), AT_REMOVEDIR);
      });
    case SYS_mkdir:
    case SYS_mkdirat:
      return name_call(NameNeed::kNew, [&] {
        return mkdirat(r.parent.get(), r.EntryName().c_str(),
                       m.mode & ~c.target().umask());
      });
    case SYS_mknod:
    case SYS_mknodat:
      if ((S_ISCHR(m.mode) || S_ISBLK(m.mode)) &&
          !SystemAllows(c.engine().policy(), "devices") &&
          !c.Refuse("mknod", "a device node",
                    "add \"devices\" to system.allow to allow it")) {
        return Answer::Error(EPERM);
      }
      return name_call(NameNeed::kNew, [&] {
        return mknodat(
            r.parent.get(), r.EntryName().c_str(),
            (m.mode & S_IFMT) | (m.mode & 07777 & ~c.target().umask()), m.dev);
      });
    case SYS_symlink:
    case SYS_symlinkat:
      if (m.link_text.error < 0) return Answer::Error(-m.link_text.error);
      // The target is only text until something follows it.
      return name_call(NameNeed::kNew, [&] {
        return symlinkat(m.link_text.path.c_str(), r.parent.get(),
                         r.EntryName().c_str());
      });
    case SYS_rename:
    case SYS_renameat:
    case SYS_renameat2:
      return Rename(c, m);
    case SYS_link:
    case SYS_linkat:
      return Link(c, m);
    case SYS_truncate:
      return Truncate(c, m);
    case SYS_chmod:
    case SYS_fchmodat:
    case kSysFchmodat2:
      return NameOrObject(
          c, m.op, m.dirfd, m.path, m.flags & AT_SYMLINK_NOFOLLOW,
          m.flags & AT_EMPTY_PATH,
          [&](const Resolved& r2) {
            return syscall(kSysFchmodat2, r2.parent.get(), r2.last.c_str(),
                           m.mode, AT_SYMLINK_NOFOLLOW);
          },
          [&](const std::string& p) {
            return fchmodat(AT_FDCWD, p.c_str(), m.mode, 0);
          });
    case SYS_chown:
    case SYS_lchown:
    case SYS_fchownat:
      return NameOrObject(
          c, m.op, m.dirfd, m.path, m.flags & AT_SYMLINK_NOFOLLOW,
          m.flags & AT_EMPTY_PATH,
          [&](const Resolved& r2) {
            return fchownat(r2.parent.get(), r2.last.c_str(), m.uid, m.gid,
                            AT_SYMLINK_NOFOLLOW);
          },
          [&](const std::string& p) {
            return fchownat(AT_FDCWD, p.c_str(), m.uid, m.gid, 0);
          });
    case SYS_fchmod: {
      Fd fd;
      if (int e = JudgeFd(c, m.op, m.fd, &fd); e < 0) return Answer::Error(-e);
      return Answer::Result(Done(fchmod(fd.get(), m.mode)));
    }
    case SYS_fchown: {
      Fd fd;
      if (int e = JudgeFd(c, m.op, m.fd, &fd); e < 0) return Answer::Error(-e);
      return Answer::Result(Done(fchown(fd.get(), m.uid, m.gid)));
    }
    case SYS_utimensat:
      if (m.times.error < 0) return Answer::Error(-m.times.error);
      return Times(c, m.op, m.dirfd, m.path,
                   m.times.given ? m.times.times : nullptr, m.flags);
    case SYS_utime:
    case SYS_utimes:
    case SYS_futimesat:
      if (m.times.error < 0) return Answer::Error(-m.times.error);
      if (m.path.addr == 0) return Answer::Error(EFAULT);
      return Times(c, m.op, m.dirfd, m.path,
                   m.times.given ? m.times.times : nullptr, 0);
    case SYS_setxattr:
    case SYS_lsetxattr:
    case SYS_fsetxattr:
    case SYS_removexattr:
    case SYS_lremovexattr:
    case SYS_fremovexattr:
      return Xattr(c, m);
    default:
      return Answer::Error(ENOSYS);
  }
}

Answer SuperviseIoctl(Call& c) {
  // The kernel reads the request as 32 bits.
  const uint32_t request = static_cast<uint32_t>(c.arg(1));
  const IoctlEntry* e = FindIoctl(request);
  if (e != nullptr && e->family == SyscallFamily::kProcess) {
    return SuperviseOwnerIoctl(c);
  }
  if (e != nullptr && e->handling == SyscallHandling::kAllow) {
    return Answer::Continue();
  }
  if (e == nullptr || e->handling != SyscallHandling::kJudged) {
    // A filesystem's request klaunch does not know, or one it refuses.
    char what[64];
    std::snprintf(what, sizeof(what), "ioctl %s (0x%08x)",
                  e != nullptr ? e->name : "request", request);
    return c.Refuse("ioctl", what,
                    e != nullptr ? e->why
                                 : "a filesystem request klaunch does not "
                                   "know, which may change a file")
               ? Answer::Continue()
               : Answer::Error(e != nullptr ? e->error : EPERM);
  }
  // A change to the file the descriptor names: judged as a write of it,
  // then made on klaunch's copy with the argument copied.
  Fd fd;
  if (int err = JudgeFd(c, "ioctl", c.iarg(0), &fd); err < 0) {
    return Answer::Error(-err);
  }
  const size_t size = (request >> 16) & 0x3fff;
  std::vector<char> arg(std::max<size_t>(size, 8));
  if (size > 0 && !c.target().Read(c.arg(2), arg.data(), size) &&
      !(size > 4 && c.target().Read(c.arg(2), arg.data(), 4))) {
    return Answer::Error(EFAULT);  // (FS_IOC_SETFLAGS says long, reads int)
  }
  if (!c.Live()) return Answer::Error(ENOENT);
  const int r = ioctl(fd.get(), request, arg.data());
  return r < 0 ? Answer::Error(errno) : Answer::Value(r);
}

}  // namespace klaunch::supervise
