#include "core/path.h"

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace klaunch {
namespace {

using ::testing::HasSubstr;

// Checks that `result` failed with kInvalidArgument and a message holding
// `substring`.
template <typename T>
void ExpectInvalid(const absl::StatusOr<T>& result,
                   absl::string_view substring) {
  ASSERT_FALSE(result.ok()) << "unexpectedly succeeded";
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(result.status().message()),
              HasSubstr(std::string(substring)));
}

std::string Norm(absl::string_view path) {
  absl::StatusOr<std::string> out = NormalizePath(path);
  EXPECT_TRUE(out.ok()) << path << ": " << out.status();
  return out.ok() ? *out : "<error>";
}

PathPattern MustCompile(absl::string_view pattern) {
  absl::StatusOr<PathPattern> p = PathPattern::Compile(pattern);
  EXPECT_TRUE(p.ok()) << pattern << ": " << p.status();
  if (!p.ok()) return *PathPattern::Compile("/nonexistent-sentinel");
  return *std::move(p);
}

// ---------------------------------------------------------------------------
// NormalizePath

TEST(NormalizePath, LeavesANormalPathAlone) {
  EXPECT_EQ(Norm("/usr/bin/git"), "/usr/bin/git");
  EXPECT_EQ(Norm("/"), "/");
}

TEST(NormalizePath, CollapsesRepeatedSlashes) {
  EXPECT_EQ(Norm("//usr///bin//git"), "/usr/bin/git");
  EXPECT_EQ(Norm("///"), "/");
}

TEST(NormalizePath, DropsATrailingSlash) {
  EXPECT_EQ(Norm("/usr/bin/"), "/usr/bin");
}

TEST(NormalizePath, DropsDotComponents) {
  EXPECT_EQ(Norm("/./usr/./bin/."), "/usr/bin");
  EXPECT_EQ(Norm("/."), "/");
}

TEST(NormalizePath, DotDotRemovesThePreviousComponent) {
  EXPECT_EQ(Norm("/usr/lib/../bin"), "/usr/bin");
  EXPECT_EQ(Norm("/a/b/c/../../d"), "/a/d");
  EXPECT_EQ(Norm("/a/b/.."), "/a");
}

TEST(NormalizePath, DotDotAtTheRootStaysAtTheRoot) {
  EXPECT_EQ(Norm("/.."), "/");
  EXPECT_EQ(Norm("/../../.."), "/");
  EXPECT_EQ(Norm("/../etc/passwd"), "/etc/passwd");
  EXPECT_EQ(Norm("/a/../../../etc"), "/etc");
}

TEST(NormalizePath, KeepsNamesThatMerelyStartWithDots) {
  EXPECT_EQ(Norm("/a/.../b"), "/a/.../b");
  EXPECT_EQ(Norm("/a/..b/.c"), "/a/..b/.c");
  EXPECT_EQ(Norm("/a/b../c."), "/a/b../c.");
}

TEST(NormalizePath, RejectsAnEmptyPath) {
  ExpectInvalid(NormalizePath(""), "empty");
}

TEST(NormalizePath, RejectsARelativePath) {
  ExpectInvalid(NormalizePath("usr/bin"), "not absolute");
  ExpectInvalid(NormalizePath("./usr"), "not absolute");
  ExpectInvalid(NormalizePath("../etc"), "not absolute");
  ExpectInvalid(NormalizePath("~/x"), "not absolute");
}

TEST(NormalizePath, RejectsANulByte) {
  ExpectInvalid(NormalizePath(absl::string_view("/etc/passwd\0.txt", 16)),
                "NUL");
  ExpectInvalid(NormalizePath(absl::string_view("\0/etc", 5)), "NUL");
}

TEST(NormalizePath, IsIdempotent) {
  for (absl::string_view p :
       {"/a//b/./c/..", "/../x/./y//", "/a/.../..", "/", "/a/b/../../.."}) {
    const std::string once = Norm(p);
    EXPECT_EQ(Norm(once), once) << p;
  }
}

// ---------------------------------------------------------------------------
// IsNormalizedPath

TEST(IsNormalizedPath, AcceptsNormalisedPaths) {
  EXPECT_TRUE(IsNormalizedPath("/"));
  EXPECT_TRUE(IsNormalizedPath("/usr"));
  EXPECT_TRUE(IsNormalizedPath("/usr/bin/git"));
  EXPECT_TRUE(IsNormalizedPath("/a/.../..b/.c"));
}

TEST(IsNormalizedPath, RejectsEveryShapeNormalizePathWouldRewrite) {
  EXPECT_FALSE(IsNormalizedPath(""));
  EXPECT_FALSE(IsNormalizedPath("usr/bin"));
  EXPECT_FALSE(IsNormalizedPath("//"));
  EXPECT_FALSE(IsNormalizedPath("/usr/"));
  EXPECT_FALSE(IsNormalizedPath("/usr//bin"));
  EXPECT_FALSE(IsNormalizedPath("/./usr"));
  EXPECT_FALSE(IsNormalizedPath("/usr/."));
  EXPECT_FALSE(IsNormalizedPath("/.."));
  EXPECT_FALSE(IsNormalizedPath("/usr/../etc"));
  EXPECT_FALSE(IsNormalizedPath("/usr/.."));
}

TEST(IsNormalizedPath, RejectsANulByte) {
  EXPECT_FALSE(IsNormalizedPath(absl::string_view("/a\0b", 4)));
  EXPECT_FALSE(IsNormalizedPath(absl::string_view("/\0", 2)));
}

TEST(IsNormalizedPath, AgreesWithNormalizePathOnEveryShortPath) {
  // Every string of up to 7 characters over {'/', '.', 'a'} that starts
  // with '/'.
  const std::string alphabet = "/.a";
  std::function<void(std::string)> visit = [&](std::string p) {
    absl::StatusOr<std::string> norm = NormalizePath(p);
    ASSERT_TRUE(norm.ok()) << p;
    EXPECT_EQ(IsNormalizedPath(p), *norm == p) << "path: " << p;
    if (p.size() == 7) return;
    for (char c : alphabet) visit(p + c);
  };
  visit("/");
}

// ---------------------------------------------------------------------------
// ResolvePolicyPath

TEST(ResolvePolicyPath, NormalisesAnAbsolutePath) {
  absl::StatusOr<std::string> p =
      ResolvePolicyPath("/etc//ssl/./certs/../private", "/base", "/home/me");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, "/etc/ssl/private");
}

