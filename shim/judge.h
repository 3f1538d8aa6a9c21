// Asking the engine, and what follows from its answer: the audit record, the
// optional line on stderr, errno, and in audit mode letting the call go on.
//
// Every wrapper funnels its decision through here, so a refusal means the
// same thing (EACCES, one JSON line with layer "shim") whichever libc entry
// point the program used.

#ifndef KLAUNCH_SHIM_JUDGE_H_
#define KLAUNCH_SHIM_JUDGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/engine.h"
#include "core/network.h"

struct sockaddr;

namespace klaunch::shim {

// True when the call may proceed (allowed, or audit mode). On refusal errno is
// EACCES. A path that names no filesystem object ("" from FdPath) is allowed:
// it is something the process already holds (a pipe, a socket).
bool AllowPath(const char* op, Access access, const char* path);

// Moving the directory `path` (already judged as a write): refused when a
// deny entry would lose what it covers below it.
bool AllowMove(const char* op, const char* path);

// AllowPath for an object the program opened through `written` (relative to
// `dirfd`) whose kernel path is `real`. An object without a filesystem path
// is allowed when it is one of this process's own descriptors
// (/proc/self/fd/N), and judged by `written` otherwise (/proc/PID/fd/N).
bool AllowObject(const char* op, Access access, const char* real, int dirfd,
                 const char* written);

// For a target that does not resolve (the call will fail anyway): true when
// the call may go on to fail natively, false (errno = EACCES, recorded) when
// a deny rule covers where it would have been, so that a missing file under
// a denied tree is indistinguishable from a present one.
bool AllowMissing(const char* op, Access access, int dirfd, const char* path);

// The source of a hard link, judged as a write (a second name lets writes
// through to it) and recorded with access "link", so that a learned policy
// does not widen writing for what programs copy when a link is refused.
bool AllowLinkSource(const char* op, const char* path);

// True when the program may look at `path` (no deny entry covers it): the
// kernel's own answer about the name may then be given (core/name_need.h).
bool MaySee(const char* path);

// `named`: the executable as named, directories resolved; `target`: what its
// final symlink resolves to ("" when none).
// `links`: the symlinks between them, which deny rules match too.
bool AllowCommand(const char* op, const char* named, const char* target,
                  absl::Span<const absl::string_view> argv,
                  const std::vector<std::string>& links = {});

// Only the deny rules, for a line the kernel runs for the program (a
// script's interpreter line).
bool AllowInterpreterLine(const char* op, const char* named, const char* target,
                          const std::vector<std::string>& argv);

// A connect, sendto or sendmsg to an IP destination (core/destination.h).
// `hint` gets the name that admitted it, if a name did, for the
// supervisor to check ("" otherwise).
bool AllowIp(const char* op, const IpAddress& ip, uint16_t port, char* hint,
             size_t hint_size);
bool AllowAbstractUnix(const char* op, const char* name, unsigned len);

// Records what a process resolved a name to, so that a connect to one of
// those addresses is judged by the name.
void RememberName(const char* name, int family, const void* addr);

// Refuses outright (no engine consulted): for calls the shim cannot judge.
bool Refuse(const char* op, const char* target, const char* why);

}  // namespace klaunch::shim

#endif  // KLAUNCH_SHIM_JUDGE_H_
