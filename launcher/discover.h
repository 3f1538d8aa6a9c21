// Which policy a run takes when the command line names none: the nearest
// `.klaunch.toml` from the working directory up to the repository's root
// (the first directory holding `.git`), or, outside a repository, in the
// working directory itself; else `$XDG_CONFIG_HOME/klaunch/policy.toml`
// (`~/.config/klaunch/policy.toml`). A file another user owns is passed
// over and said, so nobody plants a policy in a shared directory (/tmp).
// None found: the workspace-write preset, as before.
//
// This module only finds the file; the launcher loads it and says which.

#ifndef KLAUNCH_LAUNCHER_DISCOVER_H_
#define KLAUNCH_LAUNCHER_DISCOVER_H_

#include <string>
#include <vector>

namespace klaunch {

struct Discovered {
  std::string path;  // empty: none found
  std::string how;   // "found from the working directory", ...
  // Files passed over, each with why ("owned by uid 1001").
  std::vector<std::string> passed_over;
};

// `cwd` absolute; `xdg_config_home` and `home` as the environment gives
// them (either may be empty).
Discovered DiscoverPolicy(const std::string& cwd, const std::string& home,
                          const std::string& xdg_config_home);

// DiscoverPolicy for this process (its cwd, $HOME, $XDG_CONFIG_HOME): the
// path, or "" for the default preset. With `say`, one line on stderr names
// the file and how it was found, and each file passed over.
std::string DiscoverPolicyToUse(bool say);

}  // namespace klaunch

#endif  // KLAUNCH_LAUNCHER_DISCOVER_H_
