#include "supervisor/syscall_table.h"

#include <errno.h>
#include <gtest/gtest.h>
#include <seccomp.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/seccomp_tag.h"

namespace klaunch {
namespace {

using F = SyscallFamily;
using H = SyscallHandling;

// Where Debian and others install the kernel's x86_64 numbering.
constexpr const char* kUnistdPaths[] = {
    "/usr/include/x86_64-linux-gnu/asm/unistd_64.h",
    "/usr/include/asm/unistd_64.h",
};

// "#define __NR_name number" lines of the installed <asm/unistd_64.h>;
// empty when no header is found.
std::vector<std::pair<std::string, int>> HeaderNumbers() {
  for (const char* path : kUnistdPaths) {
    std::ifstream in(path);
    if (!in) continue;
    std::vector<std::pair<std::string, int>> out;
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream words(line);
      std::string define, macro;
      long nr = -1;
      if (!(words >> define >> macro >> nr)) continue;
      if (define != "#define" || macro.rfind("__NR_", 0) != 0) continue;
      out.emplace_back(macro.substr(5), static_cast<int>(nr));
    }
    return out;
  }
  return {};
}

// Calls newer than the headers this was written against (Linux 6.1), with
// their numbers as arch/x86/entry/syscalls/syscall_64.tbl gives them
// through Linux 6.18.
const std::map<std::string, int>& NewerThanTheHeaders() {
  static const auto* const kNewer = new std::map<std::string, int>{
      {"uretprobe", 335},         {"uprobe", 336},
      {"cachestat", 451},         {"fchmodat2", 452},
      {"map_shadow_stack", 453},  {"futex_wake", 454},
      {"futex_wait", 455},        {"futex_requeue", 456},
      {"statmount", 457},         {"listmount", 458},
      {"lsm_get_self_attr", 459}, {"lsm_set_self_attr", 460},
      {"lsm_list_modules", 461},  {"mseal", 462},
      {"setxattrat", 463},        {"getxattrat", 464},
      {"listxattrat", 465},       {"removexattrat", 466},
      {"open_tree_attr", 467},    {"file_getattr", 468},
      {"file_setattr", 469},
  };
  return *kNewer;
}

TEST(SyscallTable, EveryNumberTheKernelHeadersNameHasAnEntry) {
  const std::vector<std::pair<std::string, int>> header = HeaderNumbers();
  if (header.empty()) GTEST_SKIP() << "no <asm/unistd_64.h> installed";
  // A header read wrongly must not pass for an empty one.
  ASSERT_GE(header.size(), 300u);
  for (const auto& [name, nr] : header) {
    const SyscallEntry* by_name = FindSyscall(name);
    ASSERT_NE(by_name, nullptr) << "__NR_" << name << " has no entry";
    EXPECT_EQ(by_name->nr, nr) << name;
    const SyscallEntry* by_number = FindSyscall(nr);
    ASSERT_NE(by_number, nullptr) << nr;
    EXPECT_STREQ(by_number->name, name.c_str());
  }
}

TEST(SyscallTable, TheOnlyEntriesTheHeadersDoNotNameAreTheCheckedNewerCalls) {
  const std::vector<std::pair<std::string, int>> header = HeaderNumbers();
  if (header.empty()) GTEST_SKIP() << "no <asm/unistd_64.h> installed";
  std::set<std::string> named;
  for (const auto& entry : header) named.insert(entry.first);
  for (const SyscallEntry& e : SyscallTable()) {
    if (named.count(e.name) != 0) continue;
    const auto newer = NewerThanTheHeaders().find(e.name);
    ASSERT_NE(newer, NewerThanTheHeaders().end())
        << e.name << " (" << e.nr << ") is in no kernel header";
    EXPECT_EQ(e.nr, newer->second) << e.name;
  }
}

TEST(SyscallTable, CallsNewerThanTheHeadersHaveTheKernelsNumbers) {
  for (const auto& [name, nr] : NewerThanTheHeaders()) {
    const SyscallEntry* e = FindSyscall(name);
    ASSERT_NE(e, nullptr) << name;
    EXPECT_EQ(e->nr, nr) << name;
  }
}

TEST(SyscallTable, NumbersAreUniqueAndSorted) {
  const absl::Span<const SyscallEntry> table = SyscallTable();
  ASSERT_FALSE(table.empty());
  for (size_t i = 1; i < table.size(); ++i) {
    EXPECT_LT(table[i - 1].nr, table[i].nr)
        << table[i - 1].name << " and " << table[i].name;
  }
}

TEST(SyscallTable, NamesAreUnique) {
  std::set<std::string> seen;
  for (const SyscallEntry& e : SyscallTable()) {
    EXPECT_TRUE(seen.insert(e.name).second) << e.name;
  }
}

TEST(SyscallTable, EveryNumberIsThereButTheRangeX8664LeavesUnused) {
  // syscall_64.tbl: 337 to 423 are unused on x86_64 (424 onwards are the
  // numbers every architecture shares); 512 and up are x32's.
  std::vector<int> expected;
  for (int nr = 0; nr <= 336; ++nr) expected.push_back(nr);
  for (int nr = 424; nr <= 469; ++nr) expected.push_back(nr);
  std::vector<int> numbers;
  for (const SyscallEntry& e : SyscallTable()) numbers.push_back(e.nr);
  EXPECT_EQ(numbers, expected);
}

TEST(SyscallTable, EveryNameLibseccompResolvesMapsToTheSameNumber) {
  int resolved = 0;
  for (const SyscallEntry& e : SyscallTable()) {
    const int nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, e.name);
    if (nr < 0) continue;  // newer than this libseccomp
    ++resolved;
    EXPECT_EQ(nr, e.nr) << e.name;
  }
  EXPECT_GE(resolved, 300);
}

