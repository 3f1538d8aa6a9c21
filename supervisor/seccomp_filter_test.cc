// The compiled filter, evaluated: a small classic-BPF interpreter runs the
// program BuildFilter exports on seccomp_data built by hand, so that what
// the filter does with every call of the table (and with numbers the table
// does not name, and with other ABIs) is checked against the table itself,
// with no kernel in the loop. Also: docs/syscalls.md and the shim's
// exported symbols are kept in step with the table.

#include "supervisor/seccomp_filter.h"

#include <errno.h>
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/seccomp_tag.h"
#include "supervisor/syscall_table.h"

namespace klaunch {
namespace {

constexpr uint64_t kCookie = 0x5eed5eed12345678ULL;

// Runs `program` on `data`: the action it returns.
uint32_t Evaluate(const std::vector<sock_filter>& program,
                  const seccomp_data& data) {
  uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = {};
  const auto* bytes = reinterpret_cast<const uint8_t*>(&data);
  for (size_t pc = 0; pc < program.size(); ++pc) {
    const sock_filter& f = program[pc];
    switch (BPF_CLASS(f.code)) {
      case BPF_LD:
        if (BPF_MODE(f.code) == BPF_ABS) {
          EXPECT_LE(f.k + 4, sizeof(data));
          std::memcpy(&a, bytes + f.k, 4);
        } else if (BPF_MODE(f.code) == BPF_IMM) {
          a = f.k;
        } else if (BPF_MODE(f.code) == BPF_MEM) {
          a = mem[f.k];
        } else {
          ADD_FAILURE() << "load mode " << f.code;
        }
        break;
      case BPF_LDX:
        x = BPF_MODE(f.code) == BPF_MEM ? mem[f.k] : f.k;
        break;
      case BPF_ST:
        mem[f.k] = a;
        break;
      case BPF_STX:
        mem[f.k] = x;
        break;
      case BPF_ALU: {
        const uint32_t v = BPF_SRC(f.code) == BPF_X ? x : f.k;
        switch (BPF_OP(f.code)) {
          case BPF_ADD:
            a += v;
            break;
          case BPF_SUB:
            a -= v;
            break;
          case BPF_AND:
            a &= v;
            break;
          case BPF_OR:
            a |= v;
            break;
          case BPF_LSH:
            a <<= v;
            break;
          case BPF_RSH:
            a >>= v;
            break;
          case BPF_NEG:
            a = -a;
            break;
          default:
            ADD_FAILURE() << "alu op " << f.code;
        }
        break;
      }
      case BPF_JMP: {
        if (BPF_OP(f.code) == BPF_JA) {
          pc += f.k;
          break;
        }
        const uint32_t v = BPF_SRC(f.code) == BPF_X ? x : f.k;
        bool take = false;
        switch (BPF_OP(f.code)) {
          case BPF_JEQ:
            take = a == v;
            break;
          case BPF_JGT:
            take = a > v;
            break;
          case BPF_JGE:
            take = a >= v;
            break;
          case BPF_JSET:
            take = (a & v) != 0;
            break;
          default:
            ADD_FAILURE() << "jump op " << f.code;
        }
        pc += take ? f.jt : f.jf;
        break;
      }
      case BPF_RET:
        return BPF_RVAL(f.code) == BPF_A ? a : f.k;
      case BPF_MISC:
        if (BPF_MISCOP(f.code) == BPF_TAX) {
          x = a;
        } else {
          a = x;
        }
        break;
      default:
        ADD_FAILURE() << "class " << f.code;
        return 0;
    }
  }
  ADD_FAILURE() << "the program ran off its end";
  return 0;
}

constexpr uint32_t kAllow = SECCOMP_RET_ALLOW;
constexpr uint32_t kNotify = SECCOMP_RET_USER_NOTIF;
uint32_t Errno(int e) { return SECCOMP_RET_ERRNO | e; }

class Filter : public ::testing::Test {
 protected:
  void Build(FilterSettings s, const std::string& system_allow = "") {
    s.cookie = kCookie;
    Policy p;
    for (absl::string_view g :
         absl::StrSplit(system_allow, ',', absl::SkipEmpty())) {
      Entry e;
      e.value = std::string(g);
      p.system.allow.push_back(e);
    }
    absl::StatusOr<std::vector<sock_filter>> f = BuildFilter(s, p);
    ASSERT_TRUE(f.ok()) << f.status();
    program_ = *std::move(f);
  }
  uint32_t Call(int nr, std::initializer_list<uint64_t> args = {},
                bool tagged = false, uint32_t arch = AUDIT_ARCH_X86_64) {
    seccomp_data d{};
    d.nr = nr;
    d.arch = arch;
    int i = 0;
    for (uint64_t a : args) d.args[i++] = a;
    if (tagged) d.args[kCookieArgument] = kCookie;
    return Evaluate(program_, d);
  }
  std::vector<sock_filter> program_;
};

TEST_F(Filter, EveryCallDoesWhatItsTableEntrySays) {
  Build({});
  for (const SyscallEntry& e : SyscallTable()) {
    SCOPED_TRACE(e.name);
    const uint32_t untagged = Call(e.nr);
    switch (e.handling) {
      case SyscallHandling::kAllow:
        EXPECT_EQ(untagged, kAllow);
        break;
      case SyscallHandling::kRefused:
        EXPECT_EQ(untagged, Errno(e.error));
        break;
      case SyscallHandling::kRootPower:
        EXPECT_EQ(untagged, Errno(EPERM));
        break;
      case SyscallHandling::kJudged:
        // With no arguments, every judged call reaches the supervisor but
        // a socket of family 0 (refused) and the fd-only looks of ioctl
        // and the "self" process calls.
        if (e.family == SyscallFamily::kSocket) {
          EXPECT_EQ(untagged, Errno(EAFNOSUPPORT));
        } else if (e.family == SyscallFamily::kIoctl) {
          EXPECT_EQ(untagged, kAllow);
        } else if (e.nr == SYS_sendto) {
          EXPECT_EQ(untagged, kAllow) << "no address: the connected peer";
        } else if (e.family == SyscallFamily::kProcess &&
                   e.nr != SYS_ioprio_set && e.nr != SYS_kill &&
                   e.nr != SYS_tkill && e.nr != SYS_tgkill &&
                   e.nr != SYS_rt_sigqueueinfo &&
                   e.nr != SYS_rt_tgsigqueueinfo &&
                   e.nr != SYS_pidfd_send_signal && e.nr != SYS_pidfd_open) {
          EXPECT_EQ(untagged, kAllow) << "pid 0 names the caller";
        } else {
          EXPECT_EQ(untagged, kNotify);
        }
        break;
      case SyscallHandling::kFiltered:
        break;  // their arguments, below
    }
  }
}

TEST_F(Filter, ANumberTheTableDoesNotNameIsRefusedAsUnknown) {
  Build({});
  std::set<int> known;
  for (const SyscallEntry& e : SyscallTable()) known.insert(e.nr);
  for (int nr = 0; nr < 1024; ++nr) {
    if (known.count(nr) == 0) {
      EXPECT_EQ(Call(nr), Errno(ENOSYS)) << nr;
    }
  }
  // x32 (bit 30 of the number) and i386 are other ABIs.
  EXPECT_EQ(Call(0x40000000 | SYS_openat), Errno(ENOSYS));
  EXPECT_EQ(Call(5 /* i386 open */, {}, false, AUDIT_ARCH_I386), Errno(ENOSYS));
}

TEST_F(Filter, ATagBuysReadsAndLooksButNeverExecConnectOrAttributes) {
  Build({.reads_floor = true});
  EXPECT_EQ(Call(SYS_openat, {0, 0, O_RDONLY}, true), kAllow);
  EXPECT_EQ(Call(SYS_open, {0, O_RDONLY}, true), kAllow);
  EXPECT_EQ(Call(SYS_newfstatat, {0, 0, 0, 0}, true), kAllow);
  for (int nr : {SYS_execve, SYS_execveat, SYS_connect, SYS_sendmsg,
                 SYS_sendmmsg, SYS_bind, SYS_fchmodat, SYS_fchownat,
                 SYS_utimensat, SYS_setxattr, SYS_fchmod}) {
    EXPECT_EQ(Call(nr, {}, true), kNotify) << nr;
  }
}

TEST_F(Filter, WithoutALandlockFloorATaggedReadStillMeetsTheSupervisor) {
  Build({});
  EXPECT_EQ(Call(SYS_openat, {0, 0, O_RDONLY}, true), kNotify);
  EXPECT_EQ(Call(SYS_open, {0, O_RDONLY}, true), kNotify);
  EXPECT_EQ(Call(SYS_openat, {0, 0, O_RDONLY | O_DIRECTORY}, true), kNotify);
  // An O_PATH descriptor reads nothing; what it is used for is judged.
  EXPECT_EQ(Call(SYS_openat, {0, 0, O_PATH | O_CLOEXEC}, true), kAllow);
  EXPECT_EQ(Call(SYS_openat, {0, 0, O_PATH}), kNotify) << "untagged";
  EXPECT_EQ(Call(SYS_newfstatat, {0, 0, 0, 0}, true), kAllow);
}

// The supervisor lets an untagged open it judged go on to the kernel only
// where a tagged one skips it as a reader (supervise_open.cc), so what a
// name rewritten after the verdict reaches is what a forged tag reaches.
// The predicate and the filter must agree for every open and every flag.
TEST_F(Filter, TheSupervisorLetsGoOnExactlyTheOpensATagLetsSkipAsAReader) {
  const uint64_t bits[] = {O_WRONLY,         O_RDWR,     O_CREAT,   O_TRUNC,
                           O_PATH,           O_EXCL,     O_APPEND,  O_NONBLOCK,
                           O_DIRECTORY,      O_NOFOLLOW, O_CLOEXEC, __O_TMPFILE,
                           uint64_t{1} << 40};
  constexpr int kBits = sizeof(bits) / sizeof(bits[0]);
  for (bool floor : {false, true}) {
    Build({.reads_floor = floor});
    for (int nr : {SYS_open, SYS_openat, SYS_openat2, SYS_creat}) {
      for (uint32_t set = 0; set < (1u << kBits); ++set) {
        uint64_t flags = 0;
        for (int b = 0; b < kBits; ++b) {
          if (set & (1u << b)) flags |= bits[b];
        }
        const uint32_t action = nr == SYS_open ? Call(nr, {0, flags}, true)
                                               : Call(nr, {0, 0, flags}, true);
        ASSERT_EQ(ATaggedOpenSkipsAsAReader(floor, nr, flags), action == kAllow)
            << "floor " << floor << " nr " << nr << " flags " << flags;
      }
    }
  }
}

TEST_F(Filter, WritesSkipTheSupervisorOnlyWhereLandlockIsExactForThem) {
  Build({});
  for (uint64_t flags : {uint64_t{O_WRONLY}, uint64_t{O_RDWR},
                         uint64_t{O_CREAT}, uint64_t{O_TRUNC}}) {
    EXPECT_EQ(Call(SYS_openat, {0, 0, flags}, true), kNotify) << flags;
  }
  EXPECT_EQ(Call(SYS_unlinkat, {}, true), kNotify);
  EXPECT_EQ(Call(SYS_openat2, {}, true), kNotify);
  Build({.reads_floor = true, .writes_exact = true, .truncate_right = true});
  EXPECT_EQ(Call(SYS_openat, {0, 0, O_WRONLY | O_CREAT}, true), kAllow);
  EXPECT_EQ(Call(SYS_unlinkat, {}, true), kAllow);
  EXPECT_EQ(Call(SYS_truncate, {}, true), kAllow);
  EXPECT_EQ(Call(SYS_openat, {0, 0, O_WRONLY}), kNotify) << "untagged";
  Build({.reads_floor = true, .writes_exact = true, .truncate_right = false});
  EXPECT_EQ(Call(SYS_truncate, {}, true), kNotify);
}

TEST_F(Filter, SendtoIsJudgedWithAnAddressOrFastOpen) {
  Build({});
  EXPECT_EQ(Call(SYS_sendto, {3, 0, 1, 0, 0, 0}), kAllow);
  EXPECT_EQ(Call(SYS_sendto, {3, 0, 1, 0, 0x1000, 16}), kNotify);
  EXPECT_EQ(Call(SYS_sendto, {3, 0, 1, MSG_FASTOPEN, 0, 0}), kNotify);
}

TEST_F(Filter, OnlySocketsTheJudgeUnderstandsAreMade) {
  Build({});
  EXPECT_EQ(Call(SYS_socket, {AF_UNIX, SOCK_STREAM, 0}), kAllow);
  EXPECT_EQ(Call(SYS_socket, {AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 6}), kAllow);
  EXPECT_EQ(Call(SYS_socket, {AF_INET6, SOCK_DGRAM, 17}), kAllow);
  EXPECT_EQ(Call(SYS_socket, {AF_NETLINK, SOCK_RAW, 0}), kAllow);
  EXPECT_EQ(Call(SYS_socket, {AF_INET, SOCK_RAW, 17}), Errno(EPERM));
  EXPECT_EQ(Call(SYS_socket, {AF_PACKET, SOCK_RAW, 0}), Errno(EPERM));
  EXPECT_EQ(Call(SYS_socket, {AF_INET, SOCK_DGRAM, IPPROTO_ICMP}),
            Errno(EPERM));
  EXPECT_EQ(Call(SYS_socket, {AF_INET, SOCK_STREAM, 132}),
            Errno(EPROTONOSUPPORT));
  EXPECT_EQ(Call(SYS_socket, {AF_INET, SOCK_SEQPACKET, 0}),
            Errno(EPROTONOSUPPORT));
  EXPECT_EQ(Call(SYS_socket, {40 /* AF_VSOCK */, SOCK_STREAM, 0}),
            Errno(EAFNOSUPPORT));
  EXPECT_EQ(Call(SYS_socket, {AF_NETLINK, SOCK_RAW, 12 /* netfilter */}),
            Errno(EPROTONOSUPPORT));
  // The high half of the family word cannot make AF_INET pass for it.
  EXPECT_EQ(
      Call(SYS_socket, {(1ULL << 32) | AF_PACKET, SOCK_RAW, 0}) & 0xffff0000u,
      SECCOMP_RET_ERRNO);
  Build({}, "raw-sockets");
  EXPECT_EQ(Call(SYS_socket, {AF_INET, SOCK_RAW, 17}), kAllow);
  EXPECT_EQ(Call(SYS_socket, {AF_PACKET, SOCK_RAW, 0}), kAllow);
}

TEST_F(Filter, OtherProcessesAreJudgedUnlessLandlockScopesTheSignals) {
  Build({});
  EXPECT_EQ(Call(SYS_kill, {1, SIGKILL}), kNotify);
  EXPECT_EQ(Call(SYS_prlimit64, {0}), kAllow) << "pid 0: the caller";
  EXPECT_EQ(Call(SYS_prlimit64, {4242}), kNotify);
  EXPECT_EQ(Call(SYS_setpriority, {0, 0, 10}), kAllow);
  EXPECT_EQ(Call(SYS_setpriority, {2 /* PRIO_USER */, 0, 10}), kNotify);
  EXPECT_EQ(Call(SYS_fcntl, {3, F_SETOWN, 1}), kNotify);
  EXPECT_EQ(Call(SYS_fcntl, {3, F_SETFL, 0}), kAllow);
  EXPECT_EQ(Call(SYS_ioctl, {3, 0x8901 /* FIOSETOWN */, 0}), kNotify);
  Build({.signals_scoped = true});
  EXPECT_EQ(Call(SYS_kill, {1, SIGKILL}), kAllow);
  EXPECT_EQ(Call(SYS_fcntl, {3, F_SETOWN, 1}), kAllow);
  EXPECT_EQ(Call(SYS_prlimit64, {4242}), kNotify)
      << "Landlock scopes no limits";
  EXPECT_EQ(Call(SYS_pidfd_getfd, {3, 0, 0}), Errno(EPERM));
}

TEST_F(Filter, IoctlsThatChangeAFileOrTypeAsTheUserAreNotLetThrough) {
  Build({});
  EXPECT_EQ(Call(SYS_ioctl, {0, TIOCSTI, 0}), Errno(EPERM));
  EXPECT_EQ(Call(SYS_ioctl, {0, (1ULL << 32) | TIOCSTI, 0}), Errno(EPERM));
  EXPECT_EQ(Call(SYS_ioctl, {3, 0x40086602 /* FS_IOC_SETFLAGS */, 0}), kNotify);
  EXPECT_EQ(Call(SYS_ioctl, {3, 0x5000940f /* BTRFS_IOC_SNAP_DESTROY */, 0}),
            kNotify);
  EXPECT_EQ(Call(SYS_ioctl, {3, 0x80086601 /* FS_IOC_GETFLAGS */, 0}), kAllow);
  EXPECT_EQ(Call(SYS_ioctl, {1, TCGETS, 0}), kAllow);
}

TEST_F(Filter, ArgumentsThatUndoTheSandboxAreRefused) {
  Build({});
  EXPECT_EQ(Call(SYS_prctl, {PR_SET_MM, 0}), Errno(EPERM));
  EXPECT_EQ(Call(SYS_prctl, {PR_SET_NAME, 0}), kAllow);
  EXPECT_EQ(Call(SYS_syslog, {5 /* clear */}), Errno(EPERM));
  EXPECT_EQ(Call(SYS_syslog, {3 /* read all */}), kAllow);
  EXPECT_EQ(Call(SYS_seccomp, {SECCOMP_SET_MODE_FILTER,
                               SECCOMP_FILTER_FLAG_NEW_LISTENER, 0}),
            Errno(EPERM));
  EXPECT_EQ(Call(SYS_seccomp, {SECCOMP_SET_MODE_FILTER, 0, 0}), kAllow);
  // Bits above the 32 the kernel reads do not hide the operation.
  EXPECT_EQ(Call(SYS_seccomp, {(1ull << 32) | SECCOMP_SET_MODE_FILTER,
                               SECCOMP_FILTER_FLAG_NEW_LISTENER, 0}),
            Errno(EPERM));
  EXPECT_EQ(Call(SYS_unshare, {0x10000000 /* CLONE_NEWUSER */}), Errno(EPERM));
  EXPECT_EQ(Call(SYS_clone3, {}), Errno(ENOSYS));
  EXPECT_EQ(Call(SYS_personality, {0x0008 /* PER_LINUX32 */}), Errno(EPERM));
  EXPECT_EQ(Call(SYS_personality, {0xffffffff}), kAllow);
}

TEST_F(Filter, ARootPowerIsLetThroughOnlyWhereSystemAllowNamesItsGroup) {
  Build({}, "ptrace,keyring");
  EXPECT_EQ(Call(SYS_ptrace), kAllow);
  EXPECT_EQ(Call(SYS_keyctl), kAllow);
  EXPECT_EQ(Call(SYS_mount), Errno(EPERM));
  EXPECT_EQ(Call(SYS_shmget), Errno(EPERM));
}

// The same rules compiled by libseccomp, the reference for the emitter:
// seccomp_init's default (allow) for a call no rule matches, ENOSYS for
// another ABI and for every number past the last.
std::vector<sock_filter> LibseccompProgram(
    const std::vector<CallRules>& calls) {
  scmp_filter_ctx c = seccomp_init(SCMP_ACT_ALLOW);
  EXPECT_NE(c, nullptr);
  EXPECT_EQ(
      seccomp_attr_set(c, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ERRNO(ENOSYS)), 0);
  for (const CallRules& call : calls) {
    for (const FilterRule& rule : call.rules) {
      EXPECT_EQ(
          seccomp_rule_add_array(c, rule.action, call.nr, rule.cmp.size(),
                                 rule.cmp.empty() ? nullptr : rule.cmp.data()),
          0)
          << call.name;
    }
  }
  const int fd = memfd_create("reference-bpf", MFD_CLOEXEC);
  EXPECT_EQ(seccomp_export_bpf(c, fd), 0);
  seccomp_release(c);
  std::vector<sock_filter> body(lseek(fd, 0, SEEK_END) / sizeof(sock_filter));
  EXPECT_EQ(pread(fd, body.data(), body.size() * sizeof(sock_filter), 0),
            static_cast<ssize_t>(body.size() * sizeof(sock_filter)));
  close(fd);
  std::vector<sock_filter> program = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K,
               static_cast<uint32_t>(calls.size() - 1), 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
  };
  program.insert(program.end(), body.begin(), body.end());
  return program;
}

// Argument values worth trying against `call`'s rules: each compared
// value, its neighbours, its halves alone, and values that meet each mask
// with other bits set or cleared.
std::vector<std::vector<uint64_t>> Candidates(const CallRules& call,
                                              std::mt19937_64& rng) {
  std::vector<std::vector<uint64_t>> pool(6);
  for (auto& p : pool) {
    p = std::vector<uint64_t>{
        0,           1,           ~uint64_t{0}, 0xffffffffu,
        1ull << 32,  kCookie,     ~kCookie,     kCookie ^ (1ull << 40),
        kCookie ^ 1, 0x80000000u, rng()};
  }
  for (const FilterRule& rule : call.rules) {
    for (const scmp_arg_cmp& c : rule.cmp) {
      std::vector<uint64_t>& p = pool[c.arg];
      for (uint64_t v : {c.datum_a, c.datum_b}) {
        for (uint64_t w : std::initializer_list<uint64_t>{
                 v, v + 1, v - 1, v & 0xffffffffu, v | (1ull << 32),
                 v ^ (1ull << 63), v >> 32}) {
          p.push_back(w);
        }
      }
      if (c.op == SCMP_CMP_MASKED_EQ) {
        const uint64_t noise = rng();
        p.push_back(c.datum_b | (noise & ~c.datum_a));  // meets the mask
        p.push_back(c.datum_b ^ (noise & c.datum_a));   // misses it, mostly
        for (int bit = 0; bit < 64; ++bit) {
          if (c.datum_a & (1ull << bit)) p.push_back(c.datum_b ^ (1ull << bit));
        }
      }
    }
  }
  return pool;
}

// What one comparison says of a call's 64-bit argument, as libseccomp
// means it.
bool Holds(const scmp_arg_cmp& c, const seccomp_data& d) {
  const uint64_t v = d.args[c.arg];
  switch (c.op) {
    case SCMP_CMP_EQ:
      return v == c.datum_a;
    case SCMP_CMP_NE:
      return v != c.datum_a;
    case SCMP_CMP_GE:
      return v >= c.datum_a;
    case SCMP_CMP_MASKED_EQ:  // the value's bits outside the mask do not count
      return (v & c.datum_a) == (c.datum_b & c.datum_a);
    default:
      ADD_FAILURE() << "comparison " << c.op;
      return false;
  }
}

// The actions of the rules of `call` that match `d` (none: allowed).
std::set<uint32_t> MatchingActions(const CallRules& call,
                                   const seccomp_data& d) {
  std::set<uint32_t> actions;
  for (const FilterRule& rule : call.rules) {
    if (std::all_of(rule.cmp.begin(), rule.cmp.end(),
                    [&](const scmp_arg_cmp& c) { return Holds(c, d); })) {
      actions.insert(rule.action);
    }
  }
  return actions;
}

// A value of argument `c.arg` for which `c` holds (when any does).
uint64_t Meeting(const scmp_arg_cmp& c, std::mt19937_64& rng) {
  switch (c.op) {
    case SCMP_CMP_NE:
      return c.datum_a + 1 + rng() % 4;
    case SCMP_CMP_GE: {
      const uint64_t above = ~c.datum_a;  // how many values are greater
      return rng() % 2 || above == 0 ? c.datum_a
                                     : c.datum_a + 1 + rng() % above;
    }
    case SCMP_CMP_MASKED_EQ:
      return c.datum_b | (rng() & ~c.datum_a);
    default:
      return c.datum_a;
  }
}

// A value for which `c` fails (when any does).
uint64_t Missing(const scmp_arg_cmp& c, std::mt19937_64& rng) {
  switch (c.op) {
    case SCMP_CMP_NE:
      return c.datum_a;
    case SCMP_CMP_GE:
      return c.datum_a == 0 ? 0 : c.datum_a - 1 - rng() % c.datum_a;
    case SCMP_CMP_MASKED_EQ:
      return c.datum_a == 0 ? c.datum_b
                            : (c.datum_b ^ (c.datum_a & -c.datum_a)) |
                                  (rng() & ~c.datum_a);
    default:
      return c.datum_a ^ (1ull << (rng() % 64));
  }
}

// Emits `calls` and compiles them with libseccomp, then runs both programs
// (and the rules read directly) on every number and on argument tuples:
// random ones from the values the rules compare, and for each rule tuples
// that meet all its comparisons or all but one. Every disagreement fails;
// `compared` counts the inputs.
void ExpectTheSameAnswers(const std::vector<CallRules>& calls,
                          std::mt19937_64& rng, int* compared) {
  absl::StatusOr<std::vector<sock_filter>> ours = EmitFilter(calls);
  ASSERT_TRUE(ours.ok()) << ours.status();
  const std::vector<sock_filter> reference = LibseccompProgram(calls);
  auto same = [&](const seccomp_data& d, const char* name) {
    const uint32_t want = Evaluate(reference, d), got = Evaluate(*ours, d);
    ++*compared;
    if (d.arch == AUDIT_ARCH_X86_64 &&
        static_cast<uint32_t>(d.nr) < calls.size()) {
      // Rules that disagree would leave the answer to the compiler.
      const std::set<uint32_t> actions = MatchingActions(calls[d.nr], d);
      if (actions.size() > 1) {
        ADD_FAILURE() << name << ": rules of " << actions.size()
                      << " different actions match the arguments "
                      << absl::StrJoin(d.args, ", ");
        return false;
      }
      const uint32_t model = actions.empty() ? kAllow : *actions.begin();
      if (model != got) {
        ADD_FAILURE() << name << " with arguments "
                      << absl::StrJoin(d.args, ", ") << ": its rules say "
                      << std::hex << model << ", the program " << got;
        return false;
      }
    }
    if (want == got) return true;
    ADD_FAILURE() << name << " (" << d.nr << ") with arguments "
                  << absl::StrJoin(d.args, ", ") << ": libseccomp's "
                  << std::hex << want << ", ours " << got;
    return false;
  };
  for (const CallRules& call : calls) {
    const std::vector<std::vector<uint64_t>> pool = Candidates(call, rng);
    seccomp_data d{};
    d.arch = AUDIT_ARCH_X86_64;
    d.nr = call.nr;
    auto random_args = [&] {
      for (int a = 0; a < 6; ++a) d.args[a] = pool[a][rng() % pool[a].size()];
    };
    if (!same(d, call.name)) continue;
    bool ok = true;
    for (int t = 0; t < (call.rules.empty() ? 4 : 200) && ok; ++t) {
      random_args();
      ok = same(d, call.name);
    }
    for (const FilterRule& rule : call.rules) {
      for (int t = 0; t < 8 && ok; ++t) {
        random_args();
        for (const scmp_arg_cmp& c : rule.cmp) d.args[c.arg] = Meeting(c, rng);
        ok = same(d, call.name);
        for (size_t miss = 0; miss < rule.cmp.size() && ok; ++miss) {
          for (size_t i = 0; i < rule.cmp.size(); ++i) {
            const scmp_arg_cmp& c = rule.cmp[i];
            d.args[c.arg] = i == miss ? Missing(c, rng) : Meeting(c, rng);
          }
          ok = same(d, call.name);
        }
      }
    }
  }
  // Other ABIs, and numbers past the table.
  for (uint32_t arch : {uint32_t{AUDIT_ARCH_I386}, uint32_t{0}}) {
    seccomp_data d{};
    d.arch = arch;
    d.nr = 2;
    same(d, "another ABI");
  }
  for (uint32_t nr : {static_cast<uint32_t>(calls.size()),
                      static_cast<uint32_t>(calls.size() + 100),
                      0x40000000u | 2, 0xffffffffu}) {
    seccomp_data d{};
    d.arch = AUDIT_ARCH_X86_64;
    d.nr = static_cast<int>(nr);
    same(d, "past the table");
  }
}

TEST(EmittedFilter, AnswersEveryCallAsLibseccompCompilingTheSameRules) {
  std::mt19937_64 rng(20261206);
  Policy none, all;
  std::set<std::string> groups = {"raw-sockets", "namespaces"};
  for (const SyscallEntry& e : SyscallTable()) {
    if (e.handling == SyscallHandling::kRootPower) groups.insert(e.group);
  }
  for (const std::string& g : groups) {
    Entry entry;
    entry.value = g;
    all.system.allow.push_back(entry);
  }
  Policy sections = all;
  sections.programs.emplace_back();
  int compared = 0;
  for (const Policy* policy : {&none, &all, &sections}) {
    for (int bits = 0; bits < 16; ++bits) {
      FilterSettings s;
      s.cookie = kCookie;
      s.reads_floor = bits & 1;
      s.writes_exact = bits & 2;
      s.truncate_right = bits & 4;
      s.signals_scoped = bits & 8;
      SCOPED_TRACE(absl::StrCat("settings ", bits, ", system.allow of ",
                                policy->system.allow.size(), " groups"));
      absl::StatusOr<std::vector<CallRules>> calls = FilterRules(s, *policy);
      ASSERT_TRUE(calls.ok()) << calls.status();
      ExpectTheSameAnswers(*calls, rng, &compared);
    }
  }
  EXPECT_GT(compared, 100000);
}

// The table's rules use some shapes of comparison only: each shape the
// emitter writes is tried here on rules made for it, high halves, masks
// in one half, values a mask cannot meet and comparisons that always hold
// included.
TEST(EmittedFilter, EveryShapeOfComparisonAnswersAsLibseccomps) {
  constexpr uint64_t kHigh = 1ull << 32;
  auto call = [](int nr, std::vector<FilterRule> rules) {
    CallRules c;
    c.nr = nr;
    c.name = "made for the test";
    c.rules = std::move(rules);
    return c;
  };
  auto errno_rule = [](int e, std::vector<scmp_arg_cmp> cmp) {
    return FilterRule{SECCOMP_RET_ERRNO | static_cast<uint32_t>(e),
                      std::move(cmp)};
  };
  const std::vector<CallRules> calls = {
      call(0, {}),
      call(1, {errno_rule(1, {SCMP_A0_64(SCMP_CMP_GE, kHigh | 5)})}),
      call(2, {errno_rule(2, {SCMP_CMP64(1, SCMP_CMP_MASKED_EQ, 0xff00000000ull,
                                         0x1200000000ull)})}),
      call(3, {{SECCOMP_RET_USER_NOTIF, {SCMP_A3_64(SCMP_CMP_NE, kHigh | 7)}}}),
      call(4, {errno_rule(4, {SCMP_A4_64(SCMP_CMP_EQ, 0xdead0000beefull),
                              SCMP_CMP64(5, SCMP_CMP_MASKED_EQ, ~0ull, 5)})}),
      call(5, {errno_rule(5, {SCMP_CMP64(0, SCMP_CMP_MASKED_EQ, 0, 0)})}),
      call(6, {errno_rule(6, {SCMP_A1_64(SCMP_CMP_GE, 0),
                              SCMP_A2_64(SCMP_CMP_NE, ~0ull)})}),
      call(7, {errno_rule(7, {SCMP_A0_64(SCMP_CMP_GE, ~0ull)})}),
      call(8, {errno_rule(
                  8, {SCMP_CMP64(3, SCMP_CMP_MASKED_EQ, 0x8000000000000001ull,
                                 0x8000000000000000ull),
                      SCMP_A0_64(SCMP_CMP_GE, 0x80000000ull),
                      SCMP_A1_32(SCMP_CMP_MASKED_EQ, 0xf0, 0x30)})}),
      call(9, {{SECCOMP_RET_USER_NOTIF, {}}}),
      // A value with bits outside its mask: libseccomp drops them.
      call(10,
           {errno_rule(3, {SCMP_CMP64(2, SCMP_CMP_MASKED_EQ, 0xf0, 0x1f)})}),
  };
  std::mt19937_64 rng(42);
  int compared = 0;
  for (int round = 0; round < 20; ++round) {
    ExpectTheSameAnswers(calls, rng, &compared);
  }
  EXPECT_GT(compared, 5000);
}

// The emitter writes a comparison that consecutive rules share once, and
// loads once the bits that consecutive rules test for different values:
// each such shape, nested, broken off, or longer than a conditional jump
// reaches, answers as libseccomp's program does.
TEST(EmittedFilter, SharedComparisonsAndValueChainsAnswerAsLibseccomps) {
  constexpr uint64_t kHigh = 1ull << 32;
  auto rule = [](uint32_t e, std::vector<scmp_arg_cmp> cmp) {
    return FilterRule{SECCOMP_RET_ERRNO | e, std::move(cmp)};
  };
  auto is32 = [](unsigned arg, uint32_t v) {
    return SCMP_CMP64(arg, SCMP_CMP_MASKED_EQ, 0xffffffffu, v);
  };
  std::vector<CallRules> calls(6);
  for (size_t i = 0; i < calls.size(); ++i) {
    calls[i].nr = static_cast<int>(i);
    calls[i].name = "made for the test";
  }
  // As socket's: a chain of families, then families whose rules share
  // their first comparison, one of them twice over.
  for (uint64_t family = 0; family < 40; ++family) {
    if (family == 2 || family == 16) continue;
    calls[0].rules.push_back(
        rule(family % 3 + 1, {SCMP_A0_64(SCMP_CMP_EQ, family)}));
  }
  for (uint64_t type = 3; type < 16; ++type) {
    calls[0].rules.push_back(
        rule(type % 2 + 4, {SCMP_A0_64(SCMP_CMP_EQ, 2),
                            SCMP_CMP64(1, SCMP_CMP_MASKED_EQ, 0xf, type)}));
  }
  for (uint32_t proto : {132u, 262u}) {
    calls[0].rules.push_back(
        rule(6, {SCMP_A0_64(SCMP_CMP_EQ, 2),
                 SCMP_CMP64(1, SCMP_CMP_MASKED_EQ, 0xf, 1), is32(2, proto)}));
  }
  for (uint32_t proto = 0; proto < 32; proto += 3) {
    calls[0].rules.push_back(
        rule(7, {SCMP_A0_64(SCMP_CMP_EQ, 16), is32(2, proto)}));
  }
  // (Of the chain's action: 1 << 32 meets both.)
  calls[0].rules.push_back(
      rule(7, {SCMP_A0_64(SCMP_CMP_EQ, 16), SCMP_A2_64(SCMP_CMP_GE, 32)}));
  // A chain broken by a value with another high half, then a new chain.
  for (uint64_t v :
       std::initializer_list<uint64_t>{5, 7, kHigh | 5, kHigh | 8, kHigh | 9}) {
    calls[1].rules.push_back(
        rule(static_cast<uint32_t>(v % 7 + 1), {SCMP_A3_64(SCMP_CMP_EQ, v)}));
  }
  // Masks in both halves.
  for (uint64_t v = 1; v < 6; ++v) {
    calls[2].rules.push_back(
        rule(static_cast<uint32_t>(v),
             {SCMP_CMP64(4, SCMP_CMP_MASKED_EQ, 0xff000000ffull,
                         (0x12ull << 32) | v)}));
  }
  // A shared comparison that answers alone: what follows it in the group
  // is never reached; the rule after the group is.
  calls[3].rules = {
      rule(1, {SCMP_A0_64(SCMP_CMP_EQ, 7)}),
      rule(1, {SCMP_A0_64(SCMP_CMP_EQ, 7), SCMP_A1_64(SCMP_CMP_EQ, 3)}),
      rule(2, {SCMP_A0_64(SCMP_CMP_EQ, 8)})};
  // Longer than a conditional jump reaches: a group of 120 rules of one
  // action, then a chain of 200 values with a high half.
  for (uint64_t i = 0; i < 120; ++i) {
    calls[4].rules.push_back(rule(
        9, {SCMP_A5_64(SCMP_CMP_EQ, kCookie),
            SCMP_A1_64(SCMP_CMP_EQ, kHigh | i), SCMP_A2_64(SCMP_CMP_NE, i)}));
  }
  calls[4].rules.push_back(rule(10, {SCMP_A5_64(SCMP_CMP_EQ, ~kCookie)}));
  for (uint64_t i = 0; i < 200; ++i) {
    calls[5].rules.push_back(rule(static_cast<uint32_t>(i % 5 + 1),
                                  {SCMP_A0_64(SCMP_CMP_EQ, (3 * kHigh) | i)}));
  }
  calls[5].rules.push_back(rule(11, {SCMP_A0_64(SCMP_CMP_EQ, 2 * kHigh)}));
  std::mt19937_64 rng(7);
  int compared = 0;
  for (int round = 0; round < 10; ++round) {
    ExpectTheSameAnswers(calls, rng, &compared);
  }
  EXPECT_GT(compared, 20000);
}

// The filter of a policy with no rules, every layer's setting off.
absl::StatusOr<std::vector<sock_filter>> DefaultFilter() {
  FilterSettings s;
  s.cookie = kCookie;
  return BuildFilter(s, Policy());
}

// Every run's first process has the kernel check, convert and compile the
// filter, 0.1 to 0.25 µs an instruction here on top of some 300 µs:
// socket's rules alone once took 837 of 2018.
TEST(EmittedFilter, TheFilterOfTheDefaultSettingsStaysShort) {
  const absl::StatusOr<std::vector<sock_filter>> f = DefaultFilter();
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_LE(f->size(), size_t{1400});
}

TEST(EmittedFilter, ACallNeverRunsMoreInstructionsThanTheKernelTakes) {
  const absl::StatusOr<std::vector<sock_filter>> f = DefaultFilter();
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_LE(f->size(), size_t{BPF_MAXINSNS});
  // Every jump lands inside the program, forwards.
  for (size_t pc = 0; pc < f->size(); ++pc) {
    const sock_filter& insn = (*f)[pc];
    if (BPF_CLASS(insn.code) != BPF_JMP) continue;
    if (BPF_OP(insn.code) == BPF_JA) {
      EXPECT_LT(pc + 1 + insn.k, f->size()) << pc;
    } else {
      EXPECT_LT(pc + 1 + std::max(insn.jt, insn.jf), f->size()) << pc;
    }
  }
}

std::string SourceFile(const char* relative) {
  const char* root = getenv("KLAUNCH_SOURCE_ROOT");
  if (root == nullptr) return "";
  std::ifstream in(std::string(root) + "/" + relative);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(SyscallsDoc, DocsSyscallsMdIsWhatTheTableSays) {
  const std::string doc = SourceFile("docs/syscalls.md");
  ASSERT_FALSE(doc.empty()) << "KLAUNCH_SOURCE_ROOT/docs/syscalls.md";
  EXPECT_EQ(doc, SyscallsMarkdown())
      << "run: build/launcher/klaunch syscalls > docs/syscalls.md";
}

TEST(ShimWrappers, EveryExportedSymbolNamesTheJudgedCallsItMakes) {
  const std::string map = SourceFile("shim/libklaunch-shim.map");
  ASSERT_FALSE(map.empty());
  // The names between "global:" and "local:", comments taken out.
  std::string text = map.substr(map.find("global:") + 7);
  text = text.substr(0, text.find("local:"));
  for (size_t c; (c = text.find("/*")) != std::string::npos;) {
    text.erase(c, text.find("*/", c) + 2 - c);
  }
  std::set<std::string> listed;
  for (const ShimWrapper& w : ShimWrappers()) {
    listed.insert(w.symbol);
    for (absl::string_view call :
         absl::StrSplit(w.calls, ' ', absl::SkipEmpty())) {
      const SyscallEntry* e = FindSyscall(call);
      ASSERT_NE(e, nullptr) << w.symbol << ": " << call;
      EXPECT_EQ(e->handling, SyscallHandling::kJudged)
          << w.symbol << " makes " << call
          << ", which the table does not judge";
    }
  }
  for (absl::string_view sym :
       absl::StrSplit(text, absl::ByAnyChar(" \n\t;"), absl::SkipEmpty())) {
    EXPECT_TRUE(listed.count(std::string(sym)))
        << "the shim exports " << sym
        << ", which supervisor/syscall_table.cc's ShimWrappers does not list";
  }
}

}  // namespace
}  // namespace klaunch
