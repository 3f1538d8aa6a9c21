#include "core/engine.h"

#include <fcntl.h>
#include <unistd.h>

#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/path_set.h"
#include "core/programs.h"

namespace klaunch {
namespace {

constexpr absl::string_view kWorkspaceRule = "workspace";
constexpr absl::string_view kPathUnlisted = "filesystem.unlisted";
constexpr absl::string_view kStatRule = "filesystem.stat";
constexpr absl::string_view kCommandsUnlisted = "commands.unlisted";
constexpr absl::string_view kNetworkUnlisted = "network.unlisted";
constexpr absl::string_view kUnixAbstract = "network.unix_abstract";

// A path entry compiled in both its spellings (as written, and with its
// existing leading part resolved through symlinks).
struct PathRule {
  const Entry* entry;
  PathPattern pattern;
  std::optional<PathPattern> resolved;

  bool Covers(absl::string_view path) const {
    return pattern.Covers(path) || (resolved && resolved->Covers(path));
  }
  // Either spelling a pattern: the literal index cannot answer for it.
  bool has_pattern() const {
    return !pattern.is_literal() || (resolved && !resolved->is_literal());
  }
};

template <typename Rule>
struct Compiled {
  const Entry* entry;
  Rule rule;
};

absl::Status WithPlace(const Entry& entry, const absl::Status& status) {
  return absl::InvalidArgumentError(absl::StrCat(
      LocationPrefix(entry.where), entry.key, ": ", status.message()));
}

absl::StatusOr<PathRule> CompilePath(const Entry& entry) {
  absl::StatusOr<PathPattern> pattern = PathPattern::Compile(entry.value);
  if (!pattern.ok()) return WithPlace(entry, pattern.status());
  PathRule rule{&entry, *std::move(pattern), std::nullopt};
  if (!entry.resolved.empty() && entry.resolved != entry.value) {
    absl::StatusOr<PathPattern> resolved = PathPattern::Compile(entry.resolved);
    if (!resolved.ok()) return WithPlace(entry, resolved.status());
    rule.resolved = *std::move(resolved);
  }
  return rule;
}

// A list of path rules that finds the first covering a path without asking
// each: literal rules by looking up each of the path's leading parts, the
// patterns only when their PathSet says one may cover it. The same answer
// as asking each rule in order (engine_test.cc compares the two).
struct PathList {
  std::vector<PathRule> rules;
  absl::flat_hash_map<std::string, size_t> literal;  // text -> first index
  PathSet patterns;

  bool empty() const { return rules.empty(); }

