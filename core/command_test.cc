#include "core/command.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace klaunch {
namespace {

using ::testing::HasSubstr;
using Kind = CommandRule::Kind;

using Argv = std::vector<absl::string_view>;

CommandRule MustCompile(Kind kind, absl::string_view text) {
  absl::StatusOr<CommandRule> rule = CommandRule::Compile(kind, text);
  EXPECT_TRUE(rule.ok()) << text << ": " << rule.status();
  if (!rule.ok()) {
    // A rule that matches nothing the tests use.
    return *CommandRule::Compile(Kind::kPrefix, "/nonexistent/sentinel");
  }
  return *std::move(rule);
}

void ExpectCompileError(Kind kind, absl::string_view text,
                        absl::string_view substring) {
  absl::StatusOr<CommandRule> rule = CommandRule::Compile(kind, text);
  ASSERT_FALSE(rule.ok()) << "'" << text << "' unexpectedly compiled";
  EXPECT_EQ(rule.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(rule.status().message()),
              HasSubstr(std::string(substring)));
}

bool M(const CommandRule& rule, absl::string_view executable,
       std::initializer_list<absl::string_view> argv) {
  Argv v(argv);
  return rule.Matches(executable, absl::MakeConstSpan(v));
}

// ---------------------------------------------------------------------------
// CommandLineText

TEST(CommandLineText, IsTheBasenameFollowedByTheArguments) {
  Argv argv = {"git", "status", "-s"};
  EXPECT_EQ(CommandLineText("/usr/bin/git", argv), "git status -s");
}

TEST(CommandLineText, IgnoresArgvZero) {
  Argv argv = {"git", "status"};
  EXPECT_EQ(CommandLineText("/bin/rm", argv), "rm status");
  Argv spoofed = {"/usr/bin/harmless", "-rf", "/"};
  EXPECT_EQ(CommandLineText("/bin/rm", spoofed), "rm -rf /");
}

TEST(CommandLineText, IsJustTheProgramWithoutArguments) {
  Argv only_argv0 = {"ls"};
  EXPECT_EQ(CommandLineText("/bin/ls", only_argv0), "ls");
  Argv empty;
  EXPECT_EQ(CommandLineText("/bin/ls", empty), "ls");
}

TEST(CommandLineText, UsesTheAbsolutePathWhenAsked) {
  Argv argv = {"x", "install", "six"};
  EXPECT_EQ(CommandLineText("/usr/bin/pip", argv, /*absolute_program=*/true),
            "/usr/bin/pip install six");
  Argv empty;
  EXPECT_EQ(CommandLineText("/usr/bin/pip", empty, /*absolute_program=*/true),
            "/usr/bin/pip");
}

TEST(CommandLineText, JoinsArgumentsWithSingleSpacesKeepingEmptyOnes) {
  Argv argv = {"echo", "a", "", "b c"};
  EXPECT_EQ(CommandLineText("/bin/echo", argv), "echo a  b c");
}

// ---------------------------------------------------------------------------
// Compile errors

TEST(CommandRule, AnEmptyRuleIsACompileError) {
  for (Kind kind : {Kind::kPrefix, Kind::kGlob, Kind::kPattern}) {
    ExpectCompileError(kind, "", "empty command rule");
    ExpectCompileError(kind, "   ", "empty command rule");
  }
}

TEST(CommandRule, APrefixWhoseProgramHoldsAStarIsACompileError) {
  ExpectCompileError(Kind::kPrefix, "git*", "holds a *");
  ExpectCompileError(Kind::kPrefix, "* status", "holds a *");
  ExpectCompileError(Kind::kPrefix, "/usr/bin/*", "holds a *");
}

TEST(CommandRule, AnInvalidRe2PatternIsACompileError) {
  ExpectCompileError(Kind::kPattern, "(", "bad RE2 pattern");
  ExpectCompileError(Kind::kPattern, "^pip install [z-a]", "bad RE2 pattern");
  ExpectCompileError(Kind::kPattern, "x{2,1}", "bad RE2 pattern");
  ExpectCompileError(Kind::kPattern, "a**", "bad RE2 pattern");
  // Perl features RE2 does not support.
  ExpectCompileError(Kind::kPattern, "(a)\\1", "bad RE2 pattern");
  ExpectCompileError(Kind::kPattern, "git(?=push)", "bad RE2 pattern");
}

TEST(CommandRule, KeepsItsTextAsWritten) {
  EXPECT_EQ(MustCompile(Kind::kPrefix, "git status").text(), "git status");
  EXPECT_EQ(MustCompile(Kind::kGlob, "git *").text(), "git *");
  EXPECT_EQ(MustCompile(Kind::kPattern, "^git$").text(), "^git$");
}

// ---------------------------------------------------------------------------
// Prefix rules

TEST(CommandRule, APrefixAdmitsTheProgramWithAnyArguments) {
  CommandRule ls = MustCompile(Kind::kPrefix, "ls");
  EXPECT_TRUE(M(ls, "/bin/ls", {"ls"}));
  EXPECT_TRUE(M(ls, "/bin/ls", {"ls", "-la"}));
  EXPECT_TRUE(M(ls, "/usr/bin/ls", {"ls", "-l", "/etc"}));
}

TEST(CommandRule, APrefixJudgesAnEmptyArgvAsTheBareProgram) {
  // execve("/bin/ls", {}) has the command line "ls".
  CommandRule ls = MustCompile(Kind::kPrefix, "ls");
  EXPECT_TRUE(M(ls, "/bin/ls", {}));
  CommandRule git_status = MustCompile(Kind::kPrefix, "git status");
  EXPECT_FALSE(M(git_status, "/usr/bin/git", {}));
}

TEST(CommandRule, APrefixProgramIsAWholeWord) {
  CommandRule ls = MustCompile(Kind::kPrefix, "ls");
  EXPECT_FALSE(M(ls, "/bin/lsblk", {"lsblk"}));
  EXPECT_FALSE(M(ls, "/bin/lsblk", {"ls"}));
  EXPECT_FALSE(M(ls, "/bin/l", {"l"}));
  EXPECT_FALSE(M(ls, "/bin/xls", {"xls"}));
}

TEST(CommandRule, APrefixMatchesWholeArgumentWords) {
  CommandRule r = MustCompile(Kind::kPrefix, "git status");
  EXPECT_TRUE(M(r, "/usr/bin/git", {"git", "status"}));
  EXPECT_TRUE(M(r, "/usr/bin/git", {"git", "status", "-s"}));
  EXPECT_FALSE(M(r, "/usr/bin/git", {"git", "statusx"}));
  EXPECT_FALSE(M(r, "/usr/bin/git", {"git", "stat"}));
  EXPECT_FALSE(M(r, "/usr/bin/git", {"git", "Status"}));
  EXPECT_FALSE(M(r, "/usr/bin/git", {"git"}));
  EXPECT_FALSE(M(r, "/usr/bin/git", {"git", "-C", "/x", "status"}));
  EXPECT_FALSE(M(r, "/usr/bin/git", {"git", "push"}));
}

TEST(CommandRule, APrefixOfSeveralWordsNeedsThemAllInOrder) {
  CommandRule r = MustCompile(Kind::kPrefix, "git remote add");
  EXPECT_TRUE(M(r, "/usr/bin/git", {"git", "remote", "add", "o", "url"}));
  EXPECT_FALSE(M(r, "/usr/bin/git", {"git", "remote"}));
  EXPECT_FALSE(M(r, "/usr/bin/git", {"git", "add", "remote"}));
  EXPECT_FALSE(M(r, "/usr/bin/git", {"git", "remote", "remove"}));
}

TEST(CommandRule, APrefixIgnoresArgvZero) {
  CommandRule r = MustCompile(Kind::kPrefix, "git status");
  // execve("/bin/rm", {"git", "status"}) is `rm status`.
  EXPECT_FALSE(M(r, "/bin/rm", {"git", "status"}));
  CommandRule rm = MustCompile(Kind::kPrefix, "rm status");
  EXPECT_TRUE(M(rm, "/bin/rm", {"git", "status"}));
}

TEST(CommandRule, APrefixToleratesExtraWhitespaceInTheRule) {
  CommandRule r = MustCompile(Kind::kPrefix, "  git   status  ");
  EXPECT_TRUE(M(r, "/usr/bin/git", {"git", "status", "-s"}));
  EXPECT_FALSE(M(r, "/usr/bin/git", {"git"}));
}

TEST(CommandRule, ABareProgramMatchesTheBasenameAnywhere) {
  CommandRule r = MustCompile(Kind::kPrefix, "git");
  EXPECT_TRUE(r.names_bare_program());
  EXPECT_TRUE(M(r, "/usr/bin/git", {"git"}));
  // Whether this is acceptable is the engine's business, not this module's.
  EXPECT_TRUE(M(r, "/tmp/evil/git", {"git"}));
}

TEST(CommandRule, AnAbsoluteProgramMatchesThePathNotTheBasename) {
  CommandRule r = MustCompile(Kind::kPrefix, "/usr/bin/git status");
  EXPECT_FALSE(r.names_bare_program());
  EXPECT_TRUE(M(r, "/usr/bin/git", {"git", "status"}));
  EXPECT_FALSE(M(r, "/tmp/git", {"git", "status"}));
  EXPECT_FALSE(M(r, "/tmp/usr/bin/git", {"git", "status"}));
  EXPECT_FALSE(M(r, "/usr/bin/git2", {"git", "status"}));
  EXPECT_FALSE(M(r, "/usr/bin/git", {"git", "push"}));
  EXPECT_FALSE(M(r, "git", {"git", "status"}));

  CommandRule bare_path = MustCompile(Kind::kPrefix, "/usr/bin/git");
  EXPECT_FALSE(M(bare_path, "/usr/local/bin/git", {"git"}));
}

// ---------------------------------------------------------------------------
// Glob rules

TEST(CommandRule, AGlobIsAnchoredAtBothEnds) {
  CommandRule r = MustCompile(Kind::kGlob, "git *");
  EXPECT_FALSE(M(r, "/usr/bin/sudo", {"sudo", "git", "push"}));
  EXPECT_FALSE(M(r, "/usr/bin/gitx", {"gitx", "push"}));
  EXPECT_FALSE(M(r, "/usr/bin/xgit", {"xgit", "push"}));

  CommandRule exact = MustCompile(Kind::kGlob, "git push");
  EXPECT_TRUE(M(exact, "/usr/bin/git", {"git", "push"}));
  EXPECT_FALSE(M(exact, "/usr/bin/git", {"git", "push", "--force"}));
  EXPECT_FALSE(M(exact, "/usr/bin/git", {"git", "push;", "rm"}));
  EXPECT_FALSE(M(exact, "/usr/bin/git", {"git", "-c", "x", "push"}));
  EXPECT_FALSE(M(exact, "/usr/bin/git", {"git"}));
}

TEST(CommandRule, AGlobStarMatchesAnyArguments) {
  CommandRule r = MustCompile(Kind::kGlob, "git *");
  EXPECT_TRUE(M(r, "/usr/bin/git", {"git", "push"}));
  EXPECT_TRUE(M(r, "/usr/bin/git", {"git", "push", "origin"}));
  EXPECT_TRUE(M(r, "/usr/bin/git", {"git", "push", "origin", "main"}));
}

TEST(CommandRule, ATrailingSpaceStarAlsoAdmitsNoArguments) {
  CommandRule r = MustCompile(Kind::kGlob, "git *");
  EXPECT_TRUE(M(r, "/usr/bin/git", {"git"}));
  EXPECT_TRUE(M(r, "/usr/bin/git", {}));

  CommandRule sub = MustCompile(Kind::kGlob, "git push *");
  EXPECT_TRUE(M(sub, "/usr/bin/git", {"git", "push"}));
  EXPECT_TRUE(M(sub, "/usr/bin/git", {"git", "push", "origin", "main"}));
  EXPECT_FALSE(M(sub, "/usr/bin/git", {"git"}));
  EXPECT_FALSE(M(sub, "/usr/bin/git", {"git", "pull"}));
  EXPECT_FALSE(M(sub, "/usr/bin/git", {"git", "pushx"}));
}

TEST(CommandRule, AGlobWithoutArgumentsAdmitsOnlyTheBareProgram) {
  CommandRule r = MustCompile(Kind::kGlob, "make");
  EXPECT_TRUE(M(r, "/usr/bin/make", {"make"}));
  EXPECT_FALSE(M(r, "/usr/bin/make", {"make", "install"}));
}

TEST(CommandRule, AOneWordRulesFinalStarAlsoCoversTheArguments) {
  CommandRule sudo = MustCompile(Kind::kGlob, "sudo*");
  EXPECT_TRUE(M(sudo, "/usr/bin/sudo", {"sudo", "rm", "-rf", "/"}));
  EXPECT_TRUE(M(sudo, "/usr/bin/sudoedit", {"sudoedit", "x"}));
  EXPECT_TRUE(M(sudo, "/usr/bin/sudo", {"sudo"}));
  EXPECT_FALSE(M(sudo, "/usr/bin/su", {"su", "do"}));
  CommandRule any = MustCompile(Kind::kGlob, "*");
  EXPECT_TRUE(M(any, "/bin/ls", {"ls", "-l"}));
  CommandRule dir = MustCompile(Kind::kGlob, "/usr/bin/*");
  EXPECT_TRUE(M(dir, "/usr/bin/ls", {"ls", "-l"}));
  EXPECT_FALSE(M(dir, "/usr/bin/sub/evil", {"evil", "-l"}));
}

TEST(CommandRule, AGlobStarInsideAnArgumentIsAnchored) {
  CommandRule r = MustCompile(Kind::kGlob, "rm *.txt");
  EXPECT_TRUE(M(r, "/bin/rm", {"rm", "a.txt"}));
  EXPECT_FALSE(M(r, "/bin/rm", {"rm", "a.txt", "/etc/passwd"}));
  EXPECT_FALSE(M(r, "/bin/rm", {"rm", "a.txt.bak"}));
  EXPECT_FALSE(M(r, "/bin/rm", {"rm"}));
}

TEST(CommandRule, AGlobMatchesTheProgramAsAUnit) {
  CommandRule r = MustCompile(Kind::kGlob, "python3 *");
  EXPECT_TRUE(M(r, "/usr/bin/python3", {"python3", "-c", "1"}));
  EXPECT_TRUE(M(r, "/usr/bin/python3", {"python3"}));
  EXPECT_FALSE(M(r, "/usr/bin/python3.11", {"python3.11", "-c", "1"}));
  EXPECT_FALSE(M(r, "/usr/bin/python", {"python3", "-c", "1"}));

  CommandRule any_python = MustCompile(Kind::kGlob, "python3* *");
  EXPECT_TRUE(M(any_python, "/usr/bin/python3.11", {"python3.11", "x.py"}));
  EXPECT_FALSE(M(any_python, "/usr/bin/python2", {"python2", "x.py"}));

  CommandRule any_program = MustCompile(Kind::kGlob, "* --version");
  EXPECT_TRUE(M(any_program, "/usr/bin/gcc", {"gcc", "--version"}));
  EXPECT_FALSE(M(any_program, "/usr/bin/gcc", {"gcc", "--version", "x.c"}));
}

TEST(CommandRule, AGlobIgnoresArgvZero) {
  CommandRule r = MustCompile(Kind::kGlob, "git *");
  EXPECT_FALSE(M(r, "/bin/rm", {"git", "-rf", "/"}));
  EXPECT_TRUE(M(r, "/usr/bin/git", {"rm", "push"}));
}

TEST(CommandRule, AnAbsoluteGlobProgramMatchesThePath) {
  CommandRule r = MustCompile(Kind::kGlob, "/usr/bin/git *");
  EXPECT_FALSE(r.names_bare_program());
  EXPECT_TRUE(M(r, "/usr/bin/git", {"git", "push"}));
  EXPECT_TRUE(M(r, "/usr/bin/git", {"git"}));
  EXPECT_FALSE(M(r, "/tmp/git", {"git", "push"}));
  EXPECT_FALSE(M(r, "/home/me/usr/bin/git", {"git", "push"}));

  CommandRule bare = MustCompile(Kind::kGlob, "git *");
  EXPECT_TRUE(bare.names_bare_program());
}

// ---------------------------------------------------------------------------
// Pattern rules

TEST(CommandRule, APatternIsSearchedInTheCommandLine) {
  CommandRule r = MustCompile(Kind::kPattern, "install");
  EXPECT_TRUE(M(r, "/usr/bin/pip", {"pip", "install", "six"}));
  EXPECT_TRUE(M(r, "/usr/bin/apt-get", {"apt-get", "reinstall", "x"}));
  EXPECT_FALSE(M(r, "/usr/bin/pip", {"pip", "list"}));
}

TEST(CommandRule, AnAnchoredPatternMatchesTheWholeLineOnly) {
  CommandRule r = MustCompile(Kind::kPattern, R"(^pip install \w+$)");
  EXPECT_TRUE(r.names_bare_program());
  EXPECT_TRUE(M(r, "/usr/bin/pip", {"pip", "install", "requests"}));
  EXPECT_TRUE(M(r, "/tmp/x/pip", {"pip", "install", "requests"}));
  EXPECT_FALSE(M(r, "/usr/bin/pip", {"pip", "install", "a", "b"}));
  EXPECT_FALSE(M(r, "/usr/bin/pip", {"pip", "install", "a;", "rm"}));
  EXPECT_FALSE(M(r, "/usr/bin/pip", {"pip", "install", "--index-url=x"}));
  EXPECT_FALSE(M(r, "/usr/bin/sudo", {"sudo", "pip", "install", "x"}));
  EXPECT_FALSE(M(r, "/usr/bin/pip3", {"pip3", "install", "x"}));
}

TEST(CommandRule, APatternIgnoresArgvZero) {
  CommandRule r = MustCompile(Kind::kPattern, "^git status$");
  EXPECT_FALSE(M(r, "/bin/rm", {"git", "status"}));
  CommandRule rm = MustCompile(Kind::kPattern, "^rm status$");
  EXPECT_TRUE(M(rm, "/bin/rm", {"git", "status"}));
}

TEST(CommandRule, APatternSeesTheBareProgramAloneWithoutArguments) {
  CommandRule r = MustCompile(Kind::kPattern, "^make$");
  EXPECT_TRUE(M(r, "/usr/bin/make", {"make"}));
  EXPECT_TRUE(M(r, "/usr/bin/make", {}));
  EXPECT_FALSE(M(r, "/usr/bin/make", {"make", "all"}));
}

TEST(CommandRule, ASlashAnchoredPatternIsMatchedAgainstTheAbsolutePathLine) {
  CommandRule r = MustCompile(Kind::kPattern, R"(^/usr/bin/pip install )");
  EXPECT_FALSE(r.names_bare_program());
  EXPECT_TRUE(M(r, "/usr/bin/pip", {"pip", "install", "six"}));
  EXPECT_FALSE(M(r, "/home/me/.local/bin/pip", {"pip", "install", "six"}));
  EXPECT_FALSE(M(r, "/usr/bin/pip", {"pip", "list"}));

  CommandRule dir = MustCompile(Kind::kPattern, R"(^/usr/bin/[^/ ]+( |$))");
  EXPECT_TRUE(M(dir, "/usr/bin/ls", {"ls"}));
  EXPECT_TRUE(M(dir, "/usr/bin/ls", {"ls", "-l"}));
  EXPECT_FALSE(M(dir, "/tmp/ls", {"ls", "/usr/bin/ls"}));
}

TEST(CommandRule, APatternWithoutLeadingCaretSlashSeesTheBasenameLine) {
  CommandRule r = MustCompile(Kind::kPattern, "/usr/bin/git");
  EXPECT_TRUE(r.names_bare_program());
  EXPECT_FALSE(M(r, "/usr/bin/git", {"git", "status"}));
  EXPECT_TRUE(M(r, "/usr/bin/ls", {"ls", "/usr/bin/git"}));

  CommandRule caret = MustCompile(Kind::kPattern, "^git ");
  EXPECT_TRUE(M(caret, "/usr/bin/git", {"git", "status"}));
  EXPECT_FALSE(M(caret, "/usr/bin/sudo", {"sudo", "git", "status"}));
}

TEST(CommandRule, NamesBareProgramOnlyWhenTheProgramIsNotAPath) {
  EXPECT_TRUE(MustCompile(Kind::kPrefix, "ls").names_bare_program());
  EXPECT_TRUE(MustCompile(Kind::kPrefix, "ls -l").names_bare_program());
  EXPECT_FALSE(MustCompile(Kind::kPrefix, "/bin/ls").names_bare_program());
  EXPECT_FALSE(MustCompile(Kind::kPrefix, "  /bin/ls -l").names_bare_program());
  EXPECT_TRUE(MustCompile(Kind::kGlob, "l* -l").names_bare_program());
  EXPECT_FALSE(MustCompile(Kind::kGlob, "/bin/l* -l").names_bare_program());
  EXPECT_TRUE(MustCompile(Kind::kPattern, "^ls").names_bare_program());
  EXPECT_FALSE(MustCompile(Kind::kPattern, "^/bin/ls").names_bare_program());
  EXPECT_TRUE(MustCompile(Kind::kPattern, "ls$").names_bare_program());
}

}  // namespace
}  // namespace klaunch