TEST(ResolvePolicyPath, MakesARelativePathAbsoluteAgainstTheBaseDir) {
  absl::StatusOr<std::string> p =
      ResolvePolicyPath("build/out", "/work/proj", "/home/me");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, "/work/proj/build/out");

  p = ResolvePolicyPath(".", "/work/proj", "/home/me");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, "/work/proj");

  p = ResolvePolicyPath("../sibling", "/work/proj", "/home/me");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, "/work/sibling");
}

TEST(ResolvePolicyPath, ExpandsALoneTildeToHome) {
  absl::StatusOr<std::string> p = ResolvePolicyPath("~", "/base", "/home/me");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, "/home/me");
}

TEST(ResolvePolicyPath, ExpandsTildeSlashToHome) {
  absl::StatusOr<std::string> p =
      ResolvePolicyPath("~/.ssh/id_rsa", "/base", "/home/me");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, "/home/me/.ssh/id_rsa");

  p = ResolvePolicyPath("~/", "/base", "/home/me/");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, "/home/me");
}

TEST(ResolvePolicyPath, ExpandsTildeOnlyAtTheStart) {
  absl::StatusOr<std::string> p = ResolvePolicyPath("a/~", "/base", "/home/me");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, "/base/a/~");

  p = ResolvePolicyPath("/x/~/y", "/base", "/home/me");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, "/x/~/y");
}

TEST(ResolvePolicyPath, RefusesTildeUser) {
  ExpectInvalid(ResolvePolicyPath("~root/.ssh", "/base", "/home/me"), "~user");
  ExpectInvalid(ResolvePolicyPath("~root", "/base", "/home/me"), "~user");
}