  const PathRule* First(absl::string_view path) const {
    size_t best = rules.size();
    auto look = [&](absl::string_view prefix) {
      auto it = literal.find(prefix);
      if (it != literal.end() && it->second < best) best = it->second;
    };
    if (!literal.empty()) {
      look("/");
      for (size_t i = 1; i <= path.size(); ++i) {
        if (i == path.size() || path[i] == '/') look(path.substr(0, i));
      }
    }
    if (patterns.MayCover(path)) {
      for (size_t i = 0; i < best; ++i) {
        if (rules[i].has_pattern() && rules[i].Covers(path)) {
          best = i;
          break;
        }
      }
    }
    return best < rules.size() ? &rules[best] : nullptr;
  }
};

absl::Status CompilePaths(const std::vector<Entry>& entries, PathList* out) {
  for (const Entry& entry : entries) {
    absl::StatusOr<PathRule> rule = CompilePath(entry);
    if (!rule.ok()) return rule.status();
    out->rules.push_back(*std::move(rule));
  }
  std::vector<const PathPattern*> patterns;
  for (size_t i = 0; i < out->rules.size(); ++i) {
    const PathRule& r = out->rules[i];
    for (const PathPattern* p :
         {&r.pattern, r.resolved ? &*r.resolved : nullptr}) {
      if (p == nullptr) continue;
      if (p->is_literal()) {
        out->literal.try_emplace(p->text(), i);
      } else {
        patterns.push_back(p);
      }
    }
  }
  absl::StatusOr<PathSet> set = PathSet::Create(patterns);
  if (!set.ok()) return set.status();
  out->patterns = *std::move(set);
  return absl::OkStatus();
}

absl::Status CompileCommands(const std::vector<Entry>& entries,
                             CommandRule::Kind kind,
                             std::vector<Compiled<CommandRule>>* out) {
  for (const Entry& entry : entries) {
    absl::StatusOr<CommandRule> rule = CommandRule::Compile(kind, entry.value);
    if (!rule.ok()) return WithPlace(entry, rule.status());
    out->push_back({&entry, *std::move(rule)});
  }
  return absl::OkStatus();
}

std::string Quoted(const Entry& entry) {
  std::string out = absl::StrCat("\"", entry.value, "\"");
  if (!entry.preset.empty()) absl::StrAppend(&out, ", preset ", entry.preset);
  return out;
}

Decision Allow(absl::string_view rule) {
  return Decision{Verdict::kAllow, rule, {}};
}

}  // namespace

Access OpenAccess(int flags) {
  if (flags & O_PATH) return Access::kStat;
  const int mode = flags & O_ACCMODE;
  const bool writes = mode != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) ||
                      (flags & O_TMPFILE) == O_TMPFILE;
  // O_ACCMODE itself (3) asks the kernel for both permissions.
  const bool reads = mode != O_WRONLY;
  if (!writes) return Access::kRead;
  return reads ? Access::kReadWrite : Access::kWrite;
}

Access AccessModeAccess(int mode) {
  if ((mode & W_OK) && (mode & R_OK)) return Access::kReadWrite;
  if (mode & W_OK) return Access::kWrite;
  if (mode & R_OK) return Access::kRead;
  if (mode & X_OK) return Access::kExec;
  return Access::kStat;
}

absl::string_view AccessName(Access access) {
  switch (access) {
    case Access::kRead:
      return "read";
    case Access::kWrite:
    case Access::kReadWrite:
      return "write";
    case Access::kExec:
      return "exec";
    case Access::kStat:
      break;
  }
  return "stat";
}

absl::string_view VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kAllow:
      return "allow";
    case Verdict::kAsk:
      return "ask";
    case Verdict::kDeny:
      break;
  }
  return "deny";
}

struct Engine::Compiled {
  Policy policy;
  // A section's engine: `programs."curl"`, the rule its refusals name.
  std::string label;
  // The engine of each program section (index as in policy.programs), built
  // from SectionPolicy; empty in a section's own engine.
  std::vector<std::unique_ptr<const Engine>> sections;
  std::optional<PathRule> workspace;
  PathList read, write, deny;
  // filesystem.read_only (readable, never written) and klaunch.read_only
  // (klaunch's own files: never written, readable only as the lists say).
  PathList kept, own;
  std::vector<klaunch::Compiled<CommandRule>> prefixes, globs, patterns,
      command_deny;
  std::vector<klaunch::Compiled<NetworkRule>> network;

  // The workspace (when writable) or a write root covering `path`.
  const PathRule* WritableRoot(absl::string_view path) const {
    if (policy.filesystem.workspace_writable && workspace &&
        workspace->Covers(path)) {
      return &*workspace;
    }
    return write.First(path);
  }
};

