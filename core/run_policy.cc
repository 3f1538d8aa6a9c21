#include "core/run_policy.h"

#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/path.h"

namespace klaunch {
namespace {

Entry KlaunchEntry(const std::string& path, const std::string& list,
                   size_t index) {
  Entry e;
  e.value = path;
  char real[PATH_MAX];
  e.resolved = realpath(path.c_str(), real) ? real : path;
  e.key = absl::StrCat("filesystem.", list, "[", index, "]");
  e.preset = "klaunch";
  return e;
}

// Keeps the policy file `path` (as given; relative to ctx.base_dir) from
// being written from inside the sandbox, whatever root would admit it: a
// `klaunch.read_only` entry, as klaunch's own binary and shim are. A
// program that rewrote its policy would widen its next run.
void KeepPolicyFileReadOnly(Policy* policy, const std::string& path,
                            const LoadContext& ctx) {
  absl::StatusOr<std::string> absolute =
      ResolvePolicyPath(path, ctx.base_dir, ctx.home);
  // A path the loader itself has just read from cannot fail here but by
  // a `~user` the loader would have refused too.
  Entry e{absolute.ok() ? *absolute : path, "", "", "klaunch", {}};
  char real[PATH_MAX];
  e.resolved = realpath(e.value.c_str(), real) ? real : e.value;
  e.key =
      absl::StrCat("klaunch.read_only[", policy->klaunch.read_only.size(), "]");
  policy->klaunch.read_only.push_back(std::move(e));
}

// Entries klaunch adds to the policy, judged against one engine of the
// policy as written, each only where the policy does not already say it:
//   - the shim must be readable where the program runs: with the seccomp
//     layer the dynamic loader's open of it is judged like any other;
//   - `own` (klaunch's state directory, log and cgroups) is denied, so the
//     program can neither read nor forge its policy or audit log, nor move
//     itself between cgroups. A path only where the policy would otherwise
//     admit it: a deny entry costs every stat a path resolution in the
//     shim, and the presets keep $HOME's state closed.
// And, whatever the policy says, the shim and klaunch's own binary are
// klaunch.read_only: never written nor asked about (a write root or a yes
// at the terminal would let the program rewrite them for every later
// process and run).
absl::Status AddOwnEntries(Policy* policy, const std::string& shim,
                           const std::string& binary,
                           const std::vector<std::string>& own) {
  absl::StatusOr<Engine> as_written = Engine::Create(*policy);
  if (!as_written.ok()) return as_written.status();
  // Inside every program section too: a section's own read or write list
  // replaces the policy's (the write root /tmp that held a shim built
  // there, say), and the loader must still read the shim.
  bool everywhere = as_written->CheckPath(Access::kRead, shim).allowed();
  for (size_t i = 0; i < policy->programs.size(); ++i) {
    const int index = static_cast<int>(i);
    absl::StatusOr<Engine> in = as_written->Narrow({&index, 1});
    everywhere =
        everywhere && in.ok() && in->CheckPath(Access::kRead, shim).allowed();
  }
  if (!shim.empty() && !everywhere) {
    policy->filesystem.read.push_back(
        KlaunchEntry(shim, "read", policy->filesystem.read.size()));
    for (ProgramSection& section : policy->programs) {
      if (!section.read) continue;
      Entry e = KlaunchEntry(shim, "read", section.read->size());
      e.key = absl::StrCat(section.key, ".", e.key);
      section.read->push_back(std::move(e));
    }
  }
  for (const std::string& path : own) {
    Entry e = KlaunchEntry(path, "deny", policy->filesystem.deny.size());
    // A pattern (every cgroup.procs of the tree) names paths no one probe
    // stands for: it is added where the program may write anywhere below
    // its literal root. (Everywhere, it would cost every process a path
    // resolution per stat: some 290 us a fork+exec here.)
    bool reachable = absl::StrContains(path, '*') &&
                     MayWriteBelow(*policy, *as_written, LiteralRoot(path));
    for (const std::string& p : {e.value, e.resolved}) {
      for (Access a : {Access::kRead, Access::kWrite}) {
        // An asked-for write could be admitted at the terminal: only a
        // refusal keeps the program out.
        for (const std::string& q : {p, p + "/x"}) {
          reachable |= as_written->CheckPath(a, q).verdict != Verdict::kDeny;
        }
      }
    }
    if (reachable) policy->filesystem.deny.push_back(std::move(e));
  }
  for (const std::string& path : {shim, binary}) {
    if (path.empty()) continue;
    Entry e = KlaunchEntry(path, "", policy->klaunch.read_only.size());
    e.key = absl::StrCat("klaunch.read_only[", policy->klaunch.read_only.size(),
                         "]");
    policy->klaunch.read_only.push_back(std::move(e));
  }
  return absl::OkStatus();
}

}  // namespace

bool MayWriteBelow(const Policy& policy, const Engine& as_written,
                   const std::string& dir) {
  if (as_written.CheckPath(Access::kWrite, dir + "/x").verdict !=
      Verdict::kDeny) {
    return true;
  }
  const auto below = [&](const Entry& root) {
    for (const std::string& p : {root.value, root.resolved}) {
      if (!p.empty() && PathIsWithin(LiteralRoot(p), dir)) return true;
    }
    return false;
  };
  if (policy.filesystem.workspace_writable &&
      below(policy.filesystem.workspace)) {
    return true;
  }
  return std::any_of(policy.filesystem.write.begin(),
                     policy.filesystem.write.end(), below);
}

absl::Status MakeRunPolicy(Policy* policy, const RunAdditions& add,
                           const LoadContext& ctx) {
  if (add.audit) policy->mode = Mode::kAudit;
  if (add.ask) policy->commands.unlisted = Unlisted::kAsk;
  if (!add.policy_file.empty()) {
    KeepPolicyFileReadOnly(policy, add.policy_file, ctx);
  }
  if (add.shim.empty() && add.binary.empty() && add.own.empty()) {
    return absl::OkStatus();
  }
  return AddOwnEntries(policy, add.shim, add.binary, add.own);
}

}  // namespace klaunch
