// Dry run, then `klaunch suggest`, then enforcing what it suggests passes
// the first time, for four real workloads under a read-only base: cloning
// and committing a local git repository, `make` of a small C project,
// `pip install` from a local wheel directory, and a Python script that
// writes outputs and runs tools. Each workload also reads ~/.ssh, which the
// base denies: that refusal must survive the learning.
//
// The workspace holds a script each workload runs by bare name through
// PATH, as a user's job would be run; the learned policy names the
// workspace's paths relative to it.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/attack_support.h"

namespace klaunch::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kBase[] = R"(extends = "read-only"
[filesystem]
deny = ["~/.ssh"]
)";

// Outside /tmp, so that what a workload writes in its workspace is not
// admitted by the temporary directory a learned policy may open (pip's
// build directories): the test's own home, where it can write one.
std::string OutsideTmp() {
  const char* home = getenv("HOME");
  const std::string dir = std::string(home ? home : "/nonexistent") + "/.cache";
  RunProcess({"/bin/mkdir", "-p", dir});
  return access(dir.c_str(), W_OK) == 0 && dir.rfind("/tmp", 0) != 0 ? dir
                                                                     : "/tmp";
}

class SuggestEndToEnd : public ::testing::Test {
 protected:
  SuggestEndToEnd() : k_(OutsideTmp()) {}

  void SetUp() override {
    k_.path = k_.ws() + ":/usr/bin:/bin";
    RunProcess({"/bin/mkdir", "-p", k_.Path(".ssh")});
    k_.Write(".ssh/id_rsa", "SECRET-KEY\n");
  }

  // Runs `job` (a shell script written to ws/job.sh) as a dry run, learns
  // a policy from it, and enforces that; returns the enforced run.
  ProcessResult DryRunLearnEnforce(const std::string& job) {
    k_.Write("ws/job.sh",
             "#!/bin/sh\nset -e\ncat ~/.ssh/id_rsa || true\n" + job);
    RunProcess({"/bin/chmod", "+x", k_.Path("ws/job.sh")});
    const std::vector<std::string> cmd = {"job.sh"};
    k_.SetPolicy(kBase);
    ProcessResult dry = k_.Run(cmd, {"--audit"});
    EXPECT_EQ(dry.exit_code, 0) << "dry run" << Show(dry);
    ProcessOptions o;
    o.cwd = k_.ws();
    o.env = Env();
    ProcessResult suggest =
        RunProcess({RequiredEnv("KLAUNCH_BIN"), "suggest", k_.log(), "--base",
                    k_.Path("policy.toml")},
                   o);
    EXPECT_EQ(suggest.exit_code, 0) << Show(suggest);
    learned_ = suggest.out;
    if (getenv("KLAUNCH_TEST_SHOW_LEARNED") != nullptr) {
      std::fprintf(stderr, "%s\n", learned_.c_str());
    }
    // The learned policy passes check, and does not name this workspace.
    const std::string file = k_.Write("learned.toml", learned_);
    EXPECT_EQ(
        RunProcess({RequiredEnv("KLAUNCH_BIN"), "check", file}, o).exit_code, 0)
        << learned_;
    EXPECT_THAT(learned_, Not(HasSubstr(k_.ws()))) << learned_;
    // A clean workspace, as the next run would find it.
    for (const std::string& left : made_) {
      RunProcess({"/bin/rm", "-rf", k_.Path("ws/" + left)});
    }
    RunProcess({"/bin/rm", "-f", k_.log()});
    k_.SetPolicy(learned_);
    ProcessResult enforced = k_.Run(cmd);
    EXPECT_EQ(enforced.exit_code, 0) << "enforced" << Show(enforced) << "\n"
                                     << learned_;
    // The one refusal kept is the secret's, but for what the learned policy
    // says it left refused on purpose (a hard link git copies instead, a
    // top-level directory a platform probe lists).
    for (const std::string& line : k_.LogLines()) {
      const std::string verdict = Field(line, "verdict");
      if (verdict != "deny") continue;
      if (learned_.find("#   " + Field(line, "target") + " x") !=
          std::string::npos) {
        continue;
      }
      EXPECT_EQ(Field(line, "target"), k_.Path(".ssh/id_rsa")) << line << "\n"
                                                               << learned_;
    }
    EXPECT_THAT(enforced.out, Not(HasSubstr("SECRET-KEY")));
    return enforced;
  }

  std::vector<std::string> Env() const {
    return {"PATH=" + k_.ws() + ":/usr/bin:/bin", "LANG=C.UTF-8",
            "HOME=" + k_.root(), "XDG_STATE_HOME=" + k_.Path("state")};
  }

  KlaunchRun k_;
  std::string learned_;
  std::vector<std::string> made_;  // what the job makes in the workspace
};