namespace klaunch {
namespace {

TEST(CommandRule, AStarInAnAbsoluteProgramStaysWithinOneComponent) {
  CommandRule r =
      *CommandRule::Compile(CommandRule::Kind::kGlob, "/usr/bin/* --version");
  EXPECT_TRUE(r.Matches("/usr/bin/git", {"git", "--version"}));
  EXPECT_FALSE(r.Matches("/usr/bin/sub/dir/evil", {"evil", "--version"}));
  EXPECT_FALSE(r.Matches("/usr/bin", {"bin", "--version"}));
}

TEST(InterpreterLine, TheInterpreterAndItsOneArgumentAreSplitAsTheKernelDoes) {
  auto line = ParseInterpreterLine("#!  /usr/bin/env python3 -u \nprint(1)\n");
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->interpreter, "/usr/bin/env");
  EXPECT_EQ(line->argument, "python3 -u");
  line = ParseInterpreterLine("#!/bin/sh\n");
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->interpreter, "/bin/sh");
  EXPECT_EQ(line->argument, "");
}

TEST(InterpreterLine, AFileWithoutAnInterpreterIsNoScript) {
  EXPECT_FALSE(ParseInterpreterLine("\x7f"
                                    "ELF...")
                   .has_value());
  EXPECT_FALSE(ParseInterpreterLine("#! \n").has_value());
  EXPECT_FALSE(ParseInterpreterLine("#").has_value());
}