TEST(SyscallTable, EveryNumberLibseccompNamesHasAnEntryOfThatName) {
  for (int nr = 0; nr < 512; ++nr) {
    char* name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr);
    if (name == nullptr) continue;
    const SyscallEntry* e = FindSyscall(nr);
    if (e == nullptr) {
      ADD_FAILURE() << "libseccomp names " << nr << " " << name;
    } else {
      EXPECT_STREQ(e->name, name) << nr;
    }
    std::free(name);
  }
}

TEST(SyscallTable, FindSyscallFindsEveryEntryByNameAndByNumber) {
  for (const SyscallEntry& e : SyscallTable()) {
    EXPECT_EQ(FindSyscall(e.name), &e) << e.name;
    EXPECT_EQ(FindSyscall(e.nr), &e) << e.nr;
  }
}

TEST(SyscallTable, FindSyscallFindsNothingTheTableDoesNotName) {
  EXPECT_EQ(FindSyscall(""), nullptr);
  EXPECT_EQ(FindSyscall("OPENAT"), nullptr);
  EXPECT_EQ(FindSyscall("openat "), nullptr);
  EXPECT_EQ(FindSyscall("listns"), nullptr);      // Linux 6.19, not yet judged
  EXPECT_EQ(FindSyscall("socketcall"), nullptr);  // i386 only
  EXPECT_EQ(FindSyscall(-1), nullptr);
  EXPECT_EQ(FindSyscall(337), nullptr);
  EXPECT_EQ(FindSyscall(423), nullptr);
  EXPECT_EQ(FindSyscall(470), nullptr);
  EXPECT_EQ(FindSyscall(512), nullptr);  // x32's rt_sigaction
}

TEST(SyscallTable, RefusedEntriesHaveAnErrnoAndNoOtherEntryHasOne) {
  for (const SyscallEntry& e : SyscallTable()) {
    if (e.handling == H::kRefused) {
      EXPECT_TRUE(e.error == EPERM || e.error == ENOSYS)
          << e.name << " refused with " << e.error;
    } else {
      EXPECT_EQ(e.error, 0) << e.name;
    }
  }
}

TEST(SyscallTable, CallsCallersFallBackFromAreRefusedWithEnosys) {
  for (const char* name :
       {"io_uring_setup", "io_uring_enter",  "io_uring_register",
        "setxattrat",     "getxattrat",      "listxattrat",
        "removexattrat",  "file_getattr",    "file_setattr",
        "create_module",  "get_kernel_syms", "query_module",
        "nfsservctl",     "getpmsg",         "putpmsg",
        "afs_syscall",    "security",        "vserver",
        "uselib",         "_sysctl"}) {
    const SyscallEntry* e = FindSyscall(name);
    ASSERT_NE(e, nullptr) << name;
    EXPECT_EQ(e->handling, H::kRefused) << name;
    EXPECT_EQ(e->error, ENOSYS) << name;
  }
}