TEST(ResolvePolicyPath, RefusesTildeWithoutAnAbsoluteHome) {
  ExpectInvalid(ResolvePolicyPath("~/x", "/base", ""), "$HOME");
  ExpectInvalid(ResolvePolicyPath("~", "/base", "relative/home"), "$HOME");
}

TEST(ResolvePolicyPath, RefusesAnEmptyPath) {
  ExpectInvalid(ResolvePolicyPath("", "/base", "/home/me"), "empty");
}

TEST(ResolvePolicyPath, RefusesANulByte) {
  absl::StatusOr<std::string> p =
      ResolvePolicyPath(absl::string_view("/etc/a\0b", 8), "/base", "/home/me");
  ExpectInvalid(p, "NUL");
}

TEST(ResolvePolicyPath, KeepsALeadingDoubleStarAsAnywhere) {
  absl::StatusOr<std::string> p =
      ResolvePolicyPath("**/.env", "/base", "/home/me");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, "**/.env");

  p = ResolvePolicyPath("**", "/base", "/home/me");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, "**");
}

TEST(ResolvePolicyPath, CleansAnAnywherePatternOfDotsAndDoubleSlashes) {
  absl::StatusOr<std::string> p =
      ResolvePolicyPath("**//a/./b/", "/base", "/home/me");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, "**/a/b");
}

TEST(ResolvePolicyPath, NeverLetsDotDotEatTheLeadingDoubleStar) {
  // "A leading `**/` is kept as it is": `..` must not turn "anywhere" into a
  // relative (or empty) path. Either the `**/` survives or it is an error.
  for (absl::string_view in : {"**/../etc", "**/..", "**/../../x"}) {
    absl::StatusOr<std::string> p = ResolvePolicyPath(in, "/base", "/home/me");
    if (p.ok()) {
      EXPECT_TRUE(*p == "**" || p->substr(0, 3) == "**/")
          << in << " resolved to '" << *p << "'";
    } else {
      EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
    }
  }
}

TEST(ResolvePolicyPath, DoesNotTreatDoubleStarGluedToANameAsAnywhere) {
  absl::StatusOr<std::string> p = ResolvePolicyPath("**x", "/base", "/home/me");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, "/base/**x");
}

// ---------------------------------------------------------------------------
// PathIsWithin

TEST(PathIsWithin, APathIsWithinItself) {
  EXPECT_TRUE(PathIsWithin("/work/ws", "/work/ws"));
  EXPECT_TRUE(PathIsWithin("/", "/"));
}

TEST(PathIsWithin, APathBelowTheRootIsWithin) {
  EXPECT_TRUE(PathIsWithin("/work/ws/a", "/work/ws"));
  EXPECT_TRUE(PathIsWithin("/work/ws/a/b/c", "/work/ws"));
}

TEST(PathIsWithin, ASiblingSharingThePrefixIsNotWithin) {
  EXPECT_FALSE(PathIsWithin("/work/wsx", "/work/ws"));
  EXPECT_FALSE(PathIsWithin("/work/ws-other/file", "/work/ws"));
  EXPECT_FALSE(PathIsWithin("/work/ws.bak", "/work/ws"));
}

TEST(PathIsWithin, AParentIsNotWithinItsChild) {
  EXPECT_FALSE(PathIsWithin("/work", "/work/ws"));
  EXPECT_FALSE(PathIsWithin("/", "/work/ws"));
}

TEST(PathIsWithin, AnUnrelatedPathIsNotWithin) {
  EXPECT_FALSE(PathIsWithin("/etc/passwd", "/work/ws"));
  EXPECT_FALSE(PathIsWithin("/w", "/work"));
}

TEST(PathIsWithin, EveryAbsolutePathIsWithinTheRootDirectory) {
  EXPECT_TRUE(PathIsWithin("/etc", "/"));
  EXPECT_TRUE(PathIsWithin("/a/b/c", "/"));
}

TEST(PathIsWithin, DotDotCanNeverStepOutOfARoot) {
  EXPECT_FALSE(PathIsWithin(Norm("/work/ws/../secret"), "/work/ws"));
  EXPECT_FALSE(PathIsWithin(Norm("/work/ws/a/../../ws2"), "/work/ws"));
  EXPECT_FALSE(PathIsWithin(Norm("/work/ws/.."), "/work/ws"));
  EXPECT_FALSE(PathIsWithin(Norm("/work/ws/a/b/../../../etc"), "/work/ws"));
  EXPECT_FALSE(PathIsWithin(Norm("/work/ws/../wsx"), "/work/ws"));
}

