#include "launcher/seccomp_filter.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/policy.h"
#include "core/seccomp_tag.h"

namespace klaunch {
namespace {

// Calls the supervisor judges unless the shim made them. Numbers rather
// than names where Debian's libseccomp predates the call.
constexpr const char* kSupervised[] = {
    "open",       "openat",     "openat2",     "creat",        "execve",
    "execveat",   "connect",    "bind",        "sendmsg",      "sendmmsg",
    "unlink",     "unlinkat",   "rename",      "renameat",     "renameat2",
    "mkdir",      "mkdirat",    "rmdir",       "link",         "linkat",
    "symlink",    "symlinkat",  "truncate",    "chmod",        "fchmodat",
    "fchmod",     "chown",      "lchown",      "fchownat",     "fchown",
    "mknod",      "mknodat",    "utimensat",   "utime",        "utimes",
    "futimesat",  "setxattr",   "lsetxattr",   "fsetxattr",    "removexattr",
    "lremovexattr", "fremovexattr",
    // Looks by name (launcher/supervise_stat.cc).
    "stat",       "lstat",      "access",      "faccessat",    "readlink",
    "readlinkat",
};

// Looks that may also act on a descriptor alone (AT_EMPTY_PATH): asked
// about unless they carry that flag on a real descriptor, since libc's
// fstat is newfstatat(fd, "", AT_EMPTY_PATH) and would otherwise cost every
// process a round trip per fstat. The flags' argument index, by name.
struct FlaggedLook {
  const char* name;
  unsigned flags_arg;
};
constexpr FlaggedLook kFlaggedLooks[] = {
    {"newfstatat", 3}, {"statx", 2}, {"faccessat2", 3}};
constexpr long kFchmodat2 = 452;

struct Refusal {
  const char* name;
  int error;
};
constexpr Refusal kRefused[] = {
    // io_uring opens and connects without system calls the filter sees.
    {"io_uring_setup", ENOSYS},
    {"io_uring_enter", ENOSYS},
    {"io_uring_register", ENOSYS},
    // A file handle names an object with no path to judge.
    {"open_by_handle_at", EPERM},
    {"name_to_handle_at", EPERM},
    // Stalls the kernel mid-copy, widening every window.
    {"userfaultfd", EPERM},
};

// The powers of a root program that change what a path names or undo the
// sandbox, refused unless `system.allow` names their group. Numbers where
// Debian's libseccomp may not know the call.
struct GroupCall {
  const char* group;
  const char* name;
  int nr;  // used when libseccomp does not know `name`
};
constexpr GroupCall kGroupCalls[] = {
    {"mount", "mount", -1},         {"mount", "umount2", -1},
    {"mount", "open_tree", 428},    {"mount", "move_mount", 429},
    {"mount", "fsopen", 430},       {"mount", "fsconfig", 431},
    {"mount", "fsmount", 432},      {"mount", "fspick", 433},
    {"mount", "mount_setattr", 442}, {"mount", "pivot_root", -1},
    {"mount", "chroot", -1},        {"namespaces", "setns", -1},
    {"modules", "init_module", -1}, {"modules", "finit_module", -1},
    {"modules", "delete_module", -1}, {"bpf", "bpf", -1},
    {"kexec", "kexec_load", -1},    {"kexec", "kexec_file_load", -1},
    {"reboot", "reboot", -1},
    // Another process's registers and memory: a tracer could rewrite a call
    // after it was judged, or read the cookie.
    {"ptrace", "ptrace", -1},       {"ptrace", "process_vm_readv", -1},
    {"ptrace", "process_vm_writev", -1},
};
// Every CLONE_NEW* flag. CLONE_NEWTIME shares its bit with clone's exit
// signal, so it is checked for unshare only.
constexpr uint64_t kNewNamespaces[] = {0x00020000, 0x02000000, 0x04000000,
                                       0x08000000, 0x10000000, 0x20000000,
                                       0x40000000};
constexpr uint64_t kCloneNewTime = 0x00000080;
constexpr int kClone3 = 435;

class Context {
 public:
  Context() : ctx_(seccomp_init(SCMP_ACT_ALLOW)) {}
  ~Context() {
    if (ctx_ != nullptr) seccomp_release(ctx_);
  }
  scmp_filter_ctx get() const { return ctx_; }