absl::StatusOr<std::shared_ptr<Engine::Compiled>> Engine::Compile(
    const Policy& policy) {
  auto c = std::make_shared<Compiled>();
  c->policy = policy;
  const Policy& p = c->policy;
  if (!p.filesystem.workspace.value.empty()) {
    absl::StatusOr<PathRule> workspace = CompilePath(p.filesystem.workspace);
    if (!workspace.ok()) return workspace.status();
    if (!workspace->pattern.is_literal()) {
      return WithPlace(p.filesystem.workspace,
                       absl::InvalidArgumentError(
                           "the workspace is a directory, not a pattern"));
    }
    c->workspace = *std::move(workspace);
  }
  for (auto [entries, out] : {std::pair{&p.filesystem.read, &c->read},
                              std::pair{&p.filesystem.write, &c->write},
                              std::pair{&p.filesystem.deny, &c->deny},
                              std::pair{&p.filesystem.read_only, &c->kept},
                              std::pair{&p.klaunch.read_only, &c->own}}) {
    if (absl::Status s = CompilePaths(*entries, out); !s.ok()) return s;
  }
  using K = CommandRule::Kind;
  for (auto [entries, kind, out] :
       {std::tuple{&p.commands.allow_prefixes, K::kPrefix, &c->prefixes},
        std::tuple{&p.commands.allow, K::kGlob, &c->globs},
        std::tuple{&p.commands.allow_patterns, K::kPattern, &c->patterns},
        std::tuple{&p.commands.deny, K::kGlob, &c->command_deny}}) {
    if (absl::Status s = CompileCommands(*entries, kind, out); !s.ok()) {
      return s;
    }
  }
  for (const Entry& entry : p.network.allow) {
    absl::StatusOr<NetworkRule> rule = NetworkRule::Parse(entry.value);
    if (!rule.ok()) return WithPlace(entry, rule.status());
    c->network.push_back({&entry, *std::move(rule)});
  }
  return c;
}

absl::StatusOr<Engine> Engine::Create(const Policy& policy) {
  absl::StatusOr<std::shared_ptr<Compiled>> c = Compile(policy);
  if (!c.ok()) return c.status();
  std::shared_ptr<Compiled> top = *std::move(c);
  Engine engine(top);
  for (const ProgramSection& section : policy.programs) {
    if (absl::Status s = CheckNarrows(engine, section); !s.ok()) return s;
    absl::StatusOr<std::shared_ptr<Compiled>> narrowed =
        Compile(SectionPolicy(policy, section));
    if (!narrowed.ok()) return narrowed.status();
    (*narrowed)->label = section.key;
    top->sections.push_back(
        std::unique_ptr<const Engine>(new Engine(*std::move(narrowed))));
  }
  return engine;
}

absl::StatusOr<Engine> Engine::Narrow(absl::Span<const int> chain) const {
  Engine narrowed(c_);
  for (int i : chain) {
    if (i < 0 || static_cast<size_t>(i) >= c_->sections.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the policy has no program section ", i));
    }
    narrowed.chain_.push_back(i);
  }
  return narrowed;
}

Engine::Engine(std::shared_ptr<const Compiled> compiled)
    : c_(std::move(compiled)) {}
Engine::Engine(Engine&&) noexcept = default;
Engine& Engine::operator=(Engine&&) noexcept = default;
Engine::~Engine() = default;

bool Engine::has_deny_rules() const {
  if (!c_->deny.empty()) return true;
  for (int i : chain_) {
    if (!c_->sections[i]->c_->deny.empty()) return true;
  }
  return false;
}
absl::string_view Engine::program() const {
  return chain_.empty() ? absl::string_view()
                        : c_->policy.programs[chain_.back()].name;
}

template <typename Check>
Decision Engine::Narrowed(Decision d, Check check) const {
  if (chain_.empty() || d.verdict == Verdict::kDeny) return d;
  for (int i : chain_) {
    const Engine& section = *c_->sections[i];
    Decision e = check(section);
    if (e.verdict == Verdict::kAllow) continue;
    e.rule = section.c_->label;
    e.message = absl::StrCat(e.message, " [", section.c_->label,
                             " narrows this program]");
    if (e.verdict == Verdict::kDeny) return e;
    if (d.verdict == Verdict::kAllow) d = std::move(e);
  }
  return d;
}

