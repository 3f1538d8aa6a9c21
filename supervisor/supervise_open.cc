// open, openat, openat2 and creat made without the shim (or with it, where
// the tag buys no skip): the supervisor resolves the path as the target
// would and judges the object it found.
//
// An open that may write it then opens itself, that very object (through
// /proc/self/fd/N of its O_PATH pin), and injects the descriptor, so there
// is no window between the check and the use. It never waits on the
// object: every open is non-blocking (a FIFO's other end, a lease's
// holder), and an open that would wait natively goes to the waiter.
//
// An open that only reads (or is O_PATH), where the filter would let a
// tagged one skip the supervisor, by a process judged under CMD's chain of
// sections, goes on to the kernel once judged (CONTINUE): the kernel reads
// the name again, so a name rewritten or a link swapped after the verdict
// reaches what a forged tag reaches anyway, Landlock's floor (SECURITY.md),
// and nothing more. For every program that does not race itself the
// verdict holds, and the target waits for fewer calls and one wake-up less
// (the loader's opens, a locale's files, a static program's reads;
// docs/performance.md).

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <functional>
#include <memory>

#include "core/path.h"
#include "supervisor/seccomp_filter.h"
#include "supervisor/supervise.h"

namespace klaunch::supervise {
namespace {

// An object with no filesystem path (a pipe or socket reached through
// /proc/PID/fd/N): the target's own descriptor is its own business, another
// process's is judged by the path written.
bool JudgeObject(Call& c, const OpenCall& o, Access access, const Resolved& r) {
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

// Opens with `open` (flags given) without ever waiting on the object: with
// O_NONBLOCK, so a FIFO does not wait for its other end nor a file for the
// lease its holder keeps (what the program controls), and then gives the
// descriptor the blocking mode the target asked for. A lease holder keeps
// a blocking open waiting natively: the waiter retries it (waiter.h).
// A FIFO opened for writing waits natively for a reader: so does this,
// on the waiter (a FIFO opened for reading does not wait for a writer: it
// reads end of file until one comes, a known difference).
Answer OpenWithoutWaiting(const OpenCall& o, bool fifo,
                          std::function<int(int flags)> open_with) {
  const bool wanted_nonblock = o.flags & O_NONBLOCK;
  auto attempt = [o, fifo, open_with,
                  wanted_nonblock]() -> std::optional<Answer> {
    const int fd = open_with(O_NONBLOCK);
    if (fd < 0) {
      // A lease being broken: natively the open waits for its holder.
      if (errno == EWOULDBLOCK && !wanted_nonblock) return std::nullopt;
      if (errno == ENXIO && fifo && !wanted_nonblock) return std::nullopt;
      return Answer::Error(errno);
    }
    if (!wanted_nonblock) fcntl(fd, F_SETFL, o.flags & ~O_NONBLOCK & 07777777);
    return Answer::Inject(Fd(fd), o.flags & O_CLOEXEC);
  };
  return Answer::Wait(Fd(), 0, std::move(attempt));
}

Answer Create(Call& c, const OpenCall& o, Access access, Resolved& r) {
  if (r.trailing_slash) return Answer::Error(EISDIR);
  if (!c.JudgePath(o.op, access, r.NamePath())) {
    return Answer::Error(EACCES);
  }
  // O_NOFOLLOW: a symlink put there since the check is not followed; a
  // FIFO put there is opened without waiting for its other end.
  auto parent = std::make_shared<Fd>(std::move(r.parent));
  const std::string last = r.last;
  const int flags = o.flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY;
  const mode_t mode = o.mode & ~c.target().umask();
  return OpenWithoutWaiting(o, false, [parent, last, flags, mode](int extra) {
    return openat(parent->get(), last.c_str(), flags | extra, mode);
  });
}

// Whether the kernel may make this open once it is judged (CONTINUE): a
// read the filter would let a tagged call make unasked, by a process judged
// under CMD's chain. A process judged under a section below CMD may hold
// only CMD's Landlock rulesets (a static program a static parent started
// there, a thread older than its shim's rulesets): the kernel's second
// reading of the name would reach what CMD's floor grants and the section
// refuses, so its opens are made here.
bool TheKernelMayOpen(Call& c, const OpenCall& o) {
  const Engine* cmd = c.settings().engine;
  return cmd != nullptr && c.engine().chain() == cmd->chain() &&
         ATaggedOpenSkipsAsAReader(c.settings().reads_floor, c.nr(),
                                   static_cast<uint32_t>(o.flags));
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
  int rc = o.resolve != 0 && !create
               ? ResolveRestricted(c, o, &r)
               : Resolve(c.target(), o.dirfd, o.path, follow, &r);
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
  if (TheKernelMayOpen(c, o)) {
    if (!JudgeObject(c, o, access, r)) return Answer::Error(EACCES);
    return Answer::Continue();
  }
  struct stat st = r.st;
  if (!r.stat_known && fstat(r.object.get(), &st) != 0) {
    return Answer::Error(errno);
  }
  // A directory is never opened for writing: the kernel says so before
  // any permission, where the program may see it (core/name_need.h).
  if (access != Access::kRead && S_ISDIR(st.st_mode) &&
      (o.flags & O_TMPFILE) != O_TMPFILE && !(o.flags & O_PATH) &&
      c.MaySee(KernelPath(r.object.get()))) {
    return Answer::Error(EISDIR);
  }
  if (!JudgeObject(c, o, access, r)) return Answer::Error(EACCES);

  if (o.flags & O_PATH) {
    if ((o.flags & O_DIRECTORY) && !S_ISDIR(st.st_mode)) {
      return Answer::Error(ENOTDIR);
    }
    return Answer::Inject(std::move(r.object), o.flags & O_CLOEXEC);
  }
  if (S_ISLNK(st.st_mode)) return Answer::Error(ELOOP);  // O_NOFOLLOW
  if ((o.flags & O_TMPFILE) == O_TMPFILE) {
    const int fd = openat(r.object.get(), ".", o.flags | O_CLOEXEC,
                          o.mode & ~c.target().umask());
    if (fd < 0) return Answer::Error(errno);
    return Answer::Inject(Fd(fd), o.flags & O_CLOEXEC);
  }
  // Through the pin, so nothing swapped in since the judgement is opened.
  const int flags =
      (o.flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW)) | O_CLOEXEC | O_NOCTTY;
  auto pin = std::make_shared<Fd>(std::move(r.object));
  return OpenWithoutWaiting(o, S_ISFIFO(st.st_mode), [pin, flags](int extra) {
    return open(ProcFd(pin->get()).c_str(), flags | extra);
  });
}

}  // namespace klaunch::supervise
