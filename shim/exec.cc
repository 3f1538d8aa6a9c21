// Wrappers of the exec family (execve, execv, execvp, execvpe, execl,
// execlp, execle, execveat, fexecve), posix_spawn, posix_spawnp, system,
// popen, and fork/vfork.
//
// An exec is judged by the command line of the file the kernel will run
// (PATH searched first, as libc would), named by its resolved directory and
// its own name, with its final symlink's target checked too; a script's
// interpreter must be executable by the path rules. Every child gets the
// shim's configuration and LD_PRELOAD back, whatever environment the program
// passed, and nothing else the program removed.
//
// The window between judging an exec and the kernel reading the file cannot
// be closed from user space without breaking scripts and /proc/PID/comm; it
// is documented, and the seccomp layer narrows it.

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "core/exec_judge.h"
#include "core/programs.h"
#include "core/seccomp_tag.h"
#include "core/shim_env.h"
#include "shim/layers.h"
#include "shim/open.h"
#include "shim/pin.h"

extern char** environ;

namespace klaunch::shim {
namespace {

// The most arguments execl and the like, or a script run by the shell, may
// pass: they are collected on the stack (this may be the child of a vfork).
constexpr size_t kMaxListedArgs = 2048;

bool StartsWith(const char* s, std::string_view prefix) {
  return std::strncmp(s, prefix.data(), prefix.size()) == 0;
}

// The shim's own path, for LD_PRELOAD: from the configuration, else from
// where this code was loaded.
std::string ShimPath() {
  const Config& c = GetConfig();
  if (!c.shim_path.empty()) return c.shim_path;
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&ShimPath), &info) && info.dli_fname) {
    return info.dli_fname;
  }
  return "";
}

// "LD_PRELOAD=" with the shim first, then what else the program preloads.
std::string MergedPreload(const std::string& shim, const std::string& theirs) {
  std::string out = "LD_PRELOAD=" + shim;
  size_t start = 0;
  while (start <= theirs.size()) {
    size_t end = theirs.find_first_of(": ", start);
    if (end == std::string::npos) end = theirs.size();
    std::string item = theirs.substr(start, end - start);
    if (!item.empty() && item != shim) out += ":" + item;
    start = end + 1;
  }
  return out;
}

// "KLAUNCH_PROGRAMS=..." and "KLAUNCH_LANDLOCKED=..." for a child, each
// empty when it has nothing to say.
void ChainVariables(const std::vector<int>& chain,
                    const std::vector<int>& landlocked, std::string* programs,
                    std::string* held) {
  programs->clear();
  held->clear();
  if (!chain.empty()) {
    *programs = ShimVarEntry(ShimVar::kPrograms, ChainText(chain));
  }
  if (GetConfig().landlock_abi > 0 && !landlocked.empty()) {
    *held = ShimVarEntry(ShimVar::kLandlocked, ChainText(landlocked));
  }
}

// The environment a child runs with: the program's, less every LD_PRELOAD or
// KLAUNCH_* entry it holds, plus the shim's own configuration and an
// LD_PRELOAD that loads the shim first.
//
// `chain` is the program sections the child runs under (core/programs.h):
// KLAUNCH_PROGRAMS says so, and every section's `env.keep` narrows what the
// program passes. `landlocked` is those whose Landlock rulesets the child
// will hold (KLAUNCH_LANDLOCKED, shim/layers.h).
class ChildEnv {
 public:
  ChildEnv(char* const* envp, const std::vector<int>& chain,
           const std::vector<int>& landlocked) {
    const Config& c = GetConfig();
    const Policy* policy = c.engine ? &c.engine->policy() : nullptr;
    const std::string shim = ShimPath();
    std::string theirs;
    if (envp != nullptr) {
      for (char* const* e = envp; *e != nullptr; ++e) {
        if (StartsWith(*e, "LD_PRELOAD=")) {
          if (theirs.empty()) theirs = *e + std::strlen("LD_PRELOAD=");
          continue;
        }
        if (StartsWith(*e, kShimVarPrefix)) continue;
        if (policy != nullptr && !chain.empty()) {
          const char* eq = std::strchr(*e, '=');
          const absl::string_view name(
              *e, eq ? static_cast<size_t>(eq - *e) : std::strlen(*e));
          if (!ChainKeepsVariable(*policy, chain, name)) continue;
        }
        ptrs_.push_back(*e);
      }
    }
    for (const std::string& var : c.inject) {
      ptrs_.push_back(const_cast<char*>(var.c_str()));
    }
    ChainVariables(chain, landlocked, &programs_, &landlocked_);
    if (!programs_.empty()) ptrs_.push_back(programs_.data());
    if (!landlocked_.empty()) ptrs_.push_back(landlocked_.data());
    preload_ = MergedPreload(shim, theirs);
    if (!shim.empty()) ptrs_.push_back(preload_.data());
    ptrs_.push_back(nullptr);
  }
  char** get() { return ptrs_.data(); }

