// Fuzzes the policy loader (core/loader.h) with any bytes as a policy file,
// and what follows a load that succeeds:
//   - every refusal is kInvalidArgument naming "fuzz.toml:";
//   - the effective form (core/effective.h) loads again, as the shim loads
//     it (effective_only, another cwd, $HOME and $TMPDIR), into the same
//     rules under the same names, and its own effective form is a fixed
//     point;
//   - the Engine (core/engine.h) built from it answers path questions as
//     asking each rule in order would (its literal index and RE2 prefilter
//     are only shortcuts), never allows a command a deny rule matches, names
//     a rule that really matches when it allows, and admits a connection
//     exactly when some network rule does.
// The questions are made from the policy's own entries. Symlinks are
// resolved against this machine's filesystem, read only.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "core/command.h"
#include "core/effective.h"
#include "core/engine.h"
#include "core/loader.h"
#include "core/network.h"
#include "core/path.h"
#include "core/policy.h"
#include "fuzz/support.h"

namespace klaunch {
namespace {

constexpr absl::string_view kSource = "fuzz.toml";
constexpr size_t kMaxPaths = 96;
constexpr size_t kMaxCommands = 32;
constexpr size_t kMaxNetwork = 32;

// --- The effective form round trip -----------------------------------------

void SameEntries(const std::vector<Entry>& a, const std::vector<Entry>& b,
                 absl::string_view list, const std::string& form) {
  FUZZ_CHECK(a.size() == b.size(), list, ": ", a.size(), " entries, then ",
             b.size(), "\n", form);
  for (size_t i = 0; i < a.size(); ++i) {
    FUZZ_CHECK(a[i].value == b[i].value && a[i].resolved == b[i].resolved &&
                   a[i].key == b[i].key,
               list, "[", i, "]: '", a[i].value, "' (", a[i].resolved, ", ",
               a[i].key, ") became '", b[i].value, "' (", b[i].resolved, ", ",
               b[i].key, ")\n", form);
  }
}

void SamePolicy(const Policy& a, const Policy& b, const std::string& form) {
  FUZZ_CHECK(a.mode == b.mode, "mode\n", form);
  SameEntries({a.filesystem.workspace}, {b.filesystem.workspace}, "workspace",
              form);
  FUZZ_CHECK(a.filesystem.workspace_writable == b.filesystem.workspace_writable,
             "workspace_writable\n", form);
  SameEntries(a.filesystem.read, b.filesystem.read, "filesystem.read", form);
  SameEntries(a.filesystem.write, b.filesystem.write, "filesystem.write", form);
  SameEntries(a.filesystem.deny, b.filesystem.deny, "filesystem.deny", form);
  SameEntries(a.commands.allow_prefixes, b.commands.allow_prefixes,
              "commands.allow_prefixes", form);
  SameEntries(a.commands.allow, b.commands.allow, "commands.allow", form);
  SameEntries(a.commands.allow_patterns, b.commands.allow_patterns,
              "commands.allow_patterns", form);
  SameEntries(a.commands.deny, b.commands.deny, "commands.deny", form);
  FUZZ_CHECK(a.commands.unlisted == b.commands.unlisted, "unlisted\n", form);
  SameEntries(a.network.allow, b.network.allow, "network.allow", form);
  FUZZ_CHECK(a.network.unix_abstract == b.network.unix_abstract,
             "unix_abstract\n", form);
  SameEntries(a.system.allow, b.system.allow, "system.allow", form);
  SameEntries(a.env.keep, b.env.keep, "env.keep", form);
  FUZZ_CHECK(a.env.set == b.env.set, "env.set\n", form);
}

// --- Paths: each rule asked in order ---------------------------------------

struct NaivePathRule {
  const Entry* entry;
  PathPattern pattern;
  std::optional<PathPattern> resolved;
  bool Covers(absl::string_view path) const {
    return pattern.Covers(path) || (resolved && resolved->Covers(path));
  }
};

NaivePathRule NaiveRule(const Entry& e) {
  absl::StatusOr<PathPattern> p = PathPattern::Compile(e.value);
  FUZZ_CHECK(p.ok(), "the Engine compiled '", e.value, "', PathPattern not");
  NaivePathRule rule{&e, *std::move(p), std::nullopt};
  if (!e.resolved.empty() && e.resolved != e.value) {
    absl::StatusOr<PathPattern> r = PathPattern::Compile(e.resolved);
    FUZZ_CHECK(r.ok(), "the Engine compiled '", e.resolved,
               "', PathPattern not");
    rule.resolved = *std::move(r);
  }
  return rule;
}

std::vector<NaivePathRule> NaiveRules(const std::vector<Entry>& entries) {
  std::vector<NaivePathRule> out;
  for (const Entry& e : entries) out.push_back(NaiveRule(e));
  return out;
}

const NaivePathRule* FirstCovering(const std::vector<NaivePathRule>& rules,
                                   absl::string_view path) {
  for (const NaivePathRule& r : rules) {
    if (r.Covers(path)) return &r;
  }
  return nullptr;
}

struct NaivePaths {
  std::optional<NaivePathRule> workspace;
  bool writable;
  Verdict unlisted_write;
  std::vector<NaivePathRule> read, write, deny;
  // filesystem.read_only, then klaunch's own files (klaunch.read_only).
  std::vector<NaivePathRule> kept, own;