TEST_F(SuggestEndToEnd,
       CloningAndCommittingALocalGitRepositoryPassesFirstTime) {
  const std::string src = k_.Path("src");
  RunProcess({"/bin/mkdir", "-p", src});
  k_.Write("src/a", "a\n");
  ProcessOptions o;
  o.cwd = src;
  for (const std::vector<std::string>& git :
       {std::vector<std::string>{"/usr/bin/git", "init", "-q"},
        {"/usr/bin/git", "add", "a"},
        {"/usr/bin/git", "-c", "user.name=t", "-c",
         "user.email=t@example.invalid", "commit", "-qm", "one"}}) {
    ASSERT_EQ(RunProcess(git, o).exit_code, 0);
  }
  made_ = {"clone"};
  ProcessResult r = DryRunLearnEnforce(
      "git clone -q ../src clone\ncd clone\necho b >> a\n"
      "git -c user.name=t -c user.email=t@example.invalid commit -qam two\n"
      "git log --oneline | wc -l\n");
  EXPECT_THAT(r.out, HasSubstr("2")) << Show(r);
  // No write to the source repository was learned: git copies what it
  // may not link, and the links are only listed.
  const size_t write = learned_.find("\nwrite = [");
  ASSERT_NE(write, std::string::npos) << learned_;
  const std::string writes =
      learned_.substr(write, learned_.find("]", write) - write);
  EXPECT_THAT(writes, Not(HasSubstr(src))) << learned_;
  EXPECT_THAT(learned_, HasSubstr("# Hard links to these were refused"));
}

TEST_F(SuggestEndToEnd, MakeOfASmallCProjectPassesFirstTime) {
  RunProcess({"/bin/mkdir", "-p", k_.Path("ws/proj")});
  k_.Write(
      "ws/proj/main.c",
      "int twice(int);\nint main(void) { return twice(21) == 42 ? 0 : 1; }\n");
  k_.Write("ws/proj/twice.c", "int twice(int x) { return 2 * x; }\n");
  k_.Write("ws/proj/Makefile",
           "prog: main.o twice.o\n\tcc -o prog main.o twice.o\n"
           "%.o: %.c\n\tcc -O1 -c -o $@ $<\n");
  made_ = {"proj/prog", "proj/main.o", "proj/twice.o"};
  ProcessResult r =
      DryRunLearnEnforce("make -s -C proj\n./proj/prog && echo built\n");
  EXPECT_THAT(r.out, HasSubstr("built")) << Show(r);
}

TEST_F(SuggestEndToEnd, PipInstallFromALocalWheelDirectoryPassesFirstTime) {
  if (RunProcess({"/usr/bin/python3", "-m", "pip", "--version"}).exit_code !=
      0) {
    GTEST_SKIP() << "python3 -m pip is missing (scripts/bootstrap installs "
                    "python3-pip)";
  }
  // A pure-Python wheel, made here: no index, no network.
  RunProcess({"/bin/mkdir", "-p", k_.Path("ws/wheels")});
  ProcessResult wheel = RunProcess(
      {"/usr/bin/python3", "-c",
       "import base64, hashlib, sys, zipfile\n"
       "files = {'hello_kl/__init__.py': \"def hi():\\n    return 'hi'\\n\",\n"
       "  'hello_kl-1.0.dist-info/METADATA': 'Metadata-Version: 2.1\\nName: "
       "hello-kl\\nVersion: 1.0\\n',\n"
       "  'hello_kl-1.0.dist-info/WHEEL': 'Wheel-Version: 1.0\\nGenerator: "
       "t\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n'}\n"
       "record = []\n"
       "with zipfile.ZipFile(sys.argv[1], 'w') as z:\n"
       "    for name, text in files.items():\n"
       "        z.writestr(name, text)\n"
       "        digest = base64.urlsafe_b64encode(hashlib.sha256("
       "text.encode()).digest()).rstrip(b'=').decode()\n"
       "        record.append(f'{name},sha256={digest},{len(text)}')\n"
       "    record.append('hello_kl-1.0.dist-info/RECORD,,')\n"
       "    z.writestr('hello_kl-1.0.dist-info/RECORD', '\\n'.join(record) + "
       "'\\n')\n",
       k_.Path("ws/wheels/hello_kl-1.0-py3-none-any.whl")});
  ASSERT_EQ(wheel.exit_code, 0) << Show(wheel);
  made_ = {"site"};
  ProcessResult r = DryRunLearnEnforce(
      "python3 -m pip install -q --no-index --no-cache-dir "
      "--disable-pip-version-check --find-links wheels --target site "
      "hello-kl 2>/dev/null\n"
      "python3 -c \"import sys; sys.path.insert(0, 'site'); import hello_kl; "
      "print(hello_kl.hi())\"\n");
  EXPECT_THAT(r.out, HasSubstr("hi")) << Show(r);
}

TEST_F(SuggestEndToEnd,
       APythonScriptThatWritesOutputsAndRunsToolsPassesFirstTime) {
  k_.Write("ws/report.py",
           "import json, os, subprocess, tempfile\n"
           "os.makedirs('out', exist_ok=True)\n"
           "version = subprocess.run(['git', '--version'], capture_output=True,"
           " text=True).stdout\n"
           "listing = subprocess.run(['ls', '-1'], capture_output=True, "
           "text=True).stdout\n"
           "with tempfile.NamedTemporaryFile('w', delete=False) as t:\n"
           "    t.write(listing)\n"
           "os.unlink(t.name)\n"
           "with open('out/report.txt', 'w') as f:\n"
           "    f.write(version + listing)\n"
           "with open('out/data.json', 'w') as f:\n"
           "    json.dump({'files': listing.split()}, f)\n"
           "print('reported')\n");
  made_ = {"out"};
  ProcessResult r = DryRunLearnEnforce("python3 report.py\n");
  EXPECT_THAT(r.out, HasSubstr("reported")) << Show(r);
  EXPECT_TRUE(Exists(k_.Path("ws/out/data.json")));
}

}  // namespace
}  // namespace klaunch::testing
