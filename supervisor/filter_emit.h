// Classic BPF from a seccomp filter's rules, emitted by klaunch itself.
//
// The rules are libseccomp's comparison structs (seccomp.h), so that the
// rules read as libseccomp's would and the tests can compile the same
// rules with libseccomp as the reference (seccomp_filter_test.cc). The
// emitted program checks the ABI, finds the call by a binary search on its
// number, and tries the call's rules in order: the first whose comparisons
// all hold gives the answer, and a call with none that holds is let
// through. Comparisons are of the whole 64-bit argument, as libseccomp's
// are on x86-64; a masked one compares (argument & mask) with
// (value & mask), as libseccomp's compiler does. A comparison consecutive
// rules share is made once, and the bits consecutive rules test for
// different values are loaded once (the kernel checks and compiles every
// instruction as each run starts).
//
// This module owns the translation only: which rules a call has is
// seccomp_filter.cc's, what each call is, syscall_table.cc's.

#ifndef KLAUNCH_SUPERVISOR_FILTER_EMIT_H_
#define KLAUNCH_SUPERVISOR_FILTER_EMIT_H_

#include <linux/filter.h>
#include <seccomp.h>

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"

namespace klaunch {

// One rule of a call: `action` (a SECCOMP_RET_* value) when every
// comparison holds. A call's rules of different actions must never match
// the same arguments (libseccomp does not say which would win); the first
// that matches answers.
struct FilterRule {
  uint32_t action = 0;
  std::vector<scmp_arg_cmp> cmp;
};

// One call number and its rules; none: the call is let through.
struct CallRules {
  int nr = 0;
  const char* name = "";
  std::vector<FilterRule> rules;
};

// The program for x86-64: another ABI (i386, x32) and every number past
// the last of `calls` get ENOSYS; `calls` must name every number from 0
// up, in order. Comparisons of another kind than ==, !=, >= and masked ==
// are an error, as is a program longer than the kernel takes.
absl::StatusOr<std::vector<sock_filter>> EmitFilter(
    const std::vector<CallRules>& calls);

}  // namespace klaunch

#endif  // KLAUNCH_SUPERVISOR_FILTER_EMIT_H_
