#include "core/path.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace klaunch {
namespace {

// The matcher keeps one bit per component plus one in a uint64_t.
constexpr size_t kMaxPatternComponents = 63;

}  // namespace

absl::StatusOr<std::string> NormalizePath(absl::string_view path) {
  if (path.empty()) return absl::InvalidArgumentError("empty path");
  if (path.find('\0') != absl::string_view::npos) {
    return absl::InvalidArgumentError("path holds a NUL byte");
  }
  if (path[0] != '/') {
    return absl::InvalidArgumentError(
        absl::StrCat("path is not absolute: ", path));
  }
  std::vector<absl::string_view> parts;
  for (absl::string_view part : absl::StrSplit(path, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  if (parts.empty()) return std::string("/");
  std::string out;
  out.reserve(path.size());
  for (absl::string_view part : parts) absl::StrAppend(&out, "/", part);
  return out;
}

bool IsNormalizedPath(absl::string_view path) {
  if (path.empty() || path[0] != '/') return false;
  if (path.size() == 1) return true;
  if (path.back() == '/') return false;
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == absl::string_view::npos) end = path.size();
    absl::string_view part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    if (part.find('\0') != absl::string_view::npos) return false;
    start = end + 1;
  }
  return true;
}

absl::StatusOr<std::string> ResolvePolicyPath(absl::string_view path,
                                              absl::string_view base_dir,
                                              absl::string_view home) {
  if (path.empty()) return absl::InvalidArgumentError("empty path");
  if (path == "**" || path.substr(0, 3) == "**/") {
    // "Anywhere" patterns stay as written, only cleaned of `.` and `//`; a
    // `..` would eat the `**` itself and leave a relative path.
    for (absl::string_view part : absl::StrSplit(path, '/')) {
      if (part == "..") {
        return absl::InvalidArgumentError(absl::StrCat(
            "'", path,
            "': .. has no meaning in a pattern that starts with **"));
      }
    }
    absl::StatusOr<std::string> rest = NormalizePath(absl::StrCat("/", path));
    if (!rest.ok()) return rest.status();
    return rest->substr(1);
  }
  std::string absolute;
  if (path[0] == '~') {
    if (path.size() > 1 && path[1] != '/') {
      return absl::InvalidArgumentError(
          absl::StrCat("'", path, "': only ~ and ~/ are expanded, not ~user"));
    }
    if (home.empty() || home[0] != '/') {
      return absl::InvalidArgumentError(
          absl::StrCat("'", path, "' needs $HOME, which is not absolute"));
    }
    absolute = absl::StrCat(home, "/", path.substr(1));
  } else if (path[0] == '/') {
    absolute = std::string(path);
  } else {
    absolute = absl::StrCat(base_dir, "/", path);
  }
  return NormalizePath(absolute);
}

bool PathIsWithin(absl::string_view path, absl::string_view root) {
  if (root == "/") return !path.empty() && path[0] == '/';
  if (path.size() < root.size()) return false;
  if (path.compare(0, root.size(), root) != 0) return false;
  return path.size() == root.size() || path[root.size()] == '/';
}

std::string LiteralRoot(absl::string_view entry) {
  const size_t star = entry.find('*');
  if (star == absl::string_view::npos) return std::string(entry);
  const size_t slash = entry.rfind('/', star);
  return slash == 0 || slash == absl::string_view::npos
             ? "/"
             : std::string(entry.substr(0, slash));
}

