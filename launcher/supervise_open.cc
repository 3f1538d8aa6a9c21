// open, openat, openat2 and creat made without the shim: the supervisor
// resolves the path as the target would, judges the object it found, opens
// that very object (through /proc/self/fd/N of its O_PATH pin) and injects
// the descriptor, so there is no window between the check and the use.

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "core/path.h"
#include "launcher/supervise.h"

namespace klaunch::supervise {
namespace {

// An object with no filesystem path (a pipe or socket reached through
// /proc/PID/fd/N): the target's own descriptor is its own business, another
// process's is judged by the path written.
bool JudgeObject(Call& c, const OpenCall& o, Access access,
                 const Resolved& r) {
  const std::string real = KernelPath(r.object.get());
  if (!real.empty()) return c.JudgePath(o.op, access, real);
  const std::string dir = c.target().SelfView(KernelPath(r.parent.get()));
  if (dir == "/proc/self/fd" || dir == "/proc/thread-self/fd") return true;
  const std::string where = ApproximatePath(c.target(), o.dirfd, o.path);
  return c.JudgePath(o.op, access, where.empty() ? "/proc" : where);
}

// openat2's RESOLVE_* restrictions are the kernel's to apply: pin with them.
int ResolveRestricted(Call& c, const OpenCall& o, Resolved* r) {
  Fd start;
  if (int e = OpenStart(c.target(), o.dirfd, o.path, &start); e < 0) return e;
  open_how how{};
  how.flags = O_PATH | O_CLOEXEC | (o.flags & (O_NOFOLLOW | O_DIRECTORY));
  how.resolve = o.resolve;
  const long fd =
      syscall(SYS_openat2, start.get(), o.path.c_str(), &how, sizeof(how));
  if (fd < 0) return -errno;
  r->object = Fd(static_cast<int>(fd));
  r->parent = std::move(start);
  return 0;
}

Answer Create(Call& c, const OpenCall& o, Access access, Resolved& r) {
  if (r.trailing_slash) return Answer::Error(EISDIR);
  if (!c.JudgePath(o.op, access, r.NamePath())) {
    return Answer::Error(EACCES);
  }
  // O_NOFOLLOW: a symlink put there since the check is not followed.
  const int flags = (o.flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
  const int fd = openat(r.parent.get(), r.last.c_str(), flags,
                        o.mode & ~c.target().umask());
  if (fd < 0) return Answer::Error(errno);
  return Answer::Inject(Fd(fd), o.flags & O_CLOEXEC);
}

}  // namespace

Answer SuperviseOpen(Call& c) {
  OpenCall o;
  if (int e = DecodeOpen(c.args(), c.target(), &o); e < 0) {
    return Answer::Error(-e);
  }
  const Access access = OpenAccess(o.flags);
  const bool create = (o.flags & O_CREAT) && (o.flags & O_TMPFILE) != O_TMPFILE;
  const bool excl = create && (o.flags & O_EXCL);
  const bool follow = !(o.flags & O_NOFOLLOW) && !excl;

  Resolved r;
  int rc = o.resolve != 0 && !create ? ResolveRestricted(c, o, &r)
                                     : Resolve(c.target(), o.dirfd, o.path,
                                               follow, &r);
  if (!c.Live()) return Answer::Error(ENOENT);
  if (rc == -ENOENT && create && r.parent.valid())
    return Create(c, o, access, r);
  if (rc < 0) {
    if (!c.JudgeMissing(o.op, access, o.dirfd, o.path)) {
      return Answer::Error(EACCES);
    }
    return Answer::Error(-rc);
  }
  if (excl) {
    // It exists: EEXIST, unless a deny rule hides that it does.
    const std::string real = c.target().SelfView(KernelPath(r.object.get()));
    Decision d = c.engine().CheckPath(Access::kStat, real);
    if (!d.allowed() && !c.Judge(o.op, real, "write", std::move(d))) {
      return Answer::Error(EACCES);
    }
    return Answer::Error(EEXIST);
  }
  if (!JudgeObject(c, o, access, r)) return Answer::Error(EACCES);

  struct stat st;
  if (fstat(r.object.get(), &st) != 0) return Answer::Error(errno);
  if (o.flags & O_PATH) {
    if ((o.flags & O_DIRECTORY) && !S_ISDIR(st.st_mode)) {
      return Answer::Error(ENOTDIR);
    }
    return Answer::Inject(std::move(r.object), o.flags & O_CLOEXEC);
  }
  if (S_ISLNK(st.st_mode)) return Answer::Error(ELOOP);  // O_NOFOLLOW
  int flags = (o.flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW)) | O_CLOEXEC |
              O_NOCTTY;
  // A FIFO would block the supervisor until a peer came: open it without
  // waiting, then give the target the blocking mode it asked for.
  const bool fifo_wait = S_ISFIFO(st.st_mode) && !(o.flags & O_NONBLOCK);
  if (fifo_wait) flags |= O_NONBLOCK;
  if ((o.flags & O_TMPFILE) == O_TMPFILE) {
    flags = o.flags | O_CLOEXEC;
    const int fd = openat(r.object.get(), ".", flags,
                          o.mode & ~c.target().umask());
    if (fd < 0) return Answer::Error(errno);
    return Answer::Inject(Fd(fd), o.flags & O_CLOEXEC);
  }
  Fd fd(open(ProcFd(r.object.get()).c_str(), flags));
  if (!fd.valid()) return Answer::Error(errno);
  if (fifo_wait) fcntl(fd.get(), F_SETFL, o.flags & ~O_NONBLOCK & 07777777);
  return Answer::Inject(std::move(fd), o.flags & O_CLOEXEC);
}

}  // namespace klaunch::supervise