 private:
  std::string preload_;
  std::string programs_;
  std::string landlocked_;
  std::vector<char*> ptrs_;
};

// Sets KLAUNCH_PROGRAMS and KLAUNCH_LANDLOCKED in `environ` as ChildEnv
// would hand them to a child, each unset when it has nothing to say.
void PutChainVariables(const std::vector<int>& chain,
                       const std::vector<int>& landlocked) {
  std::string programs, held;
  ChainVariables(chain, landlocked, &programs, &held);
  for (ShimVar v : {ShimVar::kPrograms, ShimVar::kLandlocked}) {
    unsetenv(ShimVarName(v));
  }
  for (const std::string* var : {&programs, &held}) {
    if (var->empty()) continue;
    const size_t eq = var->find('=');
    setenv(var->substr(0, eq).c_str(), var->c_str() + eq + 1, 1);
  }
}

// Makes this process's `environ` what ChildEnv would hand a child, before
// libc runs a shell with it (system, popen read `environ`). Every LD_PRELOAD
// and KLAUNCH_* entry goes, duplicates included, then the shim's come back.
// The sections' `env.keep` is not applied: that would take the variables
// from this process too.
void RestoreEnviron(const std::vector<int>& chain,
                    const std::vector<int>& landlocked) {
  const Config& c = GetConfig();
  const char* first = getenv("LD_PRELOAD");
  const std::string theirs = first != nullptr ? first : "";
  std::vector<std::string> names;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (StartsWith(*e, kShimVarPrefix) || StartsWith(*e, "LD_PRELOAD=")) {
      const char* eq = std::strchr(*e, '=');
      names.emplace_back(*e,
                         eq ? static_cast<size_t>(eq - *e) : std::strlen(*e));
    }
  }
  for (const std::string& name : names) unsetenv(name.c_str());
  PutChainVariables(chain, landlocked);
  for (const std::string& var : c.inject) {
    const size_t eq = var.find('=');
    setenv(var.substr(0, eq).c_str(), var.c_str() + eq + 1, 1);
  }
  const std::string shim = ShimPath();
  if (!shim.empty()) {
    setenv("LD_PRELOAD", MergedPreload(shim, theirs).c_str() + 11, 1);
  }
}

// The program sections this process runs under; empty without a policy
// (then every exec is refused anyway).
std::vector<int> ChainOfThisProcess() {
  const Config& c = GetConfig();
  return c.engine ? c.engine->chain() : std::vector<int>{};
}

// Last before an exec that enters program sections, once nothing else can
// refuse it: a Landlock ruleset per section entered, stacked on this
// process, so that the program and all it starts are held by the kernel to
// the section's files and ports whatever they do to the shim (a static
// helper, a direct system call). A failed exec after it leaves this process
// narrowed, never wider.
bool StackLandlock(const char* op, const char* path,
                   const std::vector<int>& before,
                   const std::vector<int>& chain) {
  const Config& c = GetConfig();
  if (chain.size() <= before.size()) return true;
  const std::string why = StackSectionLayers(
      c, c.engine->policy(), absl::MakeConstSpan(chain).subspan(before.size()));
  if (why.empty()) return true;
  return Refuse(op, path,
                ("its program section's Landlock ruleset could not be "
                 "stacked: " +
                 why)
                    .c_str());
}

