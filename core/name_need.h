// What a call on a directory entry needs of its name, and the error the
// kernel answers when the name fails that need: it looks the name up before
// it checks any permission, so `mkdir` of an existing name is EEXIST and
// `unlink` of a missing one ENOENT in a directory nobody may write.
//
// The shim and the supervisor answer so where the program may see the name
// (no deny entry covers it), without judging or recording the call: it
// would change nothing, natively or under the policy, and a refusal (EACCES)
// is kept for what the native call would have done. Where the name is
// denied, the refusal stands, so nothing about a denied name leaks.

#ifndef KLAUNCH_CORE_NAME_NEED_H_
#define KLAUNCH_CORE_NAME_NEED_H_

#include <cerrno>

namespace klaunch {

enum class NameNeed {
  kAny,       // open with O_CREAT, rename's target: either is fine
  kExisting,  // unlink, rmdir, rename's and link's source
  kNew,       // mkdir, mknod, symlink, link's new name, O_CREAT|O_EXCL,
              // rename's target under RENAME_NOREPLACE
};

// The kernel's answer before its permission checks: ENOENT, EEXIST, or 0
// when it would go on to them.
inline int ErrorBeforePermission(NameNeed need, bool exists) {
  if (need == NameNeed::kExisting && !exists) return ENOENT;
  if (need == NameNeed::kNew && exists) return EEXIST;
  return 0;
}

}  // namespace klaunch

#endif  // KLAUNCH_CORE_NAME_NEED_H_
