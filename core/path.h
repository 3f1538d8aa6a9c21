// Paths as the policy sees them: lexical normalisation, `~` expansion, and
// the path patterns of `filesystem.read/write/deny`.
//
//   PathPattern p = *PathPattern::Compile("/home/me/**/*.pem");
//   p.Covers("/home/me/a/b/key.pem")      // true
//   p.Covers("/home/me/a/b/key.pem/x")    // true: a match covers its subtree
//
// Grammar of a pattern: an absolute path, or one starting with `**/`; a `*`
// matches any run of characters within one component; a component that is
// exactly `**` matches any number of components (zero included). Every other
// character, `?` and `[` included, is literal. A pattern covers each path it
// matches and everything below it.
//
// This module owns no knowledge of the live filesystem: symlinks, dirfds and
// the process's cwd are resolved by the callers (shim, supervisor) before a
// path reaches the engine. It only guarantees that `..` never walks out of a
// directory lexically.

#ifndef KLAUNCH_CORE_PATH_H_
#define KLAUNCH_CORE_PATH_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace klaunch {

// Collapses `//`, `.` and `..` (`..` at `/` stays at `/`) of an absolute
// path. Fails with kInvalidArgument for a relative or empty path or one
// holding a NUL.
absl::StatusOr<std::string> NormalizePath(absl::string_view path);

// True when `path` is already what NormalizePath would return, so callers on
// a hot path can skip the copy.
bool IsNormalizedPath(absl::string_view path);

// Expands a leading `~` or `~/` against `home`, makes a relative path absolute
// against `base_dir`, and normalises. A leading `**/` is kept as it is (it
// means "at any depth", not "relative"). `~user` is refused.
absl::StatusOr<std::string> ResolvePolicyPath(absl::string_view path,
                                              absl::string_view base_dir,
                                              absl::string_view home);

// True when `path` is `root` or lies below it; both must be normalised.
bool PathIsWithin(absl::string_view path, absl::string_view root);

// The directory every path an entry matches lies under: the entry itself
// when literal, else its components before the first wildcard
// ("/a/b*/c" -> "/a").
std::string LiteralRoot(absl::string_view entry);

// The final component of a path ("/usr/bin/git" -> "git").
absl::string_view Basename(absl::string_view path);

// `*` within one string, no other metacharacter. Linear in practice.
bool GlobMatch(absl::string_view glob, absl::string_view text);

class PathPattern {
 public:
  // Fails with kInvalidArgument naming the problem: a relative pattern, `**`
  // glued to other characters, more than 63 components.
  static absl::StatusOr<PathPattern> Compile(absl::string_view pattern);

  // True when the normalised absolute `path` is matched by the pattern or
  // lies below a path that is.
  bool Covers(absl::string_view path) const;

  // True when moving the directory `path` elsewhere could take something
  // out from under the pattern: the pattern covers `path`, or a path below it
  // whose match depends on `path`'s own components. `**/.env` pins nothing
  // (it matches wherever the directory goes); `/srv/*/secret` pins /srv/a.
  bool PinsBelow(absl::string_view path) const;

  bool is_literal() const { return literal_; }
  // The components of a non-literal pattern ("**" for a `**`).
  const std::vector<std::string>& components() const { return components_; }
  const std::string& text() const { return text_; }

 private:
  // Runs the (non-literal) pattern over `path`: true when a prefix of it is
  // matched; otherwise *states holds the NFA's live states at its end.
  bool Run(absl::string_view path, uint64_t* states) const;

  std::string text_;
  bool literal_ = true;
  std::vector<std::string> components_;  // only for non-literal patterns
};

}  // namespace klaunch

#endif  // KLAUNCH_CORE_PATH_H_
