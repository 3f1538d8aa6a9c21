// Loading a policy from TOML (the grammar is docs/policy.md).
//
//   LoadContext ctx{.base_dir = "/home/me/proj", .home = "/home/me"};
//   absl::StatusOr<Policy> p = LoadPolicyFile("agent.toml", ctx);
//   // error: "agent.toml:7:1: unknown key 'filesystem.raed'"
//
// The loader checks the file's shape: every key known, every value of its
// type, `extends` and `mode` among their names. It expands the preset, `~`
// and relative paths, and resolves the existing part of every path through
// symlinks. Content checks that need compiling (globs, RE2, hosts, CIDRs,
// ports) are the Engine's (Engine::Create), which names the same
// file:line:column; LoadEngine does both.
//
// It does not look at anything but the file, the context and the symlinks of
// the paths it names.

#ifndef KLAUNCH_CORE_LOADER_H_
#define KLAUNCH_CORE_LOADER_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/engine.h"
#include "core/policy.h"

namespace klaunch {

// The largest policy file klaunch or the shim reads (4 MiB): a policy is
// text a person writes, and a bigger file is refused, not read in part.
inline constexpr size_t kMaxPolicyBytes = 4 << 20;

struct LoadContext {
  std::string base_dir;  // relative paths and the default workspace
  std::string home;      // `~`
  std::string tmpdir;    // $TMPDIR, writable under workspace-write when set
  // Accept only an effective form (one with a `[resolved]` table), as the
  // shim does: anything else did not come from klaunch.
  bool effective_only = false;
  // The hosts file whose names a host rule also admits by address
  // (core/static_names.h); empty: none (localhost's addresses still are).
  std::string hosts_file;
};

// The context of this process: its cwd, $HOME and $TMPDIR.
LoadContext CurrentLoadContext();

absl::StatusOr<Policy> LoadPolicyText(absl::string_view text,
                                      absl::string_view source_name,
                                      const LoadContext& ctx);

// Fails with kNotFound / kPermissionDenied / kInvalidArgument naming the file
// when it cannot be read as a policy (missing, a directory, not UTF-8, over
// the size limit). `*text`, when given, receives the bytes read, which are
// what the policy was made from (klaunch's start record hashes them).
absl::StatusOr<Policy> LoadPolicyFile(const std::string& path,
                                      const LoadContext& ctx,
                                      std::string* text = nullptr);

// The preset alone, as a policy with no file behind it.
absl::StatusOr<Policy> PresetPolicy(absl::string_view name,
                                    const LoadContext& ctx);

// LoadPolicyFile, then Engine::Create.
absl::StatusOr<Engine> LoadEngine(const std::string& path,
                                  const LoadContext& ctx);

}  // namespace klaunch

#endif  // KLAUNCH_CORE_LOADER_H_