  explicit NaivePaths(const Policy& p)
      : writable(p.filesystem.workspace_writable),
        unlisted_write(p.filesystem.unlisted_writes == Unlisted::kAsk
                           ? Verdict::kAsk
                           : Verdict::kDeny),
        read(NaiveRules(p.filesystem.read)),
        write(NaiveRules(p.filesystem.write)),
        deny(NaiveRules(p.filesystem.deny)),
        kept(NaiveRules(p.filesystem.read_only)),
        own(NaiveRules(p.klaunch.read_only)) {
    if (!p.filesystem.workspace.value.empty()) {
      workspace = NaiveRule(p.filesystem.workspace);
    }
  }
  bool InWorkspace(absl::string_view path) const {
    return workspace && workspace->Covers(path);
  }

  // engine.h's rules, in its order: deny, stat, (for a write, klaunch's
  // own files, then read_only) workspace, write, read, (for a read) read_only.
  std::pair<Verdict, std::string> Check(Access access,
                                        absl::string_view raw) const {
    absl::StatusOr<std::string> path = NormalizePath(raw);
    if (!path.ok()) return {Verdict::kDeny, "filesystem.unlisted"};
    if (access == Access::kReadWrite) {
      // The write's answer, but never asked where reading is refused.
      auto write = Check(Access::kWrite, raw);
      if (write.first != Verdict::kAsk) return write;
      auto read = Check(Access::kRead, raw);
      if (read.first != Verdict::kAllow) return {Verdict::kDeny, read.second};
      return write;
    }
    if (const NaivePathRule* r = FirstCovering(deny, *path)) {
      return {Verdict::kDeny, r->entry->key};
    }
    if (access == Access::kStat) return {Verdict::kAllow, "filesystem.stat"};
    if (access == Access::kWrite) {
      for (const auto* list : {&own, &kept}) {
        if (const NaivePathRule* r = FirstCovering(*list, *path)) {
          return {Verdict::kDeny, r->entry->key};
        }
      }
      if (writable && InWorkspace(*path)) return {Verdict::kAllow, "workspace"};
      if (const NaivePathRule* r = FirstCovering(write, *path)) {
        return {Verdict::kAllow, r->entry->key};
      }
      if (InWorkspace(*path)) return {unlisted_write, "workspace"};
      if (const NaivePathRule* r = FirstCovering(read, *path)) {
        return {unlisted_write, r->entry->key};
      }
      return {unlisted_write, "filesystem.unlisted"};
    }
    if (InWorkspace(*path)) return {Verdict::kAllow, "workspace"};
    for (const auto* list : {&write, &read, &kept}) {
      if (const NaivePathRule* r = FirstCovering(*list, *path)) {
        return {Verdict::kAllow, r->entry->key};
      }
    }
    return {Verdict::kDeny, "filesystem.unlisted"};
  }

