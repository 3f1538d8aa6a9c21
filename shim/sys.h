// Raw system calls for the shim: the calls the shim makes after judging, and
// the ones it needs to judge (O_PATH opens, readlink of /proc/self/fd/N).
//
// They go straight to the kernel, never through an interposable libc symbol,
// so the shim cannot recurse into itself and another preload cannot stand
// between a decision and its use. Each returns the result or -errno, like the
// kernel; `Ret` converts to the libc convention (-1 and errno). They carry
// the seccomp tag (core/seccomp_tag.h), so the filter lets them through
// without a round trip to the supervisor: only calls the shim has judged,
// or needs in order to judge, may be made through here.
//
// Async-signal-safe: no allocation, no locks, no errno writes (but Ret's).

#ifndef KLAUNCH_SHIM_SYS_H_
#define KLAUNCH_SHIM_SYS_H_

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace klaunch::shim {

// The seccomp cookie (core/seccomp_tag.h); 0 until the supervisor has given
// it, or when klaunch runs without the seccomp layer.
extern unsigned long g_cookie;

// Set on a thread about to vfork (shim/exec.cc): its child runs on this
// thread's stack and TLS, in the parent's memory, so the shim judges
// nothing there and tags nothing; every call goes to the supervisor.
// Cleared by the parent's next Scope, which finds its own pid again.
extern __thread bool t_vfork_pending __attribute__((tls_model("initial-exec")));

// A call with at most five arguments, tagged: the cookie is loaded into the
// sixth argument register inside the asm and cleared after the call, so it
// never sits in another register or on the stack, and a later untagged call
// cannot inherit it from r9.
inline long sys_call5(long nr, long a, long b, long c, long d, long e) {
#if defined(__x86_64__)
  long ret;
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  __asm__ volatile(
      "movq %[cookie], %%r9\n\t"
      "syscall\n\t"
      "xorl %%r9d, %%r9d"
      : "=a"(ret)
      : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10),
        "r"(r8), [cookie] "m"(g_cookie)
      : "rcx", "r11", "r9", "memory");
  return ret;
#else
#error "the shim's raw system calls are written for x86_64"
#endif
}

// A call that needs all six arguments: untagged, so only for calls the
// filter does not send to the supervisor (sendto without an address).
inline long sys_call6(long nr, long a, long b, long c, long d, long e, long f) {
  long ret;
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  register long r9 __asm__("r9") = f;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return ret;
}

template <typename A = long, typename B = long, typename C = long,
          typename D = long, typename E = long>
inline long sys(long nr, A a = 0, B b = 0, C c = 0, D d = 0, E e = 0) {
  if (__builtin_expect(t_vfork_pending, false)) {
    return sys_call6(nr, (long)a, (long)b, (long)c, (long)d, (long)e, 0);
  }
  return sys_call5(nr, (long)a, (long)b, (long)c, (long)d, (long)e);
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
