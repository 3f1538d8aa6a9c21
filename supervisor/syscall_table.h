// Every x86_64 system call, and what the seccomp filter does with it: the
// one table the filter (seccomp_filter.cc) is built from, docs/syscalls.md
// is generated from (`klaunch syscalls`), and the tests check against the
// kernel's own numbering. A number the table does not name (a call newer
// than the table) is refused with ENOSYS: unknown means no.
//
//   for (const SyscallEntry& e : SyscallTable()) ...
//   const SyscallEntry* e = FindSyscall("openat");
//
// The i386 and x32 ABIs are not in the table: the filter refuses every call
// made through them (ENOSYS), whatever it is.
//
// This module owns the classification and the reason for each entry; it
// does not build BPF (seccomp_filter.h) nor judge (supervise.h).

#ifndef KLAUNCH_SUPERVISOR_SYSCALL_TABLE_H_
#define KLAUNCH_SUPERVISOR_SYSCALL_TABLE_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace klaunch {

// What happens to a call. Which entries a policy sends to the supervisor is
// decided per family (SyscallFamily) by the filter, from what Landlock
// enforces exactly for that policy (docs/design.md, "What a tag buys").
enum class SyscallHandling {
  // Let through unjudged: it names no file, address, program or other
  // process, or only ones the program already holds; `why` says which.
  kAllow,
  // Judged by the supervisor, unless it carries the shim's tag and the
  // family's tag rule lets it skip (SyscallFamily).
  kJudged,
  // Let through, but for the argument values the filter refuses (a new
  // namespace, a seccomp listener, an ABI change, a log-clearing syslog
  // action); `why` says which, and `group` the system.allow group that
  // lifts the refusal where there is one.
  kFiltered,
  // Refused with `error`, whatever the policy.
  kRefused,
  // A power that changes what paths name, undoes the sandbox or reaches
  // what the policy cannot name (another process's memory, the kernel's
  // keyrings, System V IPC): refused with EPERM unless the policy's
  // `system.allow` names `group`.
  kRootPower,
};

// The families of judged calls; each has one rule for what the tag buys.
enum class SyscallFamily {
  kNone,
  // Opens: a read-only open skips the supervisor when tagged; one that may
  // write (O_WRONLY, O_RDWR, O_CREAT, O_TRUNC; openat2, whose flags the
  // filter cannot read) skips it only where Landlock enforces the policy's
  // writes exactly.
  kOpen,
  // Looks by name (stat, access, readlink): skip the supervisor when
  // tagged (Landlock has no right for them: SECURITY.md lists what a
  // forged tag sees).
  kLook,
  // Changes to names (unlink, rename, mkdir, link, symlink, mknod,
  // truncate): skip the supervisor when tagged only where Landlock
  // enforces the policy's writes exactly.
  kMutate,
  // Changes to an object's attributes (mode, owner, times, extended
  // attributes): no Landlock right covers them, so always judged.
  kAttributes,
  // execve, execveat: always judged, and checked after the fact.
  kExec,
  // connect, bind, sendmsg, sendmmsg, and sendto with an address or
  // MSG_FASTOPEN: always judged (Landlock knows no hosts, UDP or Unix
  // paths), and performed by the supervisor.
  kNetwork,
  // Creating a socket: the filter admits the address families, types and
  // protocols the judge understands (socket_kinds), and refuses the rest.
  kSocket,
  // Signals and other calls that reach another process by pid: judged
  // (the target must belong to the run) unless Landlock's signal scope
  // holds; a call naming the caller itself (pid 0) is let through.
  kProcess,
  // ioctl: the requests that change a file are judged; the others pass.
  kIoctl,
  // The shim's query for the seccomp cookie (core/seccomp_tag.h).
  kCookie,
};

struct SyscallEntry {
  int nr;
  const char* name;
  SyscallHandling handling;
  SyscallFamily family;
  int error;          // kRefused: the errno
  const char* group;  // kRootPower, kFiltered: the system.allow group, or ""

  const char* why;  // one line: why it is harmless, judged or refused
};

// The whole table, ordered by number.
absl::Span<const SyscallEntry> SyscallTable();

// ioctl requests the filter does not simply let through, with what is done
// with each: judged as a write of the descriptor's object (kJudged),
// let through (kAllow: they act only on descriptors whose opens were
// judged), or refused with `error` (kRefused). Every other request of a
// filesystem's own ioctl types that is not a pure read ('f', 'X', 'v' and
// btrfs's 0x94: IsFilesystemIoctl) is refused too: unknown means no. The
// requests of every other type act on a descriptor whose open was judged
// (a device among them) and are let through.
struct IoctlEntry {
  uint32_t request;
  const char* name;
  SyscallHandling handling;
  int error;  // kRefused
  // kJudged: kAttributes for a change to the file, kProcess for a new
  // owner of its signals (FIOSETOWN, SIOCSPGRP).
  SyscallFamily family;
  const char* why;
};
absl::Span<const IoctlEntry> IoctlTable();
const IoctlEntry* FindIoctl(uint32_t request);

// True for a request of a filesystem's own ioctl types that writes or
// acts (not _IOR): the filter sends these to the supervisor, which judges
// those IoctlTable names and refuses the rest.
bool IsFilesystemIoctl(uint32_t request);
// The filesystem ioctl types ('f', 'X', 'v', 0x94).
absl::Span<const uint8_t> FilesystemIoctlTypes();

// The shim's interposed libc entry points (shim/libklaunch-shim.map) and
// the judged calls each makes for the program ("" for one that makes none
// of its own: a resolver call the shim only listens to, a fork). A test
// fails when the map exports a symbol this list lacks, or names a call the
// table does not judge.
struct ShimWrapper {
  const char* symbol;
  const char* calls;  // space-separated names of SyscallTable entries
};
absl::Span<const ShimWrapper> ShimWrappers();

// docs/syscalls.md: every entry of both tables, what the filter does with
// it and why (`klaunch syscalls` prints it; a test keeps the file in step).
std::string SyscallsMarkdown();

// The entry named `name` or numbered `nr`; null when the table has none.
const SyscallEntry* FindSyscall(absl::string_view name);
const SyscallEntry* FindSyscall(int nr);

}  // namespace klaunch

#endif  // KLAUNCH_SUPERVISOR_SYSCALL_TABLE_H_
