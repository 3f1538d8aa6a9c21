// The contract between the shim and the seccomp filter klaunch installs.
//
// The shim's raw system calls carry a per-run cookie in the sixth argument
// register (r9 on x86_64), which none of the filtered calls uses; the filter
// lets a call carrying it through without asking the supervisor. The shim
// gets the cookie by making kCookieQuerySyscall, a call the kernel does not
// implement: the filter sends it to the supervisor, which answers with the
// cookie only when the call was made from the shim's own code (its
// instruction pointer lies in an executable mapping of the shim's file).
// The cookie is never in the environment or a file.
//
// This header owns only the numbers both sides must agree on.

#ifndef KLAUNCH_CORE_SECCOMP_TAG_H_
#define KLAUNCH_CORE_SECCOMP_TAG_H_

#include <sys/syscall.h>

namespace klaunch {

// The argument index (0-based) that carries the cookie.
inline constexpr int kCookieArgument = 5;

// "tuxcall": reserved, never implemented on x86_64 (ENOSYS natively).
inline constexpr long kCookieQuerySyscall = SYS_tuxcall;

// The cookie query itself has this first argument, arg1 and arg2 the text
// and length of the chain of program sections the shim judges under ("0,2";
// length 0 for none), arg3 1 when the shim will not ask again. The
// supervisor refuses the cookie (EPERM; recorded when arg3 is 1) when the
// chain it keeps for the process (launcher/chain_cgroups.h) has a section
// the shim's lacks: a process that dropped KLAUNCH_PROGRAMS from its
// environment gets no tagged calls, so every call of its is judged by the
// supervisor, under its sections.
inline constexpr long kCookieRequest = 0x636f6f6b;  // "cook"

// The same call with this first argument (and an errno second) reports that
// an audit record could not be written (a full disk), so that klaunch can
// say the log is incomplete instead of leaving a silent gap.
inline constexpr long kLostRecordReport = 0x6c6f7374;  // "lost"

// The same call with this first argument, made by the shim just before an
// exec that enters program sections (core/programs.h), arg1 and arg2 the
// text and length of the chain the program will run under ("0,2"): klaunch
// moves the process into that chain's cgroup (launcher/chain_cgroups.h),
// so that the supervisor judges it and its descendants under the chain.
// ENOSYS: klaunch keeps no such cgroups (or there is no seccomp layer).
inline constexpr long kSectionEnter = 0x73656374;  // "sect"

}  // namespace klaunch

#endif  // KLAUNCH_CORE_SECCOMP_TAG_H_
