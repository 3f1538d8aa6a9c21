#include "core/programs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/effective.h"
#include "core/engine.h"
#include "core/loader.h"

namespace klaunch {
namespace {

using ::testing::HasSubstr;

LoadContext Ctx() {
  return LoadContext{"/nonexistent-ws/proj", "/nonexistent-home/me", ""};
}

absl::StatusOr<Engine> Load(absl::string_view toml) {
  absl::StatusOr<Policy> policy = LoadPolicyText(toml, "test.toml", Ctx());
  if (!policy.ok()) return policy.status();
  return Engine::Create(*policy);
}

Engine MustLoad(absl::string_view toml) {
  absl::StatusOr<Engine> e = Load(toml);
  EXPECT_TRUE(e.ok()) << e.status();
  return *std::move(e);
}

Engine Under(const Engine& e, std::vector<int> chain) {
  absl::StatusOr<Engine> n = e.Narrow(chain);
  EXPECT_TRUE(n.ok()) << n.status();
  return *std::move(n);
}

constexpr char kAgent[] = R"(
extends = "workspace-write"
[filesystem]
write = ["/nonexistent-home/me/.venv"]
[network]
allow = ["*.example.com:443", "10.0.0.0/8"]
[programs."curl"]
filesystem.workspace_writable = false
filesystem.write = []
network.allow = ["api.example.com:443"]
[programs."pip"]
filesystem.write = ["/nonexistent-home/me/.venv/lib"]
network.allow = []
env.keep = ["PATH", "PIP_*"]
)";

TEST(ProgramSections, ASectionNarrowsItsProgramAndNamesItselfAsTheRule) {
  Engine top = MustLoad(kAgent);
  ASSERT_EQ(top.policy().programs.size(), 2u);
  Engine curl = Under(top, {0});
  EXPECT_EQ(curl.program(), "curl");
  EXPECT_TRUE(
      top.CheckPath(Access::kWrite, "/nonexistent-ws/proj/out").allowed());
  Decision d = curl.CheckPath(Access::kWrite, "/nonexistent-ws/proj/out");
  EXPECT_EQ(d.verdict, Verdict::kDeny);
  EXPECT_EQ(d.rule, "programs.\"curl\"");
  EXPECT_THAT(d.message, HasSubstr("narrows this program"));
  // Reading is the policy's, untouched by a section that names no read key.
  EXPECT_TRUE(
      curl.CheckPath(Access::kRead, "/nonexistent-ws/proj/out").allowed());
  const IpAddress a = *IpAddress::Parse("10.1.2.3");
  EXPECT_TRUE(top.CheckConnect(a, 443, "www.example.com").allowed());
  EXPECT_FALSE(curl.CheckConnect(a, 443, "www.example.com").allowed());
  EXPECT_TRUE(curl.CheckConnect(a, 443, "api.example.com").allowed());
}

TEST(ProgramSections, AChainIsTheIntersectionOfEverySection) {
  Engine top = MustLoad(kAgent);
  Engine pip = Under(top, {1});
  EXPECT_TRUE(pip.CheckPath(Access::kWrite, "/nonexistent-home/me/.venv/lib/x")
                  .allowed());
  Engine both = Under(top, {1, 0});
  EXPECT_FALSE(
      both.CheckPath(Access::kWrite, "/nonexistent-home/me/.venv/lib/x")
          .allowed());
  EXPECT_FALSE(
      both.CheckConnect(*IpAddress::Parse("10.1.2.3"), 443, "api.example.com")
          .allowed());
  EXPECT_FALSE(top.Narrow({2}).ok());
}

TEST(ProgramSections,
     AWriteRootOutsideTheParentsIsALoadErrorNamingProgramAndKey) {
  absl::StatusOr<Engine> e =
      Load("[programs.\"pip\"]\nfilesystem.write = [\"/etc\"]\n");
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(
      e.status().message(),
      HasSubstr("test.toml:2:21: programs.\"pip\".filesystem.write[0]"));
  EXPECT_THAT(e.status().message(), HasSubstr("widens the policy"));
}

TEST(ProgramSections, AHostThePolicyDoesNotAllowIsALoadError) {
  const std::string base =
      "[network]\nallow = [\"*.example.com:443\", \"10.0.0.0/8\"]\n"
      "[programs.\"git\"]\n";
  EXPECT_TRUE(Load(base + "network.allow = [\"git.example.com:443\"]\n").ok());
  EXPECT_TRUE(Load(base + "network.allow = [\"10.1.0.0/16:443\"]\n").ok());
  for (const char* wider : {"\"git.example.org:443\"", "\"git.example.com\"",
                            "\"**.example.com:443\"", "\"10.0.0.0/7:443\"",
                            "\"*\"", "\"git.example.com:22\""}) {
    absl::StatusOr<Engine> e =
        Load(absl::StrCat(base, "network.allow = [", wider, "]\n"));
    ASSERT_FALSE(e.ok()) << wider;
    EXPECT_THAT(e.status().message(),
                HasSubstr("programs.\"git\".network.allow[0]"));
  }
}

TEST(ProgramSections, WideningCommandsTheWorkspaceOrSocketsIsALoadError) {
  const std::string ro = "[filesystem]\nworkspace_writable = false\n";
  EXPECT_THAT(
      Load(ro + "[programs.\"x\"]\nfilesystem.workspace_writable = true\n")
          .status()
          .message(),
      HasSubstr("programs.\"x\".filesystem.workspace_writable widens"));
  EXPECT_THAT(Load("[programs.\"x\"]\nfilesystem.unlisted_writes = \"ask\"\n")
                  .status()
                  .message(),
              HasSubstr("programs.\"x\".filesystem.unlisted_writes widens"));
  EXPECT_TRUE(Load("[filesystem]\nunlisted_writes = \"ask\"\n"
                   "[programs.\"x\"]\nfilesystem.unlisted_writes = \"deny\"\n")
                  .ok());
  EXPECT_THAT(Load("[programs.\"x\"]\nnetwork.unix_abstract = true\n")
                  .status()
                  .message(),
              HasSubstr("programs.\"x\".network.unix_abstract widens"));
  const std::string cmds = "[commands]\nallow = [\"git *\"]\n";
  EXPECT_THAT(Load(cmds + "[programs.\"x\"]\ncommands.unlisted = \"ask\"\n")
                  .status()
                  .message(),
              HasSubstr("programs.\"x\".commands.unlisted widens"));
  EXPECT_TRUE(
      Load(cmds + "[programs.\"x\"]\ncommands.allow = [\"git status *\"]\n")
          .ok());
  EXPECT_TRUE(Load(cmds + "[programs.\"x\"]\ncommands.allow_prefixes = "
                          "[\"git log\"]\n")
                  .ok());
  EXPECT_THAT(Load(cmds + "[programs.\"x\"]\ncommands.allow = [\"rm *\"]\n")
                  .status()
                  .message(),
              HasSubstr("programs.\"x\".commands.allow[0]"));
  EXPECT_THAT(
      Load("[programs.\"x\"]\nenv.set = { A = \"b\" }\n").status().message(),
      HasSubstr("can only narrow"));
  EXPECT_THAT(
      Load("[programs.\"x\"]\nsystem.allow = [\"mount\"]\n").status().message(),
      HasSubstr("unknown key 'programs.\"x\".system'"));
  EXPECT_THAT(Load("[programs.\"bin/x\"]\n").status().message(),
              HasSubstr("bare program name"));
  EXPECT_THAT(Load("[programs.\"cu*\"]\n").status().message(),
              HasSubstr("literal"));
}

// As a section that lists commands refuses the unlisted ones, a section
// that names its write roots refuses the writes they do not admit, unless
// it says it asks: the user's yes to the agent is no yes to the tool.
TEST(ProgramSections, ASectionThatNamesItsWritesAsksOnlyWhenItSaysSo) {
  const std::string ask = R"(
extends = "workspace-write"
[filesystem]
unlisted_writes = "ask"
[programs."curl"]
filesystem.write = []
[programs."pip"]
filesystem.write = ["/tmp/venv"]
filesystem.unlisted_writes = "ask"
[programs."git"]
network.allow = []
)";
  Engine top = MustLoad(ask);
  const Policy& p = top.policy();
  EXPECT_EQ(SectionPolicy(p, p.programs[0]).filesystem.unlisted_writes,
            Unlisted::kDeny);  // curl
  EXPECT_EQ(SectionPolicy(p, p.programs[2]).filesystem.unlisted_writes,
            Unlisted::kAsk);  // pip
  EXPECT_EQ(SectionPolicy(p, p.programs[1]).filesystem.unlisted_writes,
            Unlisted::kAsk);  // git names no writes: the policy's
  EXPECT_EQ(top.CheckPath(Access::kWrite, "/opt/x").verdict, Verdict::kAsk);
  Decision curl = Under(top, {0}).CheckPath(Access::kWrite, "/opt/x");
  EXPECT_EQ(curl.verdict, Verdict::kDeny);
  EXPECT_EQ(curl.rule, "programs.\"curl\"");
  EXPECT_EQ(Under(top, {2}).CheckPath(Access::kWrite, "/opt/x").verdict,
            Verdict::kAsk);
  EXPECT_EQ(Under(top, {1}).CheckPath(Access::kWrite, "/opt/x").verdict,
            Verdict::kAsk);
  // The effective form (what the shim loads) says the same.
  absl::StatusOr<Policy> again =
      LoadPolicyText(EffectiveToml(p), "effective.toml", Ctx());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(
      SectionPolicy(*again, again->programs[0]).filesystem.unlisted_writes,
      Unlisted::kDeny);
}

