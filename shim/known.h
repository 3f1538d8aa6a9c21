// The objects this process has already been allowed to read or look at, so
// that opening or stat-ing them again costs one statx instead of a readlink
// of /proc/self/fd/N and an Engine decision.
//
//   ObjectId id;
//   if (IdOfFd(fd, &id) && Known(id, Access::kRead)) return fd;  // judged
//   ... judge `real`; if allowed: Remember(id, Access::kRead, real);
//
// An object is named by its mount, inode and change time. Only objects with
// one path are remembered (directories, files with a single link, not under
// /proc, whose entries mean a different process in a child): for them "the
// object" and "its path" are the same question, and a rename or a new link
// changes the change time, so the memo never answers for a path it has not
// judged. Only allowed decisions are kept; a refusal is judged (and
// recorded) every time. Nothing here decides: the Engine did, once.
//
// A fixed table of keyed 64-bit tags (SipHash under a per-process random
// key): no allocation, no locks, lossy by design; safe in signal handlers
// and after fork (a child inherits what its parent was allowed).

#ifndef KLAUNCH_SHIM_KNOWN_H_
#define KLAUNCH_SHIM_KNOWN_H_

#include <cstdint>

#include "core/engine.h"

struct stat;
struct statx;

namespace klaunch::shim {

struct ObjectId {
  uint64_t mount = 0;
  uint64_t inode = 0;
  int64_t ctime_sec = 0;
  uint32_t ctime_nsec = 0;
  uint32_t dev_major = 0, dev_minor = 0;
  bool single_path = false;  // a directory, or a file with one link
};

// The id of what `sx` (from statx with STATX_BASIC_STATS | STATX_MNT_ID)
// describes; false when the kernel did not report what naming it needs.
bool IdOfStatx(const struct statx& sx, ObjectId* out);
// statx of an open descriptor, then IdOfStatx.
bool IdOfFd(int fd, ObjectId* out);

// True when `id` was remembered for `access` in this process.
bool Known(const ObjectId& id, Access access);
// Remembers an allowed decision for `id` (ignored unless the object has a
// single path and lies outside the /proc mount).
void Remember(const ObjectId& id, Access access);

// False when nothing is remembered in this process, so callers can skip
// naming the object at all.
bool Remembering();

// True when `st` (from a stat of the object judged) describes `id`.
bool SameObject(const ObjectId& id, const struct stat& st);

// The key and the /proc mount: called once per process, at the shim's
// initialisation; without it nothing is remembered. Nor in audit mode, where
// a call that proceeded may have been a would-deny, which must be recorded
// each time as enforcement would refuse it each time.
void InitKnown(bool audit);

}  // namespace klaunch::shim

#endif  // KLAUNCH_SHIM_KNOWN_H_