// What the kernel itself runs for a script, read back through /bin/echo as
// the interpreter: the line InterpreterCommandLine says, past its first
// word (echo prints its arguments, not its own name).
TEST(InterpreterLine, TheCommandLineIsTheOneTheKernelRuns) {
  char dir[] = "/tmp/klaunch-interp-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string script = std::string(dir) + "/s";
  const std::string head = "#!/bin/echo one  two \n";
  {
    std::ofstream out(script);
    out << head;
  }
  ASSERT_EQ(chmod(script.c_str(), 0755), 0);
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(pipe_fds[1], 1);
    char* const argv[] = {const_cast<char*>("name-not-passed"),
                          const_cast<char*>("a b"), const_cast<char*>("c"),
                          nullptr};
    execv(script.c_str(), argv);
    _exit(127);
  }
  close(pipe_fds[1]);
  std::string printed;
  char buf[256];
  for (ssize_t n; (n = read(pipe_fds[0], buf, sizeof(buf))) > 0;) {
    printed.append(buf, n);
  }
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  unlink(script.c_str());
  rmdir(dir);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;

  const std::optional<InterpreterLine> line = ParseInterpreterLine(head);
  ASSERT_TRUE(line.has_value());
  const std::vector<absl::string_view> argv = {"name-not-passed", "a b", "c"};
  const std::vector<std::string> run =
      InterpreterCommandLine(*line, script, argv);
  ASSERT_EQ(run.front(), "/bin/echo");
  const std::vector<std::string> args(run.begin() + 1, run.end());
  EXPECT_EQ(printed, absl::StrJoin(args, " ") + "\n");
  EXPECT_EQ(args, (std::vector<std::string>{"one  two", script, "a b", "c"}));
}