TEST(PathIsWithin, DotDotThatStaysInsideARootIsStillWithin) {
  EXPECT_TRUE(PathIsWithin(Norm("/work/ws/a/../b"), "/work/ws"));
  EXPECT_TRUE(PathIsWithin(Norm("/work/ws/a/../../ws/b"), "/work/ws"));
  EXPECT_TRUE(PathIsWithin(Norm("/work/ws/a/.."), "/work/ws"));
}

// ---------------------------------------------------------------------------
// Basename

TEST(Basename, ReturnsTheFinalComponent) {
  EXPECT_EQ(Basename("/usr/bin/git"), "git");
  EXPECT_EQ(Basename("/git"), "git");
  EXPECT_EQ(Basename("a/b"), "b");
}

TEST(Basename, ReturnsAPathWithoutSlashesWhole) {
  EXPECT_EQ(Basename("git"), "git");
  EXPECT_EQ(Basename(""), "");
}

TEST(Basename, IsEmptyAfterATrailingSlash) {
  EXPECT_EQ(Basename("/"), "");
  EXPECT_EQ(Basename("/usr/bin/"), "");
}

// ---------------------------------------------------------------------------
// GlobMatch

TEST(GlobMatch, ALiteralGlobMatchesOnlyItself) {
  EXPECT_TRUE(GlobMatch("key.pem", "key.pem"));
  EXPECT_FALSE(GlobMatch("key.pem", "key.pe"));
  EXPECT_FALSE(GlobMatch("key.pem", "key.pemx"));
  EXPECT_FALSE(GlobMatch("key.pem", "xkey.pem"));
  EXPECT_FALSE(GlobMatch("key.pem", ""));
  EXPECT_TRUE(GlobMatch("", ""));
  EXPECT_FALSE(GlobMatch("", "a"));
}

TEST(GlobMatch, AStarMatchesAnyRunIncludingNone) {
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("*", "anything at all"));
  EXPECT_TRUE(GlobMatch("*.pem", ".pem"));
  EXPECT_TRUE(GlobMatch("*.pem", "key.pem"));
  EXPECT_FALSE(GlobMatch("*.pem", "key.pemx"));
  EXPECT_TRUE(GlobMatch("key*", "key"));
  EXPECT_TRUE(GlobMatch("key*", "keys.txt"));
  EXPECT_FALSE(GlobMatch("key*", "ke"));
}

TEST(GlobMatch, IsAnchoredAtBothEnds) {
  EXPECT_FALSE(GlobMatch("a*b", "xab"));
  EXPECT_FALSE(GlobMatch("a*b", "abx"));
  EXPECT_TRUE(GlobMatch("a*b", "ab"));
  EXPECT_TRUE(GlobMatch("a*b", "a-x-b"));
}

TEST(GlobMatch, BacktracksAcrossSeveralStars) {
  EXPECT_TRUE(GlobMatch("a*b*c", "abcbc"));
  EXPECT_TRUE(GlobMatch("a*b*c", "aXbYbZc"));
  EXPECT_FALSE(GlobMatch("a*b*c", "aXbYbZ"));
  EXPECT_TRUE(GlobMatch("*ab", "aaab"));
  EXPECT_TRUE(GlobMatch("*aab", "aaab"));
  EXPECT_FALSE(GlobMatch("*aab", "abab"));
  EXPECT_TRUE(GlobMatch("**", "x"));
}

TEST(GlobMatch, TreatsOtherMetacharactersLiterally) {
  EXPECT_TRUE(GlobMatch("a?c", "a?c"));
  EXPECT_FALSE(GlobMatch("a?c", "abc"));
  EXPECT_TRUE(GlobMatch("[ab]", "[ab]"));
  EXPECT_FALSE(GlobMatch("[ab]", "a"));
  EXPECT_FALSE(GlobMatch("a\\*", "ab"));
  EXPECT_TRUE(GlobMatch("a\\*", "a\\b"));
  EXPECT_FALSE(GlobMatch(".*", "abc"));
}