TEST(SyscallTable, RootPowersNameAGroupSystemAllowKnows) {
  const std::set<std::string> groups = {"mount",  "namespaces", "modules",
                                        "bpf",    "kexec",      "reboot",
                                        "ptrace", "keyring",    "ipc"};
  for (const SyscallEntry& e : SyscallTable()) {
    if (e.handling != H::kRootPower) continue;
    EXPECT_EQ(groups.count(e.group), 1u) << e.name << ": " << e.group;
  }
}

TEST(SyscallTable, TheRootPowersAreExactlyTheOnesEachGroupLifts) {
  const std::map<std::string, std::string> expected = {
      {"mount", "mount"},
      {"umount2", "mount"},
      {"open_tree", "mount"},
      {"open_tree_attr", "mount"},
      {"move_mount", "mount"},
      {"fsopen", "mount"},
      {"fsconfig", "mount"},
      {"fsmount", "mount"},
      {"fspick", "mount"},
      {"mount_setattr", "mount"},
      {"pivot_root", "mount"},
      {"chroot", "mount"},
      {"setns", "namespaces"},
      {"init_module", "modules"},
      {"finit_module", "modules"},
      {"delete_module", "modules"},
      {"bpf", "bpf"},
      {"kexec_load", "kexec"},
      {"kexec_file_load", "kexec"},
      {"reboot", "reboot"},
      {"ptrace", "ptrace"},
      {"process_vm_readv", "ptrace"},
      {"process_vm_writev", "ptrace"},
      {"pidfd_getfd", "ptrace"},
      {"kcmp", "ptrace"},
      {"get_robust_list", "ptrace"},
      {"add_key", "keyring"},
      {"request_key", "keyring"},
      {"keyctl", "keyring"},
      {"shmget", "ipc"},
      {"shmat", "ipc"},
      {"shmctl", "ipc"},
      {"semget", "ipc"},
      {"semop", "ipc"},
      {"semtimedop", "ipc"},
      {"semctl", "ipc"},
      {"msgget", "ipc"},
      {"msgsnd", "ipc"},
      {"msgrcv", "ipc"},
      {"msgctl", "ipc"},
      {"mq_open", "ipc"},
      {"mq_unlink", "ipc"},
  };
  std::map<std::string, std::string> actual;
  for (const SyscallEntry& e : SyscallTable()) {
    if (e.handling == H::kRootPower) actual[e.name] = e.group;
  }
  EXPECT_EQ(actual, expected);
}

TEST(SyscallTable, OnlyRootPowersAndFilteredEntriesNameAGroup) {
  for (const SyscallEntry& e : SyscallTable()) {
    ASSERT_NE(e.group, nullptr) << e.name;
    switch (e.handling) {
      case H::kRootPower:
        break;
      case H::kFiltered:
        // The one opt-in a filtered call has is a new namespace.
        EXPECT_TRUE(std::string(e.group).empty() ||
                    std::string(e.group) == "namespaces")
            << e.name << ": " << e.group;
        break;
      default:
        EXPECT_STREQ(e.group, "") << e.name;
    }
  }
}

TEST(SyscallTable, NewNamespacesAreLiftedByTheNamespacesGroup) {
  for (const char* name : {"clone", "clone3", "unshare"}) {
    const SyscallEntry* e = FindSyscall(name);
    ASSERT_NE(e, nullptr) << name;
    EXPECT_EQ(e->handling, H::kFiltered) << name;
    EXPECT_STREQ(e->group, "namespaces") << name;
  }
}

TEST(SyscallTable, EveryEntryHasAOneLineReason) {
  for (const SyscallEntry& e : SyscallTable()) {
    ASSERT_NE(e.why, nullptr) << e.name;
    const std::string why = e.why;
    EXPECT_FALSE(why.empty()) << e.name;
    EXPECT_EQ(why.find('\n'), std::string::npos) << e.name;
    EXPECT_EQ(why.find('|'), std::string::npos) << e.name;  // a table cell
    EXPECT_LE(why.size(), 200u) << e.name;
    EXPECT_NE(why.back(), '.') << e.name;
    EXPECT_NE(why.front(), ' ') << e.name;
  }
}

