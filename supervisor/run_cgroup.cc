#include "supervisor/run_cgroup.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace klaunch {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The cgroup v2 mount point, from /proc/self/mountinfo; "" when none.
std::string Cgroup2Mount() {
  for (absl::string_view line :
       absl::StrSplit(ReadAll("/proc/self/mountinfo"), '\n')) {
    // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS... - FSTYPE SOURCE OPTIONS
    const size_t dash = line.find(" - ");
    if (dash == absl::string_view::npos) continue;
    std::vector<absl::string_view> tail =
        absl::StrSplit(line.substr(dash + 3), ' ');
    std::vector<absl::string_view> head = absl::StrSplit(line, ' ');
    if (!tail.empty() && tail[0] == "cgroup2" && head.size() > 4 &&
        head[3] == "/") {
      return std::string(head[4]);
    }
  }
  return "";
}

// The cgroup v2 path /proc/PID/cgroup gives ("0::/a/b"); "" when none, or
// when the file cannot be read whole. Read on every judged call of a run
// whose processes entered sections, so into the stack.
}  // namespace

std::string Cgroup2Of(const std::string& pid) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%s/cgroup", pid.c_str());
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  char buf[8192];
  size_t used = 0;
  while (used < sizeof(buf)) {
    const ssize_t n = read(fd, buf + used, sizeof(buf) - used);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    used += static_cast<size_t>(n);
  }
  close(fd);
  // A full buffer may have cut the last line, which is the v2 one.
  if (used == 0 || used == sizeof(buf)) return "";
  for (absl::string_view line :
       absl::StrSplit(absl::string_view(buf, used), '\n')) {
    if (absl::ConsumePrefix(&line, "0::")) {
      // Only a whole line: its end must be in what was read.
      const size_t end = line.data() + line.size() - buf;
      if (end >= used || buf[end] != '\n') return "";
      return std::string(line);
    }
  }
  return "";
}

namespace {

// An exclusive flock on directory `dir`, held for as long as the returned
// descriptor is open: how a run's klaunch says it is alive. -1 with errno:
// the lock is someone else's (EWOULDBLOCK), `dir` is gone (ENOENT), or it
// cannot be opened.
int TryLock(const std::string& dir) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -1;
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    close(fd);
    errno = err;
    return -1;
  }
  return fd;
}

// True when `fd` is the directory `name` names (relative to `dir`) now.
bool IsNamed(int fd, int dir, const char* name) {
  struct stat held, named;
  return fstat(fd, &held) == 0 &&
         fstatat(dir, name, &named, AT_SYMLINK_NOFOLLOW) == 0 &&
         held.st_dev == named.st_dev && held.st_ino == named.st_ino;
}

}  // namespace

namespace internal {

bool RemoveStaleRun(const std::string& parent, const char* name, int held) {
  const std::string run = absl::StrCat(parent, "/", name);
  if (!IsNamed(held, AT_FDCWD, run.c_str())) return false;
  if (DIR* r = opendir(run.c_str())) {
    while (dirent* c = readdir(r)) {
      if (absl::StartsWith(c->d_name, "s-")) {
        rmdir(absl::StrCat(run, "/", c->d_name).c_str());
      }
    }
    closedir(r);
  }
  return rmdir(run.c_str()) == 0;
}

}  // namespace internal