TEST(GlobMatch, AgreesWithAReferenceMatcherOnEveryShortInput) {
  // Naive recursive reference implementation.
  std::function<bool(absl::string_view, absl::string_view)> ref =
      [&](absl::string_view g, absl::string_view t) -> bool {
    if (g.empty()) return t.empty();
    if (g[0] == '*') {
      for (size_t i = 0; i <= t.size(); ++i) {
        if (ref(g.substr(1), t.substr(i))) return true;
      }
      return false;
    }
    return !t.empty() && g[0] == t[0] && ref(g.substr(1), t.substr(1));
  };
  std::vector<std::string> globs = {""};
  std::vector<std::string> texts = {""};
  for (size_t i = 0; i < globs.size(); ++i) {
    if (globs[i].size() == 5) continue;
    for (char c : std::string("ab*")) globs.push_back(globs[i] + c);
  }
  for (size_t i = 0; i < texts.size(); ++i) {
    if (texts[i].size() == 6) continue;
    for (char c : std::string("ab")) texts.push_back(texts[i] + c);
  }
  int mismatches = 0;
  for (const std::string& g : globs) {
    for (const std::string& t : texts) {
      if (GlobMatch(g, t) != ref(g, t)) {
        ADD_FAILURE() << "glob '" << g << "' text '" << t << "'";
        if (++mismatches > 10) return;
      }
    }
  }
}

// ---------------------------------------------------------------------------
// PathPattern::Compile

TEST(PathPattern, RejectsARelativePattern) {
  ExpectInvalid(PathPattern::Compile("etc/passwd"), "must be absolute");
  ExpectInvalid(PathPattern::Compile("*.pem"), "must be absolute");
  ExpectInvalid(PathPattern::Compile("**x/y"), "must be absolute");
  ExpectInvalid(PathPattern::Compile("./x"), "must be absolute");
}

