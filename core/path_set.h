// One pass over a path for a whole list of path patterns: "could any of them
// cover it?", answered by an RE2::Set built from the patterns, so that the
// common answer (no deny entry covers this path; no pattern root admits it)
// costs one DFA walk instead of one walk per pattern.
//
//   PathSet set = *PathSet::Create({&p1, &p2});
//   if (set.MayCover(path)) { /* ask each pattern, in order */ }
//
// A prefilter only: it never says which pattern matched nor decides; a
// "yes" is confirmed by PathPattern::Covers. It has no false "no" (checked
// against PathPattern::Covers by path_set_test.cc); when the DFA runs out of
// memory it says "yes".

#ifndef KLAUNCH_CORE_PATH_SET_H_
#define KLAUNCH_CORE_PATH_SET_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/path.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace klaunch {

// The RE2 (Latin-1, matched from the start of the path) of what `pattern`
// covers: the pattern itself, then "/" or the end.
std::string CoverRegex(const PathPattern& pattern);

class PathSet {
 public:
  // Fails only if RE2 refuses a regex CoverRegex made (a bug).
  static absl::StatusOr<PathSet> Create(
      const std::vector<const PathPattern*>& patterns);

  PathSet();
  PathSet(PathSet&&) noexcept;
  PathSet& operator=(PathSet&&) noexcept;
  ~PathSet();

  // False only when no pattern of the set covers the normalised `path`.
  bool MayCover(absl::string_view path) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace klaunch

#endif  // KLAUNCH_CORE_PATH_SET_H_
