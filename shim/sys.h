// Raw system calls for the shim: the calls the shim makes after judging, and
// the ones it needs to judge (O_PATH opens, readlink of /proc/self/fd/N).
//
// They go straight to the kernel, never through an interposable libc symbol,
// so the shim cannot recurse into itself and another preload cannot stand
// between a decision and its use. Each returns the result or -errno, like the
// kernel; `Ret` converts to the libc convention (-1 and errno). The seccomp
// layer will recognise these calls by a tag carried in an unused argument.
//
// Async-signal-safe: no allocation, no locks, no errno writes (but Ret's).

#ifndef KLAUNCH_SHIM_SYS_H_
#define KLAUNCH_SHIM_SYS_H_

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace klaunch::shim {

inline long sys_call6(long nr, long a, long b, long c, long d, long e,
                      long f) {
#if defined(__x86_64__)
  long ret;
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  register long r9 __asm__("r9") = f;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8),
                     "r"(r9)
                   : "rcx", "r11", "memory");
  return ret;
#else
  const int saved = errno;
  long ret = syscall(nr, a, b, c, d, e, f);
  if (ret == -1) ret = -errno;
  errno = saved;
  return ret;
#endif
}

template <typename A = long, typename B = long, typename C = long,
          typename D = long, typename E = long, typename F = long>
inline long sys(long nr, A a = 0, B b = 0, C c = 0, D d = 0, E e = 0,
                F f = 0) {
  return sys_call6(nr, (long)a, (long)b, (long)c, (long)d, (long)e, (long)f);
}

// The libc convention: -1 with errno for a failure, the value otherwise.
inline long Ret(long r) {
  if (r < 0 && r > -4096) {
    errno = static_cast<int>(-r);
    return -1;
  }
  return r;
}

inline long sys_openat(int dirfd, const char* path, int flags, unsigned mode) {
  return sys(SYS_openat, dirfd, path, flags, mode);
}
inline long sys_close(int fd) { return sys(SYS_close, fd); }
inline long sys_readlinkat(int dirfd, const char* path, char* buf,
                           unsigned long size) {
  return sys(SYS_readlinkat, dirfd, path, buf, size);
}

}  // namespace klaunch::shim

#endif  // KLAUNCH_SHIM_SYS_H_
