#include "supervisor/chain_cgroups.h"

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
#include "supervisor/run_cgroup.h"

namespace klaunch {
namespace {

std::string ChainName(const std::vector<int>& chain) {
  return absl::StrCat("s-", absl::StrJoin(chain, "_"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<ChainCgroups>> ChainCgroups::Create(
    const RunCgroup& run) {
  return std::unique_ptr<ChainCgroups>(
      new ChainCgroups(run.mount(), run.dir(), run.relative()));
}

ChainCgroups::~ChainCgroups() {
  std::lock_guard<std::mutex> lock(mu_);
  // The chains' directories; the run's is the RunCgroup's to remove.
  for (auto it = made_.rbegin(); it != made_.rend(); ++it) rmdir(it->c_str());
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
  // The directory itself holds CMD and what it starts outside sections.
  if (path.empty()) return {.valid = true, .itself = true};
  // Inside it only a cgroup klaunch made, named exactly as it names them,
  // names a chain. Anything else (a cgroup made below one of them, a name
  // cut short) is invalid: falling back to CMD's chain would be the widest
  // answer.
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
  // Every process of the run lives in the run's cgroup: one outside it
  // judges nothing, as one in a cgroup klaunch did not make.
  if (c.outside || !c.valid) return std::nullopt;
  if (c.itself) return cmd_chain_;
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
