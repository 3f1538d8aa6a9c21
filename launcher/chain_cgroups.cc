#include "launcher/chain_cgroups.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
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

// The cgroup v2 path /proc/PID/cgroup gives ("0::/a/b"); "" when none.
// Read on every judged call of a run whose processes entered sections, so
// with one read into the stack.
std::string Cgroup2Of(const std::string& pid) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%s/cgroup", pid.c_str());
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  char buf[4096];
  const ssize_t n = read(fd, buf, sizeof(buf));
  close(fd);
  if (n <= 0) return "";
  for (absl::string_view line :
       absl::StrSplit(absl::string_view(buf, n), '\n')) {
    if (absl::ConsumePrefix(&line, "0::")) return std::string(line);
  }
  return "";
}

std::string ChainName(const std::vector<int>& chain) {
  return absl::StrCat("s-", absl::StrJoin(chain, "_"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<ChainCgroups>> ChainCgroups::Create(
    const std::string& tag) {
  const std::string mount = Cgroup2Mount();
  if (mount.empty()) return absl::UnavailableError("no cgroup v2 mounted");
  std::string own = Cgroup2Of("self");
  if (own.empty()) return absl::UnavailableError("klaunch is in no cgroup v2");
  if (own == "/") own.clear();
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

std::optional<std::vector<int>> ChainCgroups::ChainOf(pid_t pid) {
  if (!entered_.load(std::memory_order_acquire)) return cmd_chain_;
  const std::string of = Cgroup2Of(std::to_string(pid));
  if (of.empty()) return std::nullopt;  // gone, or unreadable: judge nothing
  absl::string_view path = of;
  if (!absl::ConsumePrefix(&path, relative_) ||
      !absl::ConsumePrefix(&path, "/s-")) {
    return cmd_chain_;
  }
  std::vector<int> chain;
  for (absl::string_view n : absl::StrSplit(path, '_', absl::SkipEmpty())) {
    int i;
    if (!absl::SimpleAtoi(n, &i) || i < 0 ||
        static_cast<size_t>(i) >= base_->policy().programs.size()) {
      return cmd_chain_;  // not one of ours: cannot be made by the program
    }
    chain.push_back(i);
  }
  return chain;
}

const Engine* ChainCgroups::EngineFor(const std::vector<int>& chain) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = engines_.find(chain);
  if (it != engines_.end()) return it->second.get();
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
  return EngineFor(chain) != nullptr ? 0 : -EINVAL;
}

}  // namespace klaunch
