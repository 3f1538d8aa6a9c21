// Differential test of the path and command rules. Generated policies are
// written as TOML and loaded through the real loader into an Engine; each
// answer (verdict and the rule named) is compared with a reference written
// from docs/policy.md. Where the docs leave a point open, the reference
// follows the intent stated in engine.h and command.h, and says so.
//
// The reference is deliberately naive (recursive globs, a component stack,
// linear scans in rule order) and calls none of the engine's matchers. RE2 is
// the definition of `allow_patterns`, so it is used as is. This file does not
// test the engine's lookup structures against its own patterns; that is
// path_set_test.cc.
//
// KLAUNCH_DIFF_SEED=N runs another seed; a disagreement prints the seed, the
// policy, the query and both answers.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/engine.h"
#include "core/loader.h"
#include "core/presets.h"
#include "re2/re2.h"

namespace klaunch {
namespace {

constexpr uint64_t kDefaultSeed = 20260801;
constexpr int64_t kCases = 120000;     // of each: paths, commands
constexpr int kQueriesPerPolicy = 64;  // of each, per policy

// Inside the alphabet below, so that the workspace, `~` and $TMPDIR meet
// the generated rules and paths.
constexpr char kBaseDir[] = "/w";
constexpr char kHome[] = "/h";
constexpr char kTmpDir[] = "/c";

uint64_t Seed() {
  uint64_t seed = kDefaultSeed;
  if (const char* env = std::getenv("KLAUNCH_DIFF_SEED")) {
    if (!absl::SimpleAtoi(env, &seed)) {
      ADD_FAILURE() << "KLAUNCH_DIFF_SEED is not a number: " << env;
    }
  }
  return seed;
}

// mt19937_64's output is fixed by the standard, so a seed replays anywhere.
class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed) {}
  int Int(int lo, int hi) {
    return lo + static_cast<int>(rng_() % (hi - lo + 1));
  }
  bool Chance(int percent) { return Int(0, 99) < percent; }
  template <typename T, size_t N>
  const T& Pick(const T (&items)[N]) {
    return items[Int(0, N - 1)];
  }
  // `items` are {cumulative percent, value}, the last at 100.
  template <typename T, size_t N>
  T Weighted(const std::pair<int, T> (&items)[N]) {
    const int roll = Int(0, 99);
    for (const auto& [below, value] : items) {
      if (roll < below) return value;
    }
    return items[N - 1].second;
  }

 private:
  std::mt19937_64 rng_;
};

// ===========================================================================
// The reference.

using Components = std::vector<std::string>;

// `*` matches any run of characters, `stop` excepted; all else is literal.
bool Glob(absl::string_view glob, absl::string_view text, char stop = '\0') {
  if (glob.empty()) return text.empty();
  if (glob[0] == '*') {
    return Glob(glob.substr(1), text, stop) ||
           (!text.empty() && text[0] != stop &&
            Glob(glob, text.substr(1), stop));
  }
  return !text.empty() && glob[0] == text[0] &&
         Glob(glob.substr(1), text.substr(1), stop);
}

// Lexical cleaning with a stack; `..` at the root stays at the root.
Components Clean(absl::string_view path) {
  Components out;
  for (absl::string_view part : absl::StrSplit(path, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!out.empty()) out.pop_back();
      continue;
    }
    out.emplace_back(part);
  }
  return out;
}

std::string Text(const Components& c, bool anywhere = false) {
  return anywhere ? absl::StrJoin(c, "/")
                  : absl::StrCat("/", absl::StrJoin(c, "/"));
}

// True when pattern[i..] matches some leading part of path[j..]: a path
// covers itself and everything below it. A `**` component takes any number
// of components, none included.
bool CoversFrom(const Components& pattern, size_t i, const Components& path,
                size_t j) {
  if (i == pattern.size()) return true;
  if (pattern[i] == "**") {
    for (size_t k = j; k <= path.size(); ++k) {
      if (CoversFrom(pattern, i + 1, path, k)) return true;
    }
    return false;
  }
  return j < path.size() && Glob(pattern[i], path[j]) &&
         CoversFrom(pattern, i + 1, path, j + 1);
}

struct RefPath {
  Components value;     // "**/x" is {"**", "x"}: it matches from any depth
  Components resolved;  // the [resolved] spelling; equal to value when none
  std::string key;
  bool Covers(const Components& path) const {
    return CoversFrom(value, 0, path, 0) || CoversFrom(resolved, 0, path, 0);
  }
};

// A policy path as the loader must read it, or the reason it is an error.
struct Resolution {
  Components comps;
  bool anywhere = false;
  std::string error;
};