// Also before such an exec: klaunch moves this process into the cgroup of
// its new chain, so that the supervisor judges the program under it too
// (core/seccomp_tag.h). ENOSYS: klaunch keeps no such cgroups.
bool EnterForSupervisor(const char* op, const char* path,
                        const std::vector<int>& before,
                        const std::vector<int>& chain) {
  if (chain.size() <= before.size()) return true;
  const std::string text = ChainText(chain);
  const long rc =
      sys(kCookieQuerySyscall, kSectionEnter, text.data(), text.size());
  if (rc >= 0 || rc == -ENOSYS) return true;
  return Refuse(op, path,
                (std::string("its program section could not be entered for "
                             "the supervisor: ") +
                 strerror(static_cast<int>(-rc)))
                    .c_str());
}

// The names an executable is reached by between the name it was run by and
// the file itself: each symlink of the chain, by its own resolved path.
std::vector<std::string> LinkChain(const char* named) {
  std::vector<std::string> links;
  std::string current = named;
  for (int depth = 0; depth < 8; ++depth) {
    char target[kPathMax];
    long n =
        sys_readlinkat(AT_FDCWD, current.c_str(), target, sizeof(target) - 1);
    if (n <= 0) break;
    target[n] = '\0';
    std::string next = target[0] == '/'
                           ? std::string(target)
                           : current.substr(0, current.rfind('/') + 1) + target;
    PinnedParent parent;
    if (PinParent(AT_FDCWD, next.c_str(), &parent) != 0) break;
    current = parent.path;
    links.push_back(current);
  }
  return links;
}

// How the shim finds and judges an exec (core/exec_judge.h): the program
// pinned in this process, its command line and interpreters judged here.
class ShimExec final : public ExecLayer {
 public:
  // `script`: the name the exec passes, which a script's interpreter gets.
  ShimExec(const char* op, const char* script) : op_(op), script_(script) {}

  int Find(int dirfd, const char* path, int flags,
           FoundProgram* found) override {
    const bool empty = (flags & AT_EMPTY_PATH) && path != nullptr && !*path;
    object_.emplace();  // closes what the previous Find pinned
    const int r = PinObject(dirfd, path, !(flags & AT_SYMLINK_NOFOLLOW),
                            &*object_, empty);
    if (r < 0) {
      return AllowMissing(op_, Access::kExec, dirfd, path) ? -r : EACCES;
    }
    found->real = object_->path;
    found->named = object_->path;
    PinnedParent parent;
    if (!empty && PinParent(dirfd, path, &parent) == 0 && !parent.dot_last) {
      found->named = parent.path;
    }
    found->links = LinkChain(found->named.c_str());
    return 0;
  }

  bool Command(const FoundProgram& program,
               absl::Span<const absl::string_view> argv) override {
    return AllowCommand(op_, program.named.c_str(), program.real.c_str(), argv,
                        program.links);
  }

