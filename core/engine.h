// The Engine: the one place that decides. Built once from a Policy, it
// answers three questions, each with a Decision naming the rule that decided.
//
//   absl::StatusOr<Engine> engine = Engine::Create(policy);
//   Decision d = engine->CheckPath(Access::kWrite, "/usr/lib/x");
//   // d.verdict == Verdict::kDeny, d.rule == "filesystem.read[0]",
//   // d.message == "write of /usr/lib/x refused: /usr is read-only ..."
//
// Paths (settled, never asked about): `deny` wins over everything and refuses
// even `stat`; `stat` is refused by nothing else; `read_only` entries (and
// klaunch's own files) refuse every write, whatever root admits it; the
// workspace admits read, exec and (unless read-only) write; write roots admit
// everything; read roots and `read_only` entries admit read, exec and stat.
// Anything else is refused.
//
// Commands: the executable's path must admit exec; then `deny` wins, then the
// allow lists; a rule naming its program by bare name is satisfied only by an
// executable outside every writable root, so a `git` written into the
// workspace does not pass `git *`; otherwise `commands.unlisted` decides.
//
// Network: admitted when any `network.allow` entry admits the address, port
// and (when known) the name the program resolved.
//
// The Engine is immutable and thread-safe once built. Decisions that allow
// do not allocate on the path-check fast path (normalised input). It does
// not look at the live filesystem: callers resolve symlinks and dirfds first.
// The mode (audit or enforce) does not change a Decision; callers turn a
// deny into "would deny" when `audit()` is true.

#ifndef KLAUNCH_CORE_ENGINE_H_
#define KLAUNCH_CORE_ENGINE_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/command.h"
#include "core/network.h"
#include "core/path.h"
#include "core/policy.h"

namespace klaunch {

// kReadWrite is an open that reads and writes the file (O_RDWR): admitted
// only where both are. A write admitted by a writable root is a read
// admitted too; a write the user may be asked about is asked only when the
// policy admits the read, since reads are never asked.
enum class Access { kRead, kWrite, kExec, kStat, kReadWrite };
enum class Verdict { kAllow, kDeny, kAsk };

// "read", "write", "exec", "stat"; kReadWrite is named "write", the key
// that admits it.
absl::string_view AccessName(Access access);
// kWrite or kReadWrite.
inline bool Writes(Access access) {
  return access == Access::kWrite || access == Access::kReadWrite;
}

// What an open with these flags asks for: kStat for O_PATH; for an open
// that can change the file (a write, create, truncate or O_TMPFILE),
// kReadWrite when it also returns a descriptor to read (O_RDWR, or
// O_RDONLY with O_CREAT or O_TRUNC), kWrite otherwise; kRead for the rest.
Access OpenAccess(int flags);
// What access(2) with this mode asks for: kReadWrite for R_OK and W_OK,
// else the strongest of W_OK, R_OK, X_OK; kStat for F_OK.
Access AccessModeAccess(int mode);
absl::string_view VerdictName(Verdict verdict);

struct Decision {
  Verdict verdict = Verdict::kDeny;
  // The rule that decided: "filesystem.deny[0]", "workspace",
  // "commands.allow[2]", "filesystem.unlisted", ... Points into the Engine.
  absl::string_view rule;
  // Set for kDeny and kAsk: names the target, what refused it and the key
  // that would admit it. Empty for kAllow.
  std::string message;

  bool allowed() const { return verdict == Verdict::kAllow; }
};

class Engine {
 public:
  // Compiles every pattern. Fails with kInvalidArgument naming the entry's
  // file:line:column and key for a bad glob, RE2, host, CIDR or port.
  static absl::StatusOr<Engine> Create(const Policy& policy);

  Engine(Engine&&) noexcept;
  Engine& operator=(Engine&&) noexcept;
  ~Engine();

  // `path` is absolute; it is normalised lexically before judging.
  Decision CheckPath(Access access, absl::string_view path) const;

  // `executable` is the absolute path of the file the kernel is asked to
  // execute, as named: its directories resolved, its final symlink not (so
  // /usr/bin/python3 stays python3, not python3.11). `target` is what that
  // final symlink resolves to, or empty when it is no symlink. The target
  // must admit exec; deny rules and allow rules match either name; a
  // bare-name allow rule needs both outside every writable root.
  //
  // `links` are the links between the two (a chain such as mypy -> python3
  // -> python3.11): deny rules match them too, so no chain of names hides
  // what the file is.
  Decision CheckCommand(absl::string_view executable,
                        absl::Span<const absl::string_view> argv,
                        absl::string_view target = {},
                        absl::Span<const absl::string_view> links = {}) const;

  // Only the deny rules, for a command line the kernel will run on the
  // program's behalf (a script's interpreter line): kAllow unless a
  // `commands.deny` entry matches one of the names.
  Decision CheckDeniedCommand(absl::string_view executable,
                              absl::Span<const absl::string_view> argv,
                              absl::string_view target = {}) const;

  // `hostname` is empty when the address was not resolved from a name.
  Decision CheckConnect(const IpAddress& address, uint16_t port,
                        absl::string_view hostname) const;

  // Moving (renaming) the directory `path`, already judged as a write: refused
  // when a deny or read_only entry, or klaunch's own file, pins something below
  // it (PathPattern::PinsBelow), since the move would carry that out from
  // under the entry.
  Decision CheckMove(absl::string_view path) const;

  // Abstract-namespace Unix sockets: open or closed as a whole.
  Decision CheckAbstractUnix(absl::string_view name) const;

  // This engine narrowed by the program sections `chain` names (indices
  // into policy().programs, outermost first, core/programs.h): a call is
  // admitted only when the policy and every section of the chain admit it,
  // and a refusal a section made names the section as its rule
  // (`programs."curl"`). Fails for an index the policy lacks.
  absl::StatusOr<Engine> Narrow(absl::Span<const int> chain) const;
  const std::vector<int>& chain() const { return chain_; }
  // The innermost section in force ("curl"); empty when none.
  absl::string_view program() const;

  bool audit() const;
  // False when no `filesystem.deny` entry exists, so `stat` is admitted
  // everywhere and callers need not resolve a path to judge it.
  bool has_deny_rules() const;
  const Policy& policy() const;

 private:
  struct Compiled;
  explicit Engine(std::shared_ptr<const Compiled> compiled);
  static absl::StatusOr<std::shared_ptr<Compiled>> Compile(
      const Policy& policy);
  // `d` as this engine's own rules decided it, narrowed by each section of
  // the chain (`check` asks one section's engine).
  template <typename Check>
  Decision Narrowed(Decision d, Check check) const;
  Decision OwnCheckPath(Access access, absl::string_view path) const;
  Decision OwnCheckCommand(absl::string_view executable,
                           absl::Span<const absl::string_view> argv,
                           absl::string_view target,
                           absl::Span<const absl::string_view> links) const;
  Decision OwnCheckDeniedCommand(absl::string_view executable,
                                 absl::Span<const absl::string_view> argv,
                                 absl::string_view target) const;
  Decision OwnCheckConnect(const IpAddress& address, uint16_t port,
                           absl::string_view hostname) const;
  Decision OwnCheckMove(absl::string_view path) const;
  Decision OwnCheckAbstractUnix(absl::string_view name) const;
  Decision CheckCommandDeny(absl::string_view executable,
                            absl::Span<const absl::string_view> argv,
                            absl::string_view target,
                            absl::Span<const absl::string_view> links) const;
  std::shared_ptr<const Compiled> c_;
  std::vector<int> chain_;
};

}  // namespace klaunch

#endif  // KLAUNCH_CORE_ENGINE_H_