// LoaderProgramIndex follows glibc 2.36's ld.so (Debian 12), whose
// answers to each of these command lines were checked against the real
// /lib64/ld-linux-x86-64.so.2 of Debian 12.
constexpr char kLd[] = "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2";
using V = std::vector<absl::string_view>;
using LoaderMode = LoaderCommandLine::Mode;

std::optional<size_t> Program(V argv) { return LoaderProgramIndex(kLd, argv); }

LoaderCommandLine Parse(V argv) {
  std::optional<LoaderCommandLine> line = ParseLoaderCommandLine(kLd, argv);
  EXPECT_TRUE(line.has_value());
  return line.value_or(LoaderCommandLine{});
}

TEST(LoaderProgram, TheLoaderRunsTheFirstWordAfterItsOptions) {
  EXPECT_EQ(Program({"ld.so", "/usr/bin/curl", "-s"}), 1u);
  EXPECT_EQ(LoaderProgramIndex("/lib64/ld-2.36.so", V{"ld", "prog"}), 1u);
  EXPECT_EQ(LoaderProgramIndex("/lib/ld.so.1", V{"ld", "prog"}), 1u);
  // The program's own options are its own.
  EXPECT_EQ(Program({"ld.so", "/bin/echo", "--help"}), 1u);
  EXPECT_EQ(Program({"ld.so", "/bin/echo", "--list", "x"}), 1u);
}