  // The first #! line only: the seccomp layer, which judges every exec,
  // the shim's included, follows the whole chain as the kernel does
  // (supervisor/supervise_exec.cc).
  bool Interpreters(const FoundProgram& /*program*/,
                    absl::Span<const absl::string_view> argv) override {
    struct stat st;
    // Only a regular file can be a script (and opening a FIFO would block).
    if (sys(SYS_fstat, object_->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      return true;
    }
    long fd = sys_openat(AT_FDCWD, object_->proc, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) return true;  // unreadable: the kernel cannot run it either
    char head[256];
    long n = sys(SYS_read, fd, head, sizeof(head));
    sys_close(fd);
    if (n < 2) return true;
    const std::optional<InterpreterLine> shebang =
        ParseInterpreterLine(absl::string_view(head, n));
    if (!shebang) return true;
    const char* p = shebang->interpreter.c_str();
    PinnedObject interp;
    if (PinObject(AT_FDCWD, p, true, &interp) < 0) return true;  // ENOENT later
    if (!AllowPath(op_, Access::kExec, interp.path)) return false;
    const std::vector<std::string> line =
        InterpreterCommandLine(*shebang, script_, argv);
    PinnedParent parent;
    const char* named =
        PinParent(AT_FDCWD, p, &parent) == 0 ? parent.path : interp.path;
    return AllowInterpreterLine(op_, named, interp.path, line);
  }

  bool Refuse(const std::string& name, const char* why) override {
    return shim::Refuse(op_, name.c_str(), why);
  }

 private:
  const char* op_;
  const char* script_;
  std::optional<PinnedObject> object_;  // what the last Find pinned
};

// Judges an exec of (dirfd, path): false with errno set when it must not
// run. `enter` holds this process's chain of program sections and gets the
// sections the exec enters appended (core/programs.h).
bool JudgeExec(const char* op, int dirfd, const char* path, char* const argv[],
               int flags, std::vector<int>* enter) {
  const Config& c = GetConfig();
  // Without a policy every exec is refused, and AllowCommand says why.
  if (c.engine == nullptr) return AllowCommand(op, path, "", {});
  std::vector<absl::string_view> args;
  for (char* const* a = argv; a != nullptr && *a != nullptr; ++a) {
    args.push_back(*a);
  }
  ShimExec layer(op, path);
  if (int e = JudgeExecOf(layer, c.engine->policy(), dirfd, path, flags, args,
                          enter);
      e != 0) {
    errno = e;
    return false;
  }
  return true;
}

// The child of a vfork may not allocate: the environment ChildEnv would
// give it (no program sections here: they make vfork a fork) is built on
// the stack, and the exec goes untagged to the supervisor, which judges
// it. An environment too big for the stack's room goes as it is: its
// program then runs without the shim, every call judged by the supervisor.
constexpr size_t kVforkEnvMax = 1024;

int ExecFromVforkChild(int dirfd, const char* path, char* const argv[],
                       char* const envp[], int flags) {
  const Config& c = GetConfig();  // loaded by the parent before its vfork
  char* ptrs[kVforkEnvMax];
  char preload[8192];
  size_t n = 0;
  bool fits = envp != nullptr && !c.shim_path.empty() &&
              c.inject.size() + 2 < kVforkEnvMax;
  const char* theirs = "";
  for (char* const* e = envp; fits && *e != nullptr; ++e) {
    if (StartsWith(*e, "LD_PRELOAD=")) {
      if (*theirs == '\0') theirs = *e + std::strlen("LD_PRELOAD=");
      continue;
    }
    if (StartsWith(*e, kShimVarPrefix)) continue;
    if (n + c.inject.size() + 2 >= kVforkEnvMax) {
      fits = false;
      break;
    }
    ptrs[n++] = *e;
  }
  // "LD_PRELOAD=" with the shim first, then the program's others.
  size_t used = 0;
  auto append = [&](const char* text, size_t len) {
    if (used + len + 1 > sizeof(preload)) {
      fits = false;
      return;
    }
    std::memcpy(preload + used, text, len);
    used += len;
    preload[used] = '\0';
  };
  append("LD_PRELOAD=", std::strlen("LD_PRELOAD="));
  append(c.shim_path.data(), c.shim_path.size());
  for (const char* item = theirs; *item != '\0';) {
    const size_t len = std::strcspn(item, ": ");
    if (len > 0 && (len != c.shim_path.size() ||
                    std::memcmp(item, c.shim_path.data(), len) != 0)) {
      append(":", 1);
      append(item, len);
    }
    item += len;
    if (*item != '\0') ++item;
  }
  if (fits) {
    for (const std::string& var : c.inject) {
      ptrs[n++] = const_cast<char*>(var.c_str());
    }
    ptrs[n++] = preload;
    ptrs[n] = nullptr;
  }
  return static_cast<int>(
      Ret(sys(SYS_execveat, dirfd, path, argv, fits ? ptrs : envp, flags)));
}

int Execve(const char* op, int dirfd, const char* path, char* const argv[],
           char* const envp[], int flags) {
  Scope scope;
  if (scope.vfork_child() && path != nullptr) {
    return ExecFromVforkChild(dirfd, path, argv, envp, flags);
  }
  if (scope.nested() || path == nullptr) {
    return static_cast<int>(
        Ret(sys(SYS_execveat, dirfd, path, argv, envp, flags)));
  }
  const std::vector<int> before = ChainOfThisProcess();
  std::vector<int> chain = before;
  if (!JudgeExec(op, dirfd, path, argv, flags, &chain)) return -1;
  if (!StackLandlock(op, path, before, chain)) return -1;
  if (!EnterForSupervisor(op, path, before, chain)) return -1;
  ChildEnv env(envp, chain, chain);
  scope.RestoreErrno();
  return static_cast<int>(
      Ret(sys(SYS_execveat, dirfd, path, argv, env.get(), flags)));
}

// execvp's search: each PATH entry in turn; a refused or unexecutable
// candidate is skipped as libc skips one it may not run.
template <typename Try>
int SearchPath(const char* file, Try try_one) {
  if (file == nullptr || *file == '\0') {
    errno = ENOENT;
    return -1;
  }
  if (std::strchr(file, '/') != nullptr) return try_one(file);
  const char* path = getenv("PATH");
  if (path == nullptr) path = "/bin:/usr/bin";
  bool refused = false;
  for (const char* dir = path;; ++dir) {
    const char* end = std::strchr(dir, ':');
    const size_t len = end ? static_cast<size_t>(end - dir) : std::strlen(dir);
    char candidate[kPathMax];
    if (len + std::strlen(file) + 2 < sizeof(candidate)) {
      if (len == 0) {
        std::snprintf(candidate, sizeof(candidate), "%s", file);
      } else {
        std::snprintf(candidate, sizeof(candidate), "%.*s/%s",
                      static_cast<int>(len), dir, file);
      }
      const int r = try_one(candidate);
      if (r >= 0) return r;
      switch (errno) {
        case EACCES:
          refused = true;
          break;
        case ENOENT:
        case ENOTDIR:
        case ESTALE:
        case ENODEV:
        case ETIMEDOUT:
          break;
        default:
          return -1;
      }
    }
    if (end == nullptr) break;
    dir = end;
  }
  errno = refused ? EACCES : ENOENT;
  return -1;
}

int Execvpe(const char* op, const char* file, char* const argv[],
            char* const envp[]) {
  return SearchPath(file, [&](const char* candidate) {
    int r = Execve(op, AT_FDCWD, candidate, argv, envp, 0);
    if (r < 0 && errno == ENOEXEC) {
      // As libc does: a file without a known format is run by the shell.
      // On the stack: this may be the child of a vfork.
      char* args[kMaxListedArgs];
      size_t n = 0;
      args[n++] = const_cast<char*>("/bin/sh");
      args[n++] = const_cast<char*>(candidate);
      if (argv != nullptr && argv[0] != nullptr) {
        for (char* const* a = argv + 1; *a; ++a) {
          if (n + 1 >= kMaxListedArgs) {
            errno = E2BIG;
            return -1;
          }
          args[n++] = *a;
        }
      }
      args[n] = nullptr;
      r = Execve(op, AT_FDCWD, "/bin/sh", args, envp, 0);
    }
    return r;
  });
}

// Collects execl's arguments after `first` up to the NULL into `args` (on
// the caller's stack: this may be the child of a vfork); false (E2BIG) when
// there are more than it holds.
bool ListArgs(const char* first, va_list ap, char* (&args)[kMaxListedArgs]) {
  size_t n = 0;
  args[n++] = const_cast<char*>(first);
  while (args[n - 1] != nullptr) {
    if (n == kMaxListedArgs) {
      errno = E2BIG;
      return false;
    }
    args[n++] = va_arg(ap, char*);
  }
  return true;
}

// glibc's own layout of posix_spawn_file_actions_t (posix/spawn_int.h,
// unchanged since 2.34): the shim must see each action to judge it.
struct SpawnAction {
  enum Tag {
    kClose,
    kDup2,
    kOpen,
    kChdir,
    kFchdir,
    kClosefrom,
    kTcsetpgrp
  } tag;
  union {
    struct {
      int fd;
    } close_action;
    struct {
      int fd;
      int newfd;
    } dup2_action;
    struct {
      int fd;
      char* path;
      int oflag;
      mode_t mode;
    } open_action;
    struct {
      char* path;
    } chdir_action;
    struct {
      int fd;
    } fchdir_action;
    struct {
      int from;
    } closefrom_action;
    struct {
      int fd;
    } setpgrp_action;
  } action;
};
struct SpawnActions {
  int allocated;
  int used;
  SpawnAction* actions;
  int pad[16];
};
static_assert(sizeof(SpawnActions) == sizeof(posix_spawn_file_actions_t));

// The program's file actions with every open done here, judged (the child
// then only dup2s the judged descriptor into place), and the directory the
// child will be in when it execs, for a relative program path.
class JudgedActions {
 public:
  ~JudgedActions() {
    if (made_) posix_spawn_file_actions_destroy(&out_);
    for (int fd : opened_) sys_close(fd);
  }
  // False with errno set when an action is refused or fails.
  bool Build(const char* op, const posix_spawn_file_actions_t* in) {
    const auto* a = reinterpret_cast<const SpawnActions*>(in);
    if (a == nullptr || a->used <= 0) return true;
    posix_spawn_file_actions_init(&out_);
    made_ = true;
    for (int i = 0; i < a->used; ++i) {
      const SpawnAction& act = a->actions[i];
      int r = 0;
      switch (act.tag) {
        case SpawnAction::kClose:
          r = posix_spawn_file_actions_addclose(&out_,
                                                act.action.close_action.fd);
          break;
        case SpawnAction::kDup2:
          r = posix_spawn_file_actions_adddup2(&out_, act.action.dup2_action.fd,
                                               act.action.dup2_action.newfd);
          break;
        case SpawnAction::kOpen: {
          const auto& o = act.action.open_action;
          const int fd = OpenAt(op, cwd_, o.path, o.oflag | O_CLOEXEC, o.mode);
          if (fd < 0) return false;
          opened_.push_back(fd);
          r = posix_spawn_file_actions_adddup2(&out_, fd, o.fd);
          break;
        }
        case SpawnAction::kChdir: {
          PinnedObject dir;
          if (int e = PinObject(cwd_, act.action.chdir_action.path, true, &dir);
              e < 0) {
            errno = -e;
            return false;
          }
          if (!AllowPath(op, Access::kStat, dir.path)) return false;
          cwd_ = static_cast<int>(sys(SYS_fcntl, dir.fd, F_DUPFD_CLOEXEC, 0));
          opened_.push_back(cwd_);
          r = posix_spawn_file_actions_addchdir_np(
              &out_, act.action.chdir_action.path);
          break;
        }
        case SpawnAction::kFchdir:
          cwd_ = act.action.fchdir_action.fd;
          r = posix_spawn_file_actions_addfchdir_np(&out_, cwd_);
          break;
        case SpawnAction::kClosefrom:
          r = posix_spawn_file_actions_addclosefrom_np(
              &out_, act.action.closefrom_action.from);
          break;
        case SpawnAction::kTcsetpgrp:
          r = posix_spawn_file_actions_addtcsetpgrp_np(
              &out_, act.action.setpgrp_action.fd);
          break;
        default:
          errno = EINVAL;  // an action this shim does not know: not judged
          return false;
      }
      if (r != 0) {
        errno = r;
        return false;
      }
    }
    return true;
  }
  const posix_spawn_file_actions_t* get(
      const posix_spawn_file_actions_t* original) const {
    return made_ ? &out_ : original;
  }
  int cwd() const { return cwd_; }

