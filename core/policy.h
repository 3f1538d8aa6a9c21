// The policy model: plain data that says what a sandboxed program may do.
//
// A Policy is what the loader (loader.h) produces from a TOML file, with
// presets expanded, `~` and relative paths resolved, and every entry tagged
// with the key that names it (`filesystem.read[2]`) and where it was written.
// It holds no compiled matcher and decides nothing: the Engine (engine.h) is
// built from it once and answers the questions.
//
// Entry order is significant only for names: the user's own entries come
// first, in file order, and preset entries follow, so `filesystem.deny[0]`
// names the first `deny` entry of the user's file in every message.

#ifndef KLAUNCH_CORE_POLICY_H_
#define KLAUNCH_CORE_POLICY_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace klaunch {

enum class Mode { kEnforce, kAudit };
enum class Unlisted { kDeny, kAsk, kAllow };

// Where an entry was written; line 0 means it has no place in a file (a
// preset's entry, or one built in code).
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
};

// One item of a list in the policy.
struct Entry {
  // The value, normalised: for paths absolute and lexically clean (or a
  // pattern starting with `**`), for the rest as written.
  std::string value;
  // For paths only: the same path with its existing leading part resolved
  // through symlinks (equal to `value` when nothing was a symlink). Both forms
  // are matched, so a rule names the object whichever spelling reaches it.
  std::string resolved;
  std::string key;     // "filesystem.read[2]"
  std::string preset;  // the preset that contributed it; empty for the user's
  SourceLocation where;
};

// A `[programs."NAME"]` section: what a program (and every process below it)
// is narrowed to when a process executes it. A key the section names
// replaces the policy's list for a second judgement that must also admit;
// its `deny` lists add to the policy's. The Engine (engine.h) judges the
// intersection and refuses, at load, a section that would admit what the
// policy refuses. docs/policy.md, "Program sections".
struct ProgramSection {
  std::string name;  // a bare program name ("curl") or an absolute path
  std::string key;   // "programs.\"curl\""
  SourceLocation where;
  std::optional<std::vector<Entry>> read, write;
  std::vector<Entry> deny;
  std::optional<bool> workspace_writable;
  std::optional<Unlisted> unlisted_writes;
  std::optional<std::vector<Entry>> allow_prefixes, allow, allow_patterns;
  std::vector<Entry> command_deny;
  std::optional<Unlisted> unlisted;
  std::optional<std::vector<Entry>> network_allow;
  std::optional<bool> unix_abstract;
  std::optional<std::vector<Entry>> env_keep;
};

struct Policy {
  int version = 1;
  // The preset the file extended ("none" when it extended nothing). Kept for
  // display only: its entries are already in the lists below.
  std::string base = "workspace-write";
  Mode mode = Mode::kEnforce;

  struct Filesystem {
    Entry workspace;  // absolute; contents readable, writable (see below)
    bool workspace_writable = true;
    std::vector<Entry> read;
    std::vector<Entry> write;
    std::vector<Entry> deny;
    // Readable, and never written, created, removed or renamed, whatever
    // writable root or answer at the terminal would admit it: what is kept
    // read-only inside a writable root (the workspace's .git/hooks). `deny`
    // still wins over it.
    std::vector<Entry> read_only;
    // A write no writable root admits (never one a deny entry covers):
    // refused, or put to the user at the terminal (kAsk); never kAllow.
    Unlisted unlisted_writes = Unlisted::kDeny;
  } filesystem;

  struct Commands {
    std::vector<Entry> allow_prefixes;
    std::vector<Entry> allow;
    std::vector<Entry> allow_patterns;
    std::vector<Entry> deny;
    Unlisted unlisted = Unlisted::kDeny;
  } commands;

  struct Network {
    std::vector<Entry> allow;
    bool unix_abstract = false;
  } network;

  // Powers a root program could use to change what a path names or to undo
  // the sandbox, each refused unless named here (kSystemGroups).
  struct System {
    std::vector<Entry> allow;
  } system;

  struct Env {
    std::vector<Entry> keep;  // globs over variable names
    std::vector<std::pair<std::string, std::string>> set;
  } env;

  // In the order TOML gives their names (sorted); a process's chain of
  // entered sections names them by index into this list.
  std::vector<ProgramSection> programs;

  // `[klaunch]`, written by klaunch into the effective form: its own
  // binary and shim. Read as the lists above say; never written, renamed
  // or asked about, whatever the write roots say (rewritten in place, the
  // shim would run in every later process, the binary outside any sandbox).
  struct Klaunch {
    std::vector<Entry> read_only;
  } klaunch;
};

// The names `system.allow` takes, each a group of calls the sandbox refuses
// by default: "mount", "namespaces", "modules", "bpf", "kexec", "reboot",
// "ptrace", "signals", "devices".
extern const char* const kSystemGroups[12];
bool SystemAllows(const Policy& policy, absl::string_view group);

absl::string_view ModeName(Mode mode);
absl::string_view UnlistedName(Unlisted unlisted);

// "file:line:column: " for an entry written in a file, "" otherwise.
std::string LocationPrefix(const SourceLocation& where);

}  // namespace klaunch

#endif  // KLAUNCH_CORE_POLICY_H_
