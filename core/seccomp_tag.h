// The contract between the shim and the seccomp filter klaunch installs.
//
// The shim's raw system calls carry a per-run cookie in the sixth argument
// register (r9 on x86_64), which none of the filtered calls uses; the filter
// lets a call carrying it through without asking the supervisor. The shim
// gets the cookie by making kCookieQuerySyscall, a call the kernel does not
// implement: the filter sends it to the supervisor, which answers with the
// cookie only when the call was made from the shim's own code (its
// instruction pointer lies in an executable mapping of the shim's file).
// The cookie is never in the environment or a file. It buys speed, not
// trust: the program can read it, so the filter lets a tagged call skip
// the supervisor only where Landlock enforces the policy's answer anyway
// (supervisor/syscall_table.h, "What a tag buys" in docs/design.md). The same
// call carries the shim's other requests to klaunch (below), made with or
// without the cookie: they always reach the supervisor.
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
// chain it keeps for the process (supervisor/chain_cgroups.h) has a section
// the shim's lacks: a process that dropped KLAUNCH_PROGRAMS from its
// environment gets no tagged calls, so every call of its is judged by the
// supervisor, under its sections.
inline constexpr long kCookieRequest = 0x636f6f6b;  // "cook"

// The same call with this first argument, arg1 and arg2 the address and
// length of a record request (core/audit.h): klaunch writes the shim's
// refusal to the audit log, naming the sender as the kernel names it. 0, or
// -errno when the record could not be written (klaunch counts it lost).
// The shim never holds the log: a descriptor of it in the program's
// process could be taken by another thread and the log rewritten.
inline constexpr long kRecordReport = 0x7265636f;  // "reco"

// The same call with this first argument, arg1 and arg2 the address and
// size of a buffer: klaunch answers the effective policy's length and, when
// it fits, writes the policy (TOML) into the buffer. The shim loads its
// policy so, with no descriptor of klaunch's files in the program's
// process; without the seccomp layer (ENOSYS) it reads KLAUNCH_POLICY_FILE.
inline constexpr long kPolicyRequest = 0x706f6c69;  // "poli"

// The same call with this first argument, arg1 and arg2 the address and
// length of a question request (core/ask.h): klaunch puts it to the person
// at the terminal for the process the kernel names. The answer is the
// call's value: 'y', 'n', or 'r' (refused without asking).
inline constexpr long kAskRequest = 0x61736b71;  // "askq"

// The same call with this first argument, made by the shim just before an
// exec that enters program sections (core/programs.h), arg1 and arg2 the
// text and length of the chain the program will run under ("0,2"): klaunch
// moves the process into that chain's cgroup (supervisor/chain_cgroups.h),
// so that the supervisor judges it and its descendants under the chain.
// ENOSYS: klaunch keeps no such cgroups (or there is no seccomp layer).
inline constexpr long kSectionEnter = 0x73656374;  // "sect"

}  // namespace klaunch

#endif  // KLAUNCH_CORE_SECCOMP_TAG_H_