 private:
  posix_spawn_file_actions_t out_;
  bool made_ = false;
  int cwd_ = AT_FDCWD;
  std::vector<int> opened_;
};

int Spawn(const char* op, pid_t* pid, const char* file,
          const posix_spawn_file_actions_t* actions,
          const posix_spawnattr_t* attr, char* const argv[], char* const envp[],
          bool search) {
  if (Scope::Active()) {
    return (search ? KL_REAL(posix_spawnp) : KL_REAL(posix_spawn))(
        pid, file, actions, attr, argv, envp);
  }
  JudgedActions judged;
  if (!judged.Build(op, actions)) return errno;
  int result = ENOENT;
  auto try_one = [&](const char* candidate) -> int {
    struct stat st;
    if (search &&
        (sys(SYS_newfstatat, judged.cwd(), candidate, &st, 0) != 0 ||
         !S_ISREG(st.st_mode) ||
         sys(SYS_faccessat2, judged.cwd(), candidate, X_OK, 0) != 0)) {
      errno = ENOENT;
      return -1;
    }
    bool allowed;
    std::vector<int> chain = ChainOfThisProcess();
    {
      Scope scope;
      allowed = JudgeExec(op, judged.cwd(), candidate, argv, 0, &chain);
    }
    if (!allowed) {
      result = errno;
      return -1;
    }
    // glibc execs in a child the shim never runs in: the program's own shim
    // stacks the rulesets of the sections it enters (shim/layers.h).
    ChildEnv env(envp != nullptr ? envp : environ, chain, ChainOfThisProcess());
    result = KL_REAL(posix_spawn)(pid, candidate, judged.get(actions), attr,
                                  argv, env.get());
    return 0;
  };
  if (search) {
    if (SearchPath(file, try_one) < 0) return errno;
    return result;
  }
  try_one(file);
  return result;
}

// system() and popen() run "/bin/sh -c CMD": judged, and `environ` made
// what the shell must get, with the program sections it enters.
bool AllowShell(const char* op, const char* command) {
  char* argv[] = {const_cast<char*>("sh"), const_cast<char*>("-c"),
                  const_cast<char*>(command), nullptr};
  const std::vector<int> before = ChainOfThisProcess();
  std::vector<int> chain = before;
  {
    Scope scope;
    if (!JudgeExec(op, AT_FDCWD, "/bin/sh", argv, 0, &chain)) return false;
  }
  RestoreEnviron(chain, before);
  return true;
}

// Once libc started the shell: `environ` names this process's own chain
// again, not the shell's, for what the program execs without the shim.
void ForgetShellsChain() {
  const int saved = errno;
  const std::vector<int> own = ChainOfThisProcess();
  PutChainVariables(own, own);
  errno = saved;
}

}  // namespace
}  // namespace klaunch::shim