Resolution Resolve(absl::string_view raw) {
  Resolution r;
  if (raw.empty()) return {{}, false, "empty path"};
  std::string absolute;
  if (raw == "**" || raw.substr(0, 3) == "**/") {
    r.anywhere = true;
    for (absl::string_view part : absl::StrSplit(raw, '/')) {
      if (part == "..") return {{}, true, ".. in a ** pattern"};
    }
    absolute = absl::StrCat("/", std::string(raw));
  } else if (raw[0] == '~') {
    if (raw.size() > 1 && raw[1] != '/') return {{}, false, "~user"};
    absolute = absl::StrCat(kHome, "/", std::string(raw.substr(1)));
  } else if (raw[0] == '/') {
    absolute = std::string(raw);
  } else {
    absolute = absl::StrCat(kBaseDir, "/", std::string(raw));
  }
  r.comps = Clean(absolute);
  for (const std::string& c : r.comps) {
    if (c != "**" && c.find("**") != std::string::npos) {
      return {{}, r.anywhere, "** glued to a name"};
    }
  }
  return r;
}

struct RefRule {
  std::string text;
  std::string key;
  std::unique_ptr<RE2> re;  // allow_patterns only
};

struct RefPolicy {
  std::string error;  // non-empty: the policy must not load
  RefPath workspace;
  bool workspace_writable = true;
  std::vector<RefPath> read, write, deny, read_only;
  std::vector<RefRule> prefixes, globs, patterns, command_deny;
  Verdict unlisted = Verdict::kDeny;
};

struct RefDecision {
  Verdict verdict;
  std::string rule;
};

const RefPath* FirstCovering(const std::vector<RefPath>& list,
                             const Components& path) {
  for (const RefPath& p : list) {
    if (p.Covers(path)) return &p;
  }
  return nullptr;
}

bool RefWritable(const RefPolicy& p, const Components& path) {
  return (p.workspace_writable && p.workspace.Covers(path)) ||
         FirstCovering(p.write, path) != nullptr;
}

// docs/policy.md, "Judgement" of [filesystem]. The names of the stat rule
// and of an unusable path are the engine's ("filesystem.stat",
// "filesystem.unlisted"): the docs name no rule for them.
RefDecision RefCheckPath(const RefPolicy& p, Access access,
                         absl::string_view raw) {
  if (raw.empty() || raw[0] != '/' ||
      raw.find('\0') != absl::string_view::npos) {
    return {Verdict::kDeny, "filesystem.unlisted"};
  }
  const Components path = Clean(raw);
  if (const RefPath* d = FirstCovering(p.deny, path)) {
    return {Verdict::kDeny, d->key};
  }
  if (access == Access::kStat) return {Verdict::kAllow, "filesystem.stat"};
  const RefPath* kept = FirstCovering(p.read_only, path);
  if (access == Access::kWrite && kept != nullptr) {
    return {Verdict::kDeny, kept->key};
  }
  const bool in_workspace = p.workspace.Covers(path);
  if (in_workspace && (access != Access::kWrite || p.workspace_writable)) {
    return {Verdict::kAllow, "workspace"};
  }
  if (const RefPath* w = FirstCovering(p.write, path)) {
    return {Verdict::kAllow, w->key};
  }
  // A refused write names what made the path read-only.
  if (access == Access::kWrite && in_workspace) {
    return {Verdict::kDeny, "workspace"};
  }
  if (const RefPath* r = FirstCovering(p.read, path)) {
    return {access == Access::kWrite ? Verdict::kDeny : Verdict::kAllow,
            r->key};
  }
  if (kept != nullptr) return {Verdict::kAllow, kept->key};
  return {Verdict::kDeny, "filesystem.unlisted"};
}

using Argv = std::vector<std::string>;

absl::string_view BaseName(absl::string_view path) {
  return path.substr(path.rfind('/') + 1);
}

// What follows the program in the command line: argv[1..], each after one
// space (argv[0] plays no part).
std::string ArgsLine(const Argv& argv) {
  std::string out;
  for (size_t i = 1; i < argv.size(); ++i) absl::StrAppend(&out, " ", argv[i]);
  return out;
}

// The rule's first word is its program: an absolute one is the executable's
// path (a `*` in it stays within one component, as in path rules: command.cc's
// stated intent, the docs are silent), a bare one its basename. The rest of
// the rule, from its first space, is an anchored glob over the rest of the
// line; a trailing ` *` may also match nothing, its space included, and a
// one-word rule's final `*` covers any arguments.
bool RefGlobMatches(absl::string_view rule, absl::string_view exe,
                    const Argv& argv) {
  const size_t space = rule.find(' ');
  const absl::string_view program = rule.substr(0, space);
  const absl::string_view rest =
      space == absl::string_view::npos ? "" : rule.substr(space);
  const bool program_ok = program[0] == '/' ? Glob(program, exe, '/')
                                            : Glob(program, BaseName(exe));
  if (!program_ok) return false;
  // "it may cross spaces": a one-word rule ending in `*` ("sudo*", "*")
  // covers whatever follows the program.
  if (rest.empty() && program.back() == '*') return true;
  const std::string args = ArgsLine(argv);
  if (Glob(rest, args)) return true;
  return rest.size() >= 2 && rest.substr(rest.size() - 2) == " *" &&
         Glob(rest.substr(0, rest.size() - 2), args);
}