Decision Engine::CheckPath(Access access, absl::string_view path) const {
  return Narrowed(OwnCheckPath(access, path), [&](const Engine& s) {
    return s.OwnCheckPath(access, path);
  });
}
Decision Engine::CheckCommand(absl::string_view executable,
                              absl::Span<const absl::string_view> argv,
                              absl::string_view target,
                              absl::Span<const absl::string_view> links) const {
  return Narrowed(OwnCheckCommand(executable, argv, target, links),
                  [&](const Engine& s) {
                    return s.OwnCheckCommand(executable, argv, target, links);
                  });
}
Decision Engine::CheckDeniedCommand(absl::string_view executable,
                                    absl::Span<const absl::string_view> argv,
                                    absl::string_view target) const {
  return Narrowed(OwnCheckDeniedCommand(executable, argv, target),
                  [&](const Engine& s) {
                    return s.OwnCheckDeniedCommand(executable, argv, target);
                  });
}
Decision Engine::CheckConnect(const IpAddress& address, uint16_t port,
                              absl::string_view hostname) const {
  return Narrowed(OwnCheckConnect(address, port, hostname),
                  [&](const Engine& s) {
                    return s.OwnCheckConnect(address, port, hostname);
                  });
}
Decision Engine::CheckMove(absl::string_view path) const {
  return Narrowed(OwnCheckMove(path),
                  [&](const Engine& s) { return s.OwnCheckMove(path); });
}
Decision Engine::CheckAbstractUnix(absl::string_view name) const {
  return Narrowed(OwnCheckAbstractUnix(name), [&](const Engine& s) {
    return s.OwnCheckAbstractUnix(name);
  });
}
bool Engine::audit() const { return c_->policy.mode == Mode::kAudit; }
const Policy& Engine::policy() const { return c_->policy; }