using namespace klaunch::shim;  // NOLINT: the wrappers below are C symbols

KL_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) {
  return Execve("execve", AT_FDCWD, path, argv, envp, 0);
}
KL_EXPORT int execveat(int dirfd, const char* path, char* const argv[],
                       char* const envp[], int flags) {
  return Execve("execveat", dirfd, path, argv, envp, flags);
}
KL_EXPORT int fexecve(int fd, char* const argv[], char* const envp[]) {
  return Execve("fexecve", fd, "", argv, envp, AT_EMPTY_PATH);
}
KL_EXPORT int execv(const char* path, char* const argv[]) {
  return Execve("execv", AT_FDCWD, path, argv, environ, 0);
}
KL_EXPORT int execvpe(const char* file, char* const argv[],
                      char* const envp[]) {
  return Execvpe("execvpe", file, argv, envp);
}
KL_EXPORT int execvp(const char* file, char* const argv[]) {
  return Execvpe("execvp", file, argv, environ);
}
KL_EXPORT int execl(const char* path, const char* arg, ...) {
  char* args[kMaxListedArgs];
  va_list ap;
  va_start(ap, arg);
  const bool listed = ListArgs(arg, ap, args);
  va_end(ap);
  if (!listed) return -1;
  return Execve("execl", AT_FDCWD, path, args, environ, 0);
}
KL_EXPORT int execlp(const char* file, const char* arg, ...) {
  char* args[kMaxListedArgs];
  va_list ap;
  va_start(ap, arg);
  const bool listed = ListArgs(arg, ap, args);
  va_end(ap);
  if (!listed) return -1;
  return Execvpe("execlp", file, args, environ);
}
KL_EXPORT int execle(const char* path, const char* arg, ...) {
  char* args[kMaxListedArgs];
  va_list ap;
  va_start(ap, arg);
  const bool listed = ListArgs(arg, ap, args);
  char* const* envp = listed ? va_arg(ap, char* const*) : nullptr;
  va_end(ap);
  if (!listed) return -1;
  return Execve("execle", AT_FDCWD, path, args, envp, 0);
}

