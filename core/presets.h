// The three presets a policy can extend, after the familiar agent sandbox
// modes:
//
//   read-only        the system read roots (enough for python3, sh,
//                    coreutils and git to start: loader cache, locale, time
//                    zone, certificates, /proc/self, ...), the workspace
//                    readable but not writable, only /dev/null-style devices
//                    writable, no network
//   workspace-write  read-only plus the workspace and the temp directories
//                    writable, except what agents are known to abuse to run
//                    code outside the sandbox later: the workspace's
//                    .git/hooks and .git/config, the shell start-up files
//                    and git's per-user config (read_only entries)
//   full-access      everything admitted (useful with mode = "audit")
//
// None of them reads a secret: no home directory beyond git's own config, no
// /etc/shadow, no ssh host keys. Commands are not listed by any preset;
// `commands.unlisted` defaults to "allow" under a preset unless the file
// lists command rules of its own (see loader.h).
//
// This module owns the lists; the loader merges them under the user's own.

#ifndef KLAUNCH_CORE_PRESETS_H_
#define KLAUNCH_CORE_PRESETS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/string_view.h"

namespace klaunch {

struct PresetLists {
  std::vector<std::string> read, write, deny;
  // Readable, never written: `read_only` may start with `~`;
  // `workspace_read_only` is relative to the workspace (the loader joins it
  // once the workspace is known).
  std::vector<std::string> read_only, workspace_read_only;
  std::vector<std::string> network;
  std::vector<std::string> env_keep;
  bool workspace_writable = true;
  bool unix_abstract = false;
  bool commands_unlisted_allow = false;
};

// The names accepted by `extends`, "none" included.
const std::vector<absl::string_view>& PresetNames();

// False for an unknown name. Paths may start with `~` (expanded by the
// loader); `tmpdir` is $TMPDIR, added to the writable roots when set.
bool GetPreset(absl::string_view name, absl::string_view tmpdir,
               PresetLists* out);

// The variables kept when nothing else says: PATH, HOME, LANG, LC_*, TERM...
const std::vector<std::string>& DefaultEnvKeep();

}  // namespace klaunch

#endif  // KLAUNCH_CORE_PRESETS_H_
