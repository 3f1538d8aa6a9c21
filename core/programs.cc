#include "core/programs.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/command.h"
#include "core/engine.h"
#include "core/network.h"
#include "core/path.h"

namespace klaunch {
namespace {

absl::Status Widens(const Entry& entry, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(
      LocationPrefix(entry.where), entry.key, ": \"", entry.value,
      "\" widens the policy: ", why,
      " (a program section can only narrow what its parent may do)"));
}

absl::Status WidensKey(const ProgramSection& s, absl::string_view key,
                       absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(
      LocationPrefix(s.where), s.key, ".", key, " widens the policy: ", why,
      " (a program section can only narrow what its parent may "
      "do)"));
}

int Rank(Unlisted u) {
  switch (u) {
    case Unlisted::kDeny:
      return 0;
    case Unlisted::kAsk:
      return 1;
    case Unlisted::kAllow:
      break;
  }
  return 2;
}

// True when every command line `entry` (a prefix or glob of the section)
// admits is admitted by one of the policy's allow rules: an equal entry, or
// a rule that matches the entry's own words (its `*` taken literally, which
// only a rule's own `*` can match).
bool CommandCovered(const Policy& policy, const Entry& entry,
                    CommandRule::Kind kind) {
  auto same = [&](const std::vector<Entry>& list) {
    return std::any_of(list.begin(), list.end(),
                       [&](const Entry& e) { return e.value == entry.value; });
  };
  if (kind == CommandRule::Kind::kPattern) {
    return same(policy.commands.allow_patterns);
  }
  if (same(policy.commands.allow_prefixes) || same(policy.commands.allow)) {
    return true;
  }
  std::vector<std::string> words =
      absl::StrSplit(entry.value, ' ', absl::SkipEmpty());
  if (words.empty()) return false;
  // A prefix admits any further words: judge it with one more, a literal
  // "*", which only a rule's own wildcard can match.
  if (kind == CommandRule::Kind::kPrefix) words.push_back("*");
  std::vector<absl::string_view> argv(words.begin(), words.end());
  using K = CommandRule::Kind;
  for (auto [list, k] : {std::pair{&policy.commands.allow_prefixes, K::kPrefix},
                         std::pair{&policy.commands.allow, K::kGlob}}) {
    for (const Entry& e : *list) {
      // A prefix's words are literal: its "*" would match the section's
      // wildcard as though it were the same.
      if (k == K::kPrefix && e.value.find('*') != std::string::npos) continue;
      absl::StatusOr<CommandRule> rule = CommandRule::Compile(k, e.value);
      if (rule.ok() && rule->Matches(argv[0], argv)) return true;
    }
  }
  return false;
}

}  // namespace

Policy SectionPolicy(const Policy& policy, const ProgramSection& s) {
  Policy p = policy;
  p.programs.clear();
  if (s.read) p.filesystem.read = *s.read;
  if (s.write) p.filesystem.write = *s.write;
  p.filesystem.deny.insert(p.filesystem.deny.end(), s.deny.begin(),
                           s.deny.end());
  if (s.workspace_writable) {
    p.filesystem.workspace_writable = *s.workspace_writable;
  }
  // A section that names its own write roots refuses the writes they do
  // not admit unless it says it asks, as one that lists commands refuses
  // the unlisted ones: the user's yes to the agent is no yes to the tool.
  if (s.unlisted_writes) {
    p.filesystem.unlisted_writes = *s.unlisted_writes;
  } else if (s.write) {
    p.filesystem.unlisted_writes = Unlisted::kDeny;
  }
  const bool lists = s.allow_prefixes || s.allow || s.allow_patterns;
  if (lists) {
    p.commands.allow_prefixes = s.allow_prefixes.value_or(std::vector<Entry>{});
    p.commands.allow = s.allow.value_or(std::vector<Entry>{});
    p.commands.allow_patterns = s.allow_patterns.value_or(std::vector<Entry>{});
  }
  p.commands.deny.insert(p.commands.deny.end(), s.command_deny.begin(),
                         s.command_deny.end());
  if (s.unlisted) {
    p.commands.unlisted = *s.unlisted;
  } else if (lists) {
    p.commands.unlisted = Unlisted::kDeny;
  }
  if (s.network_allow) p.network.allow = *s.network_allow;
  if (s.unix_abstract) p.network.unix_abstract = *s.unix_abstract;
  if (s.env_keep) p.env.keep = *s.env_keep;
  return p;
}

