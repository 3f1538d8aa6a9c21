// execve and execveat, whether the shim made them or not. The executable is
// named and judged as the shim names it (directories resolved, the final
// symlink chain kept), each interpreter line of a script passes the deny
// rules, and the kernel is then let go on.
//
// The kernel reads the path and the argument strings again after the
// answer, and opens the file (and each interpreter) again by name: another
// thread may rewrite what was judged, or swap the file. So the exec is
// checked after the fact, before the new program runs a single instruction
// of its own: the supervisor's thread traces the calling thread for the
// length of the call (PTRACE_SEIZE, PTRACE_O_TRACEEXEC), and at the exec
// stop compares the executable the kernel loaded (/proc/PID/exe) and the
// argument strings it copied (/proc/PID/cmdline) with what was judged: the
// final file of the #! chain, and the command line the kernel builds for a
// script. On a difference the process is killed there, and that is
// recorded. The filter is loaded with SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
// so that PTRACE_INTERRUPT, which marks the end of the call, does not
// interrupt the target's wait for the answer. klaunch is the parent of no
// process of the run (reaper.h), so none of its own waits takes a stop.

#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/command.h"
#include "core/exec_judge.h"
#include "core/programs.h"
#include "supervisor/chain_cgroups.h"
#include "supervisor/supervise.h"