namespace {

// Removes the cgroups of runs whose klaunch is gone (killed, or ended
// with --keep-orphans while processes were left in them) and that no
// process is left in: a populated cgroup refuses rmdir. A run is named
// "klaunch-TIME-PID-XXXXXX" (its run directory's name) and is alive while
// its klaunch holds the lock on it. Not kill(PID, 0) of the PID in the
// name: a klaunch in another pid namespace (unshare --pid) shares this tree
// but sees none of the PIDs here, and would take a run being set up for a
// stale one.
//
// Only the holder of the lock of the directory a name names removes it: a
// lock taken on one another sweep removed meanwhile (and a new run made
// again under the same name) is let go.
void SweepStaleRuns(const std::string& parent) {
  DIR* d = opendir(parent.c_str());
  if (d == nullptr) return;
  while (dirent* e = readdir(d)) {
    // Only what klaunch names so: another's cgroup is not ours to remove.
    const absl::string_view name = e->d_name;
    if (!absl::StartsWith(name, "klaunch-") ||
        std::count(name.begin(), name.end(), '-') != 3) {
      continue;
    }
    const int held = TryLock(absl::StrCat(parent, "/", e->d_name));
    if (held < 0) continue;  // its klaunch still runs
    internal::RemoveStaleRun(parent, e->d_name, held);
    close(held);
  }
  closedir(d);
}

// Makes `dir` and takes its lock; -1 with errno (EEXIST: the name is taken
// already; EWOULDBLOCK: someone holds the lock of the directory made). A
// sweep (of another klaunch, maybe in another pid namespace) may lock and
// remove the directory between the mkdir and the lock: then the lock is
// taken on a removed directory, which the inode check sees, and it is made
// again. Nothing but a sweep holds the lock of a new directory for longer
// than its rmdir, unless a process of the same user wants the run kept from
// its cgroup (another user cannot open it: 0700): then, after 100 ms, the
// caller tries another name. What it made and could not lock is left to a
// later sweep; removing it here could remove a directory made again under
// the same name.
int MakeLocked(const std::string& dir) {
  constexpr mode_t kMode = 0700;
  if (mkdir(dir.c_str(), kMode) != 0) return -1;  // never one made before
  for (int tries = 0; tries < 100; ++tries) {
    const int fd = TryLock(dir);
    if (fd >= 0) {
      if (IsNamed(fd, AT_FDCWD, dir.c_str())) return fd;
      close(fd);  // a sweep removed it after the open
    } else if (errno == EWOULDBLOCK) {
      usleep(1000);  // a sweep holds it: until its rmdir is done
      continue;
    } else if (errno != ENOENT) {
      return -1;
    }
    if (mkdir(dir.c_str(), kMode) != 0 && errno != EEXIST) return -1;
  }
  errno = EWOULDBLOCK;
  return -1;
}

}  // namespace

absl::StatusOr<std::unique_ptr<RunCgroup>> RunCgroup::Create(
    const std::string& tag) {
  const std::string mount = Cgroup2Mount();
  if (mount.empty())
    return absl::UnavailableError(
        "no cgroup v2 hierarchy mounted at its root (/proc/self/mountinfo)");
  std::string own = Cgroup2Of("self");
  if (own.empty()) return absl::UnavailableError("klaunch is in no cgroup v2");
  if (own == "/") own.clear();
  SweepStaleRuns(mount + own);
  // The run's name, or when someone took it or holds its lock, the next.
  for (int attempt = 0;; ++attempt) {
    const std::string relative =
        attempt == 0 ? absl::StrCat(own, "/klaunch-", tag)
                     : absl::StrCat(own, "/klaunch-", tag, ".", attempt);
    const std::string dir = mount + relative;
    const int held = MakeLocked(dir);
    if (held < 0) {
      const int err = errno;
      if ((err == EEXIST || err == EWOULDBLOCK) && attempt < 3) continue;
      return absl::UnavailableError(
          absl::StrCat("cannot make and lock ", dir, ": ", strerror(err)));
    }
    // cgroup.kill (Linux 5.14) is how the run ends at once.
    if (access((dir + "/cgroup.kill").c_str(), W_OK) != 0) {
      rmdir(dir.c_str());
      close(held);
      return absl::UnavailableError(
          absl::StrCat(dir, " has no writable cgroup.kill (Linux 5.14)"));
    }
    return std::unique_ptr<RunCgroup>(
        new RunCgroup(mount, dir, relative, held));
  }
}

RunCgroup::~RunCgroup() {
  rmdir(dir_.c_str());  // held: no sweep removes it, nor makes it again
  close(held_);
}

std::vector<std::string> RunCgroup::OwnEntries() const {
  return {dir_, mount_ + "/cgroup.procs", mount_ + "/**/cgroup.procs",
          mount_ + "/cgroup.threads", mount_ + "/**/cgroup.threads"};
}

bool RunCgroup::Holds(pid_t pid) const {
  const std::string of = Cgroup2Of(std::to_string(pid));
  return of == relative_ || (of.size() > relative_.size() &&
                             of.compare(0, relative_.size(), relative_) == 0 &&
                             of[relative_.size()] == '/');
}

}  // namespace klaunch
