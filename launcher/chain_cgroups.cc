#include "launcher/chain_cgroups.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
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
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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

std::string ChainName(const std::vector<int>& chain) {
  return absl::StrCat("s-", absl::StrJoin(chain, "_"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<ChainCgroups>> ChainCgroups::Create(
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
  std::unique_ptr<ChainCgroups> c(new ChainCgroups(mount, dir, relative));
  c->made_.push_back(dir);
  return c;
}

ChainCgroups::~ChainCgroups() {
  std::lock_guard<std::mutex> lock(mu_);
  // Children first: the run's directory was made first.
  for (auto it = made_.rbegin(); it != made_.rend(); ++it) rmdir(it->c_str());
}

std::vector<std::string> ChainCgroups::OwnEntries() const {
  return {dir_, mount_ + "/cgroup.procs", mount_ + "/**/cgroup.procs",
          mount_ + "/cgroup.threads", mount_ + "/**/cgroup.threads"};
}

void ChainCgroups::Attach(const Engine& base, std::vector<int> cmd_chain) {
  base_ = &base;
  cmd_chain_ = std::move(cmd_chain);
}

CgroupChain ChainOfCgroup(absl::string_view run, absl::string_view of,
                          size_t sections) {
  absl::string_view path = of;
  if (!absl::ConsumePrefix(&path, run) || (!path.empty() && path[0] != '/')) {
    return {.outside = true};
  }
  // Inside the run's directory only a cgroup klaunch made, named exactly as
  // it names them, names a chain. Anything else (the directory itself, a
  // cgroup made below one of them, a name cut short) is invalid: falling
  // back to CMD's chain would be the widest answer.
  if (!absl::ConsumePrefix(&path, "/s-")) return {};
  std::vector<int> chain;
  for (absl::string_view n : absl::StrSplit(path, '_')) {
    int i;
    if (!absl::SimpleAtoi(n, &i) || i < 0 ||
        static_cast<size_t>(i) >= sections) {
      return {};
    }
    chain.push_back(i);
  }
  if (absl::StrCat("/", ChainName(chain)) != of.substr(run.size())) return {};
  return {.valid = true, .chain = std::move(chain)};
}

std::optional<std::vector<int>> ChainCgroups::ChainOf(pid_t pid) {
  if (!entered_.load(std::memory_order_acquire)) return cmd_chain_;
  const std::string of = Cgroup2Of(std::to_string(pid));
  if (of.empty()) return std::nullopt;  // gone, or unreadable: judge nothing
  CgroupChain c = ChainOfCgroup(relative_, of, base_->policy().programs.size());
  if (c.outside) return cmd_chain_;  // in none of the run's cgroups
  if (!c.valid) return std::nullopt;
  return std::move(c.chain);
}

const Engine* ChainCgroups::EngineFor(const std::vector<int>& chain) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = engines_.find(chain);
  if (it != engines_.end()) return it->second.get();
  // Any process may ask to enter, and the order of a chain names it: bound
  // what a program can make klaunch build and keep.
  if (engines_.size() >= kMaxChains) return nullptr;
  absl::StatusOr<Engine> e = base_->Narrow(chain);
  if (!e.ok()) return nullptr;
  return engines_.emplace(chain, std::make_unique<Engine>(*std::move(e)))
      .first->second.get();
}

const Engine* ChainCgroups::EngineOf(pid_t pid) {
  const std::optional<std::vector<int>> chain = ChainOf(pid);
  return chain ? EngineFor(*chain) : nullptr;
}

int ChainCgroups::Enter(pid_t pid, absl::Span<const int> claimed) {
  // One move at a time: two threads of a process entering sections at once
  // must not leave it in the cgroup of the one that read first.
  std::lock_guard<std::mutex> entering(enter_mu_);
  const std::optional<std::vector<int>> now = ChainOf(pid);
  if (!now) return -ESRCH;
  std::vector<int> chain = *now;
  const size_t had = chain.size();
  for (int i : claimed) {
    if (i < 0 || static_cast<size_t>(i) >= base_->policy().programs.size()) {
      return -EINVAL;
    }
    if (std::find(chain.begin(), chain.end(), i) == chain.end()) {
      chain.push_back(i);
    }
  }
  if (chain.size() == had) return 0;  // where it is already
  // The engine first: a chain that cannot be judged is never entered.
  if (EngineFor(chain) == nullptr) return -ENOSPC;
  const std::string dir = absl::StrCat(dir_, "/", ChainName(chain));
  // Before the move: a call made just after it must find the cgroup read.
  entered_.store(true, std::memory_order_release);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (mkdir(dir.c_str(), 0755) == 0) {
      made_.push_back(dir);
    } else if (errno != EEXIST) {
      return -errno;
    }
  }
  const int fd = open((dir + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -errno;
  const std::string text = std::to_string(pid);
  const ssize_t n = write(fd, text.data(), text.size());
  const int err = errno;
  close(fd);
  if (n != static_cast<ssize_t>(text.size())) return -err;
  return 0;
}

}  // namespace klaunch
