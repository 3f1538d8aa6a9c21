#include "launcher/suggest.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/audit_read.h"
#include "core/effective.h"
#include "core/json.h"
#include "core/loader.h"
#include "core/path.h"
#include "launcher/run_command.h"

namespace klaunch {
namespace {

struct Suggestion {
  std::string value;
  int events = 0;
};

std::string Parent(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Where programs make names that differ every run (pip-unpack-x3f9...,
// ccA1b2.s): the next run needs the directory, not this run's names.
constexpr const char* kTemporaryRoots[] = {"/tmp", "/var/tmp", "/dev/shm"};

// The first component of `path` below `root`, as a path ("/tmp/a" for
// "/tmp/a/b/c" below "/tmp").
std::string TopBelow(const std::string& path, const std::string& root) {
  const size_t end = path.find('/', root.size() + 1);
  return path.substr(0, end);
}

int Depth(const std::string& path) {
  return path == "/"
             ? 0
             : static_cast<int>(std::count(path.begin(), path.end(), '/'));
}

// Files, collapsed into their directory where three or more share one that
// is at least two levels deep.
std::vector<Suggestion> CollapsePaths(const std::map<std::string, int>& paths) {
  std::map<std::string, std::vector<std::string>> by_dir;
  for (const auto& [path, n] : paths) by_dir[Parent(path)].push_back(path);
  std::vector<Suggestion> out;
  for (const auto& [dir, files] : by_dir) {
    if (files.size() >= 3 && Depth(dir) >= 2) {
      int n = 0;
      for (const std::string& f : files) n += paths.at(f);
      out.push_back({dir, n});
    } else {
      for (const std::string& f : files) out.push_back({f, paths.at(f)});
    }
  }
  // A directory suggested may already cover files suggested on their own.
  std::vector<Suggestion> kept;
  for (const Suggestion& s : out) {
    bool covered = false;
    for (const Suggestion& other : out) {
      if (&other != &s && other.value != s.value &&
          PathIsWithin(s.value, other.value)) {
        covered = true;
      }
    }
    if (!covered) kept.push_back(s);
  }
  return kept;
}

// One glob over the command lines a program was refused with.
std::vector<Suggestion> CollapseCommands(
    const std::map<std::string, std::map<std::string, int>>& by_program) {
  std::vector<Suggestion> out;
  for (const auto& [program, lines] : by_program) {
    int n = 0;
    for (const auto& [line, count] : lines) n += count;
    if (lines.size() == 1) {
      out.push_back({lines.begin()->first, n});
      continue;
    }
    std::set<std::string> second;
    for (const auto& [line, count] : lines) {
      std::vector<std::string> words = absl::StrSplit(line, ' ');
      second.insert(words.size() > 1 ? words[1] : "");
    }
    if (second.size() == 1 && !second.begin()->empty() &&
        second.begin()->find('*') == std::string::npos) {
      out.push_back({absl::StrCat(program, " ", *second.begin(), " *"), n});
    } else {
      out.push_back({absl::StrCat(program, " *"), n});
    }
  }
  return out;
}

// TOML holds only UTF-8, and a name may hold any byte: a rule for such a
// name is a glob with one `*` for each run of bytes that are not UTF-8
// (`caf\xe9` becomes `caf*`), which admits the name and its neighbours
// that differ only there. `*globbed` says it happened.
std::string RuleText(absl::string_view name, bool* globbed) {
  std::string out;
  bool in_run = false;
  ForEachUtf8Piece(name, [&](absl::string_view piece, bool well_formed) {
    if (!well_formed) {
      if (!in_run) out += '*';
      *globbed = true;
    } else {
      out.append(piece.data(), piece.size());
    }
    in_run = !well_formed;
  });
  return out;
}

// A name in a comment: each byte that is not UTF-8 as \xNN.
std::string CommentText(absl::string_view name) {
  std::string out;
  ForEachUtf8Piece(name, [&](absl::string_view piece, bool well_formed) {
    if (well_formed) {
      out.append(piece.data(), piece.size());
    } else {
      absl::StrAppend(
          &out, "\\x",
          absl::Hex(static_cast<unsigned char>(piece[0]), absl::kZeroPad2));
    }
  });
  return out;
}

// `relative_to`: directories (one object's spellings) below which an added
// path is written relative ("./build"), as the workspace klaunch starts in.
void AppendList(std::string* out, const std::string& name,
                const std::vector<Entry>& kept,
                const std::vector<Suggestion>& added,
                const std::vector<std::string>& relative_to = {}) {
  const bool mine = std::any_of(kept.begin(), kept.end(), [](const Entry& e) {
    return e.preset.empty();
  });
  if (!mine && added.empty()) return;  // the preset's come with `extends`
  absl::StrAppend(out, name, " = [\n");
  for (const Entry& e : kept) {
    if (e.preset.empty()) absl::StrAppend(out, "  ", TomlQuote(e.value), ",\n");
  }
  for (const Suggestion& s : added) {
    bool globbed = false;
    std::string rule = RuleText(s.value, &globbed);
    for (const std::string& dir : relative_to) {
      if (dir.empty() || rule[0] != '/' || !PathIsWithin(rule, dir)) continue;
      rule = rule.size() == dir.size()
                 ? "."
                 : absl::StrCat(".", rule.substr(dir == "/" ? 0 : dir.size()));
      break;
    }
    absl::StrAppend(out, "  ", TomlQuote(rule), ",  # covers ", s.events,
                    s.events == 1 ? " event" : " events",
                    globbed ? absl::StrCat(" of ", CommentText(s.value),
                                           " (not UTF-8: `*` stands for "
                                           "the bytes TOML cannot hold)")
                            : "",
                    "\n");
  }
  absl::StrAppend(out, "]\n");
}

// A record of a write or a command the person admitted at the terminal
// (supervisor/ask_server.h): the next run need not ask.
bool IsTerminalYes(const AuditEvent& e) {
  return e.verdict == "allow" && e.rule == "terminal";
}

// What the suggestion lists without learning it: a comment heading, then
// each item and how many events named it; nothing when there is none.
void AppendListed(std::string* out, absl::string_view heading,
                  const std::map<std::string, int>& items) {
  if (items.empty()) return;
  absl::StrAppend(out, "\n# ", heading, "\n");
  for (const auto& [what, n] : items) {
    absl::StrAppend(out, "#   ", CommentText(what), " x", n, "\n");
  }
}

bool HasPresetEntries(const std::vector<Entry>& entries,
                      absl::string_view preset) {
  for (const Entry& e : entries) {
    if (e.preset == preset) return true;
  }
  return false;
}

bool IsUser(const std::vector<Entry>& entries) {
  for (const Entry& e : entries) {
    if (e.preset.empty()) return true;
  }
  return false;
}

}  // namespace

std::string SuggestPolicy(const Policy& base,
                          const std::vector<AuditEvent>& events) {
  // The names the run made directly in a temporary directory.
  std::set<std::string> made_in_tmp;
  for (const AuditEvent& e : events) {
    if (e.access != "write") continue;
    for (const char* tmp : kTemporaryRoots) {
      if (e.target != tmp && Parent(e.target) == tmp) {
        made_in_tmp.insert(e.target);
      }
    }
  }
  std::map<std::string, int> reads, writes, connects;
  std::map<std::string, std::map<std::string, int>> commands;
  std::map<std::string, int> kept_denials, by_sections, approved, unlearned;
  std::map<std::string, int> links;     // hard links' sources
  std::map<std::string, int> too_wide;  // reads of / or a top-level directory
  // Writes in the workspace, collapsed apart from the others so that a
  // temporary directory the workspace lies in never swallows them.
  std::map<std::string, int> workspace_writes;
  int abstract = 0;
  for (const AuditEvent& e : events) {
    const bool yes = IsTerminalYes(e);
    if (!yes && e.verdict != "deny" && e.verdict != "would_deny") continue;
    if (absl::StartsWith(e.rule, "filesystem.deny") ||
        absl::StartsWith(e.rule, "commands.deny")) {
      ++kept_denials[absl::StrCat(e.target, " (", e.rule, ")")];
      continue;
    }
    // A section only narrows: what one refused, the policy already admits,
    // and widening the policy would not admit it. Nor is a section widened
    // for what was admitted at the terminal inside it.
    if (absl::StartsWith(e.rule, "programs.")) {
      ++by_sections[absl::StrCat(e.target, " (", e.access, ", refused by ",
                                 e.rule, ")")];
      continue;
    }
    if (yes && !e.program.empty()) {
      ++by_sections[absl::StrCat(e.target, " (", e.access,
                                 ", admitted at the terminal under programs.\"",
                                 e.program, "\")")];
      continue;
    }
    if (e.rule == "network.unix_abstract") {
      ++abstract;
    } else if (e.access == "connect") {
      ++connects[e.target];
    } else if (e.access == "exec" && yes) {
      // Admitted once, as typed: the exact line, by the executable's path
      // (a bare name would not reach one in a writable root). A `*` in it
      // would be a wildcard: that one is listed, not learned.
      const std::string line =
          e.command.empty()
              ? e.target
              : e.target + e.command.substr(
                               std::min(e.command.find(' '), e.command.size()));
      if (line.find('*') == std::string::npos && !e.target.empty() &&
          e.target[0] == '/') {
        ++approved[line];
      } else {
        ++unlearned[e.command];
      }
    } else if (e.access == "exec" && absl::StartsWith(e.rule, "commands.")) {
      // A program the rules named by bare name but that lies in a writable
      // root is named by its path instead.
      std::string line =
          e.command.empty() ? std::string(Basename(e.target)) : e.command;
      if (absl::StrContains(e.message, "lies in a writable root")) {
        const size_t space = line.find(' ');
        line =
            e.target + (space == std::string::npos ? "" : line.substr(space));
      }
      const std::string program = line.substr(0, line.find(' '));
      ++commands[program][line];
    } else if (e.access == "link") {
      ++links[e.target];
    } else if (e.access == "write") {
      // A temporary name differs every run (pip-unpack-x3f9...): the next
      // run needs the temporary directory, not this run's names in it.
      // (Not what lies in the workspace, wherever that is.)
      const Entry& ws = base.filesystem.workspace;
      bool temporary =
          PathIsWithin(e.target, ws.value) ||
          (!ws.resolved.empty() && PathIsWithin(e.target, ws.resolved));
      if (temporary) {
        ++workspace_writes[e.target];
        continue;
      }
      for (const char* tmp : kTemporaryRoots) {
        if (e.target == tmp || !PathIsWithin(e.target, tmp)) continue;
        // Only what the run made there itself: a directory that was there
        // before (another tool's, a test's) is no temporary name.
        const std::string top = TopBelow(e.target, tmp);
        if (made_in_tmp.count(top) == 0) break;
        ++writes[tmp];
        temporary = true;
        break;
      }
      if (!temporary) ++writes[e.target];
    } else if (!e.target.empty() && e.target[0] == '/') {
      // A rule for a top-level directory (/etc, listed by a platform
      // probe) would admit everything below it, /etc/shadow among it.
      if (Depth(e.target) <= 1) {
        ++too_wide[e.target];
      } else {
        ++reads[e.target];  // read, exec, stat
      }
    }
  }
  // A path both read and written needs only the write entry; a link's
  // source a learned write root covers needs no word.
  for (const auto& [path, n] : writes) reads.erase(path);
  for (const auto& [path, n] : workspace_writes) reads.erase(path);
  std::vector<Suggestion> learned_writes = CollapsePaths(workspace_writes);
  for (Suggestion& s : CollapsePaths(writes)) {
    learned_writes.push_back(std::move(s));
  }
  // What a learned write root admits needs no read entry (a compiler's
  // temporary file under /tmp).
  for (auto it = reads.begin(); it != reads.end();) {
    const bool covered = std::any_of(
        learned_writes.begin(), learned_writes.end(),
        [&](const Suggestion& w) { return PathIsWithin(it->first, w.value); });
    it = covered ? reads.erase(it) : std::next(it);
  }
  for (auto it = links.begin(); it != links.end();) {
    const bool covered = std::any_of(
        learned_writes.begin(), learned_writes.end(),
        [&](const Suggestion& w) { return PathIsWithin(it->first, w.value); });
    it = covered ? links.erase(it) : std::next(it);
  }

  std::string out =
      "# Suggested by klaunch suggest from an audit log: the base policy plus\n"
      "# the narrowest entries that admit what was refused or admitted at\n"
      "# the terminal. Review it.\n"
      "version = 1\n";
  absl::StrAppend(&out, "extends = ", TomlQuote(base.base), "\n");
  // A learned policy enforces, whatever mode the base learned in. Where
  // the base left the workspace to the directory klaunch starts in, so
  // does the suggestion, and names what lies below it relative to it: the
  // policy then serves any checkout, not only the one the dry run saw.
  const Entry& ws = base.filesystem.workspace;
  const bool default_workspace = ws.where.line == 0;
  out += "\n[filesystem]\n";
  if (!default_workspace) {
    absl::StrAppend(&out, "workspace = ", TomlQuote(ws.value), "\n");
  }
  absl::StrAppend(&out, "workspace_writable = ",
                  base.filesystem.workspace_writable ? "true" : "false", "\n");
  const std::vector<std::string> relative_to =
      default_workspace ? std::vector<std::string>{ws.value, ws.resolved}
                        : std::vector<std::string>{};
  if (base.filesystem.unlisted_writes != Unlisted::kDeny) {
    absl::StrAppend(&out, "unlisted_writes = ",
                    TomlQuote(UnlistedName(base.filesystem.unlisted_writes)),
                    "\n");
  }
  AppendList(&out, "read", base.filesystem.read, CollapsePaths(reads),
             relative_to);
  AppendList(&out, "write", base.filesystem.write, learned_writes, relative_to);
  if (IsUser(base.filesystem.deny)) {
    AppendList(&out, "deny", base.filesystem.deny, {});
  }
  if (IsUser(base.filesystem.read_only)) {
    AppendList(&out, "read_only", base.filesystem.read_only, {});
  }
  if (!HasPresetEntries(base.filesystem.read_only, base.base) &&
      base.base == "workspace-write") {
    out += "preset_read_only = false\n";
  }
  std::vector<Suggestion> command_suggestions = CollapseCommands(commands);
  for (const auto& [line, n] : approved)
    command_suggestions.push_back({line, n});
  out += "\n[commands]\n";
  AppendList(&out, "allow_prefixes", base.commands.allow_prefixes, {});
  AppendList(&out, "allow", base.commands.allow, command_suggestions);
  AppendList(&out, "allow_patterns", base.commands.allow_patterns, {});
  AppendList(&out, "deny", base.commands.deny, {});
  absl::StrAppend(&out, "unlisted = ",
                  TomlQuote(UnlistedName(base.commands.unlisted)), "\n");
  std::vector<Suggestion> net;
  for (const auto& [target, n] : connects) net.push_back({target, n});
  out += "\n[network]\n";
  AppendList(&out, "allow", base.network.allow, net);
  if (abstract > 0 || base.network.unix_abstract) {
    absl::StrAppend(
        &out, "unix_abstract = true",
        abstract ? absl::StrCat("  # covers ", abstract, " events") : "", "\n");
  }
  if (IsUser(base.env.keep) || !base.env.set.empty()) {
    out += "\n[env]\n";
    AppendList(&out, "keep", base.env.keep, {});
    if (!base.env.set.empty()) {
      out += "set = {";
      for (size_t i = 0; i < base.env.set.size(); ++i) {
        absl::StrAppend(&out, i ? ", " : " ", TomlQuote(base.env.set[i].first),
                        " = ", TomlQuote(base.env.set[i].second));
      }
      out += " }\n";
    }
  }
  if (IsUser(base.system.allow)) {
    out += "\n[system]\n";
    AppendList(&out, "allow", base.system.allow, {});
  }
  // The base's program sections, whole: the suggestion never drops one.
  AppendProgramSections(&out, base);
  AppendListed(&out,
               "Decided inside program sections, which this suggestion does "
               "not widen\n# (edit the section to admit them):",
               by_sections);
  AppendListed(&out,
               "Admitted at the terminal, not learned (a `*` in a command "
               "line is a\n# wildcard in a rule):",
               unlearned);
  AppendListed(&out,
               "Not learned: a rule for / or a top-level directory admits "
               "everything below\n# it (these were listed or looked at, as a "
               "platform probe does). Add a\n# narrower entry if the program "
               "needs what lies inside:",
               too_wide);
  AppendListed(&out,
               "Hard links to these were refused (a link's source is judged "
               "as a write:\n# writing through the new name writes it). Not "
               "learned: git clone and cp\n# copy when a link is refused. Add "
               "one to filesystem.write only if the\n# link itself is needed:",
               links);
  AppendListed(&out,
               "Refused by deny entries, which this suggestion does not undo:",
               kept_denials);
  return out;
}

int RunSuggest(const std::vector<std::string>& args) {
  std::string log, base_file;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      std::fputs("usage: klaunch suggest AUDIT.jsonl [--base FILE]\n", stdout);
      return 0;
    }
    if (args[i] == "--base" && i + 1 < args.size()) {
      base_file = args[++i];
    } else if (log.empty() && !args[i].empty() && args[i][0] != '-') {
      log = args[i];
    } else {
      std::fprintf(stderr,
                   "klaunch suggest: unexpected '%s'\nusage: klaunch "
                   "suggest AUDIT.jsonl [--base FILE]\n",
                   args[i].c_str());
      return kExitUsage;
    }
  }
  if (log.empty()) {
    std::fprintf(stderr, "usage: klaunch suggest AUDIT.jsonl [--base FILE]\n");
    return kExitUsage;
  }
  std::ifstream in(log);
  if (!in) {
    std::fprintf(stderr, "klaunch: %s: cannot read the audit log\n",
                 log.c_str());
    return kExitUsage;
  }
  std::vector<AuditEvent> events;
  std::string run_cwd;  // the first run's working directory
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.empty()) continue;
    std::optional<AuditEvent> e = ParseAuditLine(line);
    if (!e) {
      std::fprintf(stderr, "klaunch: %s:%d: not an audit record\n", log.c_str(),
                   line_no);
      return kExitUsage;
    }
    if (e->op == "start" && e->verdict == "info" && run_cwd.empty() &&
        !e->cwd.empty() && e->cwd[0] == '/') {
      run_cwd = e->cwd;
    }
    if (e->verdict == "deny" || e->verdict == "would_deny" ||
        IsTerminalYes(*e)) {
      events.push_back(*std::move(e));
    }
  }
  // The base is read as the dry run read it: relative to where it ran, so
  // its default workspace is that run's.
  LoadContext ctx = CurrentLoadContext();
  if (!run_cwd.empty()) ctx.base_dir = run_cwd;
  absl::StatusOr<Policy> base = base_file.empty()
                                    ? PresetPolicy("workspace-write", ctx)
                                    : LoadPolicyFile(base_file, ctx);
  if (!base.ok()) {
    std::fprintf(stderr, "klaunch: %s\n",
                 std::string(base.status().message()).c_str());
    return kExitUsage;
  }
  std::fputs(SuggestPolicy(*base, events).c_str(), stdout);
  return 0;
}

}  // namespace klaunch