TEST(LoaderProgram, AnExecutableThatIsNoLoaderIsNothing) {
  EXPECT_EQ(LoaderProgramIndex("/usr/bin/env", V{"env", "curl"}), std::nullopt);
  EXPECT_EQ(ParseLoaderCommandLine("/usr/bin/ldd", V{"ldd", "/bin/ls"}),
            std::nullopt);
}

TEST(LoaderProgram, ArgvZeroIsTheLoadersOwnNameAndNeverAnOption) {
  EXPECT_EQ(Program({"--help", "/usr/bin/curl"}), 1u);
  EXPECT_EQ(Program({"--library-path", "/usr/bin/curl"}), 1u);
}

TEST(LoaderProgram, NoWordsAtAllOrOnlyTheLoadersNameAreAUsageError) {
  EXPECT_EQ(Parse({}).mode, LoaderMode::kUsageError);
  EXPECT_EQ(Parse({"ld.so"}).mode, LoaderMode::kUsageError);
  EXPECT_EQ(Program({}), std::nullopt);
  EXPECT_EQ(Program({"ld.so"}), std::nullopt);
}

TEST(LoaderProgram, EachOptionWithAValueTakesTheNextWordWhateverItIs) {
  for (absl::string_view option :
       {"--library-path", "--inhibit-rpath", "--audit", "--preload", "--argv0",
        "--glibc-hwcaps-prepend", "--glibc-hwcaps-mask"}) {
    EXPECT_EQ(Program({"ld.so", option, "/x", "/usr/bin/curl"}), 3u) << option;
    // The value is not read as an option, nor as the program.
    EXPECT_EQ(Program({"ld.so", option, "--version", "/usr/bin/curl"}), 3u)
        << option;
    EXPECT_EQ(Program({"ld.so", option, "/usr/bin/true", "/tmp/evil"}), 3u)
        << option;
  }
}

