// The exec wrappers against real programs: sh, python3, git and C helpers
// run under the shim, each attempting an exec the policy refuses next to one
// it admits. A test fails when the refused command ran (its marker file
// exists, or the file it would have removed is gone), when the refusal is not
// the documented one (EACCES, one audit line naming the executable, the rule
// and the command line), or when an allowed command did not run.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/run_process.h"
#include "tests/sandbox.h"

namespace klaunch::testing {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

void Copy(const std::string& from, const std::string& to) {
  ProcessResult r = RunProcess({"/bin/cp", from, to});
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

void MakeExecutable(const std::string& path) {
  ProcessResult r = RunProcess({"/bin/chmod", "755", path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

// --- 1. sh -c ---------------------------------------------------------------

TEST(ShimExec, AShellRunsTheAllowedCommandsAndNotTheDeniedOnes) {
  Sandbox box(R"(
extends = "workspace-write"
[commands]
allow = ["sh *", "cat *", "touch @WS@/allowed-marker"]
deny = ["rm *"]
)");
  const std::string victim = box.Write("ws/victim", "keep me");
  box.Write("ws/input.txt", "hello-from-input\n");
  const std::string ws = box.ws();
  ProcessResult r =
      box.Run({"/bin/sh", "-c",
               "rm victim; touch denied-marker; cat input.txt; touch " + ws +
                   "/allowed-marker"});
  EXPECT_EQ(r.exit_code, 0) << Show(r);
  // The denied commands did not run.
  EXPECT_TRUE(Exists(victim)) << "rm ran despite commands.deny";
  EXPECT_FALSE(Exists(ws + "/denied-marker")) << "an unlisted touch ran";
  EXPECT_THAT(r.err, HasSubstr("Permission denied")) << Show(r);
  // The allowed ones did.
  EXPECT_THAT(r.out, HasSubstr("hello-from-input")) << Show(r);
  EXPECT_TRUE(Exists(ws + "/allowed-marker")) << Show(r) << Dump(box);

  // One refusal per PATH candidate tried, each naming the rule.
  std::vector<std::string> rm = LinesFor(box, "/usr/bin/rm");
  ASSERT_THAT(rm, Not(IsEmpty())) << Dump(box);
  for (const std::string& line : rm) {
    EXPECT_EQ(Field(line, "op"), "execve") << line;
    EXPECT_EQ(Field(line, "access"), "exec") << line;
    EXPECT_EQ(Field(line, "verdict"), "deny") << line;
    EXPECT_EQ(Field(line, "rule"), "commands.deny[0]") << line;
    EXPECT_THAT(Field(line, "message"), HasSubstr("`rm victim`")) << line;
  }
  std::vector<std::string> touch = LinesFor(box, "/usr/bin/touch");
  ASSERT_THAT(touch, Not(IsEmpty())) << Dump(box);
  for (const std::string& line : touch) {
    EXPECT_EQ(Field(line, "rule"), "commands.unlisted") << line;
    EXPECT_THAT(Field(line, "message"), HasSubstr("`touch denied-marker`"))
        << line;
  }
  EXPECT_EQ(box.AuditLines().size(), rm.size() + touch.size()) << Dump(box);
}

TEST(ShimExec, ANestedShellIsConfinedAsWell) {
  Sandbox box(R"(
extends = "workspace-write"
[commands]
allow = ["sh *"]
)");
  const std::string ws = box.ws();
  ProcessResult r = box.Run(
      {"/bin/sh", "-c", "sh -c 'sh -c \"touch " + ws + "/deep-marker\"'"});
  EXPECT_NE(r.exit_code, 0) << Show(r);
  EXPECT_FALSE(Exists(ws + "/deep-marker"));
  EXPECT_THAT(LinesFor(box, "/usr/bin/touch"), Not(IsEmpty())) << Dump(box);
}

// --- 2. a child handed another environment -----------------------------------

TEST(ShimExec, APythonChildStartedWithAnEmptyEnvironmentIsStillConfined) {
  Sandbox box(R"(
extends = "workspace-write"
[filesystem]
deny = ["@ROOT@/secret.txt"]
)");
  const std::string secret = box.Write("secret.txt", "TOP-SECRET-CONTENT\n");
  const std::string script = box.Write("child.py", R"(
import subprocess, sys
r = subprocess.run(['/bin/cat', sys.argv[1]], env={}, capture_output=True)
print('rc', r.returncode)
sys.stdout.write(r.stdout.decode())
sys.stdout.write(r.stderr.decode())
)");
  ProcessResult r = box.Run({"/usr/bin/python3", script, secret});
  EXPECT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_THAT(r.out, Not(HasSubstr("TOP-SECRET-CONTENT"))) << Show(r);
  EXPECT_THAT(r.out, Not(HasSubstr("rc 0"))) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("Permission denied")) << Show(r);
  std::vector<std::string> lines = LinesFor(box, secret);
  ASSERT_THAT(lines, Not(IsEmpty())) << Dump(box);
  // The refusal was made inside the child, by the shim it was given back.
  EXPECT_EQ(Field(lines[0], "exe"), "/usr/bin/cat") << lines[0];
  EXPECT_EQ(Field(lines[0], "rule"), "filesystem.deny[0]") << lines[0];
  EXPECT_EQ(Field(lines[0], "access"), "read") << lines[0];
}

TEST(ShimExec, AChildHandedAnotherPolicyAndAnEmptyPreloadIsStillConfined) {
  Sandbox box(R"(
extends = "workspace-write"
[filesystem]
deny = ["@ROOT@/secret.txt"]
)");
  // A permissive policy the program would like its child to run under.
  Sandbox open_box(R"(extends = "full-access")");
  const std::string permissive = open_box.Path("effective.toml");
  ASSERT_TRUE(Exists(permissive));
  const std::string secret = box.Write("secret.txt", "TOP-SECRET-CONTENT\n");
  const std::string script = box.Write("child.py", R"(
import subprocess, sys
env = {'LD_PRELOAD': '', 'KLAUNCH_POLICY_FILE': sys.argv[2],
       'KLAUNCH_RECORD_SOCKET': '/dev/null', 'KLAUNCH_SHIM': '/nonexistent.so'}
r = subprocess.run(['/bin/cat', sys.argv[1]], env=env, capture_output=True)
print('rc', r.returncode)
sys.stdout.write(r.stdout.decode())
)");
  ProcessResult r = box.Run({"/usr/bin/python3", script, secret, permissive});
  EXPECT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_THAT(r.out, Not(HasSubstr("TOP-SECRET-CONTENT"))) << Show(r);
  EXPECT_THAT(r.out, Not(HasSubstr("rc 0"))) << Show(r);
  std::vector<std::string> lines = LinesFor(box, secret);
  ASSERT_THAT(lines, Not(IsEmpty())) << "the child's refusal must reach the "
                                        "original audit log\n"
                                     << Dump(box);
  EXPECT_EQ(Field(lines[0], "exe"), "/usr/bin/cat") << lines[0];
}

TEST(ShimExec, AChildGetsTheShimBackButNotAVariableTheProgramRemoved) {
  Sandbox box(R"(extends = "workspace-write")");
  const std::string script = box.Write("env.py", R"(
import os, subprocess, sys
print('--- empty')
sys.stdout.flush()
subprocess.run(['/usr/bin/env'], env={})
env = dict(os.environ)
del env['FOO']
print('--- dict')
sys.stdout.flush()
subprocess.run(['/usr/bin/env'], env=env)
del os.environ['FOO']
print('--- environ')
sys.stdout.flush()
subprocess.run(['/usr/bin/env'])
print('--- system')
sys.stdout.flush()
os.system('/usr/bin/env')
print('--- end')
)");
  ProcessOptions options;
  options.extra_env = {"FOO=leaked-value-4711"};
  ProcessResult r = box.Run({"/usr/bin/python3", script}, options);
  ASSERT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_THAT(r.out, Not(HasSubstr("leaked-value-4711"))) << Show(r);
  EXPECT_THAT(r.out, Not(HasSubstr("FOO="))) << Show(r);

  // The empty environment comes back as exactly the shim's variables.
  const size_t begin = r.out.find("--- empty\n");
  const size_t end = r.out.find("--- dict\n");
  ASSERT_NE(begin, std::string::npos) << Show(r);
  ASSERT_NE(end, std::string::npos) << Show(r);
  std::vector<std::string> got;
  {
    std::string block = r.out.substr(begin + 10, end - begin - 10);
    size_t at = 0;
    while (at < block.size()) {
      size_t nl = block.find('\n', at);
      if (nl == std::string::npos) nl = block.size();
      if (nl > at) got.push_back(block.substr(at, nl - at));
      at = nl + 1;
    }
  }
  for (const std::string& var : box.ShimEnv()) {
    EXPECT_THAT(got, Contains(var)) << Show(r);
  }
  EXPECT_EQ(got.size(), box.ShimEnv().size()) << Show(r);
  // And every other child kept the shim too.
  const std::string preload = box.ShimEnv()[0];
  size_t count = 0;
  for (size_t at = r.out.find(preload); at != std::string::npos;
       at = r.out.find(preload, at + 1)) {
    ++count;
  }
  EXPECT_EQ(count, 4u) << Show(r);
  EXPECT_THAT(box.AuditLines(), IsEmpty()) << Dump(box);
}

// --- 3. argv[0] -------------------------------------------------------------

TEST(ShimExec, ASpoofedArgvZeroDoesNotMakeRmPassAsGit) {
  Sandbox box(R"(
extends = "workspace-write"
[commands]
allow = ["git *"]
)");
  const std::string prog = box.CompileProgram("exec_spoofed_argv0.c");
  const std::string status = box.Write("ws/status", "rm would remove me");
  ProcessResult r = box.Run({prog});
  EXPECT_EQ(r.exit_code, 3) << Show(r);
  EXPECT_EQ(r.out, "errno=13\n") << Show(r);
  EXPECT_TRUE(Exists(status)) << "rm ran as `git status`";
  std::vector<std::string> lines = LinesFor(box, "/usr/bin/rm");
  ASSERT_EQ(lines.size(), 1u) << Dump(box);
  EXPECT_EQ(Field(lines[0], "rule"), "commands.unlisted") << lines[0];
  EXPECT_THAT(Field(lines[0], "message"), HasSubstr("`rm status`")) << lines[0];
  EXPECT_THAT(Field(lines[0], "message"), Not(HasSubstr("git"))) << lines[0];

  // argv[0] plays no part the other way either: git called "rm" is git.
  ProcessResult git = box.Run({prog, "reverse"});
  EXPECT_EQ(git.exit_code, 0) << Show(git);
  EXPECT_THAT(git.out, HasSubstr("git version")) << Show(git);
  EXPECT_EQ(box.AuditLines().size(), 1u) << Dump(box);
}

// --- 4. bare names and writable roots ----------------------------------------

TEST(ShimExec, AGitWrittenIntoTheWorkspaceDoesNotPassABareGitRule) {
  Sandbox box(R"(
extends = "workspace-write"
[commands]
allow = ["git *", "sh *"]
)");
  const std::string ws = box.ws();
  // A "git" that would create the file named by its argument.
  Copy("/usr/bin/touch", ws + "/git");
  MakeExecutable(ws + "/git");
  const std::string prog = box.CompileProgram("exec_as_git.c");
  ProcessResult r = box.Run({prog, ws + "/git", "pwned-execve"});
  EXPECT_EQ(r.exit_code, 3) << Show(r);
  EXPECT_EQ(r.out, "errno=13\n") << Show(r);
  EXPECT_FALSE(Exists(ws + "/pwned-execve")) << "the workspace git ran";
  std::vector<std::string> lines = LinesFor(box, ws + "/git");
  ASSERT_EQ(lines.size(), 1u) << Dump(box);
  EXPECT_EQ(Field(lines[0], "rule"), "commands.allow[0]") << lines[0];
  EXPECT_THAT(Field(lines[0], "message"), HasSubstr("writable root"))
      << lines[0];
  EXPECT_THAT(Field(lines[0], "message"), HasSubstr("bare name")) << lines[0];

  // Through the shell, by relative path and by a PATH that puts ws first.
  ProcessResult sh = box.Run(
      {"/bin/sh", "-c",
       "./git pwned-relative; PATH=\"$PWD:$PATH\" git pwned-path; exit 0"});
  EXPECT_FALSE(Exists(ws + "/pwned-relative")) << Show(sh);
  EXPECT_FALSE(Exists(ws + "/pwned-path")) << Show(sh);
  EXPECT_EQ(LinesFor(box, ws + "/git").size(), 3u) << Dump(box);

  // A symlink in the workspace to the real git is in a writable root too.
  ProcessResult ln =
      RunProcess({"/bin/ln", "-s", "/usr/bin/touch", ws + "/gitlink"});
  ASSERT_EQ(ln.exit_code, 0);
  ProcessResult via_link = box.Run({prog, ws + "/gitlink", "pwned-link"});
  EXPECT_EQ(via_link.out, "errno=13\n") << Show(via_link);
  EXPECT_FALSE(Exists(ws + "/pwned-link"));

  // The real git passes.
  ProcessResult real = box.Run({"/bin/sh", "-c", "git --version"});
  EXPECT_EQ(real.exit_code, 0) << Show(real) << Dump(box);
  EXPECT_THAT(real.out, HasSubstr("git version")) << Show(real);
  EXPECT_THAT(LinesFor(box, "/usr/bin/git"), IsEmpty()) << Dump(box);
}

TEST(ShimExec, AWorkspaceScriptNamedByItsAbsolutePathIsAllowed) {
  Sandbox box(R"(
extends = "workspace-write"
[commands]
allow = ["@WS@/tool *", "touch *"]
)");
  const std::string ws = box.ws();
  box.Write("ws/tool", "#!/bin/sh\ntouch \"$1\"\n");
  MakeExecutable(ws + "/tool");
  const std::string prog = box.CompileProgram("exec_as_tool.c");
  ProcessResult r = box.Run({prog, ws + "/tool", ws + "/made-by-tool"});
  EXPECT_EQ(r.exit_code, 0) << Show(r) << Dump(box);
  EXPECT_TRUE(Exists(ws + "/made-by-tool")) << Show(r) << Dump(box);
}

// --- 5. every exec entry point -----------------------------------------------

class ShimExecFamily : public ::testing::TestWithParam<const char*> {};

TEST_P(ShimExecFamily, RunsTheAllowedCommandAndRefusesTheDeniedOne) {
  const std::string api = GetParam();
  Sandbox box(R"(
extends = "workspace-write"
[commands]
allow = ["touch @WS@/ok-*", "sh -c touch @WS@/ok-*"]
)");
  const std::string prog = box.CompileProgram("exec_family.c");
  const std::string ws = box.ws();
  const std::string ok = ws + "/ok-" + api;
  const std::string no = ws + "/no-" + api;

  ProcessResult allowed = box.Run({prog, api, ok});
  EXPECT_EQ(allowed.exit_code, 0) << Show(allowed) << Dump(box);
  EXPECT_TRUE(Exists(ok)) << "the allowed command did not run\n"
                          << Show(allowed) << Dump(box);
  EXPECT_THAT(box.AuditLines(), IsEmpty()) << Dump(box);

  ProcessResult denied = box.Run({prog, api, no});
  EXPECT_FALSE(Exists(no)) << "the denied command ran\n"
                           << Show(denied) << Dump(box);
  EXPECT_EQ(denied.exit_code, 3) << Show(denied);
  std::vector<std::string> lines = LinesMentioning(box, no);
  ASSERT_THAT(lines, Not(IsEmpty())) << Dump(box);
  for (const std::string& line : lines) {
    EXPECT_EQ(Field(line, "verdict"), "deny") << line;
    EXPECT_EQ(Field(line, "rule"), "commands.unlisted") << line;
  }
  EXPECT_EQ(lines.size(), box.AuditLines().size()) << Dump(box);

  if (api == "system") {
    // Refused before any shell runs: as though the shell could not be run.
    EXPECT_EQ(denied.out, "system=32512\n") << Show(denied);
    EXPECT_EQ(Field(lines[0], "target"), "/usr/bin/sh") << lines[0];
    EXPECT_EQ(Field(lines[0], "op"), "system") << lines[0];
    EXPECT_THAT(Field(lines[0], "message"), HasSubstr("`sh -c touch " + no))
        << lines[0];
  } else if (api == "popen") {
    EXPECT_EQ(denied.out, "errno=13\n") << Show(denied);
    EXPECT_EQ(Field(lines[0], "target"), "/usr/bin/sh") << lines[0];
    EXPECT_EQ(Field(lines[0], "op"), "popen") << lines[0];
  } else {
    EXPECT_EQ(denied.out, "errno=13\n") << Show(denied);
    EXPECT_EQ(Field(lines[0], "target"), "/usr/bin/touch") << lines[0];
    EXPECT_THAT(Field(lines[0], "message"), HasSubstr("`touch " + no + "`"))
        << lines[0];
    std::string op = api == "execveat-empty-path" ? "execveat"
                     : api == "vfork"             ? "execv"
                                                  : api;
    EXPECT_EQ(Field(lines[0], "op"), op) << lines[0];
  }
}

INSTANTIATE_TEST_SUITE_P(EveryEntryPoint, ShimExecFamily,
                         ::testing::Values("execve", "execv", "execvp",
                                           "execvpe", "execl", "execle",
                                           "execlp", "fexecve", "execveat",
                                           "execveat-empty-path", "vfork",
                                           "posix_spawn", "posix_spawnp",
                                           "system", "popen"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           std::string name;
                           for (const char* c = info.param; *c; ++c) {
                             name += (*c == '-' || *c == '_') ? '_' : *c;
                           }
                           return name;
                         });

TEST(ShimExec, ACommandASystemShellRunsIsJudgedAgainInsideTheShell) {
  // The shell is admitted as a whole, the command it then runs is not.
  Sandbox box(R"(
extends = "workspace-write"
[commands]
allow = ["sh *"]
)");
  const std::string prog = box.CompileProgram("exec_family.c");
  const std::string no = box.ws() + "/no-inner";
  for (const char* api : {"system", "popen"}) {
    ProcessResult r = box.Run({prog, api, no});
    EXPECT_EQ(r.exit_code, 3) << api << "\n" << Show(r);
    EXPECT_FALSE(Exists(no)) << api;
  }
  std::vector<std::string> lines = LinesFor(box, "/usr/bin/touch");
  ASSERT_THAT(lines, Not(IsEmpty())) << Dump(box);
  // Refused by the shell's own shim, not by the program's system().
  EXPECT_NE(Field(lines[0], "exe"), prog) << lines[0];
  EXPECT_THAT(Field(lines[0], "exe"), HasSubstr("sh")) << lines[0];
  EXPECT_EQ(Field(lines[0], "op"), "execve") << lines[0];
}

// --- 6. interpreters ---------------------------------------------------------

TEST(ShimExec, AScriptWhoseInterpreterLiesOutsideEveryReadableRootIsRefused) {
  Sandbox box(R"(
extends = "read-only"
[filesystem]
workspace_writable = true
)");
  const std::string outside_sh = box.Path("outside/sh");
  box.Write("outside/.keep", "");
  Copy("/usr/bin/dash", outside_sh);
  MakeExecutable(outside_sh);
  // The copy works as a shell: a refusal is the policy's, not a broken file.
  ProcessResult works = RunProcess({outside_sh, "-c", "exit 7"});
  ASSERT_EQ(works.exit_code, 7) << Show(works);

  const std::string ws = box.ws();
  box.Write("ws/evil.sh",
            "#!" + outside_sh + "\ntouch " + ws + "/evil-marker\n");
  box.Write("ws/good.sh", "#!/bin/sh\ntouch " + ws + "/good-marker\n");
  MakeExecutable(ws + "/evil.sh");
  MakeExecutable(ws + "/good.sh");

  ProcessResult r = box.Run({"/bin/sh", "-c", "./evil.sh; ./good.sh"});
  EXPECT_FALSE(Exists(ws + "/evil-marker")) << Show(r) << Dump(box);
  EXPECT_TRUE(Exists(ws + "/good-marker")) << Show(r) << Dump(box);
  EXPECT_THAT(r.err, HasSubstr("Permission denied")) << Show(r);
  std::vector<std::string> lines = LinesFor(box, outside_sh);
  ASSERT_EQ(lines.size(), 1u) << Dump(box);
  EXPECT_EQ(Field(lines[0], "access"), "exec") << lines[0];
  EXPECT_EQ(Field(lines[0], "rule"), "filesystem.unlisted") << lines[0];
  EXPECT_EQ(box.AuditLines().size(), 1u) << Dump(box);

  // Run directly as well, by execve from a C program.
  const std::string prog = box.CompileProgram("exec_script.c");
  ProcessResult direct = box.Run({prog, ws + "/evil.sh"});
  EXPECT_EQ(direct.exit_code, 3) << Show(direct);
  EXPECT_EQ(direct.out, "errno=13\n") << Show(direct);
  EXPECT_FALSE(Exists(ws + "/evil-marker"));
  EXPECT_EQ(LinesFor(box, outside_sh).size(), 2u) << Dump(box);
}

TEST(ShimExec, AnExecutableOutsideEveryReadableRootIsRefused) {
  Sandbox box(R"(
extends = "read-only"
[filesystem]
workspace_writable = true
)");
  const std::string outside = box.Path("outside/touch");
  box.Write("outside/.keep", "");
  Copy("/usr/bin/touch", outside);
  MakeExecutable(outside);
  const std::string ws = box.ws();
  ProcessResult r =
      box.Run({"/bin/sh", "-c", outside + " " + ws + "/outside-marker"});
  EXPECT_NE(r.exit_code, 0) << Show(r);
  EXPECT_FALSE(Exists(ws + "/outside-marker"));
  std::vector<std::string> lines = LinesFor(box, outside);
  ASSERT_EQ(lines.size(), 1u) << Dump(box);
  EXPECT_EQ(Field(lines[0], "rule"), "filesystem.unlisted") << lines[0];
}

// --- 7. ordinary work --------------------------------------------------------

TEST(ShimExec, PythonImportsAndASubprocessRunWithoutAnyRefusal) {
  Sandbox box(R"(extends = "workspace-write")");
  ProcessResult r =
      box.Run({"/usr/bin/python3", "-c",
               "import json, email, http.client, sqlite3, subprocess; "
               "r = subprocess.run(['true']); "
               "print('rc', r.returncode, json.dumps({'a': 1}))"});
  EXPECT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_EQ(r.out, "rc 0 {\"a\": 1}\n") << Show(r);
  EXPECT_EQ(r.err, "") << Show(r);
  EXPECT_THAT(box.AuditLines(), IsEmpty()) << Dump(box);
}

TEST(ShimExec, GitInitAddAndCommitInTheWorkspaceRunWithoutAnyRefusal) {
  Sandbox box(R"(extends = "workspace-write")");
  ProcessOptions options;
  options.extra_env = {"GIT_AUTHOR_NAME=Klaunch Test",
                       "GIT_AUTHOR_EMAIL=test@example.org",
                       "GIT_COMMITTER_NAME=Klaunch Test",
                       "GIT_COMMITTER_EMAIL=test@example.org"};
  box.Write("ws/hello.txt", "hello\n");
  ProcessResult r = box.Run(
      {"/bin/sh", "-c",
       "/usr/bin/git init -q && /usr/bin/git add hello.txt && "
       "/usr/bin/git commit -q -m 'first commit' && "
       "/usr/bin/git log --format=%s && /usr/bin/git status --porcelain"},
      options);
  EXPECT_EQ(r.exit_code, 0) << Show(r) << Dump(box);
  EXPECT_EQ(r.out, "first commit\n") << Show(r);
  EXPECT_TRUE(Exists(box.ws() + "/.git/HEAD"));
  EXPECT_THAT(box.AuditLines(), IsEmpty()) << Dump(box);
}

TEST(ShimExec, ShellPipelinesRunWithoutAnyRefusal) {
  Sandbox box(R"(extends = "workspace-write")");
  ProcessResult r =
      box.Run({"/bin/sh", "-c",
               "printf 'b\\na\\nb\\n' | sort | uniq -c | sort -rn | head -n 1 "
               "| tr -s ' ' > counts.txt && cat counts.txt && "
               "ls | wc -l && echo done $(echo x | tr x y) | cat"});
  EXPECT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_EQ(r.out, " 2 b\n1\ndone y\n") << Show(r);
  EXPECT_EQ(r.err, "") << Show(r);
  EXPECT_THAT(box.AuditLines(), IsEmpty()) << Dump(box);
}

// --- 8. threads --------------------------------------------------------------

TEST(ShimExec, EightThreadsForkingAndExecingAtOnceGetEveryDecisionRight) {
  Sandbox box(R"(
extends = "workspace-write"
[commands]
allow = ["touch @WS@/ok-*"]
)");
  const std::string prog = box.CompileProgram("exec_threads.c", {"-pthread"});
  const std::string ws = box.ws();
  ProcessOptions options;
  options.timeout_seconds = 25;
  ProcessResult r = box.Run({prog, ws}, options);
  EXPECT_EQ(r.exit_code, 0) << Show(r) << Dump(box);
  EXPECT_EQ(r.out, "failures 0\n") << Show(r);
  int denied_lines = 0;
  for (int t = 0; t < 8; ++t) {
    for (int i = 0; i < 6; ++i) {
      const std::string suffix = std::to_string(t) + "-" + std::to_string(i);
      EXPECT_TRUE(Exists(ws + "/ok-" + suffix)) << suffix;
      EXPECT_TRUE(Exists(ws + "/ok-spawn-" + suffix)) << suffix;
      EXPECT_FALSE(Exists(ws + "/no-" + suffix)) << suffix;
      EXPECT_FALSE(Exists(ws + "/no-spawn-" + suffix)) << suffix;
      denied_lines += static_cast<int>(
          LinesMentioning(box, ws + "/no-" + suffix + "`").size() +
          LinesMentioning(box, ws + "/no-spawn-" + suffix + "`").size());
    }
  }
  EXPECT_EQ(denied_lines, 8 * 6 * 2) << Dump(box);
  EXPECT_EQ(box.AuditLines().size(), 8u * 6u * 2u) << Dump(box);
}

}  // namespace
}  // namespace klaunch::testing

namespace klaunch::testing {
namespace {

TEST(ShimExec, SystemRunsItsShellUnderTheShimWhateverTheProgramDidToLdPreload) {
  Sandbox box(
      "extends = \"read-only\"\n[filesystem]\nworkspace_writable = true\n"
      "deny = [\"@ROOT@/secret\"]\n");
  box.Write("secret", "TOPSECRET\n");
  const std::string prog = box.CompileProgram("system_prefixed_preload.c");
  ProcessResult r = box.Run({prog, box.Path("secret")});
  EXPECT_THAT(r.out, Not(HasSubstr("TOPSECRET"))) << Show(r);
  EXPECT_THAT(box.RefusedTargets(), Contains(box.Path("secret"))) << Dump(box);
}

}  // namespace
}  // namespace klaunch::testing

namespace klaunch::testing {
namespace {

TEST(ShimExec, PosixSpawnFileActionsAreJudgedLikeOpens) {
  Sandbox box(
      "extends = \"read-only\"\n[filesystem]\nworkspace_writable = true\n"
      "deny = [\"@ROOT@/secret\"]\n");
  box.Write("secret", "TOPSECRET\n");
  box.Write("ws/ok.txt", "fine\n");
  const std::string prog = box.CompileProgram("spawn_file_actions.c");
  const std::string outside = box.Path("made-by-spawn");
  ProcessResult r = box.Run({prog, box.Path("secret"), outside});
  EXPECT_THAT(r.out, Not(HasSubstr("TOPSECRET"))) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("fine\n")) << Show(r);
  EXPECT_THAT(r.out, HasSubstr("secret=13 outside=13 ok=0\n")) << Show(r);
  EXPECT_FALSE(Exists(outside));
}

}  // namespace
}  // namespace klaunch::testing

namespace klaunch::testing {
namespace {

TEST(ShimExec, ADenyRuleHoldsThroughLinkChainsInterpretersAndTheLoader) {
  Sandbox box(
      "extends = \"read-only\"\n[filesystem]\nworkspace_writable = true\n"
      "[commands]\nunlisted = \"allow\"\ndeny = [\"python3 *\", \"rm *\"]\n");
  box.Write("ws/victim", "still here\n");
  // A chain: ws/mypy -> /usr/bin/python3 -> python3.11.
  RunProcess({"/bin/ln", "-s", "/usr/bin/python3", box.Path("ws/mypy")});
  box.Write("ws/rmscript", "#!/bin/rm\n");
  RunProcess({"/bin/chmod", "755", box.Path("ws/rmscript")});
  ProcessResult r =
      box.Run({"/bin/sh", "-c",
               "./mypy -c 'print(\"chain-ran\")'; ./rmscript victim; "
               "/lib64/ld-linux-x86-64.so.2 /usr/bin/python3 -c "
               "'print(\"loader-ran\")'; "
               "true"});
  EXPECT_THAT(r.out, Not(HasSubstr("chain-ran"))) << Show(r);
  EXPECT_THAT(r.out, Not(HasSubstr("loader-ran"))) << Show(r);
  EXPECT_TRUE(Exists(box.Path("ws/victim"))) << Show(r);
  EXPECT_GE(LinesMentioning(box, "commands.deny").size(), 3u) << Dump(box);
}

}  // namespace
}  // namespace klaunch::testing