TEST(PathPattern, RejectsAnEmptyPattern) {
  EXPECT_EQ(PathPattern::Compile("").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(PathPattern, RejectsADoubleStarGluedToOtherCharacters) {
  ExpectInvalid(PathPattern::Compile("/a/**b"), "** must be a whole component");
  ExpectInvalid(PathPattern::Compile("/a/b**"), "** must be a whole component");
  ExpectInvalid(PathPattern::Compile("/a/***"), "** must be a whole component");
  ExpectInvalid(PathPattern::Compile("**/x**/y"),
                "** must be a whole component");
}

TEST(PathPattern, RejectsDotDotNextToAWildcard) {
  ExpectInvalid(PathPattern::Compile("/a/*/../b"), "..");
  ExpectInvalid(PathPattern::Compile("**/../etc"), "..");
}

TEST(PathPattern, RejectsMoreThanSixtyThreeComponents) {
  std::string pattern = "/*";
  for (int i = 0; i < 63; ++i) absl::StrAppend(&pattern, "/a");  // 64 parts
  ExpectInvalid(PathPattern::Compile(pattern), "more than 63");
}

TEST(PathPattern, AcceptsExactlySixtyThreeComponentsAndMatchesThem) {
  std::string pattern = "/*";
  std::string path = "/z";
  for (int i = 0; i < 62; ++i) {
    absl::StrAppend(&pattern, "/a");
    absl::StrAppend(&path, "/a");
  }
  PathPattern p = MustCompile(pattern);
  EXPECT_TRUE(p.Covers(path));
  EXPECT_TRUE(p.Covers(path + "/below"));
  EXPECT_FALSE(p.Covers(path.substr(0, path.size() - 2)));
  EXPECT_FALSE(p.Covers(path.substr(0, path.size() - 1) + "b"));

  std::string anywhere = "**";
  std::string deep = "/x/y";
  for (int i = 0; i < 62; ++i) {
    absl::StrAppend(&anywhere, "/a");
    absl::StrAppend(&deep, "/a");
  }
  PathPattern q = MustCompile(anywhere);
  EXPECT_TRUE(q.Covers(deep));
  EXPECT_FALSE(q.Covers(deep.substr(0, deep.size() - 2)));
}

TEST(PathPattern, ALiteralPatternIsNormalised) {
  PathPattern p = MustCompile("/home//me/./.ssh/");
  EXPECT_TRUE(p.is_literal());
  EXPECT_EQ(p.text(), "/home/me/.ssh");
  EXPECT_TRUE(p.Covers("/home/me/.ssh"));

  PathPattern q = MustCompile("/home/me/x/../.aws");
  EXPECT_EQ(q.text(), "/home/me/.aws");
  EXPECT_TRUE(q.Covers("/home/me/.aws/credentials"));
  EXPECT_FALSE(q.Covers("/home/me/x/.aws"));
}

TEST(PathPattern, APatternWithAStarIsNotLiteral) {
  EXPECT_FALSE(MustCompile("/home/*/x").is_literal());
  EXPECT_FALSE(MustCompile("**/.env").is_literal());
  EXPECT_EQ(MustCompile("**/.env").text(), "**/.env");
}

// ---------------------------------------------------------------------------
// PathPattern::Covers

TEST(PathPattern, ALiteralCoversItselfAndItsSubtree) {
  PathPattern p = MustCompile("/home/me/.ssh");
  EXPECT_TRUE(p.Covers("/home/me/.ssh"));
  EXPECT_TRUE(p.Covers("/home/me/.ssh/id_rsa"));
  EXPECT_TRUE(p.Covers("/home/me/.ssh/a/b/c"));
}

TEST(PathPattern, ALiteralDoesNotCoverASiblingSharingThePrefix) {
  PathPattern p = MustCompile("/home/me/.ssh");
  EXPECT_FALSE(p.Covers("/home/me/.sshx"));
  EXPECT_FALSE(p.Covers("/home/me/.ss"));
  EXPECT_FALSE(p.Covers("/home/me"));
  EXPECT_FALSE(p.Covers("/"));
}

TEST(PathPattern, TheRootPatternCoversEverything) {
  PathPattern p = MustCompile("/");
  EXPECT_TRUE(p.Covers("/"));
  EXPECT_TRUE(p.Covers("/etc/passwd"));
}

TEST(PathPattern, QuestionMarkAndBracketAreLiteral) {
  PathPattern p = MustCompile("/a/[xy]");
  EXPECT_TRUE(p.is_literal());
  EXPECT_TRUE(p.Covers("/a/[xy]"));
  EXPECT_FALSE(p.Covers("/a/x"));

  PathPattern q = MustCompile("/a/?*");
  EXPECT_TRUE(q.Covers("/a/?b"));
  EXPECT_TRUE(q.Covers("/a/?"));
  EXPECT_FALSE(q.Covers("/a/bb"));

  PathPattern r = MustCompile("/a/[bc]*");
  EXPECT_TRUE(r.Covers("/a/[bc]d"));
  EXPECT_FALSE(r.Covers("/a/bd"));
}

TEST(PathPattern, AStarMatchesWithinOneComponent) {
  PathPattern p = MustCompile("/home/*/.ssh");
  EXPECT_TRUE(p.Covers("/home/me/.ssh"));
  EXPECT_TRUE(p.Covers("/home/you/.ssh/id_rsa"));
  EXPECT_FALSE(p.Covers("/home/me/x/.ssh"));
  EXPECT_FALSE(p.Covers("/home/.ssh"));
  EXPECT_FALSE(p.Covers("/home/me"));
}

TEST(PathPattern, AStarNeverMatchesASlash) {
  PathPattern p = MustCompile("/a/*.txt");
  EXPECT_TRUE(p.Covers("/a/b.txt"));
  EXPECT_TRUE(p.Covers("/a/.txt"));
  EXPECT_FALSE(p.Covers("/a/b/c.txt"));
  EXPECT_FALSE(p.Covers("/a/b.txtx"));
}

TEST(PathPattern, ATrailingStarCoversChildrenButNotTheParent) {
  PathPattern p = MustCompile("/a/*");
  EXPECT_TRUE(p.Covers("/a/b"));
  EXPECT_TRUE(p.Covers("/a/b/c"));
  EXPECT_FALSE(p.Covers("/a"));
  EXPECT_FALSE(p.Covers("/ab"));
}

TEST(PathPattern, ADoubleStarMatchesAnyDepth) {
  PathPattern p = MustCompile("/home/me/**/*.pem");
  EXPECT_TRUE(p.Covers("/home/me/key.pem"));
  EXPECT_TRUE(p.Covers("/home/me/a/key.pem"));
  EXPECT_TRUE(p.Covers("/home/me/a/b/c/d/key.pem"));
  EXPECT_TRUE(p.Covers("/home/me/a/b/key.pem/x"));
  EXPECT_FALSE(p.Covers("/home/me/a/b/key.pemx"));
  EXPECT_FALSE(p.Covers("/home/me/a/b/key.pem.bak"));
  EXPECT_FALSE(p.Covers("/home/other/key.pem"));
  EXPECT_FALSE(p.Covers("/home/me"));
}

TEST(PathPattern, ADoubleStarMatchesZeroComponents) {
  PathPattern p = MustCompile("/a/**/b");
  EXPECT_TRUE(p.Covers("/a/b"));
  EXPECT_TRUE(p.Covers("/a/x/b"));
  EXPECT_TRUE(p.Covers("/a/x/y/z/b/c"));
  EXPECT_FALSE(p.Covers("/a/x/bb"));
  EXPECT_FALSE(p.Covers("/a"));
  EXPECT_FALSE(p.Covers("/b"));
}

TEST(PathPattern, ATrailingDoubleStarCoversTheDirectoryItself) {
  PathPattern p = MustCompile("/a/**");
  EXPECT_TRUE(p.Covers("/a"));
  EXPECT_TRUE(p.Covers("/a/b/c"));
  EXPECT_FALSE(p.Covers("/ab"));
  EXPECT_FALSE(p.Covers("/"));
}

TEST(PathPattern, ALeadingDoubleStarMatchesAtAnyDepth) {
  PathPattern p = MustCompile("**/.env");
  EXPECT_TRUE(p.Covers("/.env"));
  EXPECT_TRUE(p.Covers("/a/.env"));
  EXPECT_TRUE(p.Covers("/a/b/c/.env"));
  EXPECT_TRUE(p.Covers("/a/.env/x"));
  EXPECT_FALSE(p.Covers("/a/.envrc"));
  EXPECT_FALSE(p.Covers("/a/x.env"));
  EXPECT_FALSE(p.Covers("/a/.env.example"));
  EXPECT_FALSE(p.Covers("/a"));
  EXPECT_FALSE(p.Covers("/"));
}

TEST(PathPattern, ABareDoubleStarCoversEverything) {
  PathPattern p = MustCompile("**");
  EXPECT_TRUE(p.Covers("/"));
  EXPECT_TRUE(p.Covers("/a/b"));
}

TEST(PathPattern, SeveralDoubleStarsCombine) {
  PathPattern p = MustCompile("**/secrets/**/*.key");
  EXPECT_TRUE(p.Covers("/secrets/a.key"));
  EXPECT_TRUE(p.Covers("/x/secrets/y/z/a.key"));
  EXPECT_TRUE(p.Covers("/x/secrets/a.key/inner"));
  EXPECT_FALSE(p.Covers("/x/secret/a.key"));
  EXPECT_FALSE(p.Covers("/x/secrets/a.keys"));
  EXPECT_FALSE(p.Covers("/x/secrets"));
}

TEST(PathPattern, IgnoresEmptyAndDotComponentsOfAWildcardPattern) {
  PathPattern p = MustCompile("/a//./*/b/");
  EXPECT_TRUE(p.Covers("/a/x/b"));
  EXPECT_FALSE(p.Covers("/a/x/c"));
}

TEST(PathPattern, AgreesWithAReferenceMatcherOnSmallInputs) {
  // Reference: a pattern (list of components) covers a path (list of
  // components) when some prefix of the path matches the whole pattern.
  std::function<bool(const std::vector<std::string>&, size_t,
                     const std::vector<std::string>&, size_t)>
      match = [&](const std::vector<std::string>& pat, size_t i,
                  const std::vector<std::string>& path, size_t j) -> bool {
    if (i == pat.size()) return true;  // a prefix of the path matched
    if (pat[i] == "**") {
      for (size_t k = j; k <= path.size(); ++k) {
        if (match(pat, i + 1, path, k)) return true;
      }
      return false;
    }
    return j < path.size() && GlobMatch(pat[i], path[j]) &&
           match(pat, i + 1, path, j + 1);
  };
  const std::vector<std::string> pattern_parts = {"a", "b", "*", "a*", "**"};
  const std::vector<std::string> path_parts = {"a", "b", "ab"};
  std::vector<std::vector<std::string>> patterns = {{}};
  for (size_t i = 0; i < patterns.size(); ++i) {
    if (patterns[i].size() == 3) continue;
    for (const std::string& c : pattern_parts) {
      std::vector<std::string> next = patterns[i];
      next.push_back(c);
      patterns.push_back(next);
    }
  }
  std::vector<std::vector<std::string>> paths = {{}};
  for (size_t i = 0; i < paths.size(); ++i) {
    if (paths[i].size() == 4) continue;
    for (const std::string& c : path_parts) {
      std::vector<std::string> next = paths[i];
      next.push_back(c);
      paths.push_back(next);
    }
  }
  int mismatches = 0;
  for (const auto& pat : patterns) {
    const std::string text = absl::StrCat("/", absl::StrJoin(pat, "/"));
    absl::StatusOr<PathPattern> compiled = PathPattern::Compile(text);
    ASSERT_TRUE(compiled.ok()) << text << ": " << compiled.status();
    for (const auto& path : paths) {
      const std::string path_text = absl::StrCat("/", absl::StrJoin(path, "/"));
      if (compiled->Covers(path_text) != match(pat, 0, path, 0)) {
        ADD_FAILURE() << "pattern '" << text << "' path '" << path_text
                      << "' reference " << match(pat, 0, path, 0);
        if (++mismatches > 10) return;
      }
    }
  }
}

}  // namespace
}  // namespace klaunch