Decision Engine::OwnCheckPath(Access access, absl::string_view raw_path) const {
  std::string normalized;
  absl::string_view path = raw_path;
  if (!IsNormalizedPath(raw_path)) {
    absl::StatusOr<std::string> n = NormalizePath(raw_path);
    if (!n.ok()) {
      return Decision{Verdict::kDeny, kPathUnlisted,
                      absl::StrCat(AccessName(access), " of '", raw_path,
                                   "' refused: ", n.status().message())};
    }
    normalized = *std::move(n);
    path = normalized;
  }
  if (access == Access::kReadWrite) {
    Decision write = OwnCheckPath(Access::kWrite, path);
    if (write.verdict != Verdict::kAsk) return write;
    // Asking about the write would admit reading too, which the policy may
    // refuse, and a read is never asked about.
    if (Decision read = OwnCheckPath(Access::kRead, path); !read.allowed()) {
      return Decision{
          Verdict::kDeny, read.rule,
          absl::StrCat("read and write of ", path,
                       " refused: no rule admits reading it, and reads are "
                       "never asked about; add \"",
                       path, "\" to filesystem.write to allow it")};
    }
    return write;
  }
  const absl::string_view what = AccessName(access);
  if (const PathRule* rule = c_->deny.First(path)) {
    return Decision{Verdict::kDeny, rule->entry->key,
                    absl::StrCat(what, " of ", path, " refused by ",
                                 rule->entry->key, " (", Quoted(*rule->entry),
                                 "): deny entries win over every allow")};
  }
  if (access == Access::kStat) return Allow(kStatRule);
  if (access == Access::kWrite) {
    // Refused like a deny entry, so never asked about, whatever root would
    // admit it.
    if (const PathRule* rule = c_->own.First(path)) {
      return Decision{
          Verdict::kDeny, rule->entry->key,
          absl::StrCat("write of ", path, " refused by ", rule->entry->key,
                       " (", Quoted(*rule->entry),
                       "): klaunch's own binary, shim and policy file are "
                       "never written from inside the sandbox")};
    }
    if (const PathRule* rule = c_->kept.First(path)) {
      return Decision{
          Verdict::kDeny, rule->entry->key,
          absl::StrCat(
              "write of ", path, " refused by ", rule->entry->key, " (",
              Quoted(*rule->entry),
              "): read_only entries are never written, whatever root admits "
              "writing",
              rule->entry->preset.empty()
                  ? ""
                  : absl::StrCat("; preset ", rule->entry->preset,
                                 " keeps it so that nothing written in the "
                                 "sandbox runs outside it later (set "
                                 "filesystem.preset_read_only = false to "
                                 "lift the preset's entries)"))};
    }
    if (const PathRule* root = c_->WritableRoot(path)) {
      return Allow(c_->workspace && root == &*c_->workspace ? kWorkspaceRule
                                                            : root->entry->key);
    }
  } else {
    if (c_->workspace && c_->workspace->Covers(path)) {
      return Allow(kWorkspaceRule);
    }
    for (const PathList* list : {&c_->write, &c_->read, &c_->kept}) {
      if (const PathRule* rule = list->First(path)) {
        return Allow(rule->entry->key);
      }
    }
    return Decision{
        Verdict::kDeny, kPathUnlisted,
        absl::StrCat(what, " of ", path, " refused: no rule admits it; add \"",
                     path, "\" to filesystem.read to allow it")};
  }
  // A write that no writable root admits: say why, naming what makes the
  // path read-only when something does. Under unlisted_writes = "ask" it is
  // put to the user instead (never a deny entry's: those returned above).
  const Verdict unlisted =
      c_->policy.filesystem.unlisted_writes == Unlisted::kAsk ? Verdict::kAsk
                                                              : Verdict::kDeny;
  if (c_->workspace && c_->workspace->Covers(path)) {
    return Decision{
        unlisted, kWorkspaceRule,
        absl::StrCat("write of ", path,
                     " refused: the workspace is read-only "
                     "(filesystem.workspace_writable = false); add \"",
                     path, "\" to filesystem.write to allow it")};
  }
  if (const PathRule* rule = c_->read.First(path)) {
    return Decision{
        unlisted, rule->entry->key,
        absl::StrCat("write of ", path, " refused: ", rule->entry->key, " (",
                     Quoted(*rule->entry), ") admits only reading; add \"",
                     path, "\" to filesystem.write to allow it")};
  }
  return Decision{
      unlisted, kPathUnlisted,
      absl::StrCat("write of ", path, " refused: no rule admits it; add \"",
                   path, "\" to filesystem.write to allow it")};
}

Decision Engine::OwnCheckDeniedCommand(absl::string_view executable,
                                       absl::Span<const absl::string_view> argv,
                                       absl::string_view target) const {
  return CheckCommandDeny(executable, argv, target, {});
}

Decision Engine::CheckCommandDeny(
    absl::string_view executable, absl::Span<const absl::string_view> argv,
    absl::string_view target, absl::Span<const absl::string_view> links) const {
  for (const auto& [entry, rule] : c_->command_deny) {
    // Deny rules hold wherever the executable lies, whatever argv[0] says and
    // whichever of its names it was run by.
    bool hit = rule.Matches(executable, argv) ||
               (!target.empty() && rule.Matches(target, argv));
    for (absl::string_view link : links) hit = hit || rule.Matches(link, argv);
    if (hit) {
      return Decision{
          Verdict::kDeny, entry->key,
          absl::StrCat("exec of `", CommandLineText(executable, argv), "` (",
                       executable, ") refused by ", entry->key, " (",
                       Quoted(*entry), "): deny entries win over every allow")};
    }
  }
  return Allow("commands.deny");
}