TEST(ProgramSections, AnExecEntersTheSectionsItsNamesMatchOnce) {
  Engine top = MustLoad(R"(
[programs."python3"]
network.allow = []
[programs."/usr/bin/git"]
network.allow = []
)");
  const Policy& p = top.policy();
  // Sections are numbered in the order TOML gives their names (sorted).
  const int py = p.programs[0].name == "python3" ? 0 : 1, git = 1 - py;
  ASSERT_EQ(p.programs[git].name, "/usr/bin/git");
  EXPECT_EQ(EnterSections(p, {}, "/usr/bin/python3", "/usr/bin/python3.11"),
            (std::vector<int>{py}));
  EXPECT_EQ(EnterSections(p, {}, "/usr/local/bin/py", "/usr/bin/python3"),
            (std::vector<int>{py}));
  const absl::string_view links[] = {"/usr/bin/python3"};
  EXPECT_EQ(EnterSections(p, {}, "/opt/mypy", "/usr/bin/python3.11", links),
            (std::vector<int>{py}));
  EXPECT_EQ(EnterSections(p, {py}, "/usr/bin/git", ""),
            (std::vector<int>{py, git}));
  EXPECT_EQ(EnterSections(p, {git, py}, "/usr/bin/python3", ""),
            (std::vector<int>{git, py}));
  EXPECT_TRUE(EnterSections(p, {}, "/home/me/git", "").empty());
  EXPECT_EQ(ParseChain(p, "1,0"), (std::vector<int>{1, 0}));
  EXPECT_EQ(ChainText(std::vector<int>{1, 0}), "1,0");
  for (const char* bad : {"2", "0,0", "x", "-1", "0,"}) {
    EXPECT_FALSE(ParseChain(p, bad).has_value()) << bad;
  }
}