KL_EXPORT int posix_spawn(pid_t* pid, const char* path,
                          const posix_spawn_file_actions_t* actions,
                          const posix_spawnattr_t* attr, char* const argv[],
                          char* const envp[]) {
  return Spawn("posix_spawn", pid, path, actions, attr, argv, envp, false);
}
KL_EXPORT int posix_spawnp(pid_t* pid, const char* file,
                           const posix_spawn_file_actions_t* actions,
                           const posix_spawnattr_t* attr, char* const argv[],
                           char* const envp[]) {
  return Spawn("posix_spawnp", pid, file, actions, attr, argv, envp, true);
}

KL_EXPORT int system(const char* command) {
  if (command == nullptr || Scope::Active()) return KL_REAL(system)(command);
  if (!AllowShell("system", command)) {
    return 127 << 8;  // as though the shell could not be run
  }
  const int r = KL_REAL(system)(command);
  ForgetShellsChain();
  return r;
}

KL_EXPORT FILE* popen(const char* command, const char* type) {
  if (command == nullptr || Scope::Active()) {
    return KL_REAL(popen)(command, type);
  }
  if (!AllowShell("popen", command)) return nullptr;
  FILE* f = KL_REAL(popen)(command, type);
  ForgetShellsChain();
  return f;
}

// fork: initialise first, so no child ever initialises between fork and
// exec; the child learns its pid (a vfork child is told apart by it).
KL_EXPORT pid_t fork(void) {
  GetConfig();
  const pid_t r = KL_REAL(fork)();
  if (r == 0) g_pid = static_cast<pid_t>(sys(SYS_getpid));
  return r;
}
KL_EXPORT pid_t __fork(void) { return fork(); }
KL_EXPORT pid_t _Fork(void) {
  GetConfig();
  const pid_t r = KL_REAL(_Fork)();
  if (r == 0) g_pid = static_cast<pid_t>(sys(SYS_getpid));
  return r;
}