  bool Pins(absl::string_view path) const {
    for (const auto* list : {&deny, &kept, &own}) {
      for (const NaivePathRule& r : *list) {
        if (r.pattern.PinsBelow(path) ||
            (r.resolved && r.resolved->PinsBelow(path))) {
          return true;
        }
      }
    }
    return false;
  }
};

// A path a pattern matches: `**` as two components, `*` as "x".
std::string Instance(absl::string_view pattern) {
  std::string out = absl::StrReplaceAll(pattern, {{"**", "q/r"}, {"*", "x"}});
  if (!absl::StartsWith(out, "/")) out = absl::StrCat("/s/", out);
  return out;
}

std::vector<std::string> QuestionPaths(const Policy& p,
                                       const LoadContext& ctx) {
  std::vector<std::string> out = {"/",
                                  "/etc/shadow",
                                  "/tmp/f",
                                  absl::StrCat(ctx.base_dir, "/f"),
                                  absl::StrCat(ctx.home, "/.ssh/id_rsa"),
                                  "relative/path",
                                  "/a/../../b/./c//d"};
  auto add = [&](absl::string_view v) {
    if (v.empty() || out.size() >= kMaxPaths) return;
    const std::string i = Instance(v);
    out.push_back(i);
    out.push_back(absl::StrCat(i, "/below"));
    out.push_back(std::string(i.substr(0, std::max<size_t>(1, i.rfind('/')))));
  };
  std::vector<const Entry*> entries = {&p.filesystem.workspace};
  for (const auto* list :
       {&p.filesystem.deny, &p.filesystem.write, &p.filesystem.read,
        &p.filesystem.read_only, &p.klaunch.read_only}) {
    for (const Entry& e : *list) entries.push_back(&e);
  }
  for (const Entry* e : entries) {
    add(e->value);
    if (e->resolved != e->value) add(e->resolved);
  }
  return out;
}

void CheckPaths(const Engine& engine, const Policy& p, const LoadContext& ctx) {
  const NaivePaths naive(p);
  FUZZ_CHECK(engine.has_deny_rules() == !p.filesystem.deny.empty(), "deny");
  for (const std::string& path : QuestionPaths(p, ctx)) {
    for (Access access : {Access::kRead, Access::kWrite, Access::kExec,
                          Access::kStat, Access::kReadWrite}) {
      const Decision d = engine.CheckPath(access, path);
      const auto [verdict, rule] = naive.Check(access, path);
      FUZZ_CHECK(d.verdict == verdict && d.rule == rule, AccessName(access),
                 " of '", path, "': the Engine says ", VerdictName(d.verdict),
                 " by ", d.rule, ", each rule in order ", VerdictName(verdict),
                 " by ", rule, "\n", EffectiveToml(p));
      FUZZ_CHECK(d.allowed() == d.message.empty(), path, ": ", d.message);
    }
    if (IsNormalizedPath(path)) {
      FUZZ_CHECK(engine.CheckMove(path).allowed() == !naive.Pins(path),
                 "move of ", path, "\n", EffectiveToml(p));
    }
  }
  for (const Entry& e : p.filesystem.deny) {
    // A denied literal path cannot be moved, nor can its directory.
    if (absl::StrContains(e.value, '*')) continue;
    FUZZ_CHECK(!engine.CheckMove(e.value).allowed(), e.value);
    FUZZ_CHECK(!engine.CheckPath(Access::kStat, e.value).allowed(), e.value);
  }
}

// --- Commands --------------------------------------------------------------

struct NaiveCommand {
  const Entry* entry;
  CommandRule rule;
};

std::vector<NaiveCommand> NaiveCommands(const std::vector<Entry>& entries,
                                        CommandRule::Kind kind) {
  std::vector<NaiveCommand> out;
  for (const Entry& e : entries) {
    absl::StatusOr<CommandRule> r = CommandRule::Compile(kind, e.value);
    FUZZ_CHECK(r.ok(), "the Engine compiled '", e.value, "', CommandRule not");
    out.push_back({&e, *std::move(r)});
  }
  return out;
}

void CheckCommands(const Engine& engine, const Policy& p,
                   const LoadContext& ctx) {
  using K = CommandRule::Kind;
  const std::vector<NaiveCommand> deny =
      NaiveCommands(p.commands.deny, K::kGlob);
  std::vector<NaiveCommand> allow =
      NaiveCommands(p.commands.allow_prefixes, K::kPrefix);
  for (auto& r : NaiveCommands(p.commands.allow, K::kGlob))
    allow.push_back(std::move(r));
  for (auto& r : NaiveCommands(p.commands.allow_patterns, K::kPattern)) {
    allow.push_back(std::move(r));
  }
  std::vector<const Entry*> entries;
  for (const auto* list : {&p.commands.allow_prefixes, &p.commands.allow,
                           &p.commands.allow_patterns, &p.commands.deny}) {
    for (const Entry& e : *list) entries.push_back(&e);
  }
  size_t asked = 0;
  for (const Entry* e : entries) {
    if (asked++ >= kMaxCommands) break;
    std::vector<std::string> words =
        absl::StrSplit(absl::StrReplaceAll(e->value, {{"*", "x"}, {"^", ""}}),
                       ' ', absl::SkipEmpty());
    if (words.empty()) continue;
    const std::string program = words[0];
    std::vector<absl::string_view> argv(words.begin(), words.end());
    for (const std::string& exe :
         {absl::StartsWith(program, "/") ? program
                                         : absl::StrCat("/usr/bin/", program),
          absl::StrCat(ctx.base_dir, "/", Basename(program))}) {
      const std::string what = absl::StrCat("exec of ", exe, " as `", e->value,
                                            "`\n", EffectiveToml(p));
      const Decision d = engine.CheckCommand(exe, argv);
      bool denied_by_rule = false;
      for (const NaiveCommand& r : deny)
        denied_by_rule |= r.rule.Matches(exe, argv);
      FUZZ_CHECK(!denied_by_rule || d.verdict == Verdict::kDeny, what);
      FUZZ_CHECK(
          engine.CheckDeniedCommand(exe, argv).allowed() == !denied_by_rule,
          what);
      FUZZ_CHECK(
          d.verdict != Verdict::kAsk || p.commands.unlisted == Unlisted::kAsk,
          what);
      if (!d.allowed()) continue;
      FUZZ_CHECK(engine.CheckPath(Access::kExec, exe).allowed(), what);
      if (d.rule == "commands.unlisted") {
        FUZZ_CHECK(p.commands.unlisted == Unlisted::kAllow, what);
        continue;
      }
      const NaiveCommand* named = nullptr;
      for (const NaiveCommand& r : allow) {
        if (r.entry->key == d.rule) named = &r;
      }
      FUZZ_CHECK(named != nullptr, what, " allowed by ", d.rule);
      FUZZ_CHECK(named->rule.Matches(exe, argv), what, " allowed by ", d.rule);
      // A bare name is not satisfied by an executable the sandbox could have
      // written.
      FUZZ_CHECK(!named->rule.names_bare_program() ||
                     !engine.CheckPath(Access::kWrite, exe).allowed(),
                 what, " allowed by ", d.rule, " from a writable root");
    }
  }
}

// --- Network ---------------------------------------------------------------

void CheckNetwork(const Engine& engine, const Policy& p) {
  std::vector<std::pair<const Entry*, NetworkRule>> rules;
  std::vector<std::string> hosts = {"", "example.org"};
  std::vector<uint16_t> ports = {443};
  std::vector<IpAddress> addresses = {IpAddress::V4(0xc0000201),
                                      IpAddress::V4(0x7f000001),
                                      *IpAddress::Parse("2001:db8::1")};
  for (const Entry& e : p.network.allow) {
    absl::StatusOr<NetworkRule> r = NetworkRule::Parse(e.value);
    FUZZ_CHECK(r.ok(), "the Engine parsed '", e.value, "', NetworkRule not");
    if (rules.size() < kMaxNetwork) {
      if (!r->literal_host().empty()) hosts.push_back(r->literal_host());
      if (r->port() != 0) ports.push_back(r->port());
      // An address the rule names, when it names one.
      absl::string_view text = e.value;
      text = text.substr(0, text.find('/'));
      if (absl::StartsWith(text, "["))
        text = text.substr(1, text.find(']') - 1);
      if (std::optional<IpAddress> a = IpAddress::Parse(text)) {
        addresses.push_back(*a);
      } else if (std::optional<IpAddress> a =
                     IpAddress::Parse(text.substr(0, text.rfind(':')))) {
        addresses.push_back(*a);
      }
    }
    rules.emplace_back(&e, *std::move(r));
  }
  for (const std::string& host : hosts) {
    for (uint16_t port : ports) {
      for (const IpAddress& address : addresses) {
        const Decision d = engine.CheckConnect(address, port, host);
        const absl::string_view name =
            IpAddress::Parse(host) ? absl::string_view() : host;
        const Entry* first = nullptr;
        for (const auto& [entry, rule] : rules) {
          if (rule.Admits(address, port, name)) {
            first = entry;
            break;
          }
        }
        FUZZ_CHECK(d.allowed() == (first != nullptr) &&
                       (!first || d.rule == first->key),
                   "connect to ", address.ToString(), ":", port, " as '", host,
                   "': ", VerdictName(d.verdict), " by ", d.rule);
      }
    }
  }
  FUZZ_CHECK(engine.CheckAbstractUnix("x").allowed() == p.network.unix_abstract,
             "unix_abstract");
}

}  // namespace
}  // namespace klaunch

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace klaunch;
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  const LoadContext ctx{.base_dir = "/var/klaunch-fuzz/work",
                        .home = "/var/klaunch-fuzz/home",
                        .tmpdir = "/tmp"};
  absl::StatusOr<Policy> policy = LoadPolicyText(text, kSource, ctx);
  if (!policy.ok()) {
    FUZZ_CHECK(policy.status().code() == absl::StatusCode::kInvalidArgument &&
                   absl::StartsWith(policy.status().message(),
                                    absl::StrCat(kSource, ":")),
               "a load error that does not name the file: ",
               policy.status().ToString());
    return 0;
  }

  // As the shim reads it: elsewhere, and only an effective form.
  const std::string form = EffectiveToml(*policy);
  const LoadContext elsewhere{.base_dir = "/elsewhere",
                              .home = "/elsewhere/home",
                              .tmpdir = "/elsewhere/tmp",
                              .effective_only = true};
  absl::StatusOr<Policy> again =
      LoadPolicyText(form, "effective.toml", elsewhere);
  FUZZ_CHECK(again.ok(),
             "the effective form does not load: ", again.status().ToString(),
             "\n", form);
  SamePolicy(*policy, *again, form);
  const std::string form2 = EffectiveToml(*again);
  absl::StatusOr<Policy> third =
      LoadPolicyText(form2, "effective.toml", elsewhere);
  FUZZ_CHECK(third.ok(), third.status().ToString(), "\n", form2);
  FUZZ_CHECK(EffectiveToml(*third) == form2, "not a fixed point:\n", form2,
             "\n----\n", EffectiveToml(*third));

  absl::StatusOr<Engine> engine = Engine::Create(*policy);
  absl::StatusOr<Engine> engine2 = Engine::Create(*again);
  FUZZ_CHECK(engine.ok() == engine2.ok(), engine.status().ToString(), " / ",
             engine2.status().ToString(), "\n", form);
  if (!engine.ok()) {
    // Too many globs for RE2's memory is about the whole list, not one entry.
    FUZZ_CHECK(engine.status().code() == absl::StatusCode::kResourceExhausted ||
                   absl::StartsWith(engine.status().message(),
                                    absl::StrCat(kSource, ":")),
               "an Engine error that does not name the file: ",
               engine.status().ToString());
    return 0;
  }
  FUZZ_CHECK(engine->audit() == (policy->mode == Mode::kAudit), "audit");
  CheckPaths(*engine, *policy, ctx);
  CheckCommands(*engine, *policy, ctx);
  CheckNetwork(*engine, *policy);
  return 0;
}