namespace klaunch::supervise {
namespace {

// The kernel follows at most this many #! interpreters (BINPRM_MAX_RECURSION
// is 4, the first file included).
constexpr int kMaxInterpreters = 4;

// What the kernel will have loaded once the exec succeeds: the file (the
// last interpreter of a script), and the argument strings it copied.
struct Image {
  dev_t dev = 0;
  ino_t ino = 0;
  std::vector<std::string> argv;
};

// The name the kernel gives the file an exec names, as a script's
// interpreter receives it (bprm->filename).
std::string KernelFilename(const ExecCall& x) {
  if (!x.path.empty() && x.path[0] == '/') return x.path;
  if (x.dirfd == AT_FDCWD) return x.path;
  if (x.path.empty()) return absl::StrCat("/dev/fd/", x.dirfd);
  return absl::StrCat("/dev/fd/", x.dirfd, "/", x.path);
}

// The #! line of `object`, if it is a script. `readable` false: it could
// not be read without waiting (a lease), which refuses the exec.
std::optional<InterpreterLine> ReadInterpreterLine(int object, bool* readable) {
  *readable = true;
  struct stat st;
  if (fstat(object, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  // Without waiting: a write lease another process of the program holds
  // would keep this open (and the supervisor) waiting for it.
  Fd fd(open(ProcFd(object).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd.valid()) {
    *readable = errno != EWOULDBLOCK;
    return std::nullopt;  // else unreadable: the kernel cannot run it
  }
  char head[256];
  const ssize_t n = read(fd.get(), head, sizeof(head));
  if (n < 2) return std::nullopt;
  return ParseInterpreterLine(absl::string_view(head, n));
}

// Each "#!" line's interpreter must admit exec and the line the kernel will
// run must pass the deny rules: a "#!/bin/rm" script is rm. Follows the
// chain as the kernel does, filling `image` with its last file and the
// kernel's argument strings. False when refused (recorded).
bool JudgeInterpreters(Call& c, const char* op, Fd object,
                       const std::string& filename, Image* image) {
  std::string name = filename;  // what the next interpreter is passed
  for (int depth = 0;; ++depth) {
    bool readable;
    const std::optional<InterpreterLine> shebang =
        ReadInterpreterLine(object.get(), &readable);
    if (!readable) {
      return c.Refuse(op, name,
                      "its interpreter line cannot be read without waiting "
                      "for a lease another process holds on it");
    }
    if (!shebang) break;
    if (depth + 1 >= kMaxInterpreters) return true;  // the kernel: ELOOP
    Resolved interp;
    if (Resolve(c.target(), AT_FDCWD, shebang->interpreter, true, &interp) <
        0) {
      return true;  // the kernel fails with ENOENT
    }
    const std::string real = KernelPath(interp.object.get());
    if (!c.JudgePath(op, Access::kExec, real)) return false;
    const std::vector<absl::string_view> args(image->argv.begin(),
                                              image->argv.end());
    std::vector<std::string> line =
        InterpreterCommandLine(*shebang, name, args);
    std::vector<absl::string_view> view(line.begin(), line.end());
    const std::string named =
        interp.links.empty() ? real : interp.links.front();
    if (!c.Judge(op, named, "exec",
                 c.engine().CheckDeniedCommand(named, view, real),
                 CommandLineText(named, view))) {
      return false;
    }
    image->argv = std::move(line);
    name = shebang->interpreter;
    object = std::move(interp.object);
  }
  struct stat st;
  if (fstat(object.get(), &st) == 0) {
    image->dev = st.st_dev;
    image->ino = st.st_ino;
  }
  return true;
}

// How the supervisor finds and judges an exec (core/exec_judge.h): the
// program resolved in the target's view, every #! interpreter followed as
// the kernel follows them, and `image` filled with what the kernel will
// load.
class SupervisorExec final : public ExecLayer {
 public:
  // `filename`: the name the kernel passes a script's interpreter.
  SupervisorExec(Call& c, const char* op, std::string filename, Image* image)
      : c_(c), op_(op), filename_(std::move(filename)), image_(image) {}

  int Find(int dirfd, const char* path, int flags,
           FoundProgram* found) override {
    Resolved r;
    int rc;
    if (*path == '\0' && (flags & AT_EMPTY_PATH)) {
      // fexecve: the descriptor itself.
      rc = OpenStart(c_.target(), dirfd, path, &r.object);
    } else {
      rc =
          Resolve(c_.target(), dirfd, path, !(flags & AT_SYMLINK_NOFOLLOW), &r);
    }
    if (!c_.Live()) return ENOENT;
    if (rc < 0) {
      return c_.JudgeMissing(op_, Access::kExec, dirfd, path) ? -rc : EACCES;
    }
    found->real = c_.target().SelfView(KernelPath(r.object.get()));
    // As named: the first link of the final chain, else the object itself;
    // the links between are matched by deny rules too.
    found->named = r.links.empty() ? found->real : r.links.front();
    found->links.assign(r.links.begin() + (r.links.empty() ? 0 : 1),
                        r.links.end());
    object_ = std::move(r.object);
    return 0;
  }

  bool Command(const FoundProgram& program,
               absl::Span<const absl::string_view> argv) override {
    const std::vector<absl::string_view> links(program.links.begin(),
                                               program.links.end());
    return c_.Judge(
        op_, program.named, "exec",
        c_.engine().CheckCommand(program.named, argv, program.real, links),
        CommandLineText(program.named, argv));
  }

  bool Interpreters(const FoundProgram& /*program*/,
                    absl::Span<const absl::string_view> argv) override {
    image_->argv.clear();
    for (absl::string_view a : argv) image_->argv.emplace_back(a);
    // Interpreters is asked once, before any Find for a loader's program:
    // the object is not needed after.
    return JudgeInterpreters(c_, op_, std::move(object_), filename_, image_);
  }

  bool Refuse(const std::string& name, const char* why) override {
    return c_.Refuse(op_, name, why);
  }

 private:
  Call& c_;
  const char* op_;
  const std::string filename_;
  Image* image_;
  Fd object_;  // what the last Find resolved
};

// True when the process stopped at its exec loaded what was judged.
bool LoadedAsJudged(pid_t pid, const Image& image, std::string* why) {
  struct stat st;
  const std::string proc = absl::StrCat("/proc/", pid);
  if (stat((proc + "/exe").c_str(), &st) != 0) {
    *why = "its executable cannot be read";
    return false;
  }
  if (st.st_dev != image.dev || st.st_ino != image.ino) {
    *why = "the file the kernel loaded is not the one judged";
    return false;
  }
  std::string expected;
  // With no arguments at all, Linux gives the program one empty string.
  if (image.argv.empty()) expected.push_back('\0');
  for (const std::string& a : image.argv) {
    expected += a;
    expected.push_back('\0');
  }
  std::string got;
  Fd fd(open((proc + "/cmdline").c_str(), O_RDONLY | O_CLOEXEC));
  char buf[65536];
  ssize_t n;
  while (fd.valid() && (n = read(fd.get(), buf, sizeof(buf))) > 0) {
    got.append(buf, n);
    if (got.size() > expected.size()) break;
  }
  if (got != expected) {
    *why = "its arguments are not the ones judged";
    return false;
  }
  return true;
}

// Lets the exec go on with the calling thread traced until the call ends,
// and kills the process at its exec stop when it did not load what was
// judged. Answers the notification itself.
Answer GoOnChecked(Call& c, const char* op, const std::string& what,
                   const Image& image) {
  const pid_t tid = c.target().tid();
  if (ptrace(PTRACE_SEIZE, tid, 0, PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL) !=
      0) {
    const int err = errno;
    // A tracer of the program's own already traces it (system.allow has
    // "ptrace", which lets a tracer rewrite anything anyway).
    if (err == EPERM && SystemAllows(c.engine().policy(), "ptrace")) {
      return Answer::Continue();
    }
    return c.Refuse(op, what,
                    absl::StrCat("klaunch cannot check the exec after the "
                                 "fact (ptrace: ",
                                 strerror(err), ")"))
               ? Answer::Continue()
               : Answer::Error(EACCES);
  }
  // Stops the thread where the call returns to the program, which ends the
  // watch whether the exec succeeded or failed.
  ptrace(PTRACE_INTERRUPT, tid, 0, 0);
  c.Send(c.Live() ? Answer::Continue() : Answer::Error(ENOENT));
  while (true) {
    int status;
    const pid_t pid = waitpid(-1, &status, __WALL | __WNOTHREAD);
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;  // nothing traced by this thread any more
    }
    if (!WIFSTOPPED(status)) break;  // it exited, or was killed
    const int event = status >> 16;
    if (event == PTRACE_EVENT_EXEC) {
      // The new program is loaded and has run nothing: checked, then let
      // go (detaching also drops the interrupt still pending).
      std::string why;
      if (LoadedAsJudged(pid, image, &why)) {
        ptrace(PTRACE_DETACH, pid, 0, 0);
        break;
      }
      // Killed where it stands; its death is waited for here, since a
      // tracee's exit is its tracer's to collect before its parent's.
      kill(pid, SIGKILL);
      c.Refuse(op, what,
               absl::StrCat("the exec changed after it was judged (", why,
                            "): the process was killed before it ran"));
      continue;
    }
    if (event == PTRACE_EVENT_STOP) {
      // The interrupt (or a group stop): the call is over. Detached, a
      // group stop stays a stop.
      ptrace(PTRACE_DETACH, pid, 0, 0);
      break;
    }
    // A signal that arrived meanwhile: handed on.
    ptrace(PTRACE_CONT, pid, 0, WSTOPSIG(status));
  }
  return Answer::Sent();
}

}  // namespace

Answer SuperviseExec(Call& c) {
  ExecCall x;
  if (int e = DecodeExec(c.args(), c.target(), &x); e < 0) {
    return Answer::Error(-e);
  }
  std::vector<int> chain = c.engine().chain();
  Image image;
  SupervisorExec layer(c, x.op, KernelFilename(x), &image);
  const std::vector<absl::string_view> argv(x.argv.begin(), x.argv.end());
  if (int e = JudgeExecOf(layer, c.engine().policy(), x.dirfd, x.path.c_str(),
                          x.flags, argv, &chain);
      e != 0) {
    return Answer::Error(e);
  }
  if (!c.Live()) return Answer::Error(ENOENT);
  // The program sections the new program enters hold from its first
  // instruction (a failed exec leaves the process narrowed, never wider).
  if (ChainCgroups* chains = c.settings().chains;
      chains != nullptr && chain.size() > c.engine().chain().size()) {
    if (int rc = chains->Enter(c.target().tgid(), chain); rc < 0) {
      if (!c.Refuse(x.op, x.path,
                    "its program section could not be entered for the "
                    "supervisor: " +
                        std::string(strerror(-rc)))) {
        return Answer::Error(EACCES);
      }
    }
  }
  return GoOnChecked(c, x.op, x.path, image);
}

}  // namespace klaunch::supervise
