#include "core/landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/network.h"
#include "core/path.h"
#include "core/programs.h"

namespace klaunch {
namespace {

// The kernel's UAPI (linux/landlock.h), spelled out: Debian 12's headers
// stop at ABI 2, and the values are fixed by the kernel's ABI.
constexpr int kCreateRulesetVersion = 1 << 0;
constexpr int kRulePathBeneath = 1;
constexpr int kRuleNetPort = 2;

struct RulesetAttr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;  // ABI 4
  uint64_t scoped;              // ABI 6
};
struct __attribute__((packed)) PathBeneathAttr {
  uint64_t allowed_access;
  int32_t parent_fd;
};
struct NetPortAttr {
  uint64_t allowed_access;
  uint64_t port;
};

constexpr uint64_t kExecute = 1ULL << 0;
constexpr uint64_t kWriteFile = 1ULL << 1;
constexpr uint64_t kReadFile = 1ULL << 2;
constexpr uint64_t kReadDir = 1ULL << 3;
constexpr uint64_t kRemoveFile = 1ULL << 5;
constexpr uint64_t kMakeChar = 1ULL << 6;
constexpr uint64_t kMakeDir = 1ULL << 7;
constexpr uint64_t kMakeReg = 1ULL << 8;
constexpr uint64_t kMakeBlock = 1ULL << 11;
constexpr uint64_t kRefer = 1ULL << 13;     // ABI 2
constexpr uint64_t kTruncate = 1ULL << 14;  // ABI 3
constexpr uint64_t kIoctlDev = 1ULL << 15;  // ABI 5
constexpr uint64_t kAbi1Fs = (1ULL << 13) - 1;
// The rights that apply to a file rather than a directory.
constexpr uint64_t kFileRights =
    kExecute | kWriteFile | kReadFile | kTruncate | kIoctlDev;
constexpr uint64_t kConnectTcp = 1ULL << 1;
constexpr uint64_t kScopeAbstractUnix = 1ULL << 0;
constexpr uint64_t kScopeSignal = 1ULL << 1;

uint64_t HandledFs(int abi) {
  uint64_t fs = kAbi1Fs;
  if (abi >= 2) fs |= kRefer;
  if (abi >= 3) fs |= kTruncate;
  if (abi >= 5) fs |= kIoctlDev;
  return fs;
}

// The directories before a path's first glob component: what Landlock,
// which names only existing objects, can grant for a pattern.
std::string LiteralPrefix(const std::string& path) {
  if (path.find('*') == std::string::npos) return path;
  if (path.rfind("**", 0) == 0) return "/";
  const size_t star = path.find('*');
  const size_t slash = path.rfind('/', star);
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

int LandlockAbi() {
  const long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0,
                           kCreateRulesetVersion);
  return abi < 0 ? 0 : static_cast<int>(abi);
}

LandlockPlan PlanLandlock(const Policy& policy, int abi,
                          const LandlockExtras& extras) {
  LandlockPlan plan;
  plan.abi = abi;
  plan.handled_fs = HandledFs(abi);
  const uint64_t read = kExecute | kReadFile | kReadDir;
  if (policy.filesystem.unlisted_writes == Unlisted::kAsk) {
    // A ruleset cannot grow once applied, and the user may admit a write
    // anywhere the deny entries do not cover.
    plan.handled_fs &= read;
    plan.approximations.push_back(
        "filesystem.unlisted_writes = \"ask\": a write admitted at the "
        "terminal may be anywhere, so Landlock does not restrict writing; "
        "the shim and the supervisor do");
  }
  uint64_t write = plan.handled_fs;
  if (!SystemAllows(policy, "devices")) write &= ~(kMakeChar | kMakeBlock);

  bool proc_widened = false;
  auto add = [&](const Entry& e, uint64_t access, bool write_root) {
    std::string path = LiteralPrefix(e.value);
    if (path != e.value) {
      plan.approximations.push_back(absl::StrCat(
          e.key, " (\"", e.value, "\") is a pattern: granted as ", path));
    }
    if (path.rfind("/proc/", 0) == 0) {
      if (!proc_widened) {
        plan.approximations.push_back(absl::StrCat(
            e.key, " (\"", e.value,
            "\") and the other entries under /proc are granted as /proc, "
            "since /proc/self is another directory in every process"));
      }
      proc_widened = true;
      path = "/proc";
    }
    plan.paths.push_back({path, access, write_root, e.key,
                          path != e.value});
  };
  const Policy::Filesystem& fs = policy.filesystem;
  add(fs.workspace, fs.workspace_writable ? write : read,
      fs.workspace_writable);
  for (const Entry& e : fs.read) add(e, read, false);
  for (const Entry& e : fs.write) add(e, write, true);
  for (const std::string& f : extras.read_files) {
    plan.paths.push_back({f, kReadFile, false, "klaunch"});
  }
  if (!fs.deny.empty()) {
    plan.approximations.push_back(
        "filesystem.deny entries are not expressible in Landlock (it only "
        "grants): the shim and the supervisor enforce them");
  }

  if (abi >= 4) {
    std::set<uint16_t> ports;
    bool every_port = false;
    for (const Entry& e : policy.network.allow) {
      absl::StatusOr<NetworkRule> rule = NetworkRule::Parse(e.value);
      if (!rule.ok() || rule->port() == 0) {
        every_port = true;
        plan.approximations.push_back(absl::StrCat(
            e.key, " (\"", e.value,
            "\") admits every port: Landlock does not restrict TCP connect"));
        break;
      }
      ports.insert(rule->port());
    }
    if (!every_port) {
      plan.handled_net = kConnectTcp;
      plan.connect_ports.assign(ports.begin(), ports.end());
      if (!policy.network.allow.empty()) {
        plan.approximations.push_back(
            "network.allow is granted by port: the hosts and addresses are "
            "the shim's and the supervisor's to check");
      }
    }
  }
  if (abi >= 6) {
    if (!policy.network.unix_abstract) plan.scoped |= kScopeAbstractUnix;
    if (!SystemAllows(policy, "signals")) plan.scoped |= kScopeSignal;
  }
  return plan;
}

absl::StatusOr<int> CreateRuleset(LandlockPlan* plan) {
  RulesetAttr attr{plan->handled_fs, plan->handled_net, plan->scoped};
  size_t size = sizeof(attr);
  if (plan->abi < 4) size = offsetof(RulesetAttr, handled_access_net);
  else if (plan->abi < 6) size = offsetof(RulesetAttr, scoped);
  const long fd = syscall(SYS_landlock_create_ruleset, &attr, size, 0);
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("landlock_create_ruleset: ", strerror(errno)));
  }
  const int ruleset = static_cast<int>(fd);
  auto fail = [&](const std::string& what) {
    const int err = errno;
    close(ruleset);
    return absl::InternalError(absl::StrCat(what, ": ", strerror(err)));
  };
  for (LandlockPlan::PathRule& r : plan->paths) {
    std::string path = r.path;
    uint64_t access = r.access;
    int object = open(path.c_str(), O_PATH | O_CLOEXEC);
    if (object < 0 && r.write_root) {
      // What the policy admits there starts with creating it.
      while (object < 0 && path != "/") {
        const size_t slash = path.rfind('/');
        path = slash == 0 ? "/" : path.substr(0, slash);
        object = open(path.c_str(), O_PATH | O_CLOEXEC);
      }
      // A file made there must then be writable: Landlock grants by
      // hierarchy, so its rights are the ancestor's.
      access = kMakeDir | kMakeReg | kWriteFile | kReadFile | kTruncate;
      r.widened = true;
      plan->approximations.push_back(absl::StrCat(
          r.key, " (\"", r.path, "\") does not exist: ", path,
          " may have directories and files made in it, and its files written"));
    }
    if (object < 0) {
      plan->approximations.push_back(absl::StrCat(
          r.key, " (\"", r.path, "\") does not exist: not in the ruleset"));
      continue;
    }
    struct stat st;
    if (fstat(object, &st) == 0 && !S_ISDIR(st.st_mode)) access &= kFileRights;
    access &= plan->handled_fs;
    if (access == 0) {
      close(object);
      continue;
    }
    PathBeneathAttr rule{access, object};
    const long rc =
        syscall(SYS_landlock_add_rule, ruleset, kRulePathBeneath, &rule, 0);
    close(object);
    if (rc != 0) return fail(absl::StrCat("landlock_add_rule for ", path));
  }
  for (uint16_t port : plan->connect_ports) {
    NetPortAttr rule{kConnectTcp, port};
    if (syscall(SYS_landlock_add_rule, ruleset, kRuleNetPort, &rule, 0) != 0) {
      return fail(absl::StrCat("landlock_add_rule for TCP port ", port));
    }
  }
  return ruleset;
}