// vfork stays vfork where the supervisor judges what its child does: the
// child runs on the parent's stack, in its memory, while the parent's other
// threads go on, so it may neither allocate nor take a lock, and the shim
// judges nothing in it. t_vfork_pending (shim/sys.h) makes every call of the
// child pass to libc untagged, so the seccomp filter sends each judged one,
// the exec among them, to the supervisor, which judges it as it judges a
// static program's (and checks the exec after the fact). Where the
// supervisor cannot stand in (no cookie: --no-seccomp, or no seccomp layer;
// program sections, which the shim enters at the exec), vfork becomes fork
// and the child's exec is judged here, as before (docs/design.md).
//
// vfork cannot be wrapped by a C function (the child would return through
// the wrapper's frame, which the parent then returns through again), so
// vfork is a stub that asks klaunch_vfork_target which function to become,
// and jumps to it with the caller's own frame.
extern "C" __attribute__((visibility("hidden"))) void* klaunch_vfork_target() {
  const int saved = errno;
  const Config& c = GetConfig();
  void* target = reinterpret_cast<void*>(&fork);
  if (g_cookie != 0 && g_pid != 0 && !Scope::Active() && c.engine != nullptr &&
      c.engine->policy().programs.empty()) {
    t_vfork_pending = true;
    target = reinterpret_cast<void*>(KL_REAL(vfork));
  }
  errno = saved;
  return target;
}

__asm__(
    ".text\n"
    ".globl vfork\n"
    ".type vfork, @function\n"
    "vfork:\n"
    "  endbr64\n"
    "  subq $8, %rsp\n"
    "  call klaunch_vfork_target\n"
    "  addq $8, %rsp\n"
    "  jmp *%rax\n"
    ".size vfork, .-vfork\n"
    ".globl __vfork\n"
    ".type __vfork, @function\n"
    ".set __vfork, vfork\n");

KL_EXPORT int __libc_system(const char* command)
    __attribute__((alias("system")));
KL_EXPORT FILE* _IO_popen(const char* command, const char* type) {
  return popen(command, type);
}
