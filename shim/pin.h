// The two shapes of a path-taking call, judged once each:
//
//   AtName:   the call acts on a name (unlink, mkdir, lstat, readlink...): the
//             directory is pinned and the call is made relative to it.
//   AtObject: the call acts on what the path resolves to (chmod, truncate,
//             stat, access...): the object is pinned and the call is made
//             through /proc/self/fd/N.
//
// Either way the object judged is the object used. `act` receives the
// (dirfd, path) to use and returns the kernel's result (-errno on failure);
// called while the shim loads its policy, the call is passed through.

#ifndef KLAUNCH_SHIM_PIN_H_
#define KLAUNCH_SHIM_PIN_H_

#include <fcntl.h>

#include <cstdio>
#include <cstring>

#include "core/name_need.h"
#include "shim/judge.h"
#include "shim/resolve.h"
#include "shim/state.h"
#include "shim/sys.h"

namespace klaunch::shim {

inline long Failed(long err) {
  errno = static_cast<int>(-err);
  return -1;
}

template <typename Act>
long AtObjectIn(const Scope& scope, const char* op, Access access, int dirfd,
                const char* path, bool follow, bool empty_path, Act act) {
  PinnedObject obj;
  int r = PinObject(dirfd, path, follow, &obj, empty_path);
  if (r < 0) {
    if (!AllowMissing(op, access, dirfd, path)) return -1;
    return Failed(r);
  }
  if (!AllowObject(op, access, obj.path, dirfd, empty_path ? "" : path)) {
    return -1;
  }
  scope.RestoreErrno();
  return Ret(act(AT_FDCWD, obj.proc, obj.fd));
}

template <typename Act>
long AtObject(const char* op, Access access, int dirfd, const char* path,
              bool follow, Act act, bool empty_path = false) {
  Scope scope;
  if (scope.nested() || path == nullptr) return Ret(act(dirfd, path, -1));
  return AtObjectIn(scope, op, access, dirfd, path, follow, empty_path, act);
}

// The kernel's answer for a name that fails `need` (missing where the call
// needs it, present where the call makes it), given before it checks any
// permission: 0 when the call is to be judged, or when the program may not
// see the name (a deny entry's refusal then stands).
inline int NativeNameError(const PinnedParent& p, NameNeed need) {
  if (need == NameNeed::kAny) return 0;
  struct stat st;
  const long s = sys(SYS_newfstatat, p.fd, p.last, &st, AT_SYMLINK_NOFOLLOW);
  if (s != 0 && s != -ENOENT) return 0;
  const int e = ErrorBeforePermission(need, s == 0);
  return e != 0 && MaySee(p.path) ? e : 0;
}

// How a call treats a final "name/": a lookup (lstat, readlink, the
// AT_SYMLINK_NOFOLLOW forms) follows a symlink there; a call on the
// directory entry itself (mkdir, rmdir, unlink, mknod, symlink) never does,
// the slash only asks for a directory, so the name is judged and handed to
// the kernel as it is (git init makes ".git/" it just made, and wants
// EEXIST; rmdir("d/") must remove d).
enum class Slash { kFollows, kEntry };

template <typename Act>
long AtName(const char* op, Access access, int dirfd, const char* path, Act act,
            Slash slash = Slash::kFollows, NameNeed need = NameNeed::kAny) {
  Scope scope;
  if (scope.nested() || path == nullptr) return Ret(act(dirfd, path));
  PinnedParent parent;
  int r = PinParent(dirfd, path, &parent);
  if (r < 0) {
    if (!AllowMissing(op, access, dirfd, path)) return -1;
    return Failed(r);
  }
  const size_t last_len = strlen(parent.last);
  if (slash == Slash::kFollows && last_len > 0 &&
      parent.last[last_len - 1] == '/') {
    // "name/" makes the kernel follow a final symlink even for calls that
    // otherwise act on the name: judge and act on what it resolves to.
    PinnedObject obj;
    if (PinObject(dirfd, path, true, &obj) == 0) {
      if (!AllowPath(op, access, obj.path)) return -1;
      char through[48];
      snprintf(through, sizeof(through), "%s/", obj.proc);
      scope.RestoreErrno();
      return Ret(act(AT_FDCWD, through));
    }
  }
  if (parent.dot_last) {
    // "dir/." or "..": the name is the directory itself; judge it and let
    // the kernel give its own answer (EINVAL, EBUSY, ENOTEMPTY...).
    PinnedObject obj;
    if (PinObject(dirfd, path, true, &obj) == 0 &&
        !AllowPath(op, access, obj.path)) {
      return -1;
    }
    scope.RestoreErrno();
    return Ret(act(dirfd, path));
  }
  if (const int e = NativeNameError(parent, need); e != 0) {
    return Failed(-e);
  }
  if (!AllowPath(op, access, parent.path)) return -1;
  scope.RestoreErrno();
  return Ret(act(parent.fd, parent.last));
}

// A *at call that takes AT_SYMLINK_NOFOLLOW and AT_EMPTY_PATH: on the name
// when it must not follow, else on the object (the descriptor itself for an
// empty path). `act(dirfd, path, flags)` gets the flags that fit where it
// acts: through /proc/self/fd/N the object is already the final one.
template <typename Act>
long AtFlags(const char* op, Access access, int dirfd, const char* path,
             int flags, Act act) {
  const bool empty =
      (flags & AT_EMPTY_PATH) && path != nullptr && *path == '\0';
  if ((flags & AT_SYMLINK_NOFOLLOW) && !empty) {
    return AtName(op, access, dirfd, path,
                  [&](int d, const char* n) { return act(d, n, flags); });
  }
  return AtObject(
      op, access, dirfd, path, true,
      [&](int d, const char* p, int fd) {
        return act(
            d, p,
            fd < 0 ? flags : flags & ~(AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW));
      },
      (flags & AT_EMPTY_PATH) != 0);
}

}  // namespace klaunch::shim

#endif  // KLAUNCH_SHIM_PIN_H_