 private:
  scmp_filter_ctx ctx_;
};

absl::Status Check(int rc, absl::string_view what) {
  if (rc == 0) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat("building the seccomp filter: ", what, ": ", strerror(-rc)));
}

int Number(const char* name) { return seccomp_syscall_resolve_name(name); }

}  // namespace

uint64_t MakeCookie() {
  uint64_t c = 0;
  while (c == 0 || c >= static_cast<uint64_t>(-4095)) {
    if (getrandom(&c, sizeof(c), 0) != sizeof(c)) c = 0;
  }
  return c;
}

absl::StatusOr<std::vector<sock_filter>> BuildFilter(uint64_t cookie,
                                                    const Policy& policy) {
  Context ctx;
  if (ctx.get() == nullptr) return absl::InternalError("seccomp_init failed");
  scmp_filter_ctx c = ctx.get();
  if (absl::Status s = Check(
          seccomp_attr_set(c, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ERRNO(ENOSYS)),
          "non-native ABIs");
      !s.ok()) {
    return s;
  }
  const scmp_arg_cmp untagged =
      SCMP_CMP64(kCookieArgument, SCMP_CMP_NE, cookie);
  for (const char* name : kSupervised) {
    const int nr = Number(name);
    if (nr < 0) {
      return absl::InternalError(
          absl::StrCat("libseccomp does not know the call ", name));
    }
    if (absl::Status s =
            Check(seccomp_rule_add_array(c, SCMP_ACT_NOTIFY, nr, 1, &untagged),
                  name);
        !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = Check(
          seccomp_rule_add_array(c, SCMP_ACT_NOTIFY, kFchmodat2, 1, &untagged),
          "fchmodat2");
      !s.ok()) {
    return s;
  }
  for (const FlaggedLook& look : kFlaggedLooks) {
    const int nr = Number(look.name);
    if (nr < 0) {
      return absl::InternalError(
          absl::StrCat("libseccomp does not know the call ", look.name));
    }
    // Rules of one call are alternatives: asked when the name is a name
    // (no AT_EMPTY_PATH), or when it is relative to the cwd (never an fstat).
    const scmp_arg_cmp by_name[] = {
        untagged, SCMP_CMP(look.flags_arg, SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, 0)};
    const scmp_arg_cmp at_cwd[] = {
        untagged, SCMP_CMP(0, SCMP_CMP_MASKED_EQ, 0xffffffffu,
                           static_cast<uint32_t>(AT_FDCWD))};
    for (const auto* rule : {by_name, at_cwd}) {
      if (absl::Status s = Check(
              seccomp_rule_add_array(c, SCMP_ACT_NOTIFY, nr, 2, rule),
              look.name);
          !s.ok()) {
        return s;
      }
    }
  }
  // sendto has six arguments and no room for the cookie; the shim sends to
  // addresses with sendmsg, so only sendto with an address is asked about.
  if (absl::Status s = Check(seccomp_rule_add(c, SCMP_ACT_NOTIFY,
                                              SCMP_SYS(sendto), 1,
                                              SCMP_A4_64(SCMP_CMP_NE, 0)),
                             "sendto");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = Check(
          seccomp_rule_add(c, SCMP_ACT_NOTIFY, kCookieQuerySyscall, 0),
          "the cookie query");
      !s.ok()) {
    return s;
  }
  for (const Refusal& r : kRefused) {
    if (absl::Status s = Check(
            seccomp_rule_add(c, SCMP_ACT_ERRNO(r.error), Number(r.name), 0),
            r.name);
        !s.ok()) {
      return s;
    }
  }
  // Input pushed into a terminal as though typed (TIOCSTI, and TIOCLINUX's
  // selection paste on a virtual console): a program could answer
  // klaunch's own questions at the terminal, or type commands into the
  // user's shell to run after klaunch exits. The kernel reads the request
  // as 32 bits, so only those are compared: the bits above cannot hide it.
  for (const uint32_t request : {TIOCSTI, TIOCLINUX}) {
    if (absl::Status s =
            Check(seccomp_rule_add(
                      c, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
                      SCMP_A1_64(SCMP_CMP_MASKED_EQ, 0xffffffffu, request)),
                  "ioctl TIOCSTI/TIOCLINUX");
        !s.ok()) {
      return s;
    }
  }
  for (const GroupCall& g : kGroupCalls) {
    if (SystemAllows(policy, g.group)) continue;
    int nr = Number(g.name);
    if (nr < 0) nr = g.nr;
    if (nr < 0) {
      return absl::InternalError(
          absl::StrCat("libseccomp does not know the call ", g.name));
    }
    if (absl::Status s =
            Check(seccomp_rule_add(c, SCMP_ACT_ERRNO(EPERM), nr, 0), g.name);
        !s.ok()) {
      return s;
    }
  }
  // clone3 passes its flags in memory the filter cannot read; glibc and
  // the others fall back to clone on ENOSYS, whose flags it can. Besides
  // new namespaces, clone3 can start a child in another cgroup
  // (CLONE_INTO_CGROUP, given a directory opened with O_PATH, which is a
  // mere look): out of the cgroup that holds a program section's chain for
  // the supervisor (launcher/chain_cgroups.h).
  if (!SystemAllows(policy, "namespaces") || !policy.programs.empty()) {
    if (absl::Status s = Check(
            seccomp_rule_add(c, SCMP_ACT_ERRNO(ENOSYS), kClone3, 0), "clone3");
        !s.ok()) {
      return s;
    }
  }
  if (!SystemAllows(policy, "namespaces")) {
    std::vector<std::pair<int, uint64_t>> checks;
    for (uint64_t flag : kNewNamespaces) {
      checks.push_back({SCMP_SYS(clone), flag});
      checks.push_back({SCMP_SYS(unshare), flag});
    }
    checks.push_back({SCMP_SYS(unshare), kCloneNewTime});
    for (const auto& [nr, flag] : checks) {
      if (absl::Status s = Check(
              seccomp_rule_add(c, SCMP_ACT_ERRNO(EPERM), nr, 1,
                               SCMP_A0_64(SCMP_CMP_MASKED_EQ, flag, flag)),
              "new namespaces");
          !s.ok()) {
        return s;
      }
    }
  }
  // personality: the low byte selects the ABI (PER_LINUX32, ...); the flags
  // above it (ADDR_NO_RANDOMIZE, ...) do not. 0xffffffff only asks, and is
  // told apart by bit 31, which no personality uses.
  for (int bit = 0; bit < 8; ++bit) {
    const uint32_t mask = 0x80000000u | (1u << bit);
    if (absl::Status s = Check(
            seccomp_rule_add(c, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(personality),
                             1, SCMP_A0_32(SCMP_CMP_MASKED_EQ, mask, 1u << bit)),
            "personality");
        !s.ok()) {
      return s;
    }
  }
  // A filter of the program's own with a listener could answer CONTINUE for
  // a call this filter sends to klaunch, and the kernel would run it
  // unjudged (linux/seccomp.h warns of exactly that).
  if (absl::Status s = Check(
          seccomp_rule_add(
              c, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(seccomp), 2,
              SCMP_A0_64(SCMP_CMP_EQ, SECCOMP_SET_MODE_FILTER),
              SCMP_A1_64(SCMP_CMP_MASKED_EQ, SECCOMP_FILTER_FLAG_NEW_LISTENER,
                         SECCOMP_FILTER_FLAG_NEW_LISTENER)),
          "seccomp listeners");
      !s.ok()) {
    return s;
  }

  const int fd = memfd_create("klaunch-bpf", MFD_CLOEXEC);
  if (fd < 0) return absl::InternalError("memfd_create failed");
  const int rc = seccomp_export_bpf(c, fd);
  std::vector<sock_filter> program;
  if (rc == 0) {
    const off_t size = lseek(fd, 0, SEEK_END);
    program.resize(size / sizeof(sock_filter));
    if (pread(fd, program.data(), program.size() * sizeof(sock_filter), 0) !=
        static_cast<ssize_t>(program.size() * sizeof(sock_filter))) {
      program.clear();
    }
  }
  close(fd);
  if (rc != 0 || program.empty()) {
    return absl::InternalError("exporting the seccomp filter failed");
  }
  return program;
}

int LoadFilter(const std::vector<sock_filter>& program) {
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -errno;
  sock_fprog prog{static_cast<unsigned short>(program.size()),
                  const_cast<sock_filter*>(program.data())};
  long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
  return fd < 0 ? -errno : static_cast<int>(fd);
}

bool SeccompAvailable(std::string* why) {
  unsigned action = SECCOMP_RET_USER_NOTIF;
  if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) != 0) {
    *why = absl::StrCat("the kernel has no seccomp user notification (",
                        strerror(errno), ")");
    return false;
  }
  return true;
}

}  // namespace klaunch
