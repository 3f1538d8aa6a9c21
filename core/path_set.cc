#include "core/path_set.h"

#include <re2/re2.h>
#include <re2/set.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace klaunch {
namespace {

RE2::Options Latin1() {
  RE2::Options o;
  // Paths are bytes, not UTF-8: one byte, one character.
  o.set_encoding(RE2::Options::EncodingLatin1);
  o.set_log_errors(false);
  return o;
}

// A glob component: `*` is any run of characters but '/', the rest literal.
std::string GlobRegex(absl::string_view glob) {
  std::string out;
  bool first = true;
  for (absl::string_view piece : absl::StrSplit(glob, '*')) {
    if (!first) out += "[^/]*";
    first = false;
    out += RE2::QuoteMeta(re2::StringPiece(piece.data(), piece.size()));
  }
  return out;
}

}  // namespace

std::string CoverRegex(const PathPattern& pattern) {
  if (pattern.is_literal()) {
    if (pattern.text() == "/") return "/";
    const std::string& t = pattern.text();
    return absl::StrCat(RE2::QuoteMeta(re2::StringPiece(t.data(), t.size())),
                        "(?:/|$)");
  }
  std::string out;
  for (const std::string& c : pattern.components()) {
    // Components of a normalised path are never empty: a component of
    // stars alone still needs one character ("/*" does not cover "/").
    if (c == "**") {
      out += "(?:/[^/]+)*";
    } else if (c.find_first_not_of('*') == std::string::npos) {
      out += "/[^/]+";
    } else {
      out += absl::StrCat("/", GlobRegex(c));
    }
  }
  return out + "(?:/|$)";
}

struct PathSet::Impl {
  RE2::Set set{Latin1(), RE2::ANCHOR_START};
};

PathSet::PathSet() = default;
PathSet::PathSet(PathSet&&) noexcept = default;
PathSet& PathSet::operator=(PathSet&&) noexcept = default;
PathSet::~PathSet() = default;

absl::StatusOr<PathSet> PathSet::Create(
    const std::vector<const PathPattern*>& patterns) {
  PathSet out;
  if (patterns.empty()) return out;
  out.impl_ = std::make_unique<Impl>();
  for (const PathPattern* p : patterns) {
    std::string error;
    if (out.impl_->set.Add(CoverRegex(*p), &error) < 0) {
      return absl::InternalError(
          absl::StrCat("pattern '", p->text(), "': ", error));
    }
  }
  if (!out.impl_->set.Compile()) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the ", patterns.size(),
        " glob patterns do not fit in RE2's memory (literal paths and "
        "directories cost nothing: use fewer globs)"));
  }
  return out;
}

bool PathSet::MayCover(absl::string_view path) const {
  if (impl_ == nullptr) return false;
  RE2::Set::ErrorInfo error;
  if (impl_->set.Match(re2::StringPiece(path.data(), path.size()), nullptr,
                       &error)) {
    return true;
  }
  return error.kind != RE2::Set::kNoError;
}

}  // namespace klaunch
