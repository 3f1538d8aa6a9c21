#include "supervisor/run_members.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "supervisor/run_cgroup.h"

namespace klaunch {
namespace {

// The parent and process group of `pid` from /proc/PID/stat; false when it
// is gone.
bool ReadStat(pid_t pid, pid_t* ppid, pid_t* pgrp) {
  char path[64], buf[512];
  std::snprintf(path, sizeof(path), "/proc/%d/stat", pid);
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (n <= 0) return false;
  buf[n] = '\0';
  // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
  const char* close_paren = std::strrchr(buf, ')');
  char state;
  long p, g;
  if (close_paren == nullptr ||
      std::sscanf(close_paren + 1, " %c %ld %ld", &state, &p, &g) != 3) {
    return false;
  }
  *ppid = static_cast<pid_t>(p);
  *pgrp = static_cast<pid_t>(g);
  return true;
}

template <typename Each>
void ForEachProcess(Each each) {
  DIR* d = opendir("/proc");
  if (d == nullptr) return;
  while (dirent* e = readdir(d)) {
    char* end;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (*end == '\0' && pid > 0) each(static_cast<pid_t>(pid));
  }
  closedir(d);
}

}  // namespace

bool RunMembers::Contains(pid_t pid) const {
  if (root_ <= 0 || pid == root_) return false;
  if (cgroup_ != nullptr) return cgroup_->Holds(pid);
  // The tree is at most a few thousand deep; a loop in what /proc says
  // (pids reused while walking) ends at that bound.
  for (int depth = 0; pid > 1 && depth < 4096; ++depth) {
    pid_t ppid, pgrp;
    if (!ReadStat(pid, &ppid, &pgrp)) return false;
    if (ppid == root_) return true;
    pid = ppid;
  }
  return false;
}

pid_t RunMembers::ThreadGroupOf(pid_t tid) {
  char path[64], buf[4096];
  std::snprintf(path, sizeof(path), "/proc/%d/status", tid);
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  const ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  const char* tgid = std::strstr(buf, "\nTgid:");
  return tgid != nullptr ? static_cast<pid_t>(std::atol(tgid + 6)) : 0;
}

std::vector<pid_t> RunMembers::GroupMembers(pid_t pgrp, bool* outsiders) const {
  std::vector<pid_t> out;
  *outsiders = false;
  ForEachProcess([&](pid_t pid) {
    pid_t ppid, g;
    if (!ReadStat(pid, &ppid, &g) || g != pgrp) return;
    if (Contains(pid)) {
      out.push_back(pid);
    } else {
      *outsiders = true;
    }
  });
  return out;
}

std::vector<pid_t> RunMembers::All() const {
  std::vector<pid_t> out;
  ForEachProcess([&](pid_t pid) {
    if (Contains(pid)) out.push_back(pid);
  });
  return out;
}

}  // namespace klaunch
