// execve and execveat made without the shim. The executable is named and
// judged as the shim names it (directories resolved, the final symlink
// chain kept), the interpreter line of a script passes the deny rules, and
// the kernel is then let go on. This is the one window the supervisor
// cannot close: the kernel resolves the path again after the answer, so a
// second thread can swap what it names (docs/design.md, "The seccomp layer").

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "core/command.h"
#include "core/programs.h"
#include "launcher/chain_cgroups.h"
#include "launcher/supervise.h"

namespace klaunch::supervise {
namespace {

// The "#!" line's interpreter must admit exec and the line the kernel will
// run must pass the deny rules: a "#!/bin/rm" script is rm.
bool JudgeInterpreter(Call& c, const char* op, int object,
                      const std::string& script,
                      const std::vector<std::string>& argv) {
  struct stat st;
  if (fstat(object, &st) != 0 || !S_ISREG(st.st_mode)) return true;
  // Without waiting: a write lease another process of the program holds
  // would keep this open (and the supervisor) waiting for it.
  Fd fd(open(ProcFd(object).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd.valid() && errno == EWOULDBLOCK) {
    return c.Refuse(op, script,
                    "its interpreter line cannot be read without waiting for "
                    "a lease another process holds on it");
  }
  if (!fd.valid()) return true;  // unreadable: the kernel cannot run it
  char head[256];
  const ssize_t n = read(fd.get(), head, sizeof(head));
  if (n < 2) return true;
  const std::optional<InterpreterLine> shebang =
      ParseInterpreterLine(absl::string_view(head, n));
  if (!shebang) return true;
  Resolved interp;
  if (Resolve(c.target(), AT_FDCWD, shebang->interpreter, true, &interp) < 0) {
    return true;  // the kernel fails with ENOENT
  }
  const std::string real = KernelPath(interp.object.get());
  if (!c.JudgePath(op, Access::kExec, real)) return false;
  std::vector<std::string> line = {shebang->interpreter};
  if (!shebang->argument.empty()) line.push_back(shebang->argument);
  line.push_back(script);
  for (size_t i = 1; i < argv.size(); ++i) line.push_back(argv[i]);
  std::vector<absl::string_view> view(line.begin(), line.end());
  const std::string named =
      interp.links.empty() ? real : interp.links.front();
  return c.Judge(op, named, "exec",
                 c.engine().CheckDeniedCommand(named, view, real),
                 CommandLineText(named, view));
}

// Judges an exec of `path` (from `dirfd`, with execveat's `flags`) with
// `argv`, and the program the dynamic loader runs when it is the loader:
// nothing when it may go on, else the answer refusing it. `chain` gets the
// program sections the programs enter.
std::optional<Answer> JudgeProgram(Call& c, const char* op, int dirfd,
                                   const std::string& path, int flags,
                                   const std::vector<std::string>& argv,
                                   std::vector<int>* chain, int depth) {
  if (depth > 2) return Answer::Error(ELOOP);
  Resolved r;
  int rc;
  if (path.empty() && (flags & AT_EMPTY_PATH)) {
    // fexecve: the descriptor itself.
    rc = OpenStart(c.target(), dirfd, path, &r.object);
  } else {
    rc = Resolve(c.target(), dirfd, path, !(flags & AT_SYMLINK_NOFOLLOW), &r);
  }
  if (!c.Live()) return Answer::Error(ENOENT);
  if (rc < 0) {
    if (!c.JudgeMissing(op, Access::kExec, dirfd, path)) {
      return Answer::Error(EACCES);
    }
    return Answer::Error(-rc);
  }
  const std::string real = c.target().SelfView(KernelPath(r.object.get()));
  // As named: the first link of the final chain, else the object itself;
  // the links between are matched by deny rules too.
  const std::string named = r.links.empty() ? real : r.links.front();
  std::vector<absl::string_view> links;
  for (size_t i = 1; i < r.links.size(); ++i) links.push_back(r.links[i]);
  std::vector<absl::string_view> args(argv.begin(), argv.end());
  const std::string command = CommandLineText(named, args);
  if (real.empty()) {
    if (!c.Refuse(op, named.empty() ? path : named,
                  "the program has no path the policy can name")) {
      return Answer::Error(EACCES);
    }
  } else if (!c.Judge(op, named, "exec",
                      c.engine().CheckCommand(named, args,
                                              r.links.empty() ? "" : real,
                                              links),
                      command)) {
    return Answer::Error(EACCES);
  }
  if (!JudgeInterpreter(c, op, r.object.get(), named, argv)) {
    return Answer::Error(EACCES);
  }
  *chain = EnterSections(c.engine().policy(), *chain, named,
                         r.links.empty() ? "" : real, links);
  if (const std::optional<size_t> i = LoaderProgramIndex(real, args)) {
    const std::vector<std::string> rest(argv.begin() + *i, argv.end());
    return JudgeProgram(c, op, AT_FDCWD, argv[*i], 0, rest, chain, depth + 1);
  }
  return std::nullopt;
}

}  // namespace

Answer SuperviseExec(Call& c) {
  ExecCall x;
  if (int e = DecodeExec(c.args(), c.target(), &x); e < 0) {
    return Answer::Error(-e);
  }
  std::vector<int> chain = c.engine().chain();
  if (std::optional<Answer> refused = JudgeProgram(
          c, x.op, x.dirfd, x.path, x.flags, x.argv, &chain, 0)) {
    return *std::move(refused);
  }
  if (!c.Live()) return Answer::Error(ENOENT);
  // The program sections the new program enters hold from its first
  // instruction (a failed exec leaves the process narrowed, never wider).
  if (ChainCgroups* chains = c.settings().chains;
      chains != nullptr && chain.size() > c.engine().chain().size()) {
    if (int rc = chains->Enter(c.target().tgid(), chain); rc < 0) {
      if (!c.Refuse(x.op, x.path,
                    "its program section could not be entered for the "
                    "supervisor: " + std::string(strerror(-rc)))) {
        return Answer::Error(EACCES);
      }
    }
  }
  return Answer::Continue();
}

}  // namespace klaunch::supervise
