#include "supervisor/seccomp_filter.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/policy.h"
#include "core/seccomp_tag.h"
#include "supervisor/syscall_table.h"

// Linux 5.19+; Debian 12's headers may predate it.
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

namespace klaunch {
namespace {

// Rules for one call. Two rules of different actions never match the same
// arguments (filter_emit.h): each call's rules here are of one action, or
// disjoint.
class Rules {
 public:
  explicit Rules(CallRules* call) : call_(call) {}

  absl::Status Add(uint32_t action, std::initializer_list<scmp_arg_cmp> cmp) {
    call_->rules.push_back({action, std::vector<scmp_arg_cmp>(cmp)});
    return absl::OkStatus();
  }

 private:
  CallRules* call_;
};

#define KL_TRY(expr)                        \
  do {                                      \
    if (absl::Status s = (expr); !s.ok()) { \
      return s;                             \
    }                                       \
  } while (0)

// The kernel reads these arguments as 32 bits (an int, an unsigned int), so
// a rule that matches a value compares only those: the bits above cannot
// hide it.
scmp_arg_cmp Is32(unsigned arg, uint32_t value) {
  return SCMP_CMP64(arg, SCMP_CMP_MASKED_EQ, 0xffffffffu, value);
}
scmp_arg_cmp HasBits(unsigned arg, uint64_t bits) {
  return SCMP_CMP64(arg, SCMP_CMP_MASKED_EQ, bits, bits);
}

constexpr uint32_t kNotify = SCMP_ACT_NOTIFY;
constexpr uint32_t Errno(int e) { return SCMP_ACT_ERRNO(e); }

// The families' rules for a judged call (SyscallFamily in syscall_table.h).
absl::Status AddJudged(const SyscallEntry& e, Rules& r, const FilterSettings& s,
                       const Policy& policy) {
  const scmp_arg_cmp untagged =
      SCMP_CMP64(kCookieArgument, SCMP_CMP_NE, s.cookie);
  const absl::string_view name = e.name;
  switch (e.family) {
    case SyscallFamily::kOpen: {
      // A read-only open is Landlock's as well as the policy's where a
      // ruleset is in force; one that may write is tagged only where
      // Landlock refuses what it refuses. An O_PATH open reads nothing:
      // what its descriptor is used for (a reopen through /proc, an
      // openat below it) is judged on its own.
      KL_TRY(r.Add(kNotify, {untagged}));
      if (s.writes_exact) return absl::OkStatus();
      if (name == "creat" || name == "openat2") return r.Add(kNotify, {});
      const unsigned flags = name == "open" ? 1 : 2;
      if (!s.reads_floor) {
        KL_TRY(r.Add(kNotify, {SCMP_CMP64(flags, SCMP_CMP_MASKED_EQ,
                                          uint64_t{O_PATH}, 0)}));
      }
      for (uint64_t bit : {uint64_t{O_WRONLY}, uint64_t{O_RDWR},
                           uint64_t{O_CREAT}, uint64_t{O_TRUNC}}) {
        KL_TRY(r.Add(kNotify, {HasBits(flags, bit)}));
      }
      return absl::OkStatus();
    }
    case SyscallFamily::kLook: {
      // newfstatat, statx and faccessat2 on a descriptor with
      // AT_EMPTY_PATH are libc's fstat: asked about only when they name a
      // file (no AT_EMPTY_PATH) or start at the cwd.
      unsigned flags_arg = 0;
      if (name == "newfstatat" || name == "faccessat2") flags_arg = 3;
      if (name == "statx") flags_arg = 2;
      if (flags_arg == 0) return r.Add(kNotify, {untagged});
      KL_TRY(r.Add(kNotify, {untagged, SCMP_CMP64(flags_arg, SCMP_CMP_MASKED_EQ,
                                                  AT_EMPTY_PATH, 0)}));
      return r.Add(kNotify,
                   {untagged, Is32(0, static_cast<uint32_t>(AT_FDCWD))});
    }
    case SyscallFamily::kMutate:
      if (s.writes_exact && (name != "truncate" || s.truncate_right)) {
        return r.Add(kNotify, {untagged});
      }
      return r.Add(kNotify, {});
    case SyscallFamily::kAttributes:
    case SyscallFamily::kExec:
    case SyscallFamily::kCookie:
      return r.Add(kNotify, {});
    case SyscallFamily::kNetwork:
      if (name != "sendto") return r.Add(kNotify, {});
      // Without an address a send goes to the peer its connect judged
      // (the register cannot change after the filter read it); with one,
      // or with MSG_FASTOPEN (which connects), it is judged.
      KL_TRY(r.Add(kNotify, {SCMP_A4_64(SCMP_CMP_NE, 0)}));
      return r.Add(kNotify, {HasBits(3, MSG_FASTOPEN)});
    case SyscallFamily::kSocket: {
      // Only what the judge understands: Unix sockets, TCP and UDP over
      // IPv4 and IPv6, and the netlink protocols that report (routes,
      // sockets, devices, generic families). Raw and packet sockets and
      // ICMP's datagram sockets send where no address is judged: refused
      // unless system.allow has "raw-sockets".
      const bool raw_ok = SystemAllows(policy, "raw-sockets");
      constexpr int kFamilies = 64;  // AF_MAX is 46 today
      // Every family value with its high half set is refused by this
      // rule, so the family rules below compare all 64 bits: a value is
      // matched by one rule only (filter_emit.h).
      KL_TRY(r.Add(Errno(EAFNOSUPPORT), {SCMP_A0_64(SCMP_CMP_GE, kFamilies)}));
      auto family_is = [](uint32_t family) {
        return SCMP_A0_64(SCMP_CMP_EQ, family);
      };
      for (int family = 0; family < kFamilies; ++family) {
        const bool known = family == AF_UNIX || family == AF_INET ||
                           family == AF_INET6 || family == AF_NETLINK ||
                           (family == AF_PACKET && raw_ok);
        if (known) continue;
        if (name == "socketpair" && family == AF_UNIX) continue;
        KL_TRY(r.Add(family == AF_PACKET ? Errno(EPERM) : Errno(EAFNOSUPPORT),
                     {family_is(family)}));
      }
      if (name == "socketpair") {
        for (int family : {AF_INET, AF_INET6, AF_NETLINK}) {
          KL_TRY(r.Add(Errno(EOPNOTSUPP), {family_is(family)}));
        }
        return absl::OkStatus();
      }
      for (int family : {AF_INET, AF_INET6}) {
        // The type's low four bits; SOCK_NONBLOCK and SOCK_CLOEXEC above.
        for (uint32_t type = 0; type < 16; ++type) {
          if (type == SOCK_STREAM || type == SOCK_DGRAM) continue;
          const bool raw = type == SOCK_RAW || type == SOCK_PACKET;
          if (raw && raw_ok) continue;
          KL_TRY(r.Add(raw ? Errno(EPERM) : Errno(EPROTONOSUPPORT),
                       {family_is(family),
                        SCMP_CMP64(1, SCMP_CMP_MASKED_EQ, 0xf, type)}));
        }
        // SCTP and MPTCP connect and bind beyond connect(2) and bind(2)
        // (setsockopt), UDP-Lite is not judged as UDP is: refused, so
        // that programs fall back to TCP and UDP.
        for (uint32_t proto : {132u, 262u}) {
          KL_TRY(r.Add(Errno(EPROTONOSUPPORT),
                       {family_is(family),
                        SCMP_CMP64(1, SCMP_CMP_MASKED_EQ, 0xf, SOCK_STREAM),
                        Is32(2, proto)}));
        }
        KL_TRY(r.Add(Errno(EPROTONOSUPPORT),
                     {family_is(family),
                      SCMP_CMP64(1, SCMP_CMP_MASKED_EQ, 0xf, SOCK_DGRAM),
                      Is32(2, 136)}));
        if (!raw_ok) {
          for (uint32_t icmp :
               {uint32_t{IPPROTO_ICMP}, uint32_t{IPPROTO_ICMPV6}}) {
            KL_TRY(r.Add(Errno(EPERM),
                         {family_is(family),
                          SCMP_CMP64(1, SCMP_CMP_MASKED_EQ, 0xf, SOCK_DGRAM),
                          Is32(2, icmp)}));
          }
        }
      }
      // Netlink: what reports, not what configures.
      constexpr uint32_t kNetlinkKnown[] = {NETLINK_ROUTE, NETLINK_SOCK_DIAG,
                                            NETLINK_KOBJECT_UEVENT,
                                            NETLINK_GENERIC};
      for (uint32_t proto = 0; proto < 32; ++proto) {
        if (std::find(std::begin(kNetlinkKnown), std::end(kNetlinkKnown),
                      proto) != std::end(kNetlinkKnown)) {
          continue;
        }
        KL_TRY(r.Add(Errno(EPROTONOSUPPORT),
                     {family_is(AF_NETLINK), Is32(2, proto)}));
      }
      return r.Add(Errno(EPROTONOSUPPORT),
                   {family_is(AF_NETLINK), SCMP_A2_64(SCMP_CMP_GE, 32)});
    }
    case SyscallFamily::kProcess: {
      // Calls that name the caller itself pass; signals pass where
      // Landlock keeps them inside the run.
      if (name == "kill" || name == "tkill" || name == "tgkill" ||
          name == "rt_sigqueueinfo" || name == "rt_tgsigqueueinfo" ||
          name == "pidfd_send_signal" || name == "pidfd_open") {
        return s.signals_scoped ? absl::OkStatus() : r.Add(kNotify, {});
      }
      if (name == "setpriority") {  // (which, who): PRIO_PROCESS 0 is self
        KL_TRY(r.Add(kNotify, {SCMP_A0_64(SCMP_CMP_NE, 0)}));
        return r.Add(kNotify, {SCMP_A1_64(SCMP_CMP_NE, 0)});
      }
      if (name == "ioprio_set") {  // IOPRIO_WHO_PROCESS 0 is self
        KL_TRY(r.Add(kNotify, {SCMP_A0_64(SCMP_CMP_NE, 1)}));
        return r.Add(kNotify, {SCMP_A1_64(SCMP_CMP_NE, 0)});
      }
      // prlimit64, sched_set*, migrate_pages, move_pages: pid 0 is self.
      return r.Add(kNotify, {SCMP_A0_64(SCMP_CMP_NE, 0)});
    }
    case SyscallFamily::kIoctl: {
      for (const IoctlEntry& io : IoctlTable()) {
        if (IsFilesystemIoctl(io.request)) continue;  // the class, below
        if (io.handling == SyscallHandling::kRefused) {
          KL_TRY(r.Add(Errno(io.error), {Is32(1, io.request)}));
        } else if (io.handling == SyscallHandling::kJudged &&
                   (io.family != SyscallFamily::kProcess ||
                    !s.signals_scoped)) {
          KL_TRY(r.Add(kNotify, {Is32(1, io.request)}));
        }
      }
      // A filesystem's own requests that write or act: the supervisor
      // judges those it knows and refuses the rest.
      for (uint8_t type : FilesystemIoctlTypes()) {
        const uint32_t t = static_cast<uint32_t>(type) << 8;
        KL_TRY(r.Add(kNotify, {SCMP_CMP64(1, SCMP_CMP_MASKED_EQ, 0xc000ff00u,
                                          t)}));  // _IO
        KL_TRY(r.Add(kNotify, {SCMP_CMP64(1, SCMP_CMP_MASKED_EQ, 0x4000ff00u,
                                          0x40000000u | t)}));  // _IOW(R)
      }
      return absl::OkStatus();
    }
    case SyscallFamily::kNone:
      break;
  }
  return absl::InternalError(
      absl::StrCat("the syscall table judges ", e.name, " with no family"));
}

// The argument values a kFiltered call refuses.
absl::Status AddFiltered(const SyscallEntry& e, Rules& r,
                         const FilterSettings& s, const Policy& policy) {
  const absl::string_view name = e.name;
  const bool namespaces = SystemAllows(policy, "namespaces");
  if (name == "clone" || name == "unshare") {
    if (namespaces) return absl::OkStatus();
    // Every CLONE_NEW*. CLONE_NEWTIME shares its bit with clone's exit
    // signal, so it is checked for unshare only.
    for (uint64_t flag : {0x00020000u, 0x02000000u, 0x04000000u, 0x08000000u,
                          0x10000000u, 0x20000000u, 0x40000000u}) {
      KL_TRY(r.Add(Errno(EPERM), {HasBits(0, flag)}));
    }
    if (name == "unshare") KL_TRY(r.Add(Errno(EPERM), {HasBits(0, 0x80)}));
    return absl::OkStatus();
  }
  if (name == "clone3") {
    // Its flags are in memory the filter cannot read (new namespaces,
    // CLONE_INTO_CGROUP out of a section's cgroup); libc falls back to
    // clone on ENOSYS, whose flags it can.
    if (!namespaces || !policy.programs.empty())
      return r.Add(Errno(ENOSYS), {});
    return absl::OkStatus();
  }
  if (name == "seccomp") {
    // A listener of the program's own could answer CONTINUE for a call
    // this filter sends to klaunch, and the kernel would run it unjudged.
    // The kernel reads the operation as an unsigned int.
    return r.Add(Errno(EPERM), {Is32(0, SECCOMP_SET_MODE_FILTER),
                                HasBits(1, SECCOMP_FILTER_FLAG_NEW_LISTENER)});
  }
  if (name == "personality") {
    // The low byte selects the ABI (PER_LINUX32, ...); the flags above it
    // do not. 0xffffffff only asks, told apart by bit 31.
    for (int bit = 0; bit < 8; ++bit) {
      const uint32_t mask = 0x80000000u | (1u << bit);
      KL_TRY(r.Add(Errno(EPERM),
                   {SCMP_A0_32(SCMP_CMP_MASKED_EQ, mask, 1u << bit)}));
    }
    return absl::OkStatus();
  }
  if (name == "syslog") {
    // 4 reads and clears, 5 clears, 6 to 8 change the console.
    for (uint32_t action = 4; action <= 8; ++action) {
      KL_TRY(r.Add(Errno(EPERM), {Is32(0, action)}));
    }
    return absl::OkStatus();
  }
  if (name == "prctl") {
    // PR_SET_MM rewrites what /proc/PID/exe and the command line name.
    return r.Add(Errno(EPERM), {Is32(0, PR_SET_MM)});
  }
  if (name == "fcntl") {
    // F_SETOWN(_EX) names the process SIGIO (or F_SETSIG's signal) goes
    // to: judged like a signal where Landlock does not keep signals in.
    if (s.signals_scoped) return absl::OkStatus();
    KL_TRY(r.Add(kNotify, {Is32(1, F_SETOWN)}));
    return r.Add(kNotify, {Is32(1, F_SETOWN_EX)});
  }
  return absl::InternalError(absl::StrCat("the syscall table filters ", e.name,
                                          ", which the filter does not know"));
}

}  // namespace

uint64_t MakeCookie() {
  uint64_t c = 0;
  while (c == 0 || c >= static_cast<uint64_t>(-4095)) {
    if (getrandom(&c, sizeof(c), 0) != sizeof(c)) c = 0;
  }
  return c;
}

bool ATaggedOpenSkipsAsAReader(bool reads_floor, long nr, uint64_t flags) {
  if (nr != SYS_open && nr != SYS_openat) return false;
  // The kernel reads the flags as an int: the high half means nothing.
  flags &= 0xffffffffu;
  if (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) return false;
  return reads_floor || (flags & O_PATH);
}

absl::StatusOr<std::vector<CallRules>> FilterRules(
    const FilterSettings& settings, const Policy& policy) {
  const absl::Span<const SyscallEntry> table = SyscallTable();
  std::vector<CallRules> calls;
  calls.reserve(table.back().nr + 1);
  for (const SyscallEntry& e : table) {
    // The numbers between entries are no call of the table's: refused.
    while (static_cast<int>(calls.size()) < e.nr) {
      CallRules& gap = calls.emplace_back();
      gap.nr = static_cast<int>(calls.size()) - 1;
      gap.name = "an unknown call";
      KL_TRY(Rules(&gap).Add(Errno(ENOSYS), {}));
    }
    if (static_cast<int>(calls.size()) != e.nr) {
      return absl::InternalError(absl::StrCat("the syscall table names ", e.nr,
                                              " twice or out of "
                                              "order (",
                                              e.name, ")"));
    }
    CallRules& call = calls.emplace_back();
    call.nr = e.nr;
    call.name = e.name;
    Rules r(&call);
    switch (e.handling) {
      case SyscallHandling::kAllow:
        break;
      case SyscallHandling::kRefused:
        KL_TRY(r.Add(Errno(e.error), {}));
        break;
      case SyscallHandling::kRootPower:
        if (!SystemAllows(policy, e.group)) KL_TRY(r.Add(Errno(EPERM), {}));
        break;
      case SyscallHandling::kFiltered:
        KL_TRY(AddFiltered(e, r, settings, policy));
        break;
      case SyscallHandling::kJudged:
        KL_TRY(AddJudged(e, r, settings, policy));
        break;
    }
  }
  return calls;
}

absl::StatusOr<std::vector<sock_filter>> BuildFilter(
    const FilterSettings& settings, const Policy& policy) {
  absl::StatusOr<std::vector<CallRules>> calls = FilterRules(settings, policy);
  if (!calls.ok()) return calls.status();
  return EmitFilter(*calls);
}

bool FilterCanWaitKillable(std::string* why) {
  // Asking for the flag with no program: EINVAL when the kernel does not
  // know it, EFAULT (the null program) when it does.
  errno = 0;
  syscall(
      SYS_seccomp, SECCOMP_SET_MODE_FILTER,
      SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
      nullptr);
  if (errno == EFAULT) return true;
  *why = absl::StrCat(
      "the kernel has no SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (Linux 5.19): ",
      strerror(errno));
  return false;
}

int LoadFilter(absl::Span<const sock_filter> program, bool wait_killable) {
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -errno;
  sock_fprog prog{static_cast<unsigned short>(program.size()),
                  const_cast<sock_filter*>(program.data())};
  unsigned long flags = SECCOMP_FILTER_FLAG_NEW_LISTENER;
  if (wait_killable) flags |= SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
  long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
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
