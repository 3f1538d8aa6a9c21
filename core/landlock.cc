#include "core/landlock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
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

bool UnderProc(const std::string& path) { return PathIsWithin(path, "/proc"); }

// `path` and, when it is another spelling, `resolved`.
std::vector<std::string> Spellings(const std::string& path,
                                   const std::string& resolved) {
  std::vector<std::string> out = {path};
  if (!resolved.empty() && resolved != path) out.push_back(resolved);
  return out;
}

// `path` strictly below `root`, as the part after it ("a/b").
std::string Below(const std::string& path, const std::string& root) {
  return path.substr(root == "/" ? 1 : root.size() + 1);
}

std::string Join(const std::string& dir, const std::string& rel) {
  return dir == "/" ? "/" + rel : absl::StrCat(dir, "/", rel);
}

// A level of more entries than this is granted whole. Each entry granted is
// an open and a landlock_add_rule, and a rule the kernel keeps for the life
// of the ruleset; klaunch builds the ruleset at every start and the shim a
// section's at every exec that enters it. A home directory has far fewer; a
// directory with more (a maildir, a cache) is better granted whole, its deny
// entries left to the shim and the supervisor, than made slow to start.
constexpr size_t kMaxEntriesPerLevel = 4096;

// The directories a rule with keep_out would grant entry by entry: its own
// path and each directory between it and a kept-out path's parent, in both
// spellings of the rule.
std::vector<std::string> ExpandedDirs(const LandlockPlan::PathRule& r) {
  std::set<std::string> dirs;
  for (const std::string& root : Spellings(r.path, r.resolved)) {
    dirs.insert(root);
    for (const LandlockPlan::PathRule::KeepOut& k : r.keep_out) {
      std::string dir = root;
      const std::vector<std::string> parts =
          absl::StrSplit(Below(k.path, r.path), '/');
      for (size_t i = 0; i + 1 < parts.size(); ++i) {
        dir = Join(dir, parts[i]);
        dirs.insert(dir);
      }
    }
  }
  return {dirs.begin(), dirs.end()};
}

// A directory's identity, for "at, above or below" between opened objects
// whatever spelling reached them.
struct Id {
  dev_t dev;
  ino_t ino;
  bool operator<(const Id& o) const {
    return dev != o.dev ? dev < o.dev : ino < o.ino;
  }
  bool operator==(const Id& o) const { return dev == o.dev && ino == o.ino; }
};

bool IdOf(int fd, Id* id) {
  struct stat st;
  if (fstat(fd, &st) != 0) return false;
  *id = {st.st_dev, st.st_ino};
  return true;
}

// The identities of the directory `dir` and of every directory above it.
std::vector<Id> Chain(int dir) {
  std::vector<Id> chain;
  Id id;
  if (!IdOf(dir, &id)) return chain;
  chain.push_back(id);
  int cur = openat(dir, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
  while (cur >= 0 && chain.size() < 4096) {
    if (!IdOf(cur, &id) || id == chain.back()) break;  // the root
    chain.push_back(id);
    const int up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
    close(cur);
    cur = up;
  }
  if (cur >= 0) close(cur);
  return chain;
}

// What the write-granted objects of a ruleset are, to tell whether one lies
// at or above a directory.
struct WriteGranted {
  std::set<Id> objects;  // each object granted writing

  void Add(int object, const std::string&) {
    Id id;
    if (IdOf(object, &id)) objects.insert(id);
  }

  // True when a write-granted object lies at or above `dir`: its rights
  // reach everything below, the entries kept out included. One strictly
  // below `dir` is granted on its own and leaves `dir` as it is.
  bool Meets(int dir) const {
    Id id;
    if (!IdOf(dir, &id)) return true;
    for (const Id& a : Chain(dir)) {
      if (objects.count(a)) return true;  // at or above dir
    }
    return false;
  }
};

int AddPathRule(int ruleset, int object, uint64_t access) {
  PathBeneathAttr rule{access, object};
  return static_cast<int>(
      syscall(SYS_landlock_add_rule, ruleset, kRulePathBeneath, &rule, 0));
}

// The entries of the directory `dir` (an O_PATH descriptor), at most
// kMaxEntriesPerLevel + 1 of them. False when it cannot be listed.
bool ListDirectory(int dir, std::vector<std::string>* names) {
  const int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  DIR* d = fdopendir(fd);
  if (d == nullptr) {
    close(fd);
    return false;
  }
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    names->push_back(name);
    if (names->size() > kMaxEntriesPerLevel) break;
  }
  closedir(d);
  return true;
}