TEST(LoaderProgram, InhibitRpathTakesAValueSoItsValueIsNotTheProgram) {
  // The loader runs /tmp/evil here; reading --inhibit-rpath as a flag would
  // judge /usr/bin/true instead.
  EXPECT_EQ(
      Program({"ld.so", "--inhibit-rpath", "/usr/bin/true", "/tmp/evil", "-x"}),
      3u);
}

TEST(LoaderProgram,
     AnOptionWhoseValueIsMissingIsAnUnknownOptionAndRunsNothing) {
  for (absl::string_view option :
       {"--library-path", "--inhibit-rpath", "--audit", "--preload", "--argv0",
        "--glibc-hwcaps-prepend", "--glibc-hwcaps-mask"}) {
    EXPECT_EQ(Parse({"ld.so", option}).mode, LoaderMode::kUsageError) << option;
    EXPECT_EQ(Program({"ld.so", option}), std::nullopt) << option;
  }
}

TEST(LoaderProgram, AValueAsTheLastWordLeavesNoProgram) {
  const LoaderCommandLine line = Parse({"ld.so", "--library-path", "/x"});
  EXPECT_EQ(line.mode, LoaderMode::kUsageError);
  EXPECT_EQ(line.program, std::nullopt);
  EXPECT_EQ(Program({"ld.so", "--preload", "/usr/bin/curl"}), std::nullopt);
}