// Whole words: the program equal to the executable's path or basename, each
// further word equal to the argument in its place (argv elements are the
// words, engine.h's intent; the docs speak only of "words").
bool RefPrefixMatches(absl::string_view rule, absl::string_view exe,
                      const Argv& argv) {
  std::vector<std::string> words = absl::StrSplit(rule, ' ', absl::SkipEmpty());
  const std::string& program = words[0];
  if (program != (program[0] == '/' ? exe : BaseName(exe))) return false;
  for (size_t i = 1; i < words.size(); ++i) {
    if (i >= argv.size() || argv[i] != words[i]) return false;
  }
  return true;
}

bool StartsWithRootAnchor(absl::string_view pattern) {
  return pattern.substr(0, 2) == "^/";
}

bool RefPatternMatches(const RefRule& rule, absl::string_view exe,
                       const Argv& argv) {
  const std::string line = absl::StrCat(
      StartsWithRootAnchor(rule.text) ? exe : BaseName(exe), ArgsLine(argv));
  return RE2::PartialMatch(line, *rule.re);
}

bool RefDenyHits(const RefRule& rule, absl::string_view exe, const Argv& argv,
                 absl::string_view target,
                 const std::vector<std::string>& links) {
  if (RefGlobMatches(rule.text, exe, argv)) return true;
  if (!target.empty() && RefGlobMatches(rule.text, target, argv)) return true;
  for (const std::string& link : links) {
    if (RefGlobMatches(rule.text, link, argv)) return true;
  }
  return false;
}

// CheckDeniedCommand: only the deny rules, on the executable and its target.
RefDecision RefCheckDenied(const RefPolicy& p, absl::string_view exe,
                           const Argv& argv, absl::string_view target) {
  for (const RefRule& rule : p.command_deny) {
    if (RefDenyHits(rule, exe, argv, target, {})) {
      return {Verdict::kDeny, rule.key};
    }
  }
  return {Verdict::kAllow, "commands.deny"};
}

// docs/policy.md, "Judgement" of [commands], with engine.h's account of the
// target (it must admit exec; rules match either name; a bare-name allow
// needs both outside every writable root) and of the links (deny only).
RefDecision RefCheckCommand(const RefPolicy& p, absl::string_view exe,
                            const Argv& argv, absl::string_view target,
                            const std::vector<std::string>& links) {
  if (target == exe) target = {};
  RefDecision path =
      RefCheckPath(p, Access::kExec, target.empty() ? exe : target);
  if (path.verdict != Verdict::kAllow) return path;
  for (const RefRule& rule : p.command_deny) {
    if (RefDenyHits(rule, exe, argv, target, links)) {
      return {Verdict::kDeny, rule.key};
    }
  }
  const bool writable = RefWritable(p, Clean(exe)) ||
                        (!target.empty() && RefWritable(p, Clean(target)));
  const std::string* shadowed = nullptr;
  auto consider = [&](const RefRule& rule, bool bare, bool hit) {
    if (!hit) return false;
    if (bare && writable) {
      if (shadowed == nullptr) shadowed = &rule.key;
      return false;
    }
    return true;
  };
  auto either = [&](auto match) {
    return match(exe) || (!target.empty() && match(target));
  };
  for (const RefRule& rule : p.prefixes) {
    if (consider(rule, rule.text[0] != '/', either([&](absl::string_view e) {
                   return RefPrefixMatches(rule.text, e, argv);
                 }))) {
      return {Verdict::kAllow, rule.key};
    }
  }
  for (const RefRule& rule : p.globs) {
    if (consider(rule, rule.text[0] != '/', either([&](absl::string_view e) {
                   return RefGlobMatches(rule.text, e, argv);
                 }))) {
      return {Verdict::kAllow, rule.key};
    }
  }
  for (const RefRule& rule : p.patterns) {
    if (consider(rule, !StartsWithRootAnchor(rule.text),
                 either([&](absl::string_view e) {
                   return RefPatternMatches(rule, e, argv);
                 }))) {
      return {Verdict::kAllow, rule.key};
    }
  }
  if (p.unlisted == Verdict::kAllow) {
    return {Verdict::kAllow, "commands.unlisted"};
  }
  return {p.unlisted, shadowed != nullptr ? *shadowed : "commands.unlisted"};
}