absl::string_view Basename(absl::string_view path) {
  size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

bool GlobMatch(absl::string_view glob, absl::string_view text) {
  // Greedy match with backtracking to the last `*` only: linear for `*`-only
  // globs, which is all the policy allows.
  size_t g = 0, t = 0;
  size_t star = absl::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (g < glob.size() && glob[g] == '*') {
      star = g++;
      resume = t;
    } else if (g < glob.size() && glob[g] == text[t]) {
      ++g;
      ++t;
    } else if (star != absl::string_view::npos) {
      g = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (g < glob.size() && glob[g] == '*') ++g;
  return g == glob.size();
}

absl::StatusOr<PathPattern> PathPattern::Compile(absl::string_view pattern) {
  PathPattern out;
  out.text_ = std::string(pattern);
  const bool anywhere = pattern == "**" || pattern.substr(0, 3) == "**/";
  if (!anywhere && (pattern.empty() || pattern[0] != '/')) {
    return absl::InvalidArgumentError(absl::StrCat(
        "pattern '", pattern, "' must be absolute or start with **/"));
  }
  if (pattern.find('*') == absl::string_view::npos) {
    absl::StatusOr<std::string> norm = NormalizePath(pattern);
    if (!norm.ok()) return norm.status();
    out.text_ = *norm;
    return out;
  }
  out.literal_ = false;
  for (absl::string_view part : absl::StrSplit(pattern, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      return absl::InvalidArgumentError(
          absl::StrCat("pattern '", pattern, "' uses .. next to a wildcard"));
    }
    if (part.find("**") != absl::string_view::npos && part != "**") {
      return absl::InvalidArgumentError(
          absl::StrCat("bad glob '", pattern,
                       "': ** must be a whole component, as in a/**/b"));
    }
    out.components_.emplace_back(part);
  }
  if (out.components_.size() > kMaxPatternComponents) {
    return absl::InvalidArgumentError(
        absl::StrCat("pattern '", pattern, "' has more than ",
                     kMaxPatternComponents, " components"));
  }
  return out;
}

namespace {

// The bit-set NFA over pattern components: bit i set means "the first i
// components are matched". `**` components loop.
class Nfa {
 public:
  explicit Nfa(const std::vector<std::string>& components)
      : c_(components), n_(components.size()) {}
  uint64_t accept() const { return 1ull << n_; }
  uint64_t Closure(uint64_t states) const {
    for (size_t i = 0; i < n_; ++i) {
      if ((states >> i & 1) && c_[i] == "**") states |= 1ull << (i + 1);
    }
    return states;
  }
  uint64_t Start() const { return Closure(1); }
  uint64_t Step(uint64_t states, absl::string_view part) const {
    uint64_t next = 0;
    for (size_t i = 0; i < n_; ++i) {
      if (!(states >> i & 1)) continue;
      if (c_[i] == "**") {
        next |= 1ull << i;
      } else if (GlobMatch(c_[i], part)) {
        next |= 1ull << (i + 1);
      }
    }
    return Closure(next);
  }

 private:
  const std::vector<std::string>& c_;
  size_t n_;
};

// Calls f(component) for each component of a normalised path; stops when f
// returns false.
template <typename F>
void ForEachComponent(absl::string_view path, F f) {
  size_t start = 1;
  while (start < path.size()) {
    size_t end = path.find('/', start);
    if (end == absl::string_view::npos) end = path.size();
    absl::string_view part = path.substr(start, end - start);
    start = end + 1;
    if (!part.empty() && !f(part)) return;
  }
}

}  // namespace

bool PathPattern::Run(absl::string_view path, uint64_t* states) const {
  const Nfa nfa(components_);
  *states = nfa.Start();
  bool covered = (*states & nfa.accept()) != 0;
  ForEachComponent(path, [&](absl::string_view part) {
    if (covered) return false;
    *states = nfa.Step(*states, part);
    covered = (*states & nfa.accept()) != 0;
    return *states != 0;
  });
  return covered;
}

bool PathPattern::Covers(absl::string_view path) const {
  if (literal_) return PathIsWithin(path, text_);
  uint64_t states;
  return Run(path, &states);
}

bool PathPattern::PinsBelow(absl::string_view path) const {
  if (literal_) return PathIsWithin(text_, path) || PathIsWithin(path, text_);
  uint64_t states;
  if (Run(path, &states)) return true;
  // Live states beyond those the pattern starts in mean part of the match
  // lies in `path` itself.
  return (states & ~Nfa(components_).Start()) != 0;
}

}  // namespace klaunch