TEST(ProgramSections,
     OnlyTheRulesetsOfAChainAProcessDoesNotHoldAreStackedAgain) {
  Engine top = MustLoad(R"(
[programs."a"]
network.allow = []
[programs."b"]
network.allow = []
[programs."c"]
network.allow = []
)");
  const Policy& p = top.policy();
  const std::vector<int> chain = {2, 0, 1};
  EXPECT_TRUE(SectionsNotHeld(p, chain, "2,0,1").empty());
  EXPECT_EQ(SectionsNotHeld(p, chain, "2"), (std::vector<int>{0, 1}));
  // A cgroup's chain may come in another order than the environment's.
  EXPECT_EQ(SectionsNotHeld(p, chain, "0,2"), (std::vector<int>{1}));
  EXPECT_EQ(SectionsNotHeld(p, chain, ""), chain);
  // Anything that does not describe part of this chain holds nothing.
  for (const char* forged : {"0,1,2,3", "x", "1,1", "9"}) {
    EXPECT_EQ(SectionsNotHeld(p, chain, forged), chain) << forged;
  }
  EXPECT_EQ(SectionsNotHeld(p, std::vector<int>{0}, "0,1"),
            (std::vector<int>{0}));
  EXPECT_TRUE(SectionsNotHeld(p, {}, "0").empty());
}