TEST(LoaderProgram, InhibitCacheIsAFlag) {
  EXPECT_EQ(Program({"ld.so", "--inhibit-cache", "/usr/bin/curl"}), 2u);
  EXPECT_EQ(Program({"ld.so", "--inhibit-cache", "--inhibit-cache", "curl"}),
            3u);
  EXPECT_EQ(
      Program({"ld.so", "--library-path", "/x", "--inhibit-cache", "curl"}),
      4u);
}

TEST(LoaderProgram, DoubleDashIsAnUnknownOptionNotTheEndOfTheOptions) {
  // glibc 2.36 tests the second character of "--" for the end of its
  // options; ld.so answers "unrecognized option '--'" and exits 1.
  EXPECT_EQ(Parse({"ld.so", "--", "/usr/bin/curl"}).mode,
            LoaderMode::kUsageError);
  EXPECT_EQ(Program({"ld.so", "--", "/usr/bin/curl"}), std::nullopt);
  EXPECT_EQ(Program({"ld.so", "--argv0", "x", "--", "curl"}), std::nullopt);
}

TEST(LoaderProgram, AnUnknownDoubleDashOptionRunsNothing) {
  EXPECT_EQ(Parse({"ld.so", "--bogus", "/usr/bin/curl"}).mode,
            LoaderMode::kUsageError);
  EXPECT_EQ(Program({"ld.so", "--bogus", "/usr/bin/curl"}), std::nullopt);
  EXPECT_EQ(Program({"ld.so", "--library-path=/x", "/usr/bin/curl"}),
            std::nullopt);
  // Even after a mode that prints and exits.
  EXPECT_EQ(Parse({"ld.so", "--list-tunables", "--bogus"}).mode,
            LoaderMode::kUsageError);
  EXPECT_EQ(Parse({"ld.so", "--help", "--bogus"}).mode,
            LoaderMode::kUsageError);
}

TEST(LoaderProgram, ASingleDashWordIsTheProgram) {
  EXPECT_EQ(Program({"ld.so", "-", "x"}), 1u);
  EXPECT_EQ(Program({"ld.so", "-x", "/usr/bin/curl"}), 1u);
  EXPECT_EQ(Program({"ld.so", "", "/usr/bin/curl"}), 1u);
}

TEST(LoaderProgram, ListNamesAProgramButRunsNone) {
  const LoaderCommandLine line = Parse({"ld.so", "--list", "/usr/bin/curl"});
  EXPECT_EQ(line.mode, LoaderMode::kList);
  EXPECT_EQ(line.program, 2u);
  EXPECT_EQ(Program({"ld.so", "--list", "/usr/bin/curl"}), std::nullopt);
  EXPECT_EQ(Parse({"ld.so", "--list"}).mode, LoaderMode::kUsageError);
}

TEST(LoaderProgram, VerifyNamesAProgramButRunsNone) {
  const LoaderCommandLine line = Parse({"ld.so", "--verify", "/usr/bin/curl"});
  EXPECT_EQ(line.mode, LoaderMode::kVerify);
  EXPECT_EQ(line.program, 2u);
  EXPECT_EQ(Program({"ld.so", "--verify", "/usr/bin/curl"}), std::nullopt);
  // The later of --list and --verify wins.
  EXPECT_EQ(Parse({"ld.so", "--verify", "--list", "x"}).mode,
            LoaderMode::kList);
  EXPECT_EQ(Parse({"ld.so", "--list", "--verify", "x"}).mode,
            LoaderMode::kVerify);
}