// ===========================================================================
// Generated policies: the file as written, from which both the TOML and the
// reference's model are made.

struct RawPolicy {
  std::optional<std::string> extends, mode, workspace, unlisted;
  std::optional<bool> workspace_writable;
  bool version = false;
  std::vector<std::string> read, write, deny, read_only;
  std::optional<bool> preset_read_only;
  std::vector<std::string> prefixes, globs, patterns, command_deny;
  bool empty_lists = false;  // write `key = []` for the empty lists
  std::map<std::string, std::string> resolved;
};

// Few names, so that rules and paths meet often.
const char* const kNames[] = {"a", "b", "c",   "ab",  ".git", "x.pem",
                              "w", "h", "usr", "bin", "git"};
const char* const kGlobs[] = {"*",     "**", "a*",  "*b",
                              "*.pem", ".*", "*a*", "**"};
const char* const kSystemRoots[] = {"/usr", "/usr/bin", "/bin",
                                    "/c",   "/etc",     "/dev/null",
                                    "/h",   "/a/b",     "/w/a"};
const char* const kSystemPaths[] = {
    "/usr/bin",  "/etc/passwd", "/etc/shadow",   "/tmp",
    "/dev/null", "/proc/self",  "/h/.gitconfig", "/etc/ssl",
    "/lib64",    "/c",          "/var/tmp"};

std::string RandomRulePath(Gen& g) {
  if (g.Chance(15)) return g.Pick(kSystemRoots);
  using W = std::pair<int, const char*>;
  static const W kStarts[] = {{55, "/"}, {70, "**/"}, {78, "~/"},  {81, "~"},
                              {91, ""},  {95, "./"},  {100, "../"}};
  static const W kParts[] = {
      {65, "name"}, {91, "glob"}, {94, "."}, {97, ".."}, {100, ""}};
  std::string out = g.Weighted(kStarts);
  const int n = out == "~" ? 0 : g.Int(out == "/" ? 0 : 1, 4);
  std::vector<std::string> parts;
  for (int i = 0; i < n; ++i) {
    std::string part = g.Weighted(kParts);
    if (part == "name") part = g.Pick(kNames);
    if (part == "glob") part = g.Pick(kGlobs);
    if (part == ".." && out == "**/") part = "";  // a load error there
    parts.push_back(part);
  }
  absl::StrAppend(&out, absl::StrJoin(parts, "/"));
  if (g.Chance(8)) out += "/";
  return out;
}

std::string RandomQueryPath(Gen& g) {
  const int kind = g.Int(0, 99);
  if (kind < 2) return "a/b";  // relative
  if (kind < 3) return "";
  if (kind < 4) return std::string("/a\0b", 4);
  std::string out = kind < 19 ? g.Pick(kSystemPaths) : "";
  const int n = g.Int(0, kind < 19 ? 3 : 6);
  static const std::pair<int, const char*> kParts[] = {
      {80, "name"}, {87, "."}, {94, ".."}, {100, ""}};  // "": a double slash
  for (int i = 0; i < n; ++i) {
    const std::string part = g.Weighted(kParts);
    absl::StrAppend(&out, "/", part == "name" ? g.Pick(kNames) : part);
  }
  if (out.empty()) out = "/";
  if (g.Chance(8)) out += "/";
  return out;
}

const char* const kDirs[] = {"/usr/bin", "/bin", "/w", "/w/a",      "/a",
                             "/c",       "/h",   "/b", "/usr/bin/a"};
const char* const kPrograms[] = {"git", "ls",    "rm", "python3", "sh",
                                 "gi",  "x.pem", "a",  "we ird"};
const char* const kArgs[] = {"status", "push",  "-la", "--force", "a", "",
                             "a b",    "x.pem", "*",   "-rf",     "/"};
const char* const kProgramGlobs[] = {"g*", "*", "gi*", "*s", "py*3", "we*"};
const char* const kAbsoluteGlobs[] = {"/usr/bin/*", "/w/*", "/*/git",
                                      "/usr/*/git", "/*",   "/w/*/rm"};
const char* const kWordGlobs[] = {"*", "pu*", "*a*", "-*", "status*"};
const char* const kPatterns[] = {
    "^git status$", "^git ",       "push",
    "^/usr/bin/",   "^/w/.*",      "^rm( |$)",
    "\\.pem",       "^(ls|sh)\\b", "^/usr/bin/git( .*)?$",
    "^/.*/gi$",     "--force",     "^py[a-z]+3 -",
    "a b",          "^we ird",     "^/[a-z]+/rm -rf"};

std::string RandomExecutable(Gen& g) {
  return absl::StrCat(g.Pick(kDirs), "/", g.Pick(kPrograms));
}