Decision Engine::OwnCheckCommand(
    absl::string_view executable, absl::Span<const absl::string_view> argv,
    absl::string_view target, absl::Span<const absl::string_view> links) const {
  if (target == executable) target = {};
  Decision path =
      OwnCheckPath(Access::kExec, target.empty() ? executable : target);
  if (!path.allowed()) return path;
  auto matches = [&](const CommandRule& rule) {
    return rule.Matches(executable, argv) ||
           (!target.empty() && rule.Matches(target, argv));
  };
  if (Decision d = CheckCommandDeny(executable, argv, target, links);
      !d.allowed()) {
    return d;
  }
  const Entry* shadowed = nullptr;  // a bare-name rule the location defeated
  const bool writable =
      c_->WritableRoot(executable) != nullptr ||
      (!target.empty() && c_->WritableRoot(target) != nullptr);
  for (const auto* list : {&c_->prefixes, &c_->globs, &c_->patterns}) {
    for (const auto& [entry, rule] : *list) {
      if (!matches(rule)) continue;
      if (rule.names_bare_program() && writable) {
        if (shadowed == nullptr) shadowed = entry;
        continue;
      }
      return Allow(entry->key);
    }
  }
  const Unlisted unlisted = c_->policy.commands.unlisted;
  if (unlisted == Unlisted::kAllow) return Allow(kCommandsUnlisted);
  const std::string line = CommandLineText(executable, argv);
  std::string message =
      shadowed != nullptr
          ? absl::StrCat("exec of `", line, "` (", executable,
                         ") refused: ", shadowed->key, " (", Quoted(*shadowed),
                         ") names the program by bare name, but ", executable,
                         " lies in a writable root, where the sandbox could "
                         "have put it; name it by its absolute path to allow "
                         "it")
          : absl::StrCat("exec of `", line, "` (", executable,
                         ") refused: no command rule admits it; add \"", line,
                         "\" to commands.allow to allow it");
  return Decision{unlisted == Unlisted::kAsk ? Verdict::kAsk : Verdict::kDeny,
                  shadowed != nullptr ? absl::string_view(shadowed->key)
                                      : kCommandsUnlisted,
                  std::move(message)};
}

Decision Engine::OwnCheckConnect(const IpAddress& address, uint16_t port,
                                 absl::string_view hostname) const {
  // A "name" that is an address literal tells nothing more than the address.
  if (IpAddress::Parse(hostname)) hostname = {};
  for (const auto& [entry, rule] : c_->network) {
    if (rule.Admits(address, port, hostname)) return Allow(entry->key);
  }
  const std::string addr = address.Unmapped().v6
                               ? absl::StrCat("[", address.ToString(), "]")
                               : address.ToString();
  const std::string target =
      hostname.empty() ? absl::StrCat(addr, ":", port)
                       : absl::StrCat(hostname, ":", port, " (", addr, ")");
  const std::string key =
      absl::StrCat(hostname.empty() ? addr : hostname, ":", port);
  return Decision{Verdict::kDeny, kNetworkUnlisted,
                  absl::StrCat("connect to ", target,
                               " refused: no network rule admits it; add \"",
                               key, "\" to network.allow to allow it")};
}

Decision Engine::OwnCheckMove(absl::string_view path) const {
  for (const PathList* list : {&c_->deny, &c_->kept, &c_->own}) {
    for (const PathRule& rule : list->rules) {
      if (!rule.pattern.PinsBelow(path) &&
          !(rule.resolved && rule.resolved->PinsBelow(path))) {
        continue;
      }
      return Decision{
          Verdict::kDeny, rule.entry->key,
          absl::StrCat("rename of ", path, " refused: it would move what ",
                       rule.entry->key, " (", Quoted(*rule.entry), ") ",
                       list == &c_->deny ? "denies" : "keeps from writing",
                       " out from under it")};
    }
  }
  return Allow("filesystem.move");
}

Decision Engine::OwnCheckAbstractUnix(absl::string_view name) const {
  if (c_->policy.network.unix_abstract) return Allow(kUnixAbstract);
  return Decision{Verdict::kDeny, kUnixAbstract,
                  absl::StrCat("connect to abstract Unix socket @", name,
                               " refused: set network.unix_abstract = true "
                               "to allow it")};
}

}  // namespace klaunch
