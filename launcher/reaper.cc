#include "launcher/reaper.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "supervisor/run_cgroup.h"

namespace klaunch {
namespace {

// The messages between klaunch and its reaper, one write each.
struct Message {
  int32_t kind;
  int64_t value;
};
enum Kind : int32_t {
  kCmdStarted = 1,  // value: CMD's pid
  kCmdExited = 2,   // value: its wait status
  kEnded = 3,       // value: how many processes needed SIGKILL
  kEnd = 10,        // klaunch to the reaper; value: the grace in ms
};

// What the reaper may not do without: the signals that would end or stop
// it, which klaunch, the terminal or the user send to the process group.
constexpr int kIgnored[] = {SIGINT,  SIGQUIT, SIGHUP,  SIGTERM, SIGTSTP,
                            SIGTTIN, SIGTTOU, SIGPIPE, SIGUSR1, SIGUSR2};

// After SIGKILL, how long the reaper waits for the run to empty (a process
// in an uninterruptible sleep outlives any signal until it wakes).
constexpr int64_t kKillWaitMs = 10000;

int64_t NowMs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

void SleepMs(int ms) {
  timespec ts = {0, static_cast<long>(ms) * 1000000};
  nanosleep(&ts, nullptr);
}

// --- In the reaper: raw calls and static buffers only --------------------

struct Dirent64 {
  uint64_t ino;
  int64_t off;
  unsigned short reclen;
  unsigned char type;
  char name[1];
};

// A small decimal parser that stops at the first non-digit.
long ParseLong(const char* s, const char** end) {
  long v = 0;
  bool any = false;
  while (*s >= '0' && *s <= '9') {
    v = v * 10 + (*s++ - '0');
    any = true;
  }
  if (end != nullptr) *end = s;
  return any ? v : -1;
}

// Calls `each(name)` for each entry of directory `path` but . and ...
template <typename Each>
void ForEachEntry(const char* path, Each each) {
  const int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  alignas(8) static char buf[32768];
  while (true) {
    const long n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
    if (n <= 0) break;
    for (long at = 0; at < n;) {
      const auto* d = reinterpret_cast<const Dirent64*>(buf + at);
      at += d->reclen;
      if (d->name[0] == '.') continue;
      each(d->name);
    }
  }
  close(fd);
}

// Reads a small file into `buf`; its length, or -1.
long ReadSmall(const char* path, char* buf, size_t size) {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  long used = 0;
  while (static_cast<size_t>(used) < size - 1) {
    const long n = read(fd, buf + used, size - 1 - used);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    used += n;
  }
  close(fd);
  buf[used] = '\0';
  return used;
}

// The processes of the run, found afresh by Scan.
constexpr int kMaxProcesses = 65536;
pid_t g_found[kMaxProcesses];
int g_count = 0;

// With the run's cgroup: every process in it or in a cgroup below it.
void ScanCgroup(const char* dir) {
  static char path[4096];
  static char buf[65536];
  auto scan_procs = [](const char* procs) {
    if (ReadSmall(procs, buf, sizeof(buf)) < 0) return;
    for (const char* p = buf; *p != '\0';) {
      const char* end;
      const long pid = ParseLong(p, &end);
      if (pid > 0 && g_count < kMaxProcesses) g_found[g_count++] = pid;
      p = *end != '\0' ? end + 1 : end;
    }
  };
  std::snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
  scan_procs(path);
  ForEachEntry(dir, [&](const char* name) {
    if (std::strncmp(name, "s-", 2) != 0) return;  // a chain's, no deeper
    std::snprintf(path, sizeof(path), "%s/%s/cgroup.procs", dir, name);
    scan_procs(path);
  });
}

// Without it: every descendant of the reaper in /proc that still runs a
// thread (a process whose main thread exited shows as a zombie while its
// other threads run).
struct Proc {
  pid_t pid, ppid;
  bool live;
};
Proc g_procs[kMaxProcesses];

void ScanTree() {
  int n = 0;
  static char path[64], buf[512];
  ForEachEntry("/proc", [&](const char* name) {
    const long pid = ParseLong(name, nullptr);
    if (pid <= 0 || n >= kMaxProcesses) return;
    std::snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    if (ReadSmall(path, buf, sizeof(buf)) <= 0) return;
    const char* close_paren = std::strrchr(buf, ')');
    if (close_paren == nullptr || close_paren[1] != ' ') return;
    const char state = close_paren[2];
    const long ppid = ParseLong(close_paren + 4, nullptr);
    bool live = state != 'Z' && state != 'X';
    if (!live) {
      // A zombie leader whose other threads run: its task directory holds
      // more than itself.
      int tasks = 0;
      std::snprintf(path, sizeof(path), "/proc/%ld/task", pid);
      ForEachEntry(path, [&](const char*) { ++tasks; });
      live = tasks > 1;
    }
    g_procs[n++] = {static_cast<pid_t>(pid), static_cast<pid_t>(ppid), live};
  });
  // Descendants of the reaper: marked level by level.
  static bool below[kMaxProcesses];
  for (int i = 0; i < n; ++i) below[i] = false;
  const pid_t self = getpid();
  for (bool grew = true; grew;) {
    grew = false;
    for (int i = 0; i < n; ++i) {
      if (below[i]) continue;
      bool parent_below = g_procs[i].ppid == self;
      for (int j = 0; !parent_below && j < n; ++j) {
        parent_below = below[j] && g_procs[j].pid == g_procs[i].ppid;
      }
      if (parent_below) below[i] = grew = true;
    }
  }
  for (int i = 0; i < n; ++i) {
    if (below[i] && g_procs[i].live) g_found[g_count++] = g_procs[i].pid;
  }
}

struct ReaperState {
  const char* cgroup_dir;  // null: by the tree
  const char* cgroup_kill;
  pid_t cmd;
  int to_klaunch;
};

void Send(int fd, int32_t kind, int64_t value) {
  const Message m{kind, value};
  ssize_t ignored = write(fd, &m, sizeof(m));
  (void)ignored;
}

void Reap(const ReaperState& s) {
  int status;
  pid_t p;
  while ((p = waitpid(-1, &status, WNOHANG | __WALL)) > 0) {
    if (p == s.cmd) Send(s.to_klaunch, kCmdExited, status);
  }
}

int Scan(const ReaperState& s) {
  g_count = 0;
  if (s.cgroup_dir != nullptr) {
    ScanCgroup(s.cgroup_dir);
  } else {
    ScanTree();
  }
  return g_count;
}

void SignalAll(int sig) {
  for (int i = 0; i < g_count; ++i) kill(g_found[i], sig);
}

// Ends every process of the run; how many needed SIGKILL.
int EndAll(const ReaperState& s, int64_t grace_ms) {
  Reap(s);
  if (Scan(s) == 0) return 0;
  SignalAll(SIGTERM);
  const int64_t term_end = NowMs() + grace_ms;
  while (NowMs() < term_end) {
    Reap(s);
    if (Scan(s) == 0) return 0;
    SleepMs(20);
  }
  Reap(s);
  const int killed = Scan(s);
  if (killed == 0) return 0;
  if (s.cgroup_kill != nullptr) {
    // Every process of the cgroup and the cgroups below, at once: none can
    // fork its way out of the signal.
    const int fd = open(s.cgroup_kill, O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
      ssize_t ignored = write(fd, "1", 1);
      (void)ignored;
      close(fd);
    }
  }
  const int64_t kill_end = NowMs() + kKillWaitMs;
  while (NowMs() < kill_end) {
    // The tree: again and again, for what forked meanwhile.
    SignalAll(SIGKILL);
    SleepMs(10);
    Reap(s);
    if (Scan(s) == 0) break;
  }
  Reap(s);
  return killed;
}

[[noreturn]] void ReaperMain(const ReaperState& initial, bool keep_orphans,
                             int from_klaunch,
                             const std::function<void()>& child) {
  ReaperState s = initial;
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  prctl(PR_SET_NAME, "klaunch-reaper", 0, 0, 0);
  struct sigaction ignore;
  std::memset(&ignore, 0, sizeof(ignore));
  ignore.sa_handler = SIG_IGN;
  for (int sig : kIgnored) sigaction(sig, &ignore, nullptr);
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, nullptr);
  const int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
  const pid_t cmd = fork();
  if (cmd == 0) {
    close(from_klaunch);
    close(s.to_klaunch);
    if (sfd >= 0) close(sfd);
    struct sigaction dfl;
    std::memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    for (int sig : kIgnored) sigaction(sig, &dfl, nullptr);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    child();
    _exit(127);
  }
  if (cmd < 0) {
    Send(s.to_klaunch, kCmdStarted, -errno);
    _exit(1);
  }
  // Nothing of klaunch's but the two pipes and the standard descriptors:
  // a pipe end kept here (CMD's report, its filter's channel) would keep
  // klaunch waiting on it for ever.
  int keep[] = {from_klaunch, s.to_klaunch, sfd};
  std::sort(std::begin(keep), std::end(keep));
  unsigned next = 3;
  for (int fd : keep) {
    if (fd < 0) continue;
    if (static_cast<unsigned>(fd) > next) {
      syscall(SYS_close_range, next, static_cast<unsigned>(fd) - 1, 0);
    }
    next = static_cast<unsigned>(fd) + 1;
  }
  syscall(SYS_close_range, next, ~0u, 0);
  s.cmd = cmd;
  Send(s.to_klaunch, kCmdStarted, cmd);
  while (true) {
    pollfd fds[2] = {{from_klaunch, POLLIN, 0}, {sfd, POLLIN, 0}};
    if (poll(fds, sfd >= 0 ? 2 : 1, sfd >= 0 ? -1 : 50) < 0 && errno != EINTR) {
      break;
    }
    if (sfd >= 0 && (fds[1].revents & POLLIN)) {
      signalfd_siginfo info;
      while (read(sfd, &info, sizeof(info)) == sizeof(info)) {
      }
    }
    Reap(s);
    if (fds[0].revents == 0) continue;
    Message m;
    const ssize_t n = read(from_klaunch, &m, sizeof(m));
    if (n == sizeof(m) && m.kind == kEnd) {
      Send(s.to_klaunch, kEnded, EndAll(s, m.value));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;  // klaunch let it go, or is gone
  }
  // klaunch is gone (or done): the run ends with it, unless it said to
  // keep what is left.
  if (!keep_orphans) EndAll(s, 1000);
  _exit(0);
}

}  // namespace

absl::StatusOr<std::unique_ptr<Reaper>> Reaper::Start(
    const Options& options, const std::function<void()>& child) {
  int to[2], from[2];
  if (pipe2(to, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", strerror(errno)));
  }
  if (pipe2(from, O_CLOEXEC) != 0) {
    close(to[0]);
    close(to[1]);
    return absl::InternalError(absl::StrCat("pipe: ", strerror(errno)));
  }
  // Everything the reaper needs, made before the fork.
  const std::string dir =
      options.cgroup != nullptr ? options.cgroup->dir() : "";
  const std::string kill_file =
      options.cgroup != nullptr ? options.cgroup->kill() : "";
  ReaperState state{dir.empty() ? nullptr : dir.c_str(),
                    kill_file.empty() ? nullptr : kill_file.c_str(), 0,
                    from[1]};
  const pid_t pid = fork();
  if (pid < 0) {
    const int err = errno;
    for (int fd : {to[0], to[1], from[0], from[1]}) close(fd);
    return absl::InternalError(absl::StrCat("fork: ", strerror(err)));
  }
  if (pid == 0) {
    close(to[1]);
    close(from[0]);
    ReaperMain(state, options.keep_orphans, to[0], child);
  }
  close(to[0]);
  close(from[1]);
  std::unique_ptr<Reaper> r(new Reaper(pid, 0, to[1], from[0]));
  int32_t kind;
  int64_t value;
  if (!r->Read(-1, &kind, &value) || kind != kCmdStarted || value <= 0) {
    return absl::InternalError("the reaper could not start the program");
  }
  r->cmd_ = static_cast<pid_t>(value);
  return r;
}

Reaper::~Reaper() {
  close(to_);  // the reaper ends the run (unless told to keep it) and exits
  // Its messages until it exits, so that it never blocks writing one.
  int32_t kind;
  int64_t value;
  while (Read(-1, &kind, &value)) {
  }
  close(from_);
  int status;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

bool Reaper::Read(int64_t timeout_ms, int32_t* kind, int64_t* value) {
  const int64_t deadline = timeout_ms < 0 ? -1 : NowMs() + timeout_ms;
  while (true) {
    int wait = -1;
    if (deadline >= 0) {
      const int64_t left = deadline - NowMs();
      if (left <= 0) return false;
      wait = static_cast<int>(left);
    }
    pollfd p = {from_, POLLIN, 0};
    const int r = poll(&p, 1, wait);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    Message m;
    const ssize_t n = read(from_, &m, sizeof(m));
    if (n < 0 && errno == EINTR) continue;
    if (n != sizeof(m)) return false;
    if (m.kind == kCmdExited) cmd_status_ = static_cast<int>(m.value);
    *kind = m.kind;
    *value = m.value;
    return true;
  }
}

std::optional<int> Reaper::WaitCmd(int64_t timeout_ms) {
  const int64_t deadline = timeout_ms < 0 ? -1 : NowMs() + timeout_ms;
  int32_t kind;
  int64_t value;
  while (!cmd_status_) {
    const int64_t left = deadline < 0 ? -1 : deadline - NowMs();
    if (deadline >= 0 && left <= 0) break;
    if (!Read(left, &kind, &value)) break;
  }
  return cmd_status_;
}

int Reaper::EndRun(int64_t grace_ms) {
  const Message m{kEnd, grace_ms};
  if (write(to_, &m, sizeof(m)) != sizeof(m)) return 0;
  int32_t kind;
  int64_t value;
  while (Read(-1, &kind, &value)) {
    if (kind == kEnded) return static_cast<int>(value);
  }
  return 0;
}

}  // namespace klaunch
