// Fuzzes core/command.h: command rules of the three kinds (prefix, glob,
// RE2 pattern) compiled from fuzzer-made text and matched against
// fuzzer-made executables and argv, checked against the grammar's promises
// (argv[0] plays no part, a bare name ignores the directory, an absolute
// program matches component by component, whole-word prefixes) and against
// a reference glob written here; plus the "#!" line parser.
//
// Input: lines. Line 0 is the rule, its first byte choosing the kind
// ('p' prefix, 'g' glob, 'r' RE2; anything else: glob, byte kept); line 1
// the executable; the rest argv. The whole input is also read as the head
// of a script. It does not judge whether an executable may run (the
// Engine's business, in loader_fuzzer).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/command.h"
#include "core/path.h"
#include "fuzz/support.h"

namespace klaunch {
namespace {

using fuzz::RefGlob;

std::string Describe(absl::string_view rule, absl::string_view exe,
                     absl::Span<const absl::string_view> argv) {
  return absl::StrCat("rule '", rule, "' executable '", exe, "' argv ['",
                      absl::StrJoin(argv, "', '"), "']");
}

// What command.h says a prefix or glob rule admits, from its text alone.
std::optional<bool> RefMatches(CommandRule::Kind kind, absl::string_view text,
                               absl::string_view exe,
                               absl::Span<const absl::string_view> argv) {
  const absl::string_view trimmed = absl::StripAsciiWhitespace(text);
  const size_t space = trimmed.find(' ');
  const absl::string_view program = trimmed.substr(0, space);
  const absl::string_view after =
      space == absl::string_view::npos ? "" : trimmed.substr(space);
  const bool absolute = program[0] == '/';
  const absl::string_view name = absolute ? exe : Basename(exe);
  std::vector<absl::string_view> args;
  for (size_t i = 1; i < argv.size(); ++i) args.push_back(argv[i]);
  if (kind == CommandRule::Kind::kPrefix) {
    // Whole words, compared one to one with the arguments.
    std::vector<absl::string_view> words =
        absl::StrSplit(after, ' ', absl::SkipEmpty());
    if (name != program || args.size() < words.size()) return false;
    for (size_t i = 0; i < words.size(); ++i) {
      if (args[i] != words[i]) return false;
    }
    return true;
  }
  // Glob: the program component by component (one string when bare), then
  // the rest anchored over " ARGS"; a trailing " *" admits no arguments too.
  std::vector<absl::string_view> g = absl::StrSplit(program, '/');
  std::vector<absl::string_view> n = absl::StrSplit(name, '/');
  if (!absolute) g = {program}, n = {name};
  if (g.size() != n.size()) return false;
  for (size_t i = 0; i < g.size(); ++i) {
    std::optional<bool> m = RefGlob(g[i], n[i]);
    if (!m) return std::nullopt;
    if (!*m) return false;
  }
  // A one-word rule's final `*` takes the arguments too ("sudo*").
  if (after.empty() && absl::EndsWith(program, "*")) return true;
  const std::string rest =
      args.empty() ? "" : absl::StrCat(" ", absl::StrJoin(args, " "));
  std::optional<bool> m = RefGlob(after, rest);
  if (!m) return std::nullopt;
  if (*m) return true;
  if (absl::EndsWith(after, " *")) {
    return RefGlob(after.substr(0, after.size() - 2), rest);
  }
  return false;
}

void CheckRule(CommandRule::Kind kind, absl::string_view text,
               absl::string_view exe, std::vector<absl::string_view> argv) {
  absl::StatusOr<CommandRule> rule = CommandRule::Compile(kind, text);
  const absl::string_view trimmed = absl::StripAsciiWhitespace(text);
  // Refused: only an empty rule, a prefix whose program holds a `*`, a bad
  // RE2.
  const bool starred_prefix =
      kind == CommandRule::Kind::kPrefix &&
      absl::StrContains(trimmed.substr(0, trimmed.find(' ')), '*');
  if (kind != CommandRule::Kind::kPattern) {
    FUZZ_CHECK(rule.ok() == !(trimmed.empty() || starred_prefix), "'", text,
               "': ", rule.status().ToString());
  } else {
    if (trimmed.empty()) FUZZ_CHECK(!rule.ok(), "'", text, "'");
  }
  if (!rule.ok()) return;
  FUZZ_CHECK(rule->text() == text, text);
  const bool matches = rule->Matches(exe, argv);
  const std::string what = Describe(text, exe, argv);

  if (kind != CommandRule::Kind::kPattern) {
    std::optional<bool> want = RefMatches(kind, text, exe, argv);
    if (want) FUZZ_CHECK(matches == *want, what, " want ", *want);
  } else if (absl::StartsWith(text, "^/")) {
    FUZZ_CHECK(!rule->names_bare_program(), text);
  }

  // argv[0] plays no part.
  if (!argv.empty()) {
    std::vector<absl::string_view> other = argv;
    other[0] = argv[0] == "x" ? "y" : "x";
    FUZZ_CHECK(rule->Matches(exe, other) == matches, what);
  }
  // A bare-name rule (a pattern not starting with ^/ included) looks at the
  // basename only.
  if (rule->names_bare_program()) {
    const std::string moved = absl::StrCat("/elsewhere/deeper/", Basename(exe));
    FUZZ_CHECK(rule->Matches(moved, argv) == matches, what, " moved to '",
               moved, "'");
  } else if (matches && kind != CommandRule::Kind::kPattern) {
    // An absolute program matches the executable's path, `*` within one
    // component.
    const absl::string_view program = trimmed.substr(0, trimmed.find(' '));
    const std::vector<absl::string_view> g = absl::StrSplit(program, '/');
    const std::vector<absl::string_view> e = absl::StrSplit(exe, '/');
    FUZZ_CHECK(g.size() == e.size(), what);
    if (kind == CommandRule::Kind::kPrefix) FUZZ_CHECK(exe == program, what);
  }
  // A prefix, and a glob ending in " *" or a one-word one ending in "*",
  // admit more arguments too.
  const bool open_ended =
      absl::EndsWith(trimmed, " *") ||
      (!absl::StrContains(trimmed, ' ') && absl::EndsWith(trimmed, "*"));
  if (matches && !argv.empty() &&
      (kind == CommandRule::Kind::kPrefix ||
       (kind == CommandRule::Kind::kGlob && open_ended))) {
    std::vector<absl::string_view> more = argv;
    more.push_back("--more");
    FUZZ_CHECK(rule->Matches(exe, more), what, " plus '--more'");
  }
  // The command line is the executable's name and argv[1..] by single spaces.
  const std::string line = CommandLineText(exe, argv);
  std::vector<absl::string_view> rest(argv.begin() + (argv.empty() ? 0 : 1),
                                      argv.end());
  const std::string want_line =
      rest.empty() ? std::string(Basename(exe))
                   : absl::StrCat(Basename(exe), " ", absl::StrJoin(rest, " "));
  FUZZ_CHECK(line == want_line, what, " line '", line, "'");
}

void CheckInterpreter(absl::string_view head) {
  std::optional<InterpreterLine> line = ParseInterpreterLine(head);
  if (!absl::StartsWith(head, "#!")) {
    FUZZ_CHECK(!line, "not a script");
    return;
  }
  if (!line) return;
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  FUZZ_CHECK(!line->interpreter.empty(), head);
  for (char c : line->interpreter) FUZZ_CHECK(!blank(c) && c != '\n', head);
  FUZZ_CHECK(!absl::StrContains(line->argument, '\n'), head);
  if (!line->argument.empty()) {
    FUZZ_CHECK(!blank(line->argument.front()) && !blank(line->argument.back()),
               head);
  }
  // Both come from the first line, in order.
  const absl::string_view first = head.substr(0, head.find('\n'));
  FUZZ_CHECK(absl::StrContains(first, line->interpreter), head);
  FUZZ_CHECK(absl::StrContains(first, line->argument), head);
}

}  // namespace
}  // namespace klaunch

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace klaunch;
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  CheckInterpreter(input);
  std::vector<absl::string_view> lines = absl::StrSplit(input, '\n');
  if (lines.size() < 2) return 0;
  absl::string_view rule = lines[0];
  CommandRule::Kind kind = CommandRule::Kind::kGlob;
  if (!rule.empty() && (rule[0] == 'p' || rule[0] == 'g' || rule[0] == 'r')) {
    kind = rule[0] == 'p'   ? CommandRule::Kind::kPrefix
           : rule[0] == 'r' ? CommandRule::Kind::kPattern
                            : CommandRule::Kind::kGlob;
    rule.remove_prefix(1);
  }
  // RE2 compiles in time linear in the pattern, but keep it small anyway.
  if (rule.size() > 512) return 0;
  std::vector<absl::string_view> argv(lines.begin() + 2, lines.end());
  CheckRule(kind, rule, lines[1], argv);
  return 0;
}
