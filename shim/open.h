// The open family, shared by the wrappers of open.cc and those built on it
// (fopen, opendir, the exec family's script check).

#ifndef KLAUNCH_SHIM_OPEN_H_
#define KLAUNCH_SHIM_OPEN_H_

#include <sys/types.h>

namespace klaunch::shim {

// Judges and performs openat(dirfd, path, flags, mode) as the kernel would,
// with no side effect on a refused path. Returns the descriptor, or -1 with
// errno (EACCES for a refusal).
int OpenAt(const char* op, int dirfd, const char* path, int flags, mode_t mode);

// The open(2) flags of an fopen mode ("r", "w+", "ae", "wx", ...), or -1.
int FopenFlags(const char* mode);

}  // namespace klaunch::shim

#endif  // KLAUNCH_SHIM_OPEN_H_
