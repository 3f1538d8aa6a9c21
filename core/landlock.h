// The Landlock layer: a kernel-enforced floor under the shim and the
// supervisor, derived from the policy.
//
// Landlock can only approximate the policy, and the approximation is at
// least as wide as the policy, so it does not refuse what the policy admits
// (the shim and the supervisor still refuse the rest), with one exception
// said in the approximations: a file made, after the run starts and by a
// process outside the sandbox, directly inside a directory granted entry by
// entry around a deny entry (below) is not readable in the sandbox. The
// mapping, in docs/design.md ("The Landlock layer"):
//
//   read roots          read files, list directories, execute
//   workspace, write    every file-system right the ABI has (REFER,
//   roots               TRUNCATE, IOCTL_DEV included) but making device
//                       nodes, unless system.allow has "devices"
//   a glob              its literal leading directories (`/srv/*/logs` is
//                       granted as /srv); `**/x` as `/`
//   /proc/...           /proc (every process's /proc/self is another
//                       directory)
//   a missing write     its nearest existing ancestor may have directories
//   root                and files made in it, and its files written
//   unlisted_writes     writing not restricted (a write admitted at the
//   = "ask"             terminal may be anywhere); reading still is
//   deny entries        inside a read-only root (read roots, a read-only
//                       workspace), literal: kept out by granting, instead
//                       of the root whole, READ_DIR on the root and on each
//                       directory down to the entry's parent, and the
//                       root's rights to every other entry at each level
//                       (CreateRuleset lists them; several entries under
//                       one root combine). Landlock grants by hierarchy, so
//                       the names inside a kept-out directory stay listable
//                       (READ_DIR on its parent reaches it), but nothing in
//                       it can be read or executed. A file or directory made
//                       or replaced later (an editor's save by rename)
//                       directly inside a directory so expanded, by a
//                       process outside the sandbox, is not readable in
//                       the sandbox: narrower than the policy, said in the
//                       approximations. Not expanded (the root granted
//                       whole, the entry left to the shim and the
//                       supervisor, and said): a pattern; an entry under
//                       /proc; an entry that does not exist at start, or is
//                       reached through a symlink below the root; a root
//                       with a write-granted object at, above or below a
//                       directory it would expand (a write root inside the
//                       home, a missing write root whose nearest existing
//                       ancestor is the home or above: a directory granted
//                       entry by entry could have nothing made in it);
//                       a directory of more than 4096 entries. Inside a
//                       write root or the writable workspace: not
//                       expressible (the same reason)
//   network.allow       TCP connect to the ports named (ABI 4+), unless an
//                       entry admits every port; bind is not restricted
//                       (a port of its own is not the policy's business)
//   unix_abstract,      abstract Unix sockets and signals scoped to the
//   "signals"           sandbox (ABI 6+) unless the policy opens them
//   klaunch's files     the effective policy and the shim readable; the
//                       audit log nothing (only klaunch writes it)
//
// A program section (core/programs.h) stacks a ruleset of its own, planned
// the same way from the section's policy, when a process enters it: klaunch
// for CMD, the shim at the exec of a program a section names.
//
// This module plans (a pure function of the policy), builds the ruleset in
// klaunch or the shim, and restricts; it decides nothing per call.

#ifndef KLAUNCH_CORE_LANDLOCK_H_
#define KLAUNCH_CORE_LANDLOCK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/policy.h"

