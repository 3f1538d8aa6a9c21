// What a rename or a hard link asks of the policy, whoever judges it: the
// shim in the program (shim/mutate.cc) or the supervisor for a call made
// without it (supervisor/supervise_mutate.cc). Each layer decodes its call,
// finds both names as the kernel would (each its own way: pinning in the
// program, resolving in the target's /proc) and says how it judges one end;
// which ends are judged, as what, and what a refusal of one of them means is
// written here once.
//
// Not here: finding the names, the kernel's answers before permissions
// (core/name_need.h, given by each layer once an end is found), and making
// the call.

#ifndef KLAUNCH_CORE_TWO_NAMES_H_
#define KLAUNCH_CORE_TWO_NAMES_H_

#include "absl/functional/function_ref.h"
#include "core/name_need.h"

namespace klaunch {

// How a layer judges one end of a two-name call, each judgement recorded
// by the layer as it records any other (core/apply.h).
class EndJudge {
 public:
  // A write of the name (rename's ends, a link's new name).
  virtual bool Write(const char* path) = 0;
  // A hard link's source: judged as a write, since a second name lets
  // writes through to it, and recorded with access "link" so that a policy
  // learned from a refusal does not widen writing for what was only linked.
  virtual bool LinkSource(const char* path) = 0;
  // A directory moved with everything below it: refused where a deny entry
  // would lose what it covers (Engine::CheckMove).
  virtual bool Move(const char* path) = 0;

 protected:
  ~EndJudge() = default;
};

// What the kernel needs of a rename's names before any permission:
// the source exists; the target exists under RENAME_EXCHANGE, does not
// under RENAME_NOREPLACE, and may either way otherwise.
constexpr NameNeed kRenameSourceNeed = NameNeed::kExisting;
NameNeed RenameTargetNeed(unsigned flags);

// One end of a rename, found: its path as the policy names it, and whether
// it is a directory (asked only when it matters).
struct RenameEnd {
  const char* path;
  absl::FunctionRef<bool()> is_directory;
};

// Judges a rename: both names as writes, then each directory that moves
// (the source; under RENAME_EXCHANGE the target too) as a move. Every
// judgement is made before refusing, so that enforcement records what a dry
// run records, not only the first refusal. True when it may go on.
bool JudgeRename(EndJudge& judge, const RenameEnd& from, const RenameEnd& to,
                 unsigned flags);

// Which object a hard link's source names, by linkat's flags:
// AT_SYMLINK_FOLLOW and AT_EMPTY_PATH link the object (followed, or the
// descriptor itself); without them the name itself, not followed, which
// must exist.
struct LinkSourceForm {
  bool object;  // the object, not the directory entry
  bool follow;  // a final symlink is followed
  bool empty;   // an empty path names the descriptor
};
LinkSourceForm LinkSourceOf(int flags);
constexpr NameNeed kLinkSourceNeed = NameNeed::kExisting;  // as a name
constexpr NameNeed kLinkNameNeed = NameNeed::kNew;

// Judges a hard link: the source as a link source, then the new name as a
// write; both judged before refusing. True when it may go on.
bool JudgeLink(EndJudge& judge, const char* source, const char* name);

}  // namespace klaunch

#endif  // KLAUNCH_CORE_TWO_NAMES_H_