TEST(ProgramSections, ASectionsEnvKeepNarrowsTheVariablesPassedOn) {
  Engine top = MustLoad(kAgent);
  EXPECT_TRUE(
      ChainKeepsVariable(top.policy(), std::vector<int>{1}, "PIP_INDEX_URL"));
  EXPECT_FALSE(
      ChainKeepsVariable(top.policy(), std::vector<int>{1}, "AWS_SECRET"));
  EXPECT_TRUE(
      ChainKeepsVariable(top.policy(), std::vector<int>{0}, "AWS_SECRET"));
}

TEST(ProgramSections, TheEffectiveFormKeepsEverySection) {
  absl::StatusOr<Policy> p = LoadPolicyText(kAgent, "test.toml", Ctx());
  ASSERT_TRUE(p.ok()) << p.status();
  const std::string text = EffectiveToml(*p);
  absl::StatusOr<Policy> again =
      LoadPolicyText(text, "effective.toml", LoadContext{"/", "/", "", true});
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << text;
  // (Preset names are display only and do not survive; the sections do.)
  const std::string sections = text.substr(text.find("[programs."));
  const std::string again_text = EffectiveToml(*again);
  EXPECT_EQ(again_text.substr(again_text.find("[programs.")), sections);
  ASSERT_EQ(again->programs.size(), 2u);
  EXPECT_EQ(again->programs[1].env_keep->size(), 2u);
}

