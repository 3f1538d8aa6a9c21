// The seccomp filter klaunch installs in the program before its first exec.
//
// Built with libseccomp in klaunch (where allocating is safe) from the one
// table of system calls (syscall_table.h), and exported as classic BPF; the
// child only loads the bytes, with no_new_privs, asking the kernel for the
// listener descriptor the supervisor reads. What the filter does with a
// call is what its table entry says:
//
//   - let through (kAllow), refused with its errno (kRefused), refused
//     with EPERM unless `system.allow` names its group (kRootPower), let
//     through but for the argument values it refuses (kFiltered);
//   - judged (kJudged): sent to the supervisor, unless the call carries
//     the shim's cookie (core/seccomp_tag.h) and its family's rule lets a
//     tagged call skip the supervisor. The cookie buys speed, not trust
//     (the program can read it), so a tagged call skips the supervisor
//     only where Landlock enforces the policy's answer for it anyway:
//       looks, O_PATH opens             always (SECURITY.md says what a
//                                       forged tag sees of them)
//       opens for reading               where Landlock restricts reads
//                                       (FilterSettings::reads_floor)
//       opens that may write, changes   where Landlock is exact for the
//       to names                        policy's writes (FilterSettings)
//       attributes, exec, network,      never
//       the cookie query
//       signals and other processes     where Landlock's signal scope holds
//                                       (other processes by pid: never,
//                                       unless the call names the caller)
//   - every number the table does not name, and every call of another ABI
//     (i386, x32), is refused with ENOSYS: unknown means no.
//
// The rules are written with libseccomp's comparison structs (seccomp.h),
// but the BPF is emitted here (filter_emit.h): libseccomp took 3 to 7 ms
// of klaunch's start to compile them. The tests compile the same rules
// with libseccomp and hold the two programs to the same answer for every
// call (seccomp_filter_test.cc).
//
// This module builds and loads; the supervisor (supervisor.h) answers.

#ifndef KLAUNCH_SUPERVISOR_SECCOMP_FILTER_H_
#define KLAUNCH_SUPERVISOR_SECCOMP_FILTER_H_

#include <linux/filter.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/policy.h"
#include "supervisor/filter_emit.h"

namespace klaunch {

// A random 64-bit cookie, never 0 and never a value a call returns as an
// error (so the shim can tell it from ENOSYS).
uint64_t MakeCookie();

// What the filter may let a tagged call skip, from what Landlock enforces
// for the whole run (core/landlock.h, LandlockExactness). All false: every
// call of a judged family that may change something goes to the
// supervisor, tagged or not.
struct FilterSettings {
  uint64_t cookie = 0;
  // Landlock restricts what the run reads (a ruleset is in force), or the
  // run enforces nothing (audit mode). False: a tagged open for reading
  // goes to the supervisor too, so without Landlock a forged tag reads
  // nothing the policy refuses (each read open then costs a round trip).
  bool reads_floor = false;
  // Landlock refuses every write the policy (and each program section)
  // refuses: no deny entry or klaunch.read_only inside a write root, no
  // write root it widens (a pattern, a missing directory), and writes
  // are not asked about.
  bool writes_exact = false;
  // Landlock handles truncate (ABI 3+), so truncate(2) is among the writes
  // it enforces.
  bool truncate_right = false;
  // Landlock keeps signals inside the run (ABI 6+, not lifted by
  // system.allow "signals"): signals need no judging.
  bool signals_scoped = false;
};

// The rules for `settings` and `policy`'s system.allow: every number from 0
// to the table's last, in order (a number the table does not name has one
// rule, ENOSYS).
absl::StatusOr<std::vector<CallRules>> FilterRules(
    const FilterSettings& settings, const Policy& policy);

// The filter for `settings` and `policy`'s system.allow, as BPF
// instructions: EmitFilter(FilterRules(...)).
absl::StatusOr<std::vector<sock_filter>> BuildFilter(
    const FilterSettings& settings, const Policy& policy);

// Whether the filter lets a tagged `open` or `openat` (`nr`) with `flags`
// skip the supervisor because it cannot write: it reads where the run has
// a read floor (FilterSettings::reads_floor), or it opens O_PATH. Such a
// call reaches, whatever its name, what a forged tag reaches (SECURITY.md),
// so the supervisor lets an untagged one it judged go on to the kernel
// (supervise_open.cc). openat2 and creat never: openat2's flags are in
// memory the program may rewrite after they were judged.
bool ATaggedOpenSkipsAsAReader(bool reads_floor, long nr, uint64_t flags);

// The flags the filter is loaded with, and whether the kernel takes them:
// SECCOMP_FILTER_FLAG_NEW_LISTENER, and SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
// (Linux 5.19+), without which an exec cannot be checked after the fact
// (supervise_exec.cc). False, with `why`, when the kernel lacks the latter.
bool FilterCanWaitKillable(std::string* why);

// In the child, after fork: sets no_new_privs and loads `program`. Returns
// the listener descriptor, or -errno. Async-signal-safe (no allocation).
int LoadFilter(absl::Span<const sock_filter> program, bool wait_killable);

// True when this kernel can take a filter with a listener (seccomp user
// notification); `why` says what is missing otherwise.
bool SeccompAvailable(std::string* why);

}  // namespace klaunch

#endif  // KLAUNCH_SUPERVISOR_SECCOMP_FILTER_H_