namespace klaunch {

// The kernel's access rights and scopes (linux/landlock.h), spelled out
// because Debian 12's headers stop at ABI 2; the values are fixed by the
// kernel's ABI. core/landlock_test.cc holds them against the system header
// and against what the running kernel accepts.
namespace landlock {
inline constexpr uint64_t kExecute = 1ULL << 0;
inline constexpr uint64_t kWriteFile = 1ULL << 1;
inline constexpr uint64_t kReadFile = 1ULL << 2;
inline constexpr uint64_t kReadDir = 1ULL << 3;
inline constexpr uint64_t kRemoveFile = 1ULL << 5;
inline constexpr uint64_t kMakeChar = 1ULL << 6;
inline constexpr uint64_t kMakeDir = 1ULL << 7;
inline constexpr uint64_t kMakeReg = 1ULL << 8;
inline constexpr uint64_t kMakeBlock = 1ULL << 11;
inline constexpr uint64_t kRefer = 1ULL << 13;     // ABI 2
inline constexpr uint64_t kTruncate = 1ULL << 14;  // ABI 3
inline constexpr uint64_t kIoctlDev = 1ULL << 15;  // ABI 5
// Every right of ABI 1: bits 0 to 12.
inline constexpr uint64_t kAbi1Fs = (1ULL << 13) - 1;
// The rights that apply to a file rather than a directory.
inline constexpr uint64_t kFileRights =
    kExecute | kWriteFile | kReadFile | kTruncate | kIoctlDev;
inline constexpr uint64_t kConnectTcp = 1ULL << 1;         // ABI 4, network
inline constexpr uint64_t kScopeAbstractUnix = 1ULL << 0;  // ABI 6
inline constexpr uint64_t kScopeSignal = 1ULL << 1;        // ABI 6

// Every file-system right Landlock ABI `abi` knows.
constexpr uint64_t HandledFs(int abi) {
  uint64_t fs = kAbi1Fs;
  if (abi >= 2) fs |= kRefer;
  if (abi >= 3) fs |= kTruncate;
  if (abi >= 5) fs |= kIoctlDev;
  return fs;
}
}  // namespace landlock

// The Landlock ABI version of the running kernel; 0 when it has none (or
// Landlock is disabled at boot). For tests only, KLAUNCH_TEST_LANDLOCK_ABI
// (a number) caps it, so that what klaunch does on an older kernel can be
// tried on a newer one; it never raises it.
int LandlockAbi();

struct LandlockPlan {
  int abi = 0;
  uint64_t handled_fs = 0;
  uint64_t handled_net = 0;
  uint64_t scoped = 0;
  struct PathRule {
    std::string path;  // absolute, no glob
    uint64_t access = 0;
    bool write_root = false;  // a missing one falls back to its ancestor
    std::string key;          // the policy key it comes from
    // Granted wider than the entry: a pattern's leading directories, /proc
    // for an entry below it, a missing write root's ancestor.
    bool widened = false;
    // The entry's path with its symlinks resolved (Entry::resolved), when
    // that is another spelling: rules and deny entries are compared in both.
    std::string resolved;
    // A literal deny entry strictly below a read-only rule (a read root, a
    // read-only workspace), spelled under `path`: PlanLandlock lists them,
    // and CreateRuleset keeps them out by granting the entries around them
    // instead of `path` whole, where it can (the top of this file).
    struct KeepOut {
      std::string path;
      std::string key;    // "filesystem.deny[0]"
      std::string value;  // the deny entry as the policy has it
    };
    std::vector<KeepOut> keep_out;
    // Set by CreateRuleset: the paths of keep_out it kept out (a path below
    // another kept out is kept out with it). Empty when `path` was granted
    // whole.
    std::vector<std::string> kept_out;
  };
  std::vector<PathRule> paths;
  std::vector<uint16_t> connect_ports;  // when handled_net has CONNECT_TCP
  // What the ruleset does not express, one line each, for --verbose and the
  // docs' promise that it is said, not hidden.
  std::vector<std::string> approximations;
};

// Files klaunch's own machinery in the program needs whatever the policy
// says: the effective policy the shim loads, and the shim itself. (The
// audit log is not among them: only klaunch writes it.)
struct LandlockExtras {
  std::vector<std::string> read_files;
};

// The plan for `policy` on a kernel of `abi` (>= 1).
LandlockPlan PlanLandlock(const Policy& policy, int abi,
                          const LandlockExtras& extras);

// Creates the ruleset (in klaunch, where allocating is safe) and returns its
// descriptor, close-on-exec. Paths that do not exist are skipped (a missing
// write root grants its nearest existing ancestor creation instead) and
// said in `plan->approximations`. A rule with `keep_out` is granted entry by
// entry around them where it can (lists the directories on the way, sets
// `kept_out`), else whole, and which is said too.
absl::StatusOr<int> CreateRuleset(LandlockPlan* plan);

// In the child, after fork and before exec: no_new_privs, then the ruleset
// enforced on this process and all it starts. Returns 0 or -errno;
// async-signal-safe.
int RestrictSelf(int ruleset_fd);

// The plan of program section `section` (an index into policy.programs):
// PlanLandlock of SectionPolicy, scoping no signals (a section cannot speak
// of them, and the policy's own layer keeps them inside the sandbox).
LandlockPlan PlanSectionLandlock(const Policy& policy, int section, int abi,
                                 const LandlockExtras& extras);

// The rulesets a process that enters the program sections `sections`
// (indices into policy.programs, core/programs.h) stacks on the one it is
// under: one per section, planned from SectionPolicy, each to restrict with
// (RestrictSelf) in turn, planned by PlanSectionLandlock. Landlock keeps at
// most 16 layers.
absl::StatusOr<std::vector<int>> CreateSectionRulesets(
    const Policy& policy, absl::Span<const int> sections, int abi,
    const LandlockExtras& extras);

// True when Landlock applied from `plan` (after CreateRuleset) refuses
// every write `policy` refuses, so that a write carrying the shim's tag
// needs no judging (supervisor/seccomp_filter.h): writing is restricted (not
// asked about), no write root is granted wider than the policy's (a
// pattern, /proc, a missing root's ancestor), and no deny entry nor
// klaunch.read_only entry of the policy or a program section lies at,
// below or above a write root.
bool LandlockEnforcesWrites(const LandlockPlan& plan, const Policy& policy);

// True when Landlock applied from `plan` (after CreateRuleset) refuses
// every read `policy` refuses, the reads that matter most to a program that
// forged the shim's tag: no rule that grants reading is granted wider than
// its entry (a pattern, /proc, a missing write root's ancestor), and every
// `filesystem.deny` entry of the policy or of a program section that lies
// at or below a rule granting reading (a read root, the workspace, a write
// root, klaunch's own files) was kept out of it by expansion (`kept_out`),
// and none lies above such a rule. A pattern deny entry that meets a rule
// makes it false. klaunch.read_only entries play no part: they are read as
// the lists say, only never written. "Reads" are opening files for reading
// and executing them: the names inside a kept-out directory stay listable
// (the top of this file). A program section's own read roots are planned
// into a layer of their own, which this does not look at, so a section's
// deny entry must be kept out of this plan too.
bool LandlockEnforcesReads(const LandlockPlan& plan, const Policy& policy);

// True when `plan` keeps signals inside the sandbox (ABI 6+).
bool LandlockScopesSignals(const LandlockPlan& plan);

// "landlock ABI 7 (files, TCP connect, scopes)" and the like.
std::string DescribeLandlock(const LandlockPlan& plan);

}  // namespace klaunch

#endif  // KLAUNCH_CORE_LANDLOCK_H_