std::string RandomGlobRule(Gen& g) {
  static const std::pair<int, int> kProgramKinds[] = {
      {35, 0}, {55, 1}, {85, 2}, {100, 3}};
  std::string out;
  switch (g.Weighted(kProgramKinds)) {
    case 0:
      out = g.Pick(kPrograms);
      break;
    case 1:
      out = g.Pick(kProgramGlobs);
      break;
    case 2:
      out = RandomExecutable(g);
      break;
    default:
      out = g.Pick(kAbsoluteGlobs);
  }
  const int n = g.Int(0, 3);
  for (int i = 0; i < n; ++i) {
    absl::StrAppend(&out, " ",
                    g.Chance(30) ? g.Pick(kWordGlobs) : g.Pick(kArgs));
  }
  if (g.Chance(25)) out += " *";
  return out;
}

std::string RandomPrefixRule(Gen& g) {
  std::string out = g.Chance(60) ? g.Pick(kPrograms) : RandomExecutable(g);
  const int n = g.Int(0, 2);
  for (int i = 0; i < n; ++i) absl::StrAppend(&out, " ", g.Pick(kArgs));
  return out;
}

std::string RandomPatternRule(Gen& g) {
  if (g.Chance(60)) return g.Pick(kPatterns);
  std::string out =
      g.Chance(60) ? absl::StrCat("^", RE2::QuoteMeta(g.Pick(kPrograms)))
                   : absl::StrCat("^", RE2::QuoteMeta(RandomExecutable(g)));
  if (g.Chance(50)) absl::StrAppend(&out, " ", RE2::QuoteMeta(g.Pick(kArgs)));
  if (g.Chance(50)) out += "$";
  return out;
}

template <typename F>
std::vector<std::string> RandomList(Gen& g, int max, F f) {
  std::vector<std::string> out(g.Int(0, max));
  for (std::string& s : out) s = f(g);
  return out;
}

RawPolicy RandomPolicy(Gen& g) {
  RawPolicy raw;
  // nullptr: no `extends`, which is workspace-write.
  static const std::pair<int, const char*> kBases[] = {{45, "none"},
                                                       {65, "workspace-write"},
                                                       {80, "read-only"},
                                                       {85, "full-access"},
                                                       {100, nullptr}};
  if (const char* base = g.Weighted(kBases)) raw.extends = base;
  raw.version = g.Chance(50);
  if (g.Chance(30)) raw.mode = g.Chance(50) ? "audit" : "enforce";
  if (g.Chance(60)) {
    raw.workspace = RandomRulePath(g);
    if (raw.workspace->find('*') != std::string::npos) {
      raw.workspace = g.Pick(kSystemRoots);
    }
  }
  if (g.Chance(60)) raw.workspace_writable = g.Chance(60);
  raw.read = RandomList(g, 4, RandomRulePath);
  raw.write = RandomList(g, 3, RandomRulePath);
  raw.deny = RandomList(g, 3, RandomRulePath);
  raw.read_only = RandomList(g, 2, RandomRulePath);
  if (g.Chance(20)) raw.preset_read_only = g.Chance(50);
  // Roots that hold the generated executables, so that commands get past
  // the path rules often enough to meet the command rules.
  if (g.Chance(60)) raw.read.push_back(g.Pick(kDirs));
  if (g.Chance(30)) raw.write.push_back(g.Pick(kDirs));
  raw.prefixes = RandomList(g, 2, RandomPrefixRule);
  raw.globs = RandomList(g, 3, RandomGlobRule);
  raw.patterns = RandomList(g, 2, RandomPatternRule);
  raw.command_deny = RandomList(g, 2, RandomGlobRule);
  static const char* const kUnlisted[] = {"deny", "ask", "allow"};
  if (g.Chance(50)) raw.unlisted = g.Pick(kUnlisted);
  raw.empty_lists = g.Chance(30);
  // One entry in a few files that must not load: both sides must refuse it.
  if (g.Chance(8)) {
    static const char* const kBadPaths[] = {"/a/a**", "~a/b", "**/../a", "",
                                            "**/a/**b"};
    static const char* const kBadCommands[] = {"", "  "};
    static const char* const kBadPatterns[] = {"(", "", "a)"};
    switch (g.Int(0, 7)) {
      case 0:
        raw.read.push_back(g.Pick(kBadPaths));
        break;
      case 1:
        raw.write.push_back(g.Pick(kBadPaths));
        break;
      case 2:
        raw.deny.push_back(g.Pick(kBadPaths));
        break;
      case 3:
        raw.workspace = "/w/*";
        break;
      case 4:
        raw.prefixes.push_back(g.Chance(50) ? "g* status"
                                            : g.Pick(kBadCommands));
        break;
      case 5:
        raw.globs.push_back(g.Pick(kBadCommands));
        break;
      case 6:
        raw.command_deny.push_back(g.Pick(kBadCommands));
        break;
      default:
        raw.patterns.push_back(g.Pick(kBadPatterns));
        break;
    }
  }
  // Other spellings for some entries, as a symlink would give: the rule
  // must cover the object under both. The workspace's stays a directory.
  std::vector<std::pair<const std::string*, bool>> entries;
  if (raw.workspace) entries.push_back({&*raw.workspace, true});
  for (const auto* list : {&raw.read, &raw.write, &raw.deny, &raw.read_only}) {
    for (const std::string& e : *list) entries.push_back({&e, false});
  }
  for (const auto& [entry, is_workspace] : entries) {
    if (!g.Chance(20)) continue;
    const Resolution r = Resolve(*entry);
    if (!r.error.empty()) continue;
    std::string to = g.Chance(50) ? RandomExecutable(g) : g.Pick(kSystemRoots);
    if (!is_workspace && !r.comps.empty() && g.Chance(50)) {
      absl::StrAppend(&to, "/", r.comps.back());
    }
    raw.resolved[Text(r.comps, r.anywhere)] = to;
  }
  return raw;
}