TEST(SyscallTable, TheFamiliesAreExactlyTheJudgedEntries) {
  const std::map<std::string, SyscallFamily> expected = {
      {"open", F::kOpen},
      {"openat", F::kOpen},
      {"openat2", F::kOpen},
      {"creat", F::kOpen},
      {"stat", F::kLook},
      {"lstat", F::kLook},
      {"newfstatat", F::kLook},
      {"statx", F::kLook},
      {"access", F::kLook},
      {"faccessat", F::kLook},
      {"faccessat2", F::kLook},
      {"readlink", F::kLook},
      {"readlinkat", F::kLook},
      {"getxattr", F::kLook},
      {"lgetxattr", F::kLook},
      {"listxattr", F::kLook},
      {"llistxattr", F::kLook},
      {"inotify_add_watch", F::kLook},
      {"unlink", F::kMutate},
      {"unlinkat", F::kMutate},
      {"rename", F::kMutate},
      {"renameat", F::kMutate},
      {"renameat2", F::kMutate},
      {"mkdir", F::kMutate},
      {"mkdirat", F::kMutate},
      {"rmdir", F::kMutate},
      {"link", F::kMutate},
      {"linkat", F::kMutate},
      {"symlink", F::kMutate},
      {"symlinkat", F::kMutate},
      {"mknod", F::kMutate},
      {"mknodat", F::kMutate},
      {"truncate", F::kMutate},
      {"chmod", F::kAttributes},
      {"fchmod", F::kAttributes},
      {"fchmodat", F::kAttributes},
      {"fchmodat2", F::kAttributes},
      {"chown", F::kAttributes},
      {"fchown", F::kAttributes},
      {"lchown", F::kAttributes},
      {"fchownat", F::kAttributes},
      {"utime", F::kAttributes},
      {"utimes", F::kAttributes},
      {"futimesat", F::kAttributes},
      {"utimensat", F::kAttributes},
      {"setxattr", F::kAttributes},
      {"lsetxattr", F::kAttributes},
      {"fsetxattr", F::kAttributes},
      {"removexattr", F::kAttributes},
      {"lremovexattr", F::kAttributes},
      {"fremovexattr", F::kAttributes},
      {"execve", F::kExec},
      {"execveat", F::kExec},
      {"connect", F::kNetwork},
      {"bind", F::kNetwork},
      {"sendto", F::kNetwork},
      {"sendmsg", F::kNetwork},
      {"sendmmsg", F::kNetwork},
      {"socket", F::kSocket},
      {"socketpair", F::kSocket},
      {"kill", F::kProcess},
      {"tkill", F::kProcess},
      {"tgkill", F::kProcess},
      {"rt_sigqueueinfo", F::kProcess},
      {"rt_tgsigqueueinfo", F::kProcess},
      {"pidfd_send_signal", F::kProcess},
      {"pidfd_open", F::kProcess},
      {"prlimit64", F::kProcess},
      {"setpriority", F::kProcess},
      {"sched_setaffinity", F::kProcess},
      {"sched_setparam", F::kProcess},
      {"sched_setscheduler", F::kProcess},
      {"sched_setattr", F::kProcess},
      {"ioprio_set", F::kProcess},
      {"migrate_pages", F::kProcess},
      {"move_pages", F::kProcess},
      {"ioctl", F::kIoctl},
      {"tuxcall", F::kCookie},
  };
  std::map<std::string, SyscallFamily> actual;
  for (const SyscallEntry& e : SyscallTable()) {
    if (e.handling == H::kJudged) {
      EXPECT_NE(e.family, F::kNone) << e.name << " is judged in no family";
      actual[e.name] = e.family;
    } else {
      EXPECT_EQ(e.family, F::kNone) << e.name << " has a family, unjudged";
    }
  }
  EXPECT_EQ(actual, expected);
}

TEST(SyscallTable, TheCookieQueryIsTheCallTheShimMakes) {
  const SyscallEntry* e = FindSyscall(static_cast<int>(kCookieQuerySyscall));
  ASSERT_NE(e, nullptr);
  EXPECT_STREQ(e->name, "tuxcall");
  EXPECT_EQ(e->family, F::kCookie);
}

}  // namespace
}  // namespace klaunch
