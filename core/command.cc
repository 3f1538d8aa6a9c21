#include "core/command.h"

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/path.h"
#include "re2/re2.h"

namespace klaunch {
namespace {

// The arguments after argv[0], joined by single spaces.
std::string ArgsText(absl::Span<const absl::string_view> argv) {
  std::string out;
  for (size_t i = 1; i < argv.size(); ++i) {
    if (i > 1) out.push_back(' ');
    out.append(argv[i].data(), argv[i].size());
  }
  return out;
}

// A `*` in an absolute program stays within one path component, as in path
// rules: "/usr/bin/*" is not "/usr/bin/sub/dir/evil".
bool ProgramMatches(absl::string_view glob, absl::string_view program,
                    bool absolute) {
  if (!absolute) return GlobMatch(glob, program);
  std::vector<absl::string_view> g = absl::StrSplit(glob, '/');
  std::vector<absl::string_view> p = absl::StrSplit(program, '/');
  if (g.size() != p.size()) return false;
  for (size_t i = 0; i < g.size(); ++i) {
    if (!GlobMatch(g[i], p[i])) return false;
  }
  return true;
}

}  // namespace

std::optional<InterpreterLine> ParseInterpreterLine(absl::string_view head) {
  if (!absl::ConsumePrefix(&head, "#!")) return std::nullopt;
  head = head.substr(0, head.find('\n'));
  auto blank = [](char ch) { return ch == ' ' || ch == '\t'; };
  while (!head.empty() && blank(head.front())) head.remove_prefix(1);
  size_t end = 0;
  while (end < head.size() && !blank(head[end])) ++end;
  if (end == 0) return std::nullopt;
  InterpreterLine line{std::string(head.substr(0, end)), ""};
  absl::string_view rest = head.substr(end);
  while (!rest.empty() && blank(rest.front())) rest.remove_prefix(1);
  while (!rest.empty() && blank(rest.back())) rest.remove_suffix(1);
  line.argument = std::string(rest);
  return line;
}

std::vector<std::string> InterpreterCommandLine(
    const InterpreterLine& line, absl::string_view script,
    absl::Span<const absl::string_view> argv) {
  std::vector<std::string> out = {line.interpreter};
  if (!line.argument.empty()) out.push_back(line.argument);
  out.emplace_back(script);
  for (size_t i = 1; i < argv.size(); ++i) out.emplace_back(argv[i]);
  return out;
}

std::optional<LoaderCommandLine> ParseLoaderCommandLine(
    absl::string_view executable, absl::Span<const absl::string_view> argv) {
  using Mode = LoaderCommandLine::Mode;
  const absl::string_view base = Basename(executable);
  if (!absl::StartsWith(base, "ld-linux") && !absl::StartsWith(base, "ld.so") &&
      !absl::StartsWith(base, "ld-")) {
    return std::nullopt;
  }
  LoaderCommandLine line;
  std::optional<absl::string_view> argv0;
  // argv[0] is the loader's own name; the options start after it.
  size_t i = 1;
  for (; i < argv.size(); ++i) {
    const absl::string_view word = argv[i];
    const bool has_value = i + 1 < argv.size();
    if (word == "--list" || word == "--verify") {
      if (line.mode != Mode::kHelp) {
        line.mode = word == "--list" ? Mode::kList : Mode::kVerify;
      }
    } else if (word == "--inhibit-cache") {
      // A flag.
    } else if (has_value &&
               (word == "--library-path" || word == "--inhibit-rpath" ||
                word == "--audit" || word == "--preload" || word == "--argv0" ||
                word == "--glibc-hwcaps-prepend" ||
                word == "--glibc-hwcaps-mask")) {
      ++i;  // the value, whatever it looks like
      if (word == "--argv0") argv0 = argv[i];
    } else if (word == "--list-tunables") {
      line.mode = Mode::kListTunables;
    } else if (word == "--list-diagnostics") {
      line.mode = Mode::kListDiagnostics;
    } else if (word == "--help") {
      line.mode = Mode::kHelp;
    } else if (word == "--version") {
      line.mode = Mode::kVersion;  // printed at once; nothing after is read
      return line;
    } else if (absl::StartsWith(word, "--")) {
      // Unknown, a value-taking option with no word after it, or "--":
      // ld.so's test for the end of its options looks at the second
      // character, which is always '-' here.
      line.mode = Mode::kUsageError;
      return line;
    } else {
      break;  // PROGRAM
    }
  }
  // These two print and exit before PROGRAM is looked for.
  if (line.mode == Mode::kListTunables || line.mode == Mode::kListDiagnostics) {
    return line;
  }
  if (i >= argv.size()) {
    if (line.mode != Mode::kHelp) line.mode = Mode::kUsageError;
    return line;
  }
  line.program = i;
  line.argv0 = argv0.value_or(argv[i]);
  return line;
}

std::optional<size_t> LoaderProgramIndex(
    absl::string_view executable, absl::Span<const absl::string_view> argv) {
  const std::optional<LoaderCommandLine> line =
      ParseLoaderCommandLine(executable, argv);
  if (!line || line->mode != LoaderCommandLine::Mode::kRun) return std::nullopt;
  return line->program;
}

std::string CommandLineText(absl::string_view executable,
                            absl::Span<const absl::string_view> argv,
                            bool absolute_program) {
  std::string out(absolute_program ? executable : Basename(executable));
  if (argv.size() > 1) absl::StrAppend(&out, " ", ArgsText(argv));
  return out;
}

CommandRule::CommandRule(CommandRule&&) noexcept = default;
CommandRule& CommandRule::operator=(CommandRule&&) noexcept = default;
CommandRule::~CommandRule() = default;

absl::StatusOr<CommandRule> CommandRule::Compile(Kind kind,
                                                 absl::string_view text) {
  CommandRule rule;
  rule.kind_ = kind;
  rule.text_ = std::string(text);
  absl::string_view trimmed = absl::StripAsciiWhitespace(text);
  if (trimmed.empty()) {
    return absl::InvalidArgumentError("empty command rule");
  }
  if (kind == Kind::kPattern) {
    RE2::Options options;
    options.set_log_errors(false);
    rule.re_ = std::make_unique<RE2>(std::string(text), options);
    if (!rule.re_->ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad RE2 pattern '", text, "': ", rule.re_->error()));
    }
    rule.absolute_program_ = text.substr(0, 2) == "^/";
    return rule;
  }
  size_t space = trimmed.find(' ');
  rule.program_ = std::string(trimmed.substr(0, space));
  rule.absolute_program_ = rule.program_[0] == '/';
  if (kind == Kind::kPrefix) {
    if (rule.program_.find('*') != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("prefix '", text,
                       "' holds a *; prefixes are whole words (use "
                       "commands.allow for globs)"));
    }
    if (space != absl::string_view::npos) {
      rule.words_ =
          absl::StrSplit(trimmed.substr(space + 1), ' ', absl::SkipEmpty());
    }
  } else if (space != absl::string_view::npos) {
    rule.rest_ = std::string(trimmed.substr(space));
  }
  return rule;
}

