// Command rules: `commands.allow_prefixes`, `allow`, `allow_patterns`, `deny`.
//
// The command line of an exec is the name of the file the kernel executes
// followed by argv[1..], joined by single spaces; argv[0] plays no part, so
// `execve("/bin/rm", {"git", "status"})` is the command line `rm status`.
//
//   prefix  "git status"      whole words: admits `git status -s`, not
//                             `git statusx`, and not `git` alone
//   glob    "python3 *"       anchored at both ends, `*` the only wildcard;
//                             a trailing ` *` also admits no arguments at all
//   pattern '^pip install \w+$'  RE2, searched in the command line
//
// A rule's program (its first word) is matched as a unit: against the
// executable's absolute path when it starts with `/`, else against its
// basename. A pattern starting with `^/` is searched in the line that begins
// with the absolute path instead of the basename. Whether a bare-name match
// also needs the executable to lie outside the writable roots is the engine's
// business (engine.h), not this module's.

#ifndef KLAUNCH_CORE_COMMAND_H_
#define KLAUNCH_CORE_COMMAND_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace re2 {
class RE2;
}

namespace klaunch {

// The command line judged for an exec, as described above. With
// `absolute_program` the first word is the executable's path.
std::string CommandLineText(absl::string_view executable,
                            absl::Span<const absl::string_view> argv,
                            bool absolute_program = false);

// A script's "#!" line, from the first bytes of the file: the interpreter
// and its one optional argument, as the kernel splits them. nullopt when
// `head` is no script or names no interpreter.
struct InterpreterLine {
  std::string interpreter;
  std::string argument;  // empty when none
};
std::optional<InterpreterLine> ParseInterpreterLine(absl::string_view head);

// The command line the kernel runs for a script: the interpreter, the #!
// line's argument when it has one, the script as the kernel names it, then
// `argv` past its first word (the script's own argv[0] is dropped). Both
// layers judge it against the deny rules: a "#!/bin/rm" script is rm.
std::vector<std::string> InterpreterCommandLine(
    const InterpreterLine& line, absl::string_view script,
    absl::Span<const absl::string_view> argv);

// The dynamic loader run as a program ("ld-linux-x86-64.so.2 [OPTION]...
// PROGRAM [ARG]...") runs PROGRAM, which is to be judged as if executed
// itself. ParseLoaderCommandLine reads the loader's command line as glibc
// 2.36's ld.so (Debian 12) reads it, left to right, stopping at the first
// word that does not start with "--":
//
//   --list, --verify          no program runs: PROGRAM is mapped, its
//                             dependencies listed or checked, and ld.so exits
//                             (neither changes the mode once --help is seen)
//   --inhibit-cache           a flag
//   --library-path, --inhibit-rpath, --audit, --preload, --argv0,
//   --glibc-hwcaps-prepend, --glibc-hwcaps-mask
//                             take the next word as their value, whatever it
//                             is ("--argv0 --version" sets argv[0]); as the
//                             last word (no value) they are unknown options
//   --list-tunables, --list-diagnostics
//                             print and exit once the options are read, with
//                             or without a program (the last one wins)
//   --help                    no program runs (help, after loading PROGRAM
//                             if one is named)
//   --version                 prints and exits right there: later words are
//                             not read
//   any other word starting with "--", "--" itself included
//                             an unknown option: ld.so exits 1 (2.36 checks
//                             the second character of "--" for the end of
//                             the options, never the third, so "--" never
//                             ends them)
//   "-", "-x", "", any other word
//                             PROGRAM; the words after it are its arguments
//
// No word left for PROGRAM is a usage error (exit 1), or the help when --help
// was given. When the program runs, its argv[0] is --argv0's value (the last
// one given), else PROGRAM as written; argv[0] plays no part in judging a
// command (CommandLineText), so the callers judge PROGRAM and the words
// after it whatever --argv0 says. A PROGRAM without a slash is looked up
// by ld.so in /etc/ld.so.cache only (not in the working directory, nor in
// --library-path or LD_LIBRARY_PATH, which are not read yet).
struct LoaderCommandLine {
  enum class Mode {
    kRun,              // PROGRAM runs
    kList,             // --list: no program runs
    kVerify,           // --verify: no program runs
    kHelp,             // --help: no program runs
    kListTunables,     // no program runs
    kListDiagnostics,  // no program runs
    kVersion,          // no program runs
    kUsageError,       // an unknown option or no PROGRAM: nothing runs
  };
  Mode mode = Mode::kRun;
  // PROGRAM's index in argv, whenever the command line names one (with
  // kRun always; with kList, kVerify and kHelp when a word is left for it).
  std::optional<size_t> program;
  // The argv[0] PROGRAM runs with: --argv0's last value, else argv[program].
  absl::string_view argv0;
};

// Nothing when `executable` (a path) is no dynamic loader's.
std::optional<LoaderCommandLine> ParseLoaderCommandLine(
    absl::string_view executable, absl::Span<const absl::string_view> argv);

// PROGRAM's index in `argv` when `executable` is a loader's and the loader
// runs PROGRAM (mode kRun); nothing when it is no loader or runs no program
// (--list, --verify, --help, --version, --list-tunables, --list-diagnostics,
// an unknown option, an option without its value, no PROGRAM). Nothing is
// safe there because nothing beyond the loader itself executes: the caller
// has already judged the loader's own command line against the command
// rules (so a policy can still refuse "ld-linux-x86-64.so.2 --list curl"),
// and what such a loader does then (mapping PROGRAM and its libraries,
// without relocating with IFUNCs or running any of their code) is reading,
// which the file layers judge. (An --audit module's code runs whatever the
// mode, as it does before a program that runs: a library the loader loads
// is no command, here or there.) The index that matters is the one of the
// program that does run, and the parse above finds the same word ld.so does.
std::optional<size_t> LoaderProgramIndex(
    absl::string_view executable, absl::Span<const absl::string_view> argv);

// Why the callers refuse a loader's PROGRAM written without a slash: ld.so
// looks it up among the libraries (its cache), where no judge resolving the
// name as a path would look, so what it runs is not what would be judged.
inline constexpr char kLoaderBareName[] =
    "the dynamic loader looks a program named without a '/' up among the "
    "libraries, not where its name says; name it with a path";

class CommandRule {
 public:
  enum class Kind { kPrefix, kGlob, kPattern };

  static absl::StatusOr<CommandRule> Compile(Kind kind, absl::string_view text);

  CommandRule(CommandRule&&) noexcept;
  CommandRule& operator=(CommandRule&&) noexcept;
  ~CommandRule();

  bool Matches(absl::string_view executable,
               absl::Span<const absl::string_view> argv) const;

  // True when the rule names its program by bare name (so an executable the
  // sandbox could have written must not satisfy it).
  bool names_bare_program() const { return !absolute_program_; }
  const std::string& text() const { return text_; }

 private:
  CommandRule() = default;

  Kind kind_ = Kind::kGlob;
  std::string text_;
  bool absolute_program_ = false;
  std::string program_;             // prefix and glob: the first word
  std::vector<std::string> words_;  // prefix: the words after the program
  std::string rest_;                // glob: everything after the program
  std::unique_ptr<re2::RE2> re_;    // pattern
};

}  // namespace klaunch

#endif  // KLAUNCH_CORE_COMMAND_H_