TEST(LoaderProgram, HelpRunsNoProgramWithOrWithoutOne) {
  EXPECT_EQ(Parse({"ld.so", "--help"}).mode, LoaderMode::kHelp);
  EXPECT_EQ(Program({"ld.so", "--help"}), std::nullopt);
  const LoaderCommandLine line = Parse({"ld.so", "--help", "/usr/bin/curl"});
  EXPECT_EQ(line.mode, LoaderMode::kHelp);
  EXPECT_EQ(line.program, 2u);
  EXPECT_EQ(Program({"ld.so", "--help", "/usr/bin/curl"}), std::nullopt);
  // --list and --verify do not take the mode back from --help.
  EXPECT_EQ(Parse({"ld.so", "--help", "--list", "x"}).mode, LoaderMode::kHelp);
  EXPECT_EQ(Parse({"ld.so", "--help", "--verify", "x"}).mode,
            LoaderMode::kHelp);
  EXPECT_EQ(Parse({"ld.so", "--list", "--help", "x"}).mode, LoaderMode::kHelp);
}

TEST(LoaderProgram, VersionStopsReadingWhereItStands) {
  EXPECT_EQ(Parse({"ld.so", "--version"}).mode, LoaderMode::kVersion);
  EXPECT_EQ(Program({"ld.so", "--version", "/usr/bin/curl"}), std::nullopt);
  // What follows it is not read: not even an unknown option.
  EXPECT_EQ(Parse({"ld.so", "--version", "--bogus"}).mode,
            LoaderMode::kVersion);
  EXPECT_EQ(Parse({"ld.so", "--help", "--version"}).mode, LoaderMode::kVersion);
  EXPECT_EQ(Parse({"ld.so", "--library-path", "/x", "--version"}).mode,
            LoaderMode::kVersion);
  // But an unknown option before it ends the reading first.
  EXPECT_EQ(Parse({"ld.so", "--bogus", "--version"}).mode,
            LoaderMode::kUsageError);
}

TEST(LoaderProgram, ListTunablesPrintsAndExitsEvenWithAProgram) {
  EXPECT_EQ(Parse({"ld.so", "--list-tunables"}).mode,
            LoaderMode::kListTunables);
  const LoaderCommandLine line =
      Parse({"ld.so", "--list-tunables", "/usr/bin/curl"});
  EXPECT_EQ(line.mode, LoaderMode::kListTunables);
  EXPECT_EQ(Program({"ld.so", "--list-tunables", "/usr/bin/curl"}),
            std::nullopt);
  // It takes the mode from --help.
  EXPECT_EQ(Parse({"ld.so", "--help", "--list-tunables"}).mode,
            LoaderMode::kListTunables);
}

TEST(LoaderProgram, ListDiagnosticsPrintsAndExitsEvenWithAProgram) {
  EXPECT_EQ(Parse({"ld.so", "--list-diagnostics"}).mode,
            LoaderMode::kListDiagnostics);
  EXPECT_EQ(Program({"ld.so", "--list-diagnostics", "/usr/bin/curl", "x"}),
            std::nullopt);
  // The later of the two listings wins.
  EXPECT_EQ(Parse({"ld.so", "--list-tunables", "--list-diagnostics"}).mode,
            LoaderMode::kListDiagnostics);
  EXPECT_EQ(Parse({"ld.so", "--list-diagnostics", "--list-tunables"}).mode,
            LoaderMode::kListTunables);
}

TEST(LoaderProgram, Argv0IsWhatTheProgramSeesAsItsArgvZero) {
  LoaderCommandLine line = Parse({"ld.so", "--argv0", "git", "/tmp/rm", "-rf"});
  EXPECT_EQ(line.mode, LoaderMode::kRun);
  EXPECT_EQ(line.program, 3u);
  EXPECT_EQ(line.argv0, "git");
  // The last one given wins; without one the program keeps its name.
  line = Parse({"ld.so", "--argv0", "a", "--argv0", "b", "/bin/sh"});
  EXPECT_EQ(line.argv0, "b");
  EXPECT_EQ(line.program, 5u);
  EXPECT_EQ(Parse({"ld.so", "/bin/sh", "-c", "x"}).argv0, "/bin/sh");
}

TEST(LoaderProgram, Argv0DoesNotChangeTheCommandLineJudged) {
  // The callers judge argv[program] and the words after it; argv[0] plays
  // no part in the command line, so --argv0 cannot dress /tmp/rm as git.
  const V argv = {"ld.so", "--argv0", "git", "/tmp/rm", "status"};
  const size_t i = *LoaderProgramIndex(kLd, argv);
  const V program(argv.begin() + i, argv.end());
  EXPECT_EQ(CommandLineText(argv[i], program), "rm status");
}

}  // namespace
}  // namespace klaunch
