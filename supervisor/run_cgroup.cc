#include "supervisor/run_cgroup.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
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

// Removes the cgroups of runs whose klaunch is gone (killed, or ended
// with --keep-orphans while processes were left in them) and that no
// process is left in: a populated cgroup refuses rmdir. A run is named
// "klaunch-TIME-PID-XXXXXX" (its run directory's name).
void SweepStaleRuns(const std::string& parent) {
  DIR* d = opendir(parent.c_str());
  if (d == nullptr) return;
  while (dirent* e = readdir(d)) {
    const absl::string_view name = e->d_name;
    if (!absl::StartsWith(name, "klaunch-")) continue;
    const std::vector<absl::string_view> parts = absl::StrSplit(name, '-');
    pid_t pid;
    if (parts.size() != 4 || !absl::SimpleAtoi(parts[2], &pid) || pid <= 0 ||
        kill(pid, 0) == 0 || errno != ESRCH) {
      continue;  // its klaunch may still run
    }
    const std::string run = absl::StrCat(parent, "/", name);
    if (DIR* r = opendir(run.c_str())) {
      while (dirent* c = readdir(r)) {
        if (absl::StartsWith(c->d_name, "s-")) {
          rmdir(absl::StrCat(run, "/", c->d_name).c_str());
        }
      }
      closedir(r);
    }
    rmdir(run.c_str());
  }
  closedir(d);
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
  const std::string relative = absl::StrCat(own, "/klaunch-", tag);
  const std::string dir = mount + relative;
  if (mkdir(dir.c_str(), 0755) != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot make ", dir, ": ", strerror(errno)));
  }
  // cgroup.kill (Linux 5.14) is how the run ends at once.
  if (access((dir + "/cgroup.kill").c_str(), W_OK) != 0) {
    rmdir(dir.c_str());
    return absl::UnavailableError(
        absl::StrCat(dir, " has no writable cgroup.kill (Linux 5.14)"));
  }
  return std::unique_ptr<RunCgroup>(new RunCgroup(mount, dir, relative));
}

RunCgroup::~RunCgroup() { rmdir(dir_.c_str()); }

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