// ===========================================================================
// The TOML text, and the reference's reading of the same file.

std::string Quote(absl::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string Toml(const RawPolicy& raw) {
  std::string out;
  if (raw.version) out += "version = 1\n";
  if (raw.extends) {
    absl::StrAppend(&out, "extends = ", Quote(*raw.extends), "\n");
  }
  if (raw.mode) absl::StrAppend(&out, "mode = ", Quote(*raw.mode), "\n");
  auto list = [&](absl::string_view key,
                  const std::vector<std::string>& items) {
    if (items.empty() && !raw.empty_lists) return;
    std::vector<std::string> quoted;
    for (const std::string& s : items) quoted.push_back(Quote(s));
    absl::StrAppend(&out, key, " = [", absl::StrJoin(quoted, ", "), "]\n");
  };
  out += "[filesystem]\n";
  if (raw.workspace) {
    absl::StrAppend(&out, "workspace = ", Quote(*raw.workspace), "\n");
  }
  if (raw.workspace_writable) {
    absl::StrAppend(&out, "workspace_writable = ",
                    *raw.workspace_writable ? "true" : "false", "\n");
  }
  list("read", raw.read);
  list("write", raw.write);
  list("deny", raw.deny);
  list("read_only", raw.read_only);
  if (raw.preset_read_only) {
    absl::StrAppend(&out, "preset_read_only = ",
                    *raw.preset_read_only ? "true" : "false", "\n");
  }
  out += "[commands]\n";
  list("allow_prefixes", raw.prefixes);
  list("allow", raw.globs);
  list("allow_patterns", raw.patterns);
  list("deny", raw.command_deny);
  if (raw.unlisted) {
    absl::StrAppend(&out, "unlisted = ", Quote(*raw.unlisted), "\n");
  }
  // Always present, so that the loader looks nothing up on this machine.
  out += "[resolved]\n";
  for (const auto& [from, to] : raw.resolved) {
    absl::StrAppend(&out, Quote(from), " = ", Quote(to), "\n");
  }
  return out;
}

RefPolicy Reference(const RawPolicy& raw) {
  RefPolicy p;
  const std::string base = raw.extends.value_or("workspace-write");
  PresetLists preset;  // the lists are data; their meaning is the reference's
  if (!GetPreset(base, kTmpDir, &preset)) p.error = "unknown preset";
  auto path = [&](absl::string_view text, std::string key) {
    Resolution r = Resolve(text);
    if (!r.error.empty() && p.error.empty()) {
      p.error = absl::StrCat(key, ": ", r.error);
    }
    RefPath out{r.comps, r.comps, std::move(key)};
    if (auto it = raw.resolved.find(Text(r.comps, r.anywhere));
        it != raw.resolved.end()) {
      out.resolved = Clean(it->second);
    }
    return out;
  };
  // The file's own entries first, the preset's after, numbered on.
  auto paths = [&](const std::vector<std::string>& mine,
                   const std::vector<std::string>& preset_entries,
                   absl::string_view key, std::vector<RefPath>* out) {
    for (const auto* list : {&mine, &preset_entries}) {
      for (const std::string& text : *list) {
        out->push_back(path(text, absl::StrCat(key, "[", out->size(), "]")));
      }
    }
  };
  p.workspace = path(raw.workspace.value_or(kBaseDir), "workspace");
  for (const std::string& c : p.workspace.value) {
    if (c.find('*') != std::string::npos && p.error.empty()) {
      p.error = "the workspace is a pattern";
    }
  }
  p.workspace_writable = raw.workspace_writable.value_or(base != "read-only");
  paths(raw.read, preset.read, "filesystem.read", &p.read);
  paths(raw.write, preset.write, "filesystem.write", &p.write);
  paths(raw.deny, preset.deny, "filesystem.deny", &p.deny);
  // The preset's read_only entries, unless the file lifts them; those in
  // the workspace's repository only when it has one.
  std::vector<std::string> preset_read_only;
  if (raw.preset_read_only.value_or(true)) {
    preset_read_only = preset.read_only;
    struct stat st;
    const std::string git = Text(p.workspace.value, false) + "/.git";
    if (stat(git.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      for (const std::string& r : preset.workspace_read_only) {
        preset_read_only.push_back(
            absl::StrCat(Text(p.workspace.value, false), "/", r));
      }
    }
  }
  paths(raw.read_only, preset_read_only, "filesystem.read_only", &p.read_only);

  auto rules = [&](const std::vector<std::string>& texts, absl::string_view key,
                   bool prefix, bool pattern, std::vector<RefRule>* out) {
    for (size_t i = 0; i < texts.size(); ++i) {
      // Blanks around a prefix or glob are no part of it (command.cc's
      // intent; the docs do not say). A pattern is RE2 as written.
      absl::string_view text = texts[i];
      if (!pattern) text = absl::StripAsciiWhitespace(text);
      RefRule rule{std::string(text), absl::StrCat(key, "[", i, "]"), nullptr};
      std::string error;
      if (absl::StripAsciiWhitespace(text).empty()) error = "empty rule";
      if (prefix && rule.text.substr(0, rule.text.find(' ')).find('*') !=
                        std::string::npos) {
        error = "a * in a prefix's program";
      }
      if (pattern) {
        RE2::Options options;
        options.set_log_errors(false);
        rule.re = std::make_unique<RE2>(rule.text, options);
        if (!rule.re->ok()) error = "bad RE2";
      }
      if (!error.empty() && p.error.empty()) {
        p.error = absl::StrCat(rule.key, ": ", error);
      }
      out->push_back(std::move(rule));
    }
  };
  rules(raw.prefixes, "commands.allow_prefixes", true, false, &p.prefixes);
  rules(raw.globs, "commands.allow", false, false, &p.globs);
  rules(raw.patterns, "commands.allow_patterns", false, true, &p.patterns);
  rules(raw.command_deny, "commands.deny", false, false, &p.command_deny);

  // "allow" under a preset when the file lists no allow rule of its own;
  // "deny" as soon as it lists one, and under `none`.
  const bool lists_allow =
      !raw.prefixes.empty() || !raw.globs.empty() || !raw.patterns.empty();
  if (!raw.unlisted) {
    p.unlisted =
        base != "none" && !lists_allow ? Verdict::kAllow : Verdict::kDeny;
  } else if (*raw.unlisted == "allow") {
    p.unlisted = Verdict::kAllow;
  } else if (*raw.unlisted == "ask") {
    p.unlisted = Verdict::kAsk;
  } else {
    p.unlisted = Verdict::kDeny;
  }
  return p;
}

// ===========================================================================

std::string Printable(absl::string_view s) {
  std::string out;
  for (char c : s) out += c == '\0' ? std::string("\\0") : std::string(1, c);
  return out;
}

std::string Show(Verdict v, absl::string_view rule) {
  return absl::StrCat(VerdictName(v), " by ", std::string(rule));
}

struct Tally {
  int64_t policies = 0, refused_policies = 0, paths = 0, commands = 0;
  int64_t verdicts[3] = {0, 0, 0};       // allow, deny, ask
  std::map<std::string, int64_t> rules;  // "commands.allow", "workspace", ...
};

// Empty when the engine and the reference agree; otherwise what to print.
std::string Compare(const Decision& engine, const RefDecision& ref,
                    Tally* tally) {
  tally->verdicts[static_cast<int>(ref.verdict)]++;
  tally->rules[ref.rule.substr(0, ref.rule.find('['))]++;
  const bool same = engine.verdict == ref.verdict && engine.rule == ref.rule;
  const bool message_ok = engine.allowed() == engine.message.empty();
  if (same && message_ok) return "";
  return absl::StrCat("  engine:    ", Show(engine.verdict, engine.rule),
                      message_ok ? "" : " (message wrong for the verdict)",
                      "\n    message: ", engine.message,
                      "\n  reference: ", Show(ref.verdict, ref.rule), "\n");
}

TEST(Differential, TheEngineJudgesPathsAndCommandsAsTheDocumentedRulesDo) {
  const uint64_t seed = Seed();
  std::printf("differential seed %llu (KLAUNCH_DIFF_SEED overrides)\n",
              static_cast<unsigned long long>(seed));
  Gen g(seed);
  const LoadContext ctx{kBaseDir, kHome, kTmpDir};
  Tally tally;
  for (int n = 0; tally.paths < kCases; ++n) {
    const RawPolicy raw = RandomPolicy(g);
    const std::string toml = Toml(raw);
    const RefPolicy ref = Reference(raw);
    auto fail = [&](absl::string_view query, absl::string_view answers) {
      ADD_FAILURE() << "seed " << seed << ", policy #" << n << ":\n"
                    << toml << "query: " << Printable(query) << "\n"
                    << answers;
    };
    absl::StatusOr<Policy> policy = LoadPolicyText(toml, "diff.toml", ctx);
    absl::StatusOr<Engine> engine =
        policy.ok() ? Engine::Create(*policy) : policy.status();
    ++tally.policies;
    if (engine.ok() != ref.error.empty()) {
      return fail(
          "(loading)",
          absl::StrCat("  engine:    ",
                       engine.ok() ? "loads" : engine.status().ToString(),
                       "\n  reference: ",
                       ref.error.empty() ? "loads" : ref.error, "\n"));
    }
    if (!engine.ok()) {
      ++tally.refused_policies;
      continue;
    }
    for (int i = 0; i < kQueriesPerPolicy; ++i) {
      const std::string path = RandomQueryPath(g);
      const Access access =
          g.Pick({Access::kRead, Access::kWrite, Access::kExec, Access::kStat});
      ++tally.paths;
      if (std::string d = Compare(engine->CheckPath(access, path),
                                  RefCheckPath(ref, access, path), &tally);
          !d.empty()) {
        return fail(absl::StrCat("CheckPath(", AccessName(access), ", \"",
                                 Printable(path), "\")"),
                    d);
      }
    }
    for (int i = 0; i < kQueriesPerPolicy; ++i) {
      const std::string exe = RandomExecutable(g);
      const std::string target = g.Chance(30) ? RandomExecutable(g) : "";
      std::vector<std::string> links;
      if (g.Chance(10)) links = RandomList(g, 2, RandomExecutable);
      Argv argv(g.Chance(5) ? 0 : g.Int(1, 4));
      for (size_t k = 0; k < argv.size(); ++k) {
        argv[k] = k == 0 ? g.Pick(kPrograms) : g.Pick(kArgs);
      }
      const std::vector<absl::string_view> av(argv.begin(), argv.end());
      const std::vector<absl::string_view> lv(links.begin(), links.end());
      const bool only_deny = g.Chance(10);
      ++tally.commands;
      const Decision got = only_deny
                               ? engine->CheckDeniedCommand(exe, av, target)
                               : engine->CheckCommand(exe, av, target, lv);
      const RefDecision want =
          only_deny ? RefCheckDenied(ref, exe, argv, target)
                    : RefCheckCommand(ref, exe, argv, target, links);
      if (std::string d = Compare(got, want, &tally); !d.empty()) {
        std::vector<std::string> quoted;
        for (const std::string& a : argv) quoted.push_back(Quote(a));
        return fail(
            absl::StrCat(only_deny ? "CheckDeniedCommand(" : "CheckCommand(",
                         Quote(exe), ", {", absl::StrJoin(quoted, ", "), "}, ",
                         Quote(target), ", links {", absl::StrJoin(links, ", "),
                         "})"),
            d);
      }
    }
  }
  std::printf(
      "compared %lld path cases and %lld command cases over %lld policies "
      "(%lld refused by both); allow %lld, deny %lld, ask %lld\n",
      static_cast<long long>(tally.paths),
      static_cast<long long>(tally.commands),
      static_cast<long long>(tally.policies),
      static_cast<long long>(tally.refused_policies),
      static_cast<long long>(tally.verdicts[0]),
      static_cast<long long>(tally.verdicts[1]),
      static_cast<long long>(tally.verdicts[2]));
  for (const auto& [rule, count] : tally.rules) {
    std::printf("  %-26s %lld\n", rule.c_str(), static_cast<long long>(count));
  }
  // The generator must reach every answer and every kind of rule, or
  // agreement proves little.
  EXPECT_LT(tally.refused_policies * 4, tally.policies);
  for (int64_t v : tally.verdicts) EXPECT_GT(v, 5000);
  for (const char* rule :
       {"workspace", "filesystem.read", "filesystem.write", "filesystem.deny",
        "filesystem.read_only", "filesystem.stat", "filesystem.unlisted",
        "commands.allow_prefixes", "commands.allow", "commands.allow_patterns",
        "commands.deny", "commands.unlisted"}) {
    EXPECT_GT(tally.rules[rule], 500) << rule;
  }
}

}  // namespace
}  // namespace klaunch