namespace klaunch {
namespace {

TEST(PathPattern, MovingADirectoryThatHoldsALiteralDenyIsPinned) {
  PathPattern p = *PathPattern::Compile("/ws/config/credentials.json");
  EXPECT_TRUE(p.PinsBelow("/ws/config"));
  EXPECT_TRUE(p.PinsBelow("/ws"));
  EXPECT_TRUE(p.PinsBelow("/ws/config/credentials.json"));
  EXPECT_FALSE(p.PinsBelow("/ws/other"));
  EXPECT_FALSE(p.PinsBelow("/ws/conf"));
}

TEST(PathPattern, AnAnywherePatternPinsOnlyDirectoriesNamedInItsMatch) {
  PathPattern env = *PathPattern::Compile("**/.env");
  EXPECT_FALSE(env.PinsBelow("/ws/app")) << "a .env goes wherever app goes";
  EXPECT_TRUE(env.PinsBelow("/ws/app/.env"));
  PathPattern pem = *PathPattern::Compile("**/secrets/*.pem");
  EXPECT_TRUE(pem.PinsBelow("/ws/a/secrets"));
  EXPECT_FALSE(pem.PinsBelow("/ws/a/public"));
}

TEST(PathPattern, AnAbsoluteGlobPinsTheDirectoriesItsMatchPassesThrough) {
  PathPattern p = *PathPattern::Compile("/srv/*/secret");
  EXPECT_TRUE(p.PinsBelow("/srv/a"));
  EXPECT_TRUE(p.PinsBelow("/srv"));
  EXPECT_FALSE(p.PinsBelow("/tmp/a"));
}

TEST(LiteralRoot, IsTheEntryOrItsComponentsBeforeTheFirstWildcard) {
  EXPECT_EQ(LiteralRoot("/usr/lib"), "/usr/lib");
  EXPECT_EQ(LiteralRoot("/sys/fs/cgroup/**/cgroup.procs"), "/sys/fs/cgroup");
  EXPECT_EQ(LiteralRoot("/a/b*/c"), "/a");
  EXPECT_EQ(LiteralRoot("/*.txt"), "/");
}

}  // namespace
}  // namespace klaunch