bool LandlockEnforcesWrites(const LandlockPlan& plan, const Policy& policy) {
  const uint64_t writes = kWriteFile | kMakeReg | kRemoveFile;
  if ((plan.handled_fs & writes) != writes) return false;
  std::vector<std::string> roots;
  for (const LandlockPlan::PathRule& r : plan.paths) {
    if ((r.access & kWriteFile) == 0) continue;
    if (r.widened) return false;
    roots.push_back(r.path);
  }
  // A section's own write roots are planned into a layer of their own,
  // which this does not look at.
  for (const ProgramSection& section : policy.programs) {
    if (section.write || section.workspace_writable) return false;
  }
  std::vector<const Entry*> kept_from_writing;
  for (const Entry& e : policy.filesystem.deny) kept_from_writing.push_back(&e);
  for (const Entry& e : policy.klaunch.read_only) {
    kept_from_writing.push_back(&e);
  }
  for (const ProgramSection& section : policy.programs) {
    for (const Entry& e : section.deny) kept_from_writing.push_back(&e);
  }
  for (const Entry* e : kept_from_writing) {
    for (const std::string& p : {e->value, e->resolved}) {
      if (p.empty()) continue;
      const std::string literal = LiteralPrefix(p);
      for (const std::string& root : roots) {
        if (PathIsWithin(literal, root) || PathIsWithin(root, literal)) {
          return false;
        }
      }
    }
  }
  return true;
}

