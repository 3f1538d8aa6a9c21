// `meson install` into a DESTDIR gives a klaunch that runs from there: the
// binary finds its shim under the library directory beside it (not the
// build's), the man pages klaunch(1) and klaunch.toml(5) render without a
// warning, the completions and the policy examples are in place, and an
// installed example passes `klaunch check`.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/run_process.h"
#include "tests/sandbox.h"

namespace klaunch::testing {
namespace {

using ::testing::HasSubstr;

TEST(Install, AKlaunchInstalledIntoADestdirRunsFromThereWithItsOwnShim) {
  TempDir dest;
  const std::string build = RequiredEnv("KLAUNCH_BUILD_ROOT");
  ProcessResult install =
      RunProcess({"/usr/bin/env", "meson", "install", "-C", build, "--destdir",
                  dest.path(), "--no-rebuild", "--quiet"});
  ASSERT_EQ(install.exit_code, 0) << Show(install);
  const std::string root = dest.path() + RequiredEnv("KLAUNCH_PREFIX");
  const std::string klaunch =
      root + "/" + RequiredEnv("KLAUNCH_BINDIR") + "/klaunch";
  const std::string data = root + "/" + RequiredEnv("KLAUNCH_DATADIR");
  const std::string man = root + "/" + RequiredEnv("KLAUNCH_MANDIR");
  ASSERT_TRUE(Exists(klaunch)) << klaunch;

  ProcessOptions o;
  o.cwd = dest.path();
  o.env = std::vector<std::string>{"PATH=/usr/bin:/bin", "HOME=" + dest.path(),
                                   "LANG=C.UTF-8"};
  ProcessResult run = RunProcess({klaunch, "--", "/bin/echo", "installed"}, o);
  EXPECT_EQ(run.exit_code, 0) << Show(run);
  EXPECT_EQ(run.out, "installed\n");
  ProcessResult doctor = RunProcess({klaunch, "doctor", "--json"}, o);
  EXPECT_THAT(doctor.out, HasSubstr("\"path\":\"" + root + "/")) << doctor.out;
  EXPECT_THAT(doctor.out, HasSubstr("/klaunch/libklaunch-shim.so\""));

  for (const std::string& page :
       {man + "/man1/klaunch.1", man + "/man5/klaunch.toml.5"}) {
    ASSERT_TRUE(Exists(page)) << page;
    if (!Exists("/usr/bin/groff")) continue;
    ProcessResult render =
        RunProcess({"/usr/bin/env", "LC_ALL=C", "/usr/bin/groff", "-man",
                    "-Tutf8", "-ww", "-z", page});
    EXPECT_EQ(render.exit_code, 0) << Show(render);
    EXPECT_EQ(render.err, "") << page;
  }
  EXPECT_THAT(ReadFile(man + "/man1/klaunch.1"), HasSubstr("\\fB--trace\\fR"))
      << "the page is not made from docs/klaunch.md";
  EXPECT_TRUE(Exists(data + "/bash-completion/completions/klaunch"));
  EXPECT_TRUE(Exists(data + "/zsh/site-functions/_klaunch"));
  const std::string example =
      data + "/klaunch/policy-examples/python-agent.toml";
  ASSERT_TRUE(Exists(example));
  ProcessResult check = RunProcess({klaunch, "check", example}, o);
  EXPECT_EQ(check.exit_code, 0) << Show(check);
  // The bash completion completes a subcommand.
  ProcessResult complete = RunProcess(
      {"/bin/bash", "-c",
       "source \"$0\"; COMP_WORDS=(klaunch ex); COMP_CWORD=1; _klaunch; "
       "echo \"${COMPREPLY[*]}\"",
       data + "/bash-completion/completions/klaunch"});
  EXPECT_EQ(complete.out, "explain\n") << Show(complete);
}

}  // namespace
}  // namespace klaunch::testing
