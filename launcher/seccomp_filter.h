// The seccomp filter klaunch installs in the program before its first exec.
//
// Built with libseccomp in klaunch (where allocating is safe) and exported as
// classic BPF; the child only loads the bytes, with no_new_privs, asking the
// kernel for the listener descriptor the supervisor reads. What the filter
// does with each call:
//
//   - path, exec and network calls (the list in docs/design.md, "The seccomp
//     layer") go to the supervisor unless they carry the cookie in the
//     argument core/seccomp_tag.h names; sendto only when it has an address;
//   - the cookie query always goes to the supervisor;
//   - calls that would get round every check are refused whatever the
//     policy: io_uring (ENOSYS), open_by_handle_at and name_to_handle_at,
//     ptrace, process_vm_readv/writev, userfaultfd, personality changes of
//     the ABI, and a new seccomp listener (EPERM); every non-native ABI
//     (i386 int 0x80, x32) gets ENOSYS;
//   - the powers of root that change what a path names or undo the sandbox
//     (mounts, chroot, pivot_root, new namespaces, modules, bpf, kexec,
//     reboot, ptrace) are refused (EPERM; clone3 ENOSYS, so that libc falls
//     back to clone, whose flags the filter can read) unless the policy's
//     `system.allow` names their group;
//   - everything else is allowed.
//
// This module builds and loads; the supervisor (supervisor.h) answers.

#ifndef KLAUNCH_LAUNCHER_SECCOMP_FILTER_H_
#define KLAUNCH_LAUNCHER_SECCOMP_FILTER_H_

#include <linux/filter.h>

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/policy.h"

namespace klaunch {

// A random 64-bit cookie, never 0 and never a value a call returns as an
// error (so the shim can tell it from ENOSYS).
uint64_t MakeCookie();

// The filter for `cookie` and `policy`'s system.allow, as BPF instructions.
absl::StatusOr<std::vector<sock_filter>> BuildFilter(uint64_t cookie,
                                                    const Policy& policy);

// In the child, after fork: sets no_new_privs and loads `program`. Returns
// the listener descriptor, or -errno. Async-signal-safe (no allocation).
int LoadFilter(const std::vector<sock_filter>& program);

// True when this kernel can take a filter with a listener (seccomp user
// notification); `why` says what is missing otherwise.
bool SeccompAvailable(std::string* why);

}  // namespace klaunch

#endif  // KLAUNCH_LAUNCHER_SECCOMP_FILTER_H_
