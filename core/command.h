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
#include "absl/types/span.h"
#include "absl/strings/string_view.h"

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

// The dynamic loader run as a program ("ld-linux-x86-64.so.2 [OPTION]...
// PROGRAM [ARG]...") runs PROGRAM, which is to be judged as if executed
// itself. LoaderProgramIndex gives PROGRAM's index in `argv` when
// `executable` (a path) is a loader's, after the options ld.so takes (those
// with a value: --library-path, --preload, --audit, --argv0,
// --glibc-hwcaps-prepend, --glibc-hwcaps-mask); nothing when it is no
// loader or names no program (--help, --list-tunables).
std::optional<size_t> LoaderProgramIndex(
    absl::string_view executable, absl::Span<const absl::string_view> argv);

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
