// --ask through a real pseudo-terminal: klaunch puts an unlisted command to
// the person at the terminal, and the answer decides.

#include <glob.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sstream>
#include <string>
#include <vector>

#include "tests/run_process.h"

namespace klaunch::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Dirname(const std::string& path) {
  return path.substr(0, path.rfind('/'));
}

struct PtyRun {
  std::string screen;
  int exit_code = -1;
};

// Runs argv on a new pty; whenever the screen shows `prompt`, types the next
// answer, but none before the screen shows `hold_until` (when given). Gives
// up after 20 s.
PtyRun RunOnPty(const std::vector<std::string>& argv,
                std::vector<std::string> env, const std::string& cwd,
                const std::string& prompt, std::vector<std::string> answers,
                const std::string& hold_until = "") {
  AddLandlockCap(&env);
  PtyRun result;
  int master = -1;
  pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  if (pid == 0) {
    std::vector<char*> a, e;
    for (const std::string& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    for (const std::string& s : env) e.push_back(const_cast<char*>(s.c_str()));
    e.push_back(nullptr);
    if (chdir(cwd.c_str()) != 0) _exit(99);
    execve(a[0], a.data(), e.data());
    _exit(98);
  }
  const time_t deadline = time(nullptr) + 20;
  size_t answered_upto = 0;
  while (time(nullptr) < deadline) {
    pollfd p = {master, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    char buf[4096];
    ssize_t n = read(master, buf, sizeof(buf));
    if (n <= 0) break;  // EIO once the last process on the pty is gone
    result.screen.append(buf, n);
    size_t at = result.screen.find(prompt, answered_upto);
    if (at != std::string::npos && !answers.empty() &&
        result.screen.find(hold_until) != std::string::npos) {
      const std::string answer = answers.front() + "\r";
      answers.erase(answers.begin());
      ssize_t ignored = write(master, answer.data(), answer.size());
      (void)ignored;
      answered_upto = at + prompt.size();
    }
  }
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  close(master);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

class Ask : public ::testing::Test {
 protected:
  void SetUp() override {
    RunProcess({"/bin/mkdir", "-p", dir_.Path("ws"), dir_.Path("state")});
    policy_ = dir_.Write("p.toml", "[commands]\nallow = [\"sh *\"]\n");
  }
  std::vector<std::string> Env() const {
    return {"PATH=/usr/bin:/bin", "HOME=" + dir_.path(), "TERM=dumb",
            "XDG_STATE_HOME=" + dir_.Path("state")};
  }
  PtyRun Answer(const std::string& answer, const std::string& marker) {
    return RunOnPty({RequiredEnv("KLAUNCH_BIN"), "--ask", "--policy", policy_,
                     "--log", Log(), "--", "/bin/sh", "-c",
                     "/usr/bin/touch " + marker + "; echo finished"},
                    Env(), dir_.Path("ws"), "Allow it once? [Y/n] ", {answer});
  }
  std::string Log() const { return dir_.Path("audit.jsonl"); }
  TempDir dir_;
  std::string policy_;
};

TEST_F(Ask, AnUnlistedCommandAnsweredYesRunsOnce) {
  const std::string marker = dir_.Path("ws/yes");
  PtyRun r = Answer("y", marker);
  EXPECT_THAT(r.screen, HasSubstr("wants to run `touch " + marker + "`"));
  EXPECT_THAT(r.screen, HasSubstr("finished"));
  EXPECT_TRUE(Exists(marker)) << r.screen;
  EXPECT_EQ(r.exit_code, 0) << r.screen;
  // The yes is in the log, as a refusal would be.
  const std::string log = ReadFile(Log());
  EXPECT_THAT(log, HasSubstr("\"access\":\"exec\",\"verdict\":\"allow\","
                             "\"rule\":\"terminal\""));
  EXPECT_THAT(log, HasSubstr("admitted at the terminal, once"));
  EXPECT_THAT(log, HasSubstr("\"command\":\"touch " + marker + "\""));
}

TEST_F(Ask, AnEmptyAnswerIsYes) {
  const std::string marker = dir_.Path("ws/empty");
  PtyRun r = Answer("", marker);
  EXPECT_TRUE(Exists(marker)) << r.screen;
}

TEST_F(Ask, AnUnlistedCommandAnsweredNoIsRefused) {
  const std::string marker = dir_.Path("ws/no");
  PtyRun r = Answer("n", marker);
  EXPECT_THAT(r.screen, HasSubstr("Allow it once?"));
  EXPECT_FALSE(Exists(marker)) << r.screen;
  EXPECT_THAT(ReadFile(Log()), HasSubstr("refused at the terminal"));
  EXPECT_THAT(ReadFile(Log()), HasSubstr("\"command\":\"touch " + marker));
}

TEST_F(Ask, WithoutATerminalAskingRefusesAndSaysWhy) {
  const std::string marker = dir_.Path("ws/none");
  ProcessOptions o;
  o.cwd = dir_.Path("ws");
  o.env = Env();
  // setsid: no controlling terminal at all.
  ProcessResult r =
      RunProcess({"/usr/bin/setsid", "-w", RequiredEnv("KLAUNCH_BIN"), "--ask",
                  "--policy", policy_, "--log", Log(), "--", "/bin/sh", "-c",
                  "/usr/bin/touch " + marker},
                 o);
  EXPECT_FALSE(Exists(marker));
  EXPECT_THAT(r.err, HasSubstr("no terminal"));
  EXPECT_THAT(ReadFile(Log()), HasSubstr("asking needs a terminal"));
  EXPECT_THAT(ReadFile(Log()), HasSubstr("\"command\":\"touch " + marker));
  EXPECT_THAT(r.err, Not(HasSubstr("Allow it once?")));
}

// A question too long to put (its request over the limit the server
// reads) is refused unasked: cut short, it would ask about a command line
// that is not the one that runs.
TEST_F(Ask, ACommandLineTooLongToAskIsRefusedUnasked) {
  const std::string marker = dir_.Path("ws/long");
  std::string line = "/usr/bin/touch " + marker;
  for (int i = 0; i < 50; ++i) line += " nodir/" + std::string(200, 'a');
  PtyRun r = RunOnPty(
      {RequiredEnv("KLAUNCH_BIN"), "--ask", "--policy", policy_, "--log", Log(),
       "--", "/bin/sh", "-c", line + "; echo finished"},
      Env(), dir_.Path("ws"), "? [Y/n] ", {"y"});
  EXPECT_THAT(r.screen, HasSubstr("finished"));
  EXPECT_THAT(r.screen, Not(HasSubstr("Allow it once?")));
  EXPECT_FALSE(Exists(marker)) << r.screen;
  EXPECT_THAT(ReadFile(Log()),
              HasSubstr("not asked: the question is too long"));
}

// filesystem.unlisted_writes = "ask": a read-only workspace, so every write
// there is outside the write roots; `secret` is under a deny entry. The
// toucher (tests/programs/toucher.c) is built static, so its writes reach
// the seccomp supervisor rather than the shim.
class AskedWrites : public ::testing::Test {
 protected:
  static constexpr char kPrompt[] =
      "Allow writing it for the rest of the run? [y/N] ";
  void SetUp() override {
    RunProcess({"/bin/mkdir", "-p", dir_.Path("ws/bin"), dir_.Path("state")});
    const std::string src = RequiredEnv("KLAUNCH_TEST_PROGRAMS") + "/toucher.c";
    ProcessResult s = RunProcess(
        {"/usr/bin/gcc", "-O1", "-static", "-no-pie", "-o", Static(), src});
    ASSERT_EQ(s.exit_code, 0) << s.err;
    ProcessResult d = RunProcess({"/usr/bin/gcc", "-O1", "-o", Dynamic(), src});
    ASSERT_EQ(d.exit_code, 0) << d.err;
    policy_ = dir_.Write("p.toml",
                         "extends = \"read-only\"\n[filesystem]\n"
                         "unlisted_writes = \"ask\"\ndeny = [\"" +
                             Ws("secret") + "\"]\n");
  }
  std::string Ws(const std::string& name) const {
    return dir_.Path("ws/" + name);
  }
  std::string Static() const { return Ws("bin/toucher-static"); }
  std::string Dynamic() const { return Ws("bin/toucher"); }
  std::vector<std::string> Env() const {
    return {"PATH=/usr/bin:/bin", "HOME=" + dir_.path(), "TERM=dumb",
            "XDG_STATE_HOME=" + dir_.Path("state")};
  }
  PtyRun Run(const std::vector<std::string>& command,
             std::vector<std::string> answers,
             const std::vector<std::string>& options = {},
             const std::string& hold_until = "") {
    std::vector<std::string> argv = {RequiredEnv("KLAUNCH_BIN"), "--policy",
                                     policy_, "--log", Log()};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back("--");
    argv.insert(argv.end(), command.begin(), command.end());
    return RunOnPty(argv, Env(), dir_.Path("ws"), kPrompt, std::move(answers),
                    hold_until);
  }
  std::string Log() const { return dir_.Path("audit.jsonl"); }
  // Whether klaunch keeps a cgroup per chain of program sections here (it
  // needs a writable cgroup): without one, the supervisor judges and asks
  // for every process as for CMD (SECURITY.md).
  bool KeepsChainCgroups() const {
    const std::string policy =
        dir_.Write("probe.toml",
                   "extends = \"read-only\"\n[programs.\"tee\"]\n"
                   "filesystem.write = []\n");
    const std::string log = dir_.Path("probe.jsonl");
    ProcessOptions o;
    o.env = Env();
    o.cwd = dir_.Path("ws");
    RunProcess({RequiredEnv("KLAUNCH_BIN"), "--policy", policy, "--log", log,
                "--", "/bin/true"},
               o);
    return ReadFile(log).find("a cgroup per chain") != std::string::npos;
  }
  static size_t Count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos;
         at = text.find(what, at + what.size())) {
      ++n;
    }
    return n;
  }
  TempDir dir_;
  std::string policy_;
};

TEST_F(AskedWrites, AYesAdmitsThatPathForTheRestOfTheRunAskingOnce) {
  const std::string out = Ws("out");
  // The shell's own redirections (the shim), then a static program (the
  // supervisor) appending to the same path: one question in all.
  PtyRun r = Run({"/bin/sh", "-c",
                  "echo one > " + out + "; echo two >> " + out + "; " +
                      Static() + " append:" + out + "; echo finished"},
                 {"y"});
  EXPECT_THAT(r.screen, HasSubstr("wants to write " + out + " (open)"));
  EXPECT_EQ(Count(r.screen, kPrompt), 1u) << r.screen;
  EXPECT_THAT(r.screen, HasSubstr("append " + out + ": ok")) << r.screen;
  EXPECT_THAT(r.screen, HasSubstr("finished"));
  EXPECT_EQ(ReadFile(out).substr(0, 8), "one\ntwo\n");
  EXPECT_EQ(r.exit_code, 0) << r.screen;
}

// Static programs' questions wait in the supervisor, one shown at a time,
// the rest behind it. Six of them waiting at once (more than the threads
// the supervisor starts with) must not hold up a seventh program that asks
// nothing: none is answered until it has run.
TEST_F(AskedWrites, QuestionsAwaitingAnAnswerHoldUpNoOtherCall) {
  const std::string readme = dir_.Write("ws/readme", "x");
  std::string script;
  for (int i = 0; i < 6; ++i) {
    script += Static() + " create:" + Ws("q" + std::to_string(i)) + " & ";
  }
  // Time for the six to reach their questions; were they slower, the
  // seventh would merely run unhindered sooner.
  script += "sleep 2; " + Static() + " read:" + readme +
            " && echo bystander-done; wait";
  PtyRun r = Run({"/bin/sh", "-c", script}, std::vector<std::string>(6, "n"),
                 {}, "bystander-done");
  EXPECT_THAT(r.screen, HasSubstr("read " + readme + ": ok")) << r.screen;
  EXPECT_THAT(r.screen, HasSubstr("bystander-done"));
  EXPECT_EQ(Count(r.screen, kPrompt), 6u) << r.screen;
  for (int i = 0; i < 6; ++i) {
    EXPECT_FALSE(Exists(Ws("q" + std::to_string(i)))) << r.screen;
  }
  EXPECT_EQ(r.exit_code, 0) << r.screen;
}

TEST_F(AskedWrites, ANoLeavesNoFileBehindAndIsRecorded) {
  const std::string no = Ws("no");
  PtyRun r = Run({Static(), "create:" + no}, {"n"});
  EXPECT_THAT(r.screen, HasSubstr("wants to write " + no));
  EXPECT_THAT(r.screen, HasSubstr("create " + no + ": error")) << r.screen;
  EXPECT_FALSE(Exists(no));
  const std::string log = ReadFile(Log());
  EXPECT_THAT(log, HasSubstr("refused at the terminal"));
  EXPECT_THAT(log, HasSubstr("\"target\":\"" + no + "\""));
  EXPECT_THAT(log, HasSubstr("\"layer\":\"seccomp\""));
}

TEST_F(AskedWrites, AnEmptyAnswerIsNo) {
  const std::string empty = Ws("empty");
  PtyRun r =
      Run({"/bin/sh", "-c", "echo x > " + empty + "; echo finished"}, {""});
  EXPECT_THAT(r.screen, HasSubstr("wants to write " + empty));
  EXPECT_THAT(r.screen, HasSubstr("finished"));
  EXPECT_FALSE(Exists(empty));
  EXPECT_THAT(ReadFile(Log()), HasSubstr("\"layer\":\"shim\""));
}

TEST_F(AskedWrites, ADenyEntryKlaunchsOwnFilesAndAReadAreNeverAsked) {
  // Were any asked, the "y" typed at every prompt would let it through.
  const std::string secret = Ws("secret");
  // A file that exists, outside every read root.
  const std::string outside = dir_.Write("outside.txt", "not yours\n");
  // The run directory (effective policy, question socket), which the
  // program can name: KLAUNCH_POLICY_FILE is in its environment.
  const std::string policy = "\"$KLAUNCH_POLICY_FILE\"";
  const std::string run = "\"$(dirname \"$KLAUNCH_POLICY_FILE\")\"";
  PtyRun r = Run(
      {"/bin/sh", "-c",
       "echo x > " + secret + "; echo forged >> " + Log() +
           "; echo forged >> " + policy + "; echo forged > " + run +
           "/forged; cat " + outside + "; " + Static() + " create:" + secret +
           " append:" + Log() + " read:" + outside + " append:" + policy +
           " create:" + run + "/forged-too; echo finished"},
      {"y", "y", "y", "y", "y", "y", "y", "y", "y"});
  EXPECT_THAT(r.screen, HasSubstr("finished"));
  EXPECT_THAT(r.screen, Not(HasSubstr("wants to write")));
  EXPECT_FALSE(Exists(secret));
  EXPECT_THAT(r.screen, HasSubstr("read " + outside + ": error Permission"));
  EXPECT_THAT(r.screen, Not(HasSubstr("not yours")));
  EXPECT_THAT(r.screen, HasSubstr("/policy.toml: error Permission"));
  EXPECT_THAT(r.screen, HasSubstr("/forged-too: error Permission"));
  const std::string log = ReadFile(Log());
  EXPECT_THAT(log, HasSubstr("filesystem.deny"));
  EXPECT_THAT(log, Not(HasSubstr("\nforged")));  // (the command line names it)
  // Nothing reached the run directory.
  glob_t found;
  ASSERT_EQ(glob(dir_.Path("state/klaunch/runs/*/policy.toml").c_str(), 0,
                 nullptr, &found),
            0);
  ASSERT_EQ(found.gl_pathc, 1u);
  const std::string run_dir = Dirname(found.gl_pathv[0]);
  globfree(&found);
  EXPECT_THAT(ReadFile(run_dir + "/policy.toml"), Not(HasSubstr("forged")));
  EXPECT_FALSE(Exists(run_dir + "/forged"));
  EXPECT_FALSE(Exists(run_dir + "/forged-too"));
}

// A name chosen by the program must not make the question read as another:
// a newline (which could forge a field of the request) is not asked about
// at all, an escape sequence is shown escaped.
TEST_F(AskedWrites, ANameCannotDisguiseTheQuestion) {
  PtyRun r =
      Run({"/bin/sh", "-c",
           "f=$(printf '" + Ws("evil") +
               "\\nfile=fine'); echo x > \"$f\"; g=$(printf '" + Ws("esc") +
               "\\033[2Jx'); echo x > \"$g\"; echo finished"},
          {"n", "n"});
  EXPECT_THAT(r.screen, HasSubstr("finished"));
  EXPECT_EQ(Count(r.screen, kPrompt), 1u) << r.screen;  // the escape's only
  EXPECT_THAT(r.screen, Not(HasSubstr("wants to write " + Ws("evil"))));
  const size_t at = r.screen.find("wants to write " + Ws("esc"));
  ASSERT_NE(at, std::string::npos) << r.screen;
  const std::string question =
      r.screen.substr(at, r.screen.find(kPrompt, at) - at);
  EXPECT_THAT(question, HasSubstr(Ws("esc") + "\\x1b[2Jx"));
  EXPECT_THAT(question, Not(HasSubstr("\x1b")));
  EXPECT_FALSE(Exists(Ws("evil\nfile=fine")));
  EXPECT_THAT(ReadFile(Log()),
              HasSubstr("not asked: the name holds a newline"));
}

// The executable's name is the program's to choose: one holding newlines
// and fields of the request cannot make the question name another process.
TEST_F(AskedWrites, AProgramsOwnNameCannotForgeWhoAsks) {
  const std::string forged = Ws("a\npid=1\nexe=/usr/bin/git");
  RunProcess({"/bin/mkdir", "-p", Ws("a\npid=1\nexe=/usr/bin")});
  RunProcess({"/bin/cp", "/bin/dash", forged});
  const std::string out = Ws("out");
  PtyRun r = Run({forged, "-c", "echo x > " + out + "; echo finished"}, {"y"});
  EXPECT_THAT(r.screen, HasSubstr("finished"));
  EXPECT_THAT(r.screen, Not(HasSubstr("pid 1 (")));
  EXPECT_THAT(r.screen, Not(HasSubstr("(/usr/bin/git)")));
  EXPECT_FALSE(Exists(out)) << r.screen;
  EXPECT_THAT(ReadFile(Log()),
              HasSubstr("not asked: the name holds a newline"));
}

// The program shares the terminal klaunch asks on. Pushing "y" into its
// input (TIOCSTI, allowed to any process on Debian 12's kernel and to root
// on every kernel) must not answer its own question.
TEST_F(AskedWrites, AProgramCannotAnswerItsOwnQuestion) {
  const std::string pushed = Ws("pushed");
  PtyRun r =
      Run({Static(), "tiocsti:y", "tiocsti64:y", "create:" + pushed}, {"n"});
  EXPECT_THAT(r.screen, HasSubstr("tiocsti y: error Operation not permitted"));
  EXPECT_THAT(r.screen,
              HasSubstr("tiocsti64 y: error Operation not permitted"));
  EXPECT_THAT(r.screen, HasSubstr("wants to write " + pushed));
  EXPECT_THAT(r.screen, HasSubstr("create " + pushed + ": error")) << r.screen;
  EXPECT_FALSE(Exists(pushed));
  EXPECT_THAT(ReadFile(Log()), HasSubstr("refused at the terminal"));
}

// Without the seccomp layer nothing refuses TIOCSTI; what was pushed before
// the question is thrown away, and only what is typed after it answers.
TEST_F(AskedWrites, InputPushedBeforeTheQuestionDoesNotAnswerIt) {
  const std::string pushed = Ws("pushed");
  PtyRun r = Run({Dynamic(), "tiocsti:y", "create:" + pushed}, {"n"},
                 {"--no-seccomp"});
  EXPECT_THAT(r.screen, HasSubstr("tiocsti y: ok"));  // it was pushed
  EXPECT_THAT(r.screen, HasSubstr("wants to write " + pushed));
  EXPECT_THAT(r.screen, HasSubstr("create " + pushed + ": error")) << r.screen;
  EXPECT_FALSE(Exists(pushed));
}

// An open for reading and writing of a file the policy never lets the
// program read: a yes would admit the read as well (and where Landlock
// still refuses the read, the open failed after the yes, having created
// the file). It is refused unasked; an open for writing only is asked.
TEST_F(AskedWrites, AReadWriteOpenOutsideTheReadRootsIsRefusedUnasked) {
  RunProcess({"/bin/mkdir", "-p", dir_.Path("outside")});
  const std::string by_static = dir_.Path("outside/static");
  const std::string by_shim = dir_.Path("outside/shim");
  const std::string write_only = dir_.Path("outside/write-only");
  PtyRun r = Run(
      {"/bin/sh", "-c",
       Static() + " rdwr:" + by_static + "; " + Dynamic() + " rdwr:" + by_shim +
           " create:" + write_only + "; echo finished"},
      {"y", "y", "y"});
  EXPECT_THAT(r.screen, HasSubstr("finished"));
  for (const std::string& path : {by_static, by_shim}) {
    EXPECT_THAT(r.screen, HasSubstr("rdwr " + path + ": error Permission"));
    EXPECT_THAT(r.screen, Not(HasSubstr("wants to write " + path)));
    EXPECT_FALSE(Exists(path)) << r.screen;
  }
  EXPECT_THAT(r.screen, HasSubstr("wants to write " + write_only));
  EXPECT_TRUE(Exists(write_only)) << r.screen;
  const std::string log = ReadFile(Log());
  EXPECT_THAT(log, HasSubstr("reads are never asked about"));
  EXPECT_THAT(log, HasSubstr("\"layer\":\"seccomp\""));
  EXPECT_THAT(log, HasSubstr("\"layer\":\"shim\""));
}

// A yes holds for the chain of program sections it was given under: the
// agent's yes is not one for a tool whose section narrows it, asked by the
// shim (tee) or by the supervisor (a static program).
TEST_F(AskedWrites, AYesGivenToTheAgentIsNoYesInsideASection) {
  if (!KeepsChainCgroups()) {
    GTEST_SKIP() << "klaunch keeps no cgroup per chain here: the supervisor "
                    "asks for a process inside a section as for CMD";
  }
  RunProcess({"/bin/cp", Static(), Ws("bin/sectioned")});
  policy_ = dir_.Write(
      "sections.toml",
      "extends = \"read-only\"\n[filesystem]\nunlisted_writes = \"ask\"\n"
      "[programs.\"tee\"]\nfilesystem.write = []\n"
      "filesystem.unlisted_writes = \"ask\"\n"
      "[programs.\"sectioned\"]\nfilesystem.write = []\n"
      "filesystem.unlisted_writes = \"ask\"\n");
  const std::string out = Ws("out");
  PtyRun r = Run({"/bin/sh", "-c",
                  "echo one > " + out + "; echo two | tee -a " + out + "; " +
                      Ws("bin/sectioned") + " append:" + out +
                      "; echo three >> " + out + "; echo finished"},
                 {"y", "n", "n"});
  EXPECT_THAT(r.screen, HasSubstr("finished"));
  EXPECT_EQ(Count(r.screen, kPrompt), 3u) << r.screen;
  EXPECT_THAT(r.screen, HasSubstr("in programs.\"tee\" wants to write " + out));
  EXPECT_THAT(r.screen,
              HasSubstr("in programs.\"sectioned\" wants to write " + out));
  EXPECT_THAT(r.screen, HasSubstr("append " + out + ": error"));
  EXPECT_EQ(ReadFile(out), "one\nthree\n");  // the agent's, unasked again
}

// A section that names its own write roots refuses the writes they do not
// admit without asking, unless it says it asks itself.
TEST_F(AskedWrites, ASectionThatNamesItsWritesRefusesUnlistedOnesUnasked) {
  if (!KeepsChainCgroups()) {
    GTEST_SKIP() << "klaunch keeps no cgroup per chain here: the supervisor "
                    "asks for a process inside a section as for CMD";
  }
  RunProcess({"/bin/cp", Static(), Ws("bin/quiet")});
  policy_ = dir_.Write(
      "sections.toml",
      "extends = \"read-only\"\n[filesystem]\nunlisted_writes = \"ask\"\n"
      "[programs.\"tee\"]\nfilesystem.write = []\n"
      "[programs.\"quiet\"]\nfilesystem.write = []\n");
  const std::string out = Ws("out");
  PtyRun r = Run({"/bin/sh", "-c",
                  "echo one > " + out + "; echo two | tee -a " + out + "; " +
                      Ws("bin/quiet") + " append:" + out +
                      " create:" + Ws("other") + "; echo finished"},
                 {"y", "y", "y", "y"});
  EXPECT_THAT(r.screen, HasSubstr("finished"));
  EXPECT_EQ(Count(r.screen, kPrompt), 1u) << r.screen;  // the agent's
  EXPECT_THAT(r.screen, HasSubstr("append " + out + ": error"));
  EXPECT_EQ(ReadFile(out), "one\n");
  EXPECT_FALSE(Exists(Ws("other")));
  const std::string log = ReadFile(Log());
  EXPECT_THAT(log, HasSubstr("\"rule\":\"programs.\\\"tee\\\"\""));
  EXPECT_THAT(log, HasSubstr("\"rule\":\"programs.\\\"quiet\\\"\""));
}

// A process inside a section that tells the shim of the program it runs
// that no section is in force (a static program can: no shim hands the
// variable back). The shim still finds the section by its cgroup, so the
// question names it and the yes holds for it alone: the agent's own write
// is asked again. One that also hides the run's cgroup gets no cookie
// (supervisor/supervisor.cc), so its shim cannot reach klaunch's socket at
// all: nothing is asked, and nothing written.
TEST_F(AskedWrites, AProcessCannotAskUnderAnotherChainThanItsOwn) {
  ProcessResult b = RunProcess(
      {"/usr/bin/gcc", "-O1", "-static", "-no-pie", "-o", Ws("bin/relabel"),
       RequiredEnv("KLAUNCH_TEST_PROGRAMS") + "/relabel.c"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  policy_ = dir_.Write(
      "sections.toml",
      "extends = \"read-only\"\n[filesystem]\nunlisted_writes = \"ask\"\n"
      "[programs.\"relabel\"]\nfilesystem.write = []\n"
      "filesystem.unlisted_writes = \"ask\"\n");
  const std::string out = Ws("out");
  const std::string bare = Ws("bare");
  PtyRun r = Run(
      {"/bin/sh", "-c",
       Ws("bin/relabel") + " /bin/sh -c 'echo relabelled > " + out +
           "'; echo between; echo agent >> " + out + "; " + Ws("bin/relabel") +
           " --bare /bin/sh -c 'echo bare > " + bare + "'; echo finished"},
      {"y", "n"});
  EXPECT_THAT(r.screen, HasSubstr("finished"));
  const std::string log = ReadFile(Log());
  if (log.find("a cgroup per chain") == std::string::npos) {
    GTEST_SKIP() << "klaunch keeps no cgroup per chain here";
  }
  // The relabelled shell's question names its section; the agent's, put
  // after it, names none.
  ASSERT_EQ(Count(r.screen, kPrompt), 2u) << r.screen;
  const size_t first = r.screen.find(kPrompt);
  EXPECT_THAT(r.screen.substr(0, first), HasSubstr("in programs.\"relabel\""));
  const size_t between = r.screen.find("between");
  ASSERT_NE(between, std::string::npos) << r.screen;
  EXPECT_THAT(r.screen.substr(between), Not(HasSubstr("in programs.")));
  EXPECT_EQ(ReadFile(out), "relabelled\n");  // the agent's write: no
  EXPECT_FALSE(Exists(bare)) << r.screen;
  EXPECT_THAT(log, HasSubstr("it gets no cookie"));
}

// klaunch's own binary and shim, installed where the program could write
// them (with a yes at the terminal, or inside a write root): rewritten in
// place, the shim would run in every later process, with the cookie, and
// the binary outside any sandbox. Never asked about, never written, never
// moved away.
TEST_F(AskedWrites, KlaunchsOwnBinaryAndShimAreNeverWrittenNorAsked) {
  RunProcess({"/bin/mkdir", "-p", dir_.Path("kl/bin"), dir_.Path("kl/shim")});
  const std::string klaunch = dir_.Path("kl/bin/klaunch");
  const std::string shim = dir_.Path("kl/shim/libklaunch-shim.so");
  RunProcess({"/bin/cp", RequiredEnv("KLAUNCH_BIN"), klaunch});
  RunProcess({"/bin/cp", RequiredEnv("KLAUNCH_SHIM"), shim});
  const std::string klaunch_bytes = ReadFile(klaunch);
  const std::string shim_bytes = ReadFile(shim);
  ASSERT_FALSE(shim_bytes.empty());
  for (const bool in_write_root : {false, true}) {
    SCOPED_TRACE(in_write_root ? "in a write root" : "asked about");
    const std::string policy = dir_.Write(
        "own.toml",
        "extends = \"read-only\"\n[filesystem]\nunlisted_writes = \"ask\"\n" +
            std::string(in_write_root
                            ? "write = [\"" + dir_.Path("kl") + "\"]\n"
                            : ""));
    // Renaming a directory is first asked about as a write of its name,
    // so only where that is admitted does the move itself reach klaunch.
    const std::string moves =
        in_write_root
            ? "mv " + dir_.Path("kl/shim") + " " + dir_.Path("kl/moved") +
                  "; " + Static() + " rename:" + dir_.Path("kl/bin") + ":" +
                  dir_.Path("kl/moved") + "; "
            : "";
    PtyRun r = RunOnPty(
        {klaunch, "--policy", policy, "--log", Log(), "--", "/bin/sh", "-c",
         "echo x >> " + shim + "; echo x > " + klaunch + "; " + Static() +
             " append:" + shim + " append:" + klaunch + "; " + moves +
             "echo finished"},
        Env(), dir_.Path("ws"), kPrompt, {"y", "y", "y", "y", "y", "y"});
    EXPECT_THAT(r.screen, HasSubstr("finished"));
    EXPECT_EQ(Count(r.screen, kPrompt), 0u) << r.screen;
    EXPECT_THAT(r.screen, HasSubstr("append " + shim + ": error"));
    EXPECT_THAT(r.screen, HasSubstr("append " + klaunch + ": error"));
    EXPECT_FALSE(Exists(dir_.Path("kl/moved")));
    EXPECT_TRUE(ReadFile(shim) == shim_bytes);
    EXPECT_TRUE(ReadFile(klaunch) == klaunch_bytes);
    EXPECT_THAT(ReadFile(Log()), HasSubstr("\"rule\":\"klaunch.read_only["));
  }
}

// Every write the person admitted is in the log, once (as every refusal
// is), naming the path, the call, the layer that asked and the section.
TEST_F(AskedWrites, EveryYesIsRecordedOnce) {
  if (!KeepsChainCgroups()) {
    GTEST_SKIP() << "klaunch keeps no cgroup per chain here: the supervisor "
                    "asks for a process inside a section as for CMD";
  }
  policy_ = dir_.Write(
      "sections.toml",
      "extends = \"read-only\"\n[filesystem]\nunlisted_writes = \"ask\"\n"
      "[programs.\"tee\"]\nfilesystem.write = []\n"
      "filesystem.unlisted_writes = \"ask\"\n");
  const std::string one = Ws("one"), two = Ws("two");
  PtyRun r = Run({"/bin/sh", "-c",
                  Static() + " create:" + one + "; echo x >> " + one +
                      "; echo y | tee -a " + two + "; echo finished"},
                 {"y", "y"});
  EXPECT_THAT(r.screen, HasSubstr("finished"));
  EXPECT_EQ(Count(r.screen, kPrompt), 2u) << r.screen;
  std::vector<std::string> yes;
  std::istringstream in(ReadFile(Log()));
  for (std::string line; std::getline(in, line);) {
    if (line.find("\"verdict\":\"allow\"") != std::string::npos) {
      yes.push_back(line);
    }
  }
  ASSERT_EQ(yes.size(), 2u) << ReadFile(Log());
  EXPECT_THAT(yes[0], HasSubstr("\"target\":\"" + one +
                                "\",\"access\":\"write\",\"verdict\":"
                                "\"allow\",\"rule\":\"terminal\""));
  EXPECT_THAT(yes[0], HasSubstr("\"op\":\"openat\""));
  EXPECT_THAT(yes[0], HasSubstr("admitted at the terminal for the rest of "
                                "the run\",\"layer\":\"seccomp\"}"));
  EXPECT_THAT(yes[1], HasSubstr("\"target\":\"" + two + "\""));
  EXPECT_THAT(yes[1], HasSubstr("\"exe\":\"/usr/bin/tee\""));
  EXPECT_THAT(yes[1], HasSubstr("\"layer\":\"shim\",\"program\":\"tee\"}"));
}

TEST_F(AskedWrites, WithoutATerminalAWriteIsRefusedAndSaysWhy) {
  const std::string none = Ws("none");
  ProcessOptions o;
  o.cwd = dir_.Path("ws");
  o.env = Env();
  ProcessResult r =
      RunProcess({"/usr/bin/setsid", "-w", RequiredEnv("KLAUNCH_BIN"),
                  "--policy", policy_, "--log", Log(), "--", "/bin/sh", "-c",
                  "echo x > " + none + "; " + Static() + " create:" + none},
                 o);
  EXPECT_FALSE(Exists(none));
  EXPECT_THAT(r.err, HasSubstr("commands and writes will not be asked about"));
  EXPECT_THAT(ReadFile(Log()), HasSubstr("asking needs a terminal"));
  EXPECT_THAT(r.out, HasSubstr("create " + none + ": error"));
  EXPECT_THAT(r.err, Not(HasSubstr("Allow writing")));
}

}  // namespace
}  // namespace klaunch::testing

namespace klaunch::testing {
namespace {

TEST(Terminal, CtrlCReachesTheProgramAndKlaunchReportsItsStatus) {
  TempDir dir;
  RunProcess({"/bin/mkdir", "-p", dir.Path("ws"), dir.Path("state")});
  // The program traps SIGINT and exits 5; klaunch itself must survive the
  // terminal's signal and pass the status on.
  PtyRun r = RunOnPty({RequiredEnv("KLAUNCH_BIN"), "--", "/bin/sh", "-c",
                       "trap 'echo got-int; exit 5' INT; echo waiting; "
                       "while :; do sleep 0.05; done"},
                      {"PATH=/usr/bin:/bin", "HOME=" + dir.path(), "TERM=dumb",
                       "XDG_STATE_HOME=" + dir.Path("state")},
                      dir.Path("ws"), "waiting", {"\x03"});
  EXPECT_THAT(r.screen, HasSubstr("got-int")) << r.screen;
  EXPECT_EQ(r.exit_code, 5) << r.screen;
}

}  // namespace
}  // namespace klaunch::testing