// The differential check: for generated sections and calls, a chain never
// admits what the policy refuses, and a section that names nothing admits
// exactly what the policy does.
TEST(ProgramSections, NoGeneratedSectionEverAdmitsWhatThePolicyRefuses) {
  std::mt19937 rng(20261203);
  const std::vector<std::string> dirs = {
      "/nonexistent-ws/proj",   "/tmp",   "/usr", "/etc",
      "/nonexistent-ws/proj/a", "/tmp/x", "/opt"};
  const std::vector<std::string> hosts = {"a.example.com", "b.example.com",
                                          "example.org",   "10.0.0.0/8",
                                          "10.2.0.0/16",   "*.example.com"};
  auto pick = [&](const std::vector<std::string>& v) {
    return v[rng() % v.size()];
  };
  auto list = [&](const std::vector<std::string>& v, absl::string_view suffix) {
    std::string out = "[";
    for (int i = 0, n = rng() % 3; i < n; ++i) {
      absl::StrAppend(&out, i ? ", " : "", "\"", pick(v), suffix, "\"");
    }
    return out + "]";
  };
  int checked = 0, sections = 0;
  for (int round = 0; round < 1000; ++round) {
    std::string toml = absl::StrCat(
        "extends = \"none\"\n[filesystem]\nworkspace_writable = ",
        rng() % 2 ? "true" : "false", "\nread = ", list(dirs, ""),
        "\nwrite = ", list(dirs, ""), "\ndeny = ", list(dirs, "/secret"),
        "\n[network]\nallow = ", list(hosts, ":443"), "\n");
    for (int s = 0; s < 2; ++s) {
      absl::StrAppend(&toml, "[programs.\"p", s, "\"]\n");
      if (rng() % 2)
        absl::StrAppend(&toml, "filesystem.read = ", list(dirs, ""), "\n");
      if (rng() % 2)
        absl::StrAppend(&toml, "filesystem.write = ", list(dirs, ""), "\n");
      if (rng() % 2)
        absl::StrAppend(&toml, "filesystem.deny = ", list(dirs, ""), "\n");
      if (rng() % 2) {
        absl::StrAppend(&toml, "filesystem.workspace_writable = ",
                        rng() % 2 ? "true" : "false", "\n");
      }
      if (rng() % 2)
        absl::StrAppend(&toml, "network.allow = ", list(hosts, ":443"), "\n");
    }
    absl::StatusOr<Engine> top = Load(toml);
    if (!top.ok()) {
      // Only a widening section may fail to load.
      EXPECT_THAT(top.status().message(), HasSubstr("widens the policy"))
          << toml;
      continue;
    }
    ++sections;
    // The reference: each section's own policy, judged alone.
    std::vector<Engine> alone;
    for (const ProgramSection& ps : top->policy().programs) {
      absl::StatusOr<Engine> e =
          Engine::Create(SectionPolicy(top->policy(), ps));
      ASSERT_TRUE(e.ok()) << e.status();
      alone.push_back(*std::move(e));
    }
    auto all_admit = [&](const std::vector<int>& chain, auto&& check) {
      if (!check(*top)) return false;
      for (int i : chain) {
        if (!check(alone[i])) return false;
      }
      return true;
    };
    for (std::vector<int> chain :
         {std::vector<int>{0}, std::vector<int>{1}, std::vector<int>{0, 1}}) {
      Engine narrowed = Under(*top, chain);
      for (const std::string& d : dirs) {
        for (const std::string& path : {d, d + "/f", d + "/secret"}) {
          for (Access a :
               {Access::kRead, Access::kWrite, Access::kExec, Access::kStat}) {
            ++checked;
            const bool admitted = narrowed.CheckPath(a, path).allowed();
            if (admitted) {
              EXPECT_TRUE(top->CheckPath(a, path).allowed())
                  << AccessName(a) << " " << path << "\n"
                  << toml;
            }
            EXPECT_EQ(admitted,
                      all_admit(chain,
                                [&](const Engine& e) {
                                  return e.CheckPath(a, path).allowed();
                                }))
                << AccessName(a) << " " << path << "\n"
                << toml;
          }
        }
      }
      for (const char* addr : {"10.1.1.1", "10.2.3.4", "192.0.2.1"}) {
        for (const char* name :
             {"a.example.com", "b.example.com", "example.org", ""}) {
          ++checked;
          const IpAddress ip = *IpAddress::Parse(addr);
          const bool admitted = narrowed.CheckConnect(ip, 443, name).allowed();
          if (admitted) {
            EXPECT_TRUE(top->CheckConnect(ip, 443, name).allowed())
                << addr << " " << name << "\n"
                << toml;
          }
          EXPECT_EQ(admitted,
                    all_admit(chain,
                              [&](const Engine& e) {
                                return e.CheckConnect(ip, 443, name).allowed();
                              }))
              << addr << " " << name << "\n"
              << toml;
        }
      }
    }
  }
  EXPECT_GT(sections, 100);  // the generator must not only make load errors
  EXPECT_GT(checked, 30000);
}

}  // namespace
}  // namespace klaunch
