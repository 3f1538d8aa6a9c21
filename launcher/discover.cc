#include "launcher/discover.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "absl/strings/str_cat.h"

namespace klaunch {
namespace {

// True when `path` is a regular file this user (or root) owns; one another
// user owns is noted in `out`.
bool Usable(const std::string& path, Discovered* out) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if (st.st_uid != geteuid() && st.st_uid != 0) {
    out->passed_over.push_back(
        absl::StrCat(path, " (owned by uid ", st.st_uid, ", not by you)"));
    return false;
  }
  return true;
}

std::string Parent(const std::string& dir) {
  const size_t slash = dir.rfind('/');
  return slash == 0 ? "/" : dir.substr(0, slash);
}

}  // namespace

Discovered DiscoverPolicy(const std::string& cwd, const std::string& home,
                          const std::string& xdg_config_home) {
  Discovered out;
  // The repository holding the working directory, if any: the walk goes no
  // higher than its root.
  std::string root;
  for (std::string dir = cwd;; dir = Parent(dir)) {
    // A directory, or a file for a worktree or a submodule.
    if (access(absl::StrCat(dir == "/" ? "" : dir, "/.git").c_str(), F_OK) ==
        0) {
      root = dir;
      break;
    }
    if (dir == "/") break;
  }
  const std::string top = root.empty() ? cwd : root;
  for (std::string dir = cwd;; dir = Parent(dir)) {
    const std::string file =
        absl::StrCat(dir == "/" ? "" : dir, "/.klaunch.toml");
    if (Usable(file, &out)) {
      out.path = file;
      out.how = dir == cwd ? "found in the working directory"
                           : "found above the working directory";
      return out;
    }
    if (dir == top || dir == "/") break;
  }
  std::string config = xdg_config_home;
  if (config.empty() || config[0] != '/') {
    if (home.empty()) return out;
    config = absl::StrCat(home, "/.config");
  }
  const std::string file = absl::StrCat(config, "/klaunch/policy.toml");
  if (Usable(file, &out)) {
    out.path = file;
    out.how = "the user's default";
  }
  return out;
}

std::string DiscoverPolicyToUse(bool say) {
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof(cwd)) == nullptr) return "";
  const char* home = getenv("HOME");
  const char* xdg = getenv("XDG_CONFIG_HOME");
  const Discovered d = DiscoverPolicy(cwd, home ? home : "", xdg ? xdg : "");
  if (say) {
    for (const std::string& p : d.passed_over) {
      std::fprintf(stderr, "klaunch: not using %s\n", p.c_str());
    }
    if (!d.path.empty()) {
      std::fprintf(stderr, "klaunch: policy %s (%s; --policy names another)\n",
                   d.path.c_str(), d.how.c_str());
    }
  }
  return d.path;
}

}  // namespace klaunch