absl::Status CheckNarrows(const Engine& engine, const ProgramSection& s) {
  const Policy& policy = engine.policy();
  for (auto [list, access, what] :
       {std::tuple{&s.read, Access::kRead, "reading"},
        std::tuple{&s.write, Access::kWrite, "writing"}}) {
    if (!*list) continue;
    for (const Entry& e : **list) {
      const std::string root = LiteralRoot(e.value);
      if (!engine.CheckPath(access, root).allowed()) {
        return Widens(
            e, absl::StrCat("the policy does not admit ", what, " ", root));
      }
    }
  }
  if (s.workspace_writable.value_or(false) &&
      !policy.filesystem.workspace_writable) {
    return WidensKey(s, "filesystem.workspace_writable",
                     "the policy keeps the workspace read-only");
  }
  if (s.unlisted_writes == Unlisted::kAsk &&
      policy.filesystem.unlisted_writes != Unlisted::kAsk) {
    return WidensKey(s, "filesystem.unlisted_writes",
                     "the policy refuses unlisted writes without asking");
  }
  if (s.unix_abstract.value_or(false) && !policy.network.unix_abstract) {
    return WidensKey(s, "network.unix_abstract",
                     "the policy keeps abstract Unix sockets closed");
  }
  if (s.unlisted && Rank(*s.unlisted) > Rank(policy.commands.unlisted)) {
    return WidensKey(
        s, "commands.unlisted",
        absl::StrCat("the policy's commands.unlisted is \"",
                     UnlistedName(policy.commands.unlisted), "\""));
  }
  if (policy.commands.unlisted != Unlisted::kAllow) {
    using K = CommandRule::Kind;
    for (auto [list, kind] : {std::pair{&s.allow_prefixes, K::kPrefix},
                              std::pair{&s.allow, K::kGlob},
                              std::pair{&s.allow_patterns, K::kPattern}}) {
      if (!*list) continue;
      for (const Entry& e : **list) {
        if (!CommandCovered(policy, e, kind)) {
          return Widens(e, kind == K::kPattern
                               ? "the policy's commands.allow_patterns do "
                                 "not hold the same pattern"
                               : "no command rule of the policy admits it");
        }
      }
    }
  }
  if (s.network_allow) {
    std::vector<NetworkRule> outer;
    for (const Entry& e : policy.network.allow) {
      absl::StatusOr<NetworkRule> r = NetworkRule::Parse(e.value);
      if (r.ok()) outer.push_back(*std::move(r));
    }
    for (const Entry& e : *s.network_allow) {
      absl::StatusOr<NetworkRule> inner = NetworkRule::Parse(e.value);
      if (!inner.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            LocationPrefix(e.where), e.key, ": ", inner.status().message()));
      }
      if (std::none_of(outer.begin(), outer.end(), [&](const NetworkRule& o) {
            return o.Includes(*inner);
          })) {
        return Widens(e, "no network.allow entry of the policy covers it");
      }
    }
  }
  return absl::OkStatus();
}

std::vector<int> EnterSections(const Policy& policy,
                               absl::Span<const int> chain,
                               absl::string_view executable,
                               absl::string_view target,
                               absl::Span<const absl::string_view> links) {
  std::vector<int> out(chain.begin(), chain.end());
  for (size_t i = 0; i < policy.programs.size(); ++i) {
    if (std::find(out.begin(), out.end(), static_cast<int>(i)) != out.end()) {
      continue;
    }
    const std::string& name = policy.programs[i].name;
    const bool bare = name.find('/') == std::string::npos;
    auto named = [&](absl::string_view n) {
      if (n.empty()) return false;
      return bare ? Basename(n) == name : n == name;
    };
    bool hit = named(executable) || named(target);
    for (absl::string_view link : links) hit = hit || named(link);
    if (hit) out.push_back(static_cast<int>(i));
  }
  return out;
}

std::string ChainText(absl::Span<const int> chain) {
  return absl::StrJoin(chain, ",");
}

std::optional<std::vector<int>> ParseChain(const Policy& policy,
                                           absl::string_view text) {
  std::vector<int> chain;
  if (text.empty()) return chain;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    int i;
    if (!absl::SimpleAtoi(part, &i) || i < 0 ||
        static_cast<size_t>(i) >= policy.programs.size() ||
        std::find(chain.begin(), chain.end(), i) != chain.end()) {
      return std::nullopt;
    }
    chain.push_back(i);
  }
  return chain;
}

std::vector<int> SectionsNotHeld(const Policy& policy,
                                 absl::Span<const int> chain,
                                 absl::string_view held) {
  const std::optional<std::vector<int>> parsed = ParseChain(policy, held);
  const auto in = [](absl::Span<const int> list, int i) {
    return std::find(list.begin(), list.end(), i) != list.end();
  };
  if (!parsed || !std::all_of(parsed->begin(), parsed->end(),
                              [&](int i) { return in(chain, i); })) {
    return std::vector<int>(chain.begin(), chain.end());
  }
  std::vector<int> missing;
  for (int i : chain) {
    if (!in(*parsed, i)) missing.push_back(i);
  }
  return missing;
}

bool ChainKeepsVariable(const Policy& policy, absl::Span<const int> chain,
                        absl::string_view name) {
  for (int i : chain) {
    const ProgramSection& s = policy.programs[i];
    if (!s.env_keep) continue;
    if (std::none_of(
            s.env_keep->begin(), s.env_keep->end(),
            [&](const Entry& e) { return GlobMatch(e.value, name); })) {
      return false;
    }
  }
  return true;
}

}  // namespace klaunch