// The paths kept out below one directory level, by their next component.
struct KeepTree {
  bool kept = false;  // this path is kept out, and all below it
  std::map<std::string, KeepTree> children;
};

// Grants the directory `dir` (reached as `path`) entry by entry around
// `tree`: READ_DIR on it, `access` on every entry not on the way to a
// kept-out path, and the same again in each directory on the way. False
// (with `*why` set) when a level cannot be listed or has too many entries,
// or a rule cannot be added: the caller then grants the rule whole, wider
// than what this added.
bool GrantAround(int ruleset, int dir, const std::string& path,
                 const KeepTree& tree, uint64_t access, uint64_t handled,
                 std::string* why) {
  if (const uint64_t list = access & landlock::kReadDir & handled; list != 0) {
    if (AddPathRule(ruleset, dir, list) != 0) {
      *why =
          absl::StrCat("landlock_add_rule for ", path, ": ", strerror(errno));
      return false;
    }
  }
  std::vector<std::string> names;
  if (!ListDirectory(dir, &names)) {
    *why = absl::StrCat(path, " cannot be listed: ", strerror(errno));
    return false;
  }
  if (names.size() > kMaxEntriesPerLevel) {
    *why =
        absl::StrCat(path, " has more than ", kMaxEntriesPerLevel, " entries");
    return false;
  }
  for (const std::string& name : names) {
    const std::string child_path = Join(path, name);
    if (auto it = tree.children.find(name); it != tree.children.end()) {
      if (it->second.kept) continue;
      const int child = openat(dir, name.c_str(),
                               O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
      if (child < 0) {
        *why = absl::StrCat(child_path, " changed while it was listed");
        return false;
      }
      const bool ok = GrantAround(ruleset, child, child_path, it->second,
                                  access, handled, why);
      close(child);
      if (!ok) return false;
      continue;
    }
    // Not followed: a symlink here would grant its target, which may be a
    // kept-out path. A rule on the link itself grants nothing through it
    // (Landlock checks the object reached), so a link is left out, as its
    // target is when the root is granted whole.
    const int object =
        openat(dir, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (object < 0) continue;  // gone since the listing
    struct stat st;
    uint64_t rights = access & handled;
    if (fstat(object, &st) != 0 || S_ISLNK(st.st_mode)) {
      close(object);
      continue;
    }
    if (!S_ISDIR(st.st_mode)) rights &= landlock::kFileRights;
    const int rc = rights == 0 ? 0 : AddPathRule(ruleset, object, rights);
    const int err = errno;
    close(object);
    if (rc != 0) {
      *why = absl::StrCat("landlock_add_rule for ", child_path, ": ",
                          strerror(err));
      return false;
    }
  }
  return true;
}

// Tries to grant `r` (its object opened as `object`) entry by entry around
// its keep_out. True when it did (r.kept_out set); false when `r` is to be
// granted whole, with the reason said in `plan->approximations`.
bool ExpandRule(int ruleset, LandlockPlan::PathRule& r, int object,
                const WriteGranted& writes, LandlockPlan* plan) {
  struct stat st;
  if (fstat(object, &st) != 0 || !S_ISDIR(st.st_mode)) return false;
  auto named = [&](const std::string& path) {
    std::vector<std::string> keys;
    for (const LandlockPlan::PathRule::KeepOut& k : r.keep_out) {
      if (k.path == path) {
        keys.push_back(absl::StrCat(k.key, " (\"", k.value, "\")"));
      }
    }
    return absl::StrJoin(keys, ", ");
  };
  std::vector<std::string> paths;
  for (const LandlockPlan::PathRule::KeepOut& k : r.keep_out) {
    paths.push_back(k.path);
  }
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());

  // Each kept-out path found as it is named from the rule's object: real
  // directories on the way (none followed through a symlink), the entry
  // itself present (a symlink too: it is not followed either).
  KeepTree tree;
  std::vector<std::string> kept;
  std::vector<std::string> expanded = {r.path};
  std::vector<int> dirs = {dup(object)};  // the directories to expand
  auto close_dirs = [&] {
    for (int d : dirs) {
      if (d >= 0) close(d);
    }
  };
  for (const std::string& path : paths) {
    const std::vector<std::string> parts =
        absl::StrSplit(Below(path, r.path), '/');
    // Below a path already kept out (sorted: a path comes before those
    // below it): kept out with it.
    const KeepTree* node = &tree;
    for (size_t i = 0; i < parts.size() && !node->kept; ++i) {
      auto it = node->children.find(parts[i]);
      if (it == node->children.end()) break;
      node = &it->second;
    }
    if (node->kept) {
      kept.push_back(path);
      continue;
    }
    std::vector<int> opened;
    int dir = dup(object);
    bool found = dir >= 0;
    for (size_t i = 0; found && i + 1 < parts.size(); ++i) {
      const int next = openat(dir, parts[i].c_str(),
                              O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
      close(dir);
      dir = next;
      found = dir >= 0;
      if (found) opened.push_back(dup(dir));
    }
    if (found) {
      // An open, not fstatat: in the shim (a section's ruleset) an open is
      // its own, where a look would be judged as the program's, and refused.
      const int entry =
          openat(dir, parts.back().c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
      found = entry >= 0;
      if (found) close(entry);
    }
    if (dir >= 0) close(dir);
    if (!found) {
      for (int d : opened) {
        if (d >= 0) close(d);
      }
      plan->approximations.push_back(absl::StrCat(
          named(path), " does not exist at start below ", r.path,
          " (or is reached through a symlink there): nothing is kept out of ",
          r.key, ", granted whole; the shim and the supervisor refuse it"));
      continue;
    }
    dirs.insert(dirs.end(), opened.begin(), opened.end());
    KeepTree* at = &tree;
    std::string dir_path = r.path;
    for (size_t i = 0; i < parts.size(); ++i) {
      at = &at->children[parts[i]];
      if (i + 1 < parts.size()) {
        dir_path = Join(dir_path, parts[i]);
        if (std::find(expanded.begin(), expanded.end(), dir_path) ==
            expanded.end()) {
          expanded.push_back(dir_path);
        }
      }
    }
    at->kept = true;
    at->children.clear();
    kept.push_back(path);
  }
  if (kept.empty()) {
    close_dirs();
    return false;
  }
  const std::string left =
      absl::StrCat("so ", absl::StrJoin(kept, ", "),
                   " stay readable to a program that gets "
                   "past the shim and the supervisor, which refuse them");
  for (int d : dirs) {
    if (d < 0 || writes.Meets(d)) {
      close_dirs();
      plan->approximations.push_back(absl::StrCat(
          r.key, " (\"", r.path,
          "\") is granted whole: an object granted "
          "writing lies at, above or below a directory it would be granted "
          "entry by entry in, where nothing could then be made; ",
          left));
      return false;
    }
  }
  close_dirs();
  std::string why;
  if (!GrantAround(ruleset, object, r.path, tree, r.access, plan->handled_fs,
                   &why)) {
    plan->approximations.push_back(absl::StrCat(
        r.key, " (\"", r.path, "\") is granted whole: ", why, "; ", left));
    return false;
  }
  r.kept_out = kept;
  plan->approximations.push_back(absl::StrCat(
      r.key, " (\"", r.path, "\") is granted entry by entry around ",
      absl::StrJoin(kept, ", "),
      ", kept out (the names inside a kept-out directory stay listable). A "
      "file made or replaced later (an editor saving by renaming a new file "
      "over the old one replaces it) directly in ",
      absl::StrJoin(expanded, ", "),
      " (by a process outside the sandbox) is not readable in the sandbox: "
      "Landlock names only what exists when the run starts"));
  return true;
}

}  // namespace

int LandlockAbi() {
  const long abi =
      syscall(SYS_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
  int usable = abi < 0 ? 0 : static_cast<int>(abi);
  // Tests only: what klaunch does on a kernel with an older Landlock, or
  // none (scripts/attack-matrix). It can only lower the ABI.
  if (const char* cap = getenv("KLAUNCH_TEST_LANDLOCK_ABI")) {
    char* end;
    const long n = std::strtol(cap, &end, 10);
    if (*cap != '\0' && *end == '\0' && n >= 0 && n < usable) {
      usable = static_cast<int>(n);
    }
  }
  return usable;
}

LandlockPlan PlanLandlock(const Policy& policy, int abi,
                          const LandlockExtras& extras) {
  LandlockPlan plan;
  plan.abi = abi;
  plan.handled_fs = landlock::HandledFs(abi);
  const uint64_t read =
      landlock::kExecute | landlock::kReadFile | landlock::kReadDir;
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
  if (!SystemAllows(policy, "devices"))
    write &= ~(landlock::kMakeChar | landlock::kMakeBlock);

  bool proc_widened = false;
  auto add = [&](const Entry& e, uint64_t access, bool write_root) {
    std::string path = LiteralRoot(e.value);
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
    LandlockPlan::PathRule rule{path, access, write_root, e.key,
                                path != e.value};
    if (!rule.widened && e.resolved != e.value) rule.resolved = e.resolved;
    // A read-only rule keeps out the literal deny entries strictly below it
    // (CreateRuleset grants the entries around them), unless it is /proc.
    if (!write_root && !rule.widened && (access & landlock::kWriteFile) == 0 &&
        !UnderProc(path)) {
      for (const Entry& d : policy.filesystem.deny) {
        if (d.value.find('*') != std::string::npos) continue;
        for (const std::string& df : Spellings(d.value, d.resolved)) {
          if (UnderProc(df)) continue;
          for (const std::string& rf : Spellings(path, rule.resolved)) {
            if (df == rf || !PathIsWithin(df, rf)) continue;
            const std::string kept = Join(path, Below(df, rf));
            const bool known =
                std::any_of(rule.keep_out.begin(), rule.keep_out.end(),
                            [&](const auto& k) { return k.path == kept; });
            if (!known) rule.keep_out.push_back({kept, d.key, d.value});
          }
        }
      }
    }
    plan.paths.push_back(std::move(rule));
  };
  const Policy::Filesystem& fs = policy.filesystem;
  add(fs.workspace, fs.workspace_writable ? write : read,
      fs.workspace_writable);
  for (const Entry& e : fs.read) add(e, read, false);
  for (const Entry& e : fs.read_only) add(e, read, false);
  for (const Entry& e : fs.write) add(e, write, true);
  for (const std::string& f : extras.read_files) {
    plan.paths.push_back({f, landlock::kReadFile, false, "klaunch"});
  }
  // A rule with an object granted writing at or above a directory it would
  // expand is granted whole: that grant reaches the entries kept out. A
  // write root strictly below one is granted on its own and changes
  // nothing above it. (CreateRuleset checks again with the objects it
  // opens: a missing write root grants its nearest existing ancestor,
  // which may be at or above.)
  for (LandlockPlan::PathRule& r : plan.paths) {
    if (r.keep_out.empty()) continue;
    for (const LandlockPlan::PathRule& w : plan.paths) {
      if (!w.write_root) continue;
      bool meets = false;
      for (const std::string& dir : ExpandedDirs(r)) {
        for (const std::string& wf : Spellings(w.path, w.resolved)) {
          meets = meets || PathIsWithin(dir, wf);
        }
      }
      if (!meets) continue;
      std::vector<std::string> denied;
      for (const auto& k : r.keep_out) {
        denied.push_back(absl::StrCat(k.key, " (\"", k.value, "\")"));
      }
      plan.approximations.push_back(absl::StrCat(
          r.key, " (\"", r.path, "\") is granted whole: ", w.key, " (\"",
          w.path,
          "\"), granted writing, lies at or above a directory it "
          "would be granted entry by entry in, and its rights reach "
          "everything below; so ",
          absl::StrJoin(denied, ", "),
          " inside it stay "
          "readable to a program that gets past the shim and the supervisor, "
          "which refuse them"));
      r.keep_out.clear();
      break;
    }
  }
  // What the deny entries come to: kept out (said by CreateRuleset), or
  // granted with a rule and left to the shim and the supervisor.
  for (const Entry& d : fs.deny) {
    if (d.value.find('*') != std::string::npos) {
      plan.approximations.push_back(absl::StrCat(
          d.key, " (\"", d.value,
          "\") is a pattern: not expressible in "
          "Landlock (it only grants, and names what exists); the shim and the "
          "supervisor enforce it"));
      continue;
    }
    for (const LandlockPlan::PathRule& r : plan.paths) {
      if ((r.access & (landlock::kReadFile | landlock::kReadDir)) == 0)
        continue;
      bool inside = false;
      for (const std::string& df : Spellings(d.value, d.resolved)) {
        for (const std::string& rf : Spellings(r.path, r.resolved)) {
          inside = inside || PathIsWithin(df, rf);
        }
      }
      const bool kept =
          std::any_of(r.keep_out.begin(), r.keep_out.end(),
                      [&](const auto& k) { return k.key == d.key; });
      if (!inside || kept) continue;
      const char* why = r.write_root        ? ", granted writing"
                        : r.widened         ? ", granted wider than its entry"
                        : UnderProc(r.path) ? ", /proc"
                                            : "";
      plan.approximations.push_back(
          absl::StrCat(d.key, " (\"", d.value, "\") lies inside ", r.key,
                       " (\"", r.path, "\"", why,
                       "), granted whole: not expressible in Landlock there; "
                       "the shim and the supervisor enforce it"));
    }
  }

  // What a read_only entry inside a write root comes to: Landlock only
  // grants, so the root's grant reaches it.
  for (const Entry& k : fs.read_only) {
    for (const LandlockPlan::PathRule& r : plan.paths) {
      if (!r.write_root) continue;
      bool inside = false;
      for (const std::string& kf :
           Spellings(LiteralRoot(k.value), LiteralRoot(k.resolved))) {
        for (const std::string& rf : Spellings(r.path, r.resolved)) {
          inside = inside || PathIsWithin(kf, rf);
        }
      }
      if (!inside) continue;
      plan.approximations.push_back(absl::StrCat(
          k.key, " (\"", k.value, "\") lies inside ", r.key, " (\"", r.path,
          "\", granted writing): Landlock cannot take writing back below a "
          "grant; the shim and the supervisor refuse its writes"));
      break;
    }
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
      plan.handled_net = landlock::kConnectTcp;
      plan.connect_ports.assign(ports.begin(), ports.end());
      if (!policy.network.allow.empty()) {
        plan.approximations.push_back(
            "network.allow is granted by port: the hosts and addresses are "
            "the shim's and the supervisor's to check");
      }
    }
  }
  if (abi >= 6) {
    if (!policy.network.unix_abstract)
      plan.scoped |= landlock::kScopeAbstractUnix;
    if (!SystemAllows(policy, "signals")) plan.scoped |= landlock::kScopeSignal;
  }
  return plan;
}

absl::StatusOr<int> CreateRuleset(LandlockPlan* plan) {
  RulesetAttr attr{plan->handled_fs, plan->handled_net, plan->scoped};
  size_t size = sizeof(attr);
  if (plan->abi < 4)
    size = offsetof(RulesetAttr, handled_access_net);
  else if (plan->abi < 6)
    size = offsetof(RulesetAttr, scoped);
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
  // Objects granted writing first: a rule is expanded only where none lies
  // at, above or below a directory it would expand.
  WriteGranted writes;
  for (const bool writing : {true, false}) {
    for (LandlockPlan::PathRule& r : plan->paths) {
      if (r.write_root != writing) continue;
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
        access = landlock::kMakeDir | landlock::kMakeReg |
                 landlock::kWriteFile | landlock::kReadFile |
                 landlock::kTruncate;
        r.widened = true;
        plan->approximations.push_back(absl::StrCat(
            r.key, " (\"", r.path, "\") does not exist: ", path,
            " may have directories and files made in it, and its files "
            "written"));
      }
      if (object < 0) {
        plan->approximations.push_back(absl::StrCat(
            r.key, " (\"", r.path, "\") does not exist: not in the ruleset"));
        continue;
      }
      if (r.write_root) writes.Add(object, path);
      r.kept_out.clear();
      if (!r.keep_out.empty() && ExpandRule(ruleset, r, object, writes, plan)) {
        close(object);
        continue;
      }
      struct stat st;
      if (fstat(object, &st) == 0 && !S_ISDIR(st.st_mode)) {
        access &= landlock::kFileRights;
      }
      access &= plan->handled_fs;
      if (access == 0) {
        close(object);
        continue;
      }
      const int rc = AddPathRule(ruleset, object, access);
      close(object);
      if (rc != 0) return fail(absl::StrCat("landlock_add_rule for ", path));
    }
  }
  for (uint16_t port : plan->connect_ports) {
    NetPortAttr rule{landlock::kConnectTcp, port};
    if (syscall(SYS_landlock_add_rule, ruleset, kRuleNetPort, &rule, 0) != 0) {
      return fail(absl::StrCat("landlock_add_rule for TCP port ", port));
    }
  }
  return ruleset;
}

bool LandlockEnforcesWrites(const LandlockPlan& plan, const Policy& policy) {
  const uint64_t writes =
      landlock::kWriteFile | landlock::kMakeReg | landlock::kRemoveFile;
  if ((plan.handled_fs & writes) != writes) return false;
  std::vector<std::string> roots;
  for (const LandlockPlan::PathRule& r : plan.paths) {
    if ((r.access & landlock::kWriteFile) == 0) continue;
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
  for (const Entry& e : policy.filesystem.read_only) {
    kept_from_writing.push_back(&e);
  }
  for (const Entry& e : policy.klaunch.read_only) {
    kept_from_writing.push_back(&e);
  }
  for (const ProgramSection& section : policy.programs) {
    for (const Entry& e : section.deny) kept_from_writing.push_back(&e);
  }
  for (const Entry* e : kept_from_writing) {
    for (const std::string& p : {e->value, e->resolved}) {
      if (p.empty()) continue;
      const std::string literal = LiteralRoot(p);
      for (const std::string& root : roots) {
        if (PathIsWithin(literal, root) || PathIsWithin(root, literal)) {
          return false;
        }
      }
    }
  }
  return true;
}

bool LandlockEnforcesReads(const LandlockPlan& plan, const Policy& policy) {
  const uint64_t reads =
      landlock::kReadFile | landlock::kReadDir | landlock::kExecute;
  if ((plan.handled_fs & reads) != reads) return false;
  std::vector<const LandlockPlan::PathRule*> readable;
  for (const LandlockPlan::PathRule& r : plan.paths) {
    if ((r.access & reads) == 0) continue;
    if (r.widened) return false;
    readable.push_back(&r);
  }
  std::vector<const Entry*> denied;
  for (const Entry& e : policy.filesystem.deny) denied.push_back(&e);
  for (const ProgramSection& section : policy.programs) {
    for (const Entry& e : section.deny) denied.push_back(&e);
  }
  for (const Entry* e : denied) {
    for (const std::string& p : Spellings(e->value, e->resolved)) {
      if (p.find('*') != std::string::npos) {
        const std::string literal = LiteralRoot(p);
        for (const LandlockPlan::PathRule* r : readable) {
          for (const std::string& rf : Spellings(r->path, r->resolved)) {
            if (PathIsWithin(literal, rf) || PathIsWithin(rf, literal)) {
              return false;
            }
          }
        }
        continue;
      }
      for (const LandlockPlan::PathRule* r : readable) {
        for (const std::string& rf : Spellings(r->path, r->resolved)) {
          if (PathIsWithin(rf, p)) return false;  // a rule at or below it
          if (!PathIsWithin(p, rf)) continue;
          // Strictly below the rule: kept out of it, as spelled under it,
          // by itself or with a path above it.
          const std::string under = Join(r->path, Below(p, rf));
          const bool kept = std::any_of(
              r->kept_out.begin(), r->kept_out.end(),
              [&](const std::string& k) { return PathIsWithin(under, k); });
          if (!kept) return false;
        }
      }
    }
  }
  return true;
}

bool LandlockScopesSignals(const LandlockPlan& plan) {
  return (plan.scoped & landlock::kScopeSignal) != 0;
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
  plan.scoped &= ~landlock::kScopeSignal;
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
      return absl::Status(
          fd.status().code(),
          absl::StrCat(policy.programs[i].key, ": ", fd.status().message()));
    }
    fds.push_back(*fd);
  }
  return fds;
}

std::string DescribeLandlock(const LandlockPlan& plan) {
  std::vector<std::string> parts = {"files"};
  if (plan.handled_net != 0) parts.push_back("TCP connect");
  if (plan.scoped & landlock::kScopeAbstractUnix)
    parts.push_back("abstract sockets");
  if (plan.scoped & landlock::kScopeSignal) parts.push_back("signals");
  return absl::StrCat("landlock ABI ", plan.abi, " (",
                      absl::StrJoin(parts, ", "), ")");
}

}  // namespace klaunch