bool LandlockScopesSignals(const LandlockPlan& plan) {
  return (plan.scoped & kScopeSignal) != 0;
}

int RestrictSelf(int ruleset_fd) {
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -errno;
  if (syscall(SYS_landlock_restrict_self, ruleset_fd, 0) != 0) return -errno;
  close(ruleset_fd);
  return 0;
}

LandlockPlan PlanSectionLandlock(const Policy& policy, int section, int abi,
                                 const LandlockExtras& extras) {
  LandlockPlan plan = PlanLandlock(
      SectionPolicy(policy, policy.programs[section]), abi, extras);
  // Scoping signals in a section's layer would keep its processes from
  // signalling their parent, which no section can say: the policy's own
  // layer already keeps signals inside the sandbox.
  plan.scoped &= ~kScopeSignal;
  return plan;
}

absl::StatusOr<std::vector<int>> CreateSectionRulesets(
    const Policy& policy, absl::Span<const int> sections, int abi,
    const LandlockExtras& extras) {
  std::vector<int> fds;
  for (int i : sections) {
    if (i < 0 || static_cast<size_t>(i) >= policy.programs.size()) {
      for (int fd : fds) close(fd);
      return absl::InvalidArgumentError("no such program section");
    }
    LandlockPlan plan = PlanSectionLandlock(policy, i, abi, extras);
    absl::StatusOr<int> fd = CreateRuleset(&plan);
    if (!fd.ok()) {
      for (int f : fds) close(f);
      return absl::Status(fd.status().code(),
                          absl::StrCat(policy.programs[i].key, ": ",
                                       fd.status().message()));
    }
    fds.push_back(*fd);
  }
  return fds;
}

std::string DescribeLandlock(const LandlockPlan& plan) {
  std::vector<std::string> parts = {"files"};
  if (plan.handled_net != 0) parts.push_back("TCP connect");
  if (plan.scoped & kScopeAbstractUnix) parts.push_back("abstract sockets");
  if (plan.scoped & kScopeSignal) parts.push_back("signals");
  return absl::StrCat("landlock ABI ", plan.abi, " (",
                      absl::StrJoin(parts, ", "), ")");
}

}  // namespace klaunch