bool CommandRule::Matches(absl::string_view executable,
                          absl::Span<const absl::string_view> argv) const {
  const absl::string_view program =
      absolute_program_ ? executable : Basename(executable);
  switch (kind_) {
    case Kind::kPattern:
      return RE2::PartialMatch(
          CommandLineText(executable, argv, absolute_program_), *re_);
    case Kind::kPrefix: {
      if (program != program_) return false;
      // argv may be empty (execve(path, {NULL})): then there are no words.
      const size_t args = argv.empty() ? 0 : argv.size() - 1;
      if (args < words_.size()) return false;
      for (size_t i = 0; i < words_.size(); ++i) {
        if (argv[i + 1] != words_[i]) return false;
      }
      return true;
    }
    case Kind::kGlob: {
      if (!ProgramMatches(program_, program, absolute_program_)) return false;
      // A one-word rule's final `*` reaches into the arguments: "sudo*"
      // must refuse "sudo rm -rf /", not only a bare "sudo".
      if (rest_.empty() && absl::EndsWith(program_, "*")) return true;
      const std::string args = ArgsText(argv);
      const std::string rest = argv.size() > 1 ? absl::StrCat(" ", args) : "";
      if (GlobMatch(rest_, rest)) return true;
      // "git *" also admits plain "git": a trailing " *" means "and any
      // arguments, none included".
      absl::string_view r = rest_;
      if (r.size() >= 2 && r.substr(r.size() - 2) == " *") {
        return GlobMatch(r.substr(0, r.size() - 2), rest);
      }
      return false;
    }
  }
  return false;
}

}  // namespace klaunch
