// Fuzzes core/path.h and core/path_set.h: lexical normalisation, policy path
// resolution, `*` globs, path patterns (Covers, PinsBelow) and the RE2 set
// that prefilters them, each checked against a property or a slow reference
// written here, not only for crashing.
//
// Input: lines. Line 0 is a pattern, line 1 a path, line 2 a tail put below
// the path, line 3 a second directory; the whole input and every line also go
// through normalisation. It does not fuzz the live filesystem (loader_fuzzer
// resolves symlinks).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "core/path.h"
#include "core/path_set.h"
#include "fuzz/support.h"

namespace klaunch {
namespace {

using fuzz::kMaxRefCells;
using fuzz::RefGlob;

std::vector<absl::string_view> Components(absl::string_view path) {
  return absl::StrSplit(path, '/', absl::SkipEmpty());
}

// Does the whole pattern match some leading part of the path's components?
// (`**` takes zero or more components.) nullopt when too big to ask.
std::optional<bool> RefCovers(const std::vector<std::string>& pattern,
                              const std::vector<absl::string_view>& path) {
  const size_t n = pattern.size(), m = path.size();
  if ((n + 1) * (m + 1) > kMaxRefCells) return std::nullopt;
  // can[i][j]: pattern[i..n) matches a leading part of path[j..m)
  std::vector<std::vector<char>> can(n + 1, std::vector<char>(m + 1, 0));
  for (size_t j = 0; j <= m; ++j) can[n][j] = 1;
  for (size_t i = n; i-- > 0;) {
    for (size_t j = m + 1; j-- > 0;) {
      if (pattern[i] == "**") {
        can[i][j] = can[i + 1][j] || (j < m && can[i][j + 1]);
      } else if (j < m) {
        std::optional<bool> g = RefGlob(pattern[i], path[j]);
        if (!g) return std::nullopt;
        can[i][j] = *g && can[i + 1][j + 1];
      }
    }
  }
  return can[0][0] != 0;
}

void CheckNormalize(absl::string_view raw) {
  absl::StatusOr<std::string> n = NormalizePath(raw);
  const bool well_formed = !raw.empty() && raw[0] == '/' &&
                           raw.find('\0') == absl::string_view::npos;
  FUZZ_CHECK(n.ok() == well_formed, "input '", raw,
             "': ", n.status().ToString());
  FUZZ_CHECK(IsNormalizedPath(raw) == (n.ok() && *n == raw), "input '", raw,
             "'");
  if (!n.ok()) return;
  const std::string& p = *n;
  FUZZ_CHECK(!p.empty() && p[0] == '/', "'", raw, "' -> '", p, "'");
  FUZZ_CHECK(p == "/" || p.back() != '/', "'", raw, "' -> '", p, "'");
  FUZZ_CHECK(!absl::StrContains(p, "//"), "'", raw, "' -> '", p, "'");
  for (absl::string_view c : Components(p)) {
    FUZZ_CHECK(c != "." && c != "..", "'", raw, "' -> '", p, "'");
  }
  FUZZ_CHECK(IsNormalizedPath(p), "'", p, "'");
  absl::StatusOr<std::string> again = NormalizePath(p);
  FUZZ_CHECK(again.ok() && *again == p, "'", p, "' -> '", again.value_or("?"),
             "'");
  // Lexical only: it never invents a component, so each one of the result
  // is a non-dot component of the input.
  size_t real = 0;
  for (absl::string_view c : Components(raw)) real += c != "." && c != "..";
  FUZZ_CHECK(Components(p).size() <= real, "'", raw, "' -> '", p, "'");
  FUZZ_CHECK(PathIsWithin(p, "/"), p);
  const absl::string_view base = Basename(p);
  FUZZ_CHECK(!absl::StrContains(base, '/') && absl::EndsWith(p, base), p);
}

void CheckResolve(absl::string_view raw) {
  const std::string base_dir = "/base/dir", home = "/home/me";
  absl::StatusOr<std::string> r = ResolvePolicyPath(raw, base_dir, home);
  if (!r.ok()) return;
  if (*r == "**" || absl::StartsWith(*r, "**/")) {
    FUZZ_CHECK(absl::StartsWith(raw, "**"), "'", raw, "' -> '", *r, "'");
    const std::string rooted = absl::StrCat("/", *r);
    FUZZ_CHECK(IsNormalizedPath(rooted), "'", raw, "' -> '", *r, "'");
    return;
  }
  FUZZ_CHECK(IsNormalizedPath(*r), "'", raw, "' -> '", *r, "'");
  std::optional<std::string> expected;
  if (raw[0] == '/') {
    expected = NormalizePath(raw).value_or("?");
  } else if (raw[0] == '~') {
    FUZZ_CHECK(raw.size() == 1 || raw[1] == '/', "'", raw, "' -> '", *r, "'");
    expected =
        NormalizePath(absl::StrCat(home, "/", raw.substr(1))).value_or("?");
  } else {
    expected = NormalizePath(absl::StrCat(base_dir, "/", raw)).value_or("?");
  }
  if (expected) {
    FUZZ_CHECK(*r == *expected, "'", raw, "' -> '", *r, "', expected '",
               *expected, "'");
  }
}

void CheckWithin(absl::string_view a, absl::string_view b) {
  if (!IsNormalizedPath(a) || !IsNormalizedPath(b)) return;
  const bool want =
      a == b || b == "/" || absl::StartsWith(a, absl::StrCat(b, "/"));
  FUZZ_CHECK(PathIsWithin(a, b) == want, "'", a, "' within '", b, "'");
}

void CheckGlob(absl::string_view glob, absl::string_view text) {
  std::optional<bool> want = RefGlob(glob, text);
  if (!want) return;
  FUZZ_CHECK(GlobMatch(glob, text) == *want, "glob '", glob, "' text '", text,
             "' want ", *want);
}

void CheckPattern(absl::string_view text, absl::string_view raw_path,
                  absl::string_view tail, absl::string_view raw_other) {
  absl::StatusOr<PathPattern> p = PathPattern::Compile(text);
  if (!p.ok()) return;
  const bool anywhere = text == "**" || absl::StartsWith(text, "**/");
  FUZZ_CHECK(anywhere || absl::StartsWith(text, "/"), text);
  FUZZ_CHECK(p->is_literal() == !absl::StrContains(text, '*'), text);
  if (!p->is_literal()) {
    FUZZ_CHECK(p->components().size() <= 63, text);
    for (const std::string& c : p->components()) {
      FUZZ_CHECK(
          !c.empty() && c != "." && c != ".." && !absl::StrContains(c, '/'),
          text, " component '", c, "'");
      FUZZ_CHECK(c == "**" || !absl::StrContains(c, "**"), text);
    }
  }
  absl::StatusOr<PathSet> set = PathSet::Create({&*p});
  FUZZ_CHECK(set.ok(), text, ": ", set.status().ToString());

  absl::StatusOr<std::string> path = NormalizePath(raw_path);
  if (!path.ok()) return;
  const bool covers = p->Covers(*path);
  if (p->is_literal()) {
    FUZZ_CHECK(covers == PathIsWithin(*path, p->text()), text, " ", *path);
  } else {
    std::optional<bool> want = RefCovers(p->components(), Components(*path));
    if (want) {
      FUZZ_CHECK(covers == *want, "pattern '", text, "' path '", *path,
                 "' want ", *want);
    }
  }
  // A prefilter may say "maybe", never a false "no".
  FUZZ_CHECK(!covers || set->MayCover(*path), "pattern '", text, "' path '",
             *path, "' regex ", CoverRegex(*p));
  // A pattern covers the subtree of what it covers.
  absl::StatusOr<std::string> below =
      NormalizePath(absl::StrCat(*path, "/", tail));
  if (!below.ok() || !PathIsWithin(*below, *path)) return;
  FUZZ_CHECK(!covers || p->Covers(*below), text, " ", *path, " ", *below);
  FUZZ_CHECK(!p->Covers(*below) || set->MayCover(*below), text, " ", *below);

  // Moving a directory the pattern does not pin carries nothing out from
  // under it: what it covered below there, it covers below the new place.
  // ("/" cannot be moved.)
  FUZZ_CHECK(!covers || p->PinsBelow(*path), text, " ", *path);
  absl::StatusOr<std::string> other = NormalizePath(raw_other);
  if (*path == "/" || *below == *path || !other.ok() || *other == "/") return;
  const std::string moved = absl::StrCat(*other, below->substr(path->size()));
  if (!p->PinsBelow(*path) && p->Covers(*below)) {
    FUZZ_CHECK(p->Covers(moved), "pattern '", text, "' does not pin '", *path,
               "' but covers '", *below, "' and not '", moved, "'");
  }
}

}  // namespace
}  // namespace klaunch

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace klaunch;
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  CheckNormalize(input);
  CheckResolve(input);
  std::vector<absl::string_view> lines = absl::StrSplit(input, '\n');
  for (absl::string_view line : lines) {
    CheckNormalize(line);
    CheckResolve(line);
  }
  lines.resize(std::max<size_t>(lines.size(), 4));
  CheckWithin(lines[1], lines[0]);
  CheckWithin(lines[0], lines[1]);
  CheckGlob(lines[0], lines[1]);
  CheckGlob(lines[1], lines[2]);
  CheckPattern(lines[0], lines[1], lines[2], lines[3]);
  return 0;
}
