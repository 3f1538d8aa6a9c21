// Program sections below CMD under the seccomp supervisor: which chain of
// sections (core/programs.h) a process runs under, kept by the kernel.
//
// Each chain's processes live in a cgroup of klaunch's own (cgroup v2):
// the run's directory under klaunch's cgroup, one child per chain
// ("s-0_2"). Membership is inherited at fork and survives reparenting, so
// an orphan of a section keeps its section. The program cannot leave:
// klaunch denies it the run's directory and every cgroup.procs and
// cgroup.threads (OwnEntries), and the seccomp filter refuses clone3, whose
// CLONE_INTO_CGROUP would start a child elsewhere. A process enters when
// the shim asks before a tagged exec (core/seccomp_tag.h) or when the
// supervisor lets an untagged exec go on; a chain only grows, whatever a
// process names. The shim's own chain is checked against it when it asks
// for the cookie (supervisor/supervisor.cc).
//
// Owns the directories and the engine of each chain; removes them at the
// end of the run, and those of earlier runs nobody holds (run_cgroup.h), once
// no process is left in them. Without a writable cgroup v2 tree (a user without
// a delegated subtree, a read-only /sys) Create fails and sections below CMD
// are the shim's and Landlock's.

#ifndef KLAUNCH_SUPERVISOR_CHAIN_CGROUPS_H_
#define KLAUNCH_SUPERVISOR_CHAIN_CGROUPS_H_

#include <sys/types.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/engine.h"

namespace klaunch {

class RunCgroup;

// What the cgroup v2 path of a process (`of`, as /proc/PID/cgroup names
// it) says of it, for the run whose directory is `run`: in none of the
// run's cgroups; in the cgroup of a chain of sections (indices below
// `sections`, named "s-0_2" as klaunch names them); or in one klaunch did
// not make as a chain's (invalid: the caller refuses).
struct CgroupChain {
  bool outside = false;
  bool valid = false;
  bool itself = false;  // the run's directory itself: CMD's chain
  std::vector<int> chain;
};
CgroupChain ChainOfCgroup(absl::string_view run, absl::string_view of,
                          size_t sections);

class ChainCgroups {
 public:
  // The chains' cgroups below the run's (run_cgroup.h), which must outlive
  // this.
  static absl::StatusOr<std::unique_ptr<ChainCgroups>> Create(
      const RunCgroup& run);
  // Removes the directories it made that no process is left in.
  ~ChainCgroups();

  // The run's directory as /proc/PID/cgroup names it ("/a/klaunch-T").
  const std::string& Relative() const { return relative_; }

  // Before the first process: `base` judges with no section entered, and
  // a process in the run's cgroup itself runs under `cmd_chain`.
  void Attach(const Engine& base, std::vector<int> cmd_chain);

  // The chain process `pid` runs under, and its engine; nothing when its
  // cgroup cannot be read whole (it is gone) or is one in the run's
  // directory klaunch did not make as a chain's, so that nothing is judged
  // for it (the caller refuses).
  std::optional<std::vector<int>> ChainOf(pid_t pid);
  const Engine* EngineOf(pid_t pid);

  // Moves process `pid` (its whole thread group) into the cgroup of its
  // chain with `claimed` appended. 0 or -errno (-ENOSPC past kMaxChains
  // chains in one run).
  int Enter(pid_t pid, absl::Span<const int> claimed);

  static constexpr size_t kMaxChains = 256;

 private:
  ChainCgroups(std::string mount, std::string dir, std::string relative)
      : mount_(std::move(mount)),
        dir_(std::move(dir)),
        relative_(std::move(relative)) {}
  const Engine* EngineFor(const std::vector<int>& chain);

  const std::string mount_;     // where cgroup v2 is mounted
  const std::string dir_;       // the run's directory, absolute
  const std::string relative_;  // the same as /proc/PID/cgroup names it
  const Engine* base_ = nullptr;
  std::vector<int> cmd_chain_;
  // Until a process enters a chain, every process runs under CMD's and its
  // /proc/PID/cgroup (some microseconds a call) need not be read.
  std::atomic<bool> entered_{false};
  std::mutex enter_mu_;  // held across a process's read and move
  std::mutex mu_;
  std::map<std::vector<int>, std::unique_ptr<Engine>> engines_;  // guarded
  std::vector<std::string> made_;                                // guarded
};

}  // namespace klaunch

#endif  // KLAUNCH_SUPERVISOR_CHAIN_CGROUPS_H_
