#include "launcher/suggest.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/engine.h"
#include "core/loader.h"

namespace klaunch {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const LoadContext kContext{"/nonexistent-ws/proj", "/nonexistent-home/me", ""};

Policy MustLoad(absl::string_view toml) {
  absl::StatusOr<Policy> policy = LoadPolicyText(toml, "test.toml", kContext);
  EXPECT_TRUE(policy.ok()) << policy.status() << "\n" << toml;
  return policy.ok() ? *std::move(policy) : Policy{};
}

AuditEvent Event(const std::string& access, const std::string& target,
                 const std::string& verdict, const std::string& rule,
                 const std::string& program = "",
                 const std::string& command = "") {
  AuditEvent e;
  e.op = access == "exec" ? "execve" : "open";
  e.access = access;
  e.target = target;
  e.verdict = verdict;
  e.rule = rule;
  e.program = program;
  e.command = command;
  return e;
}

bool Lists(const std::vector<Entry>& entries, const std::string& value) {
  return std::any_of(entries.begin(), entries.end(),
                     [&](const Entry& e) { return e.value == value; });
}

constexpr char kBase[] = R"(
extends = "workspace-write"
[filesystem]
workspace_writable = false
unlisted_writes = "ask"
[commands]
unlisted = "ask"
[system]
allow = ["ptrace"]
[programs."curl"]
filesystem.write = []
network.allow = []
)";

TEST(Suggest, KeepsEverythingOfTheBaseItDoesNotWiden) {
  // Learned in a dry run: the base may say so; what is learned enforces.
  const Policy base = MustLoad(std::string("mode = \"audit\"\n") + kBase);
  ASSERT_EQ(base.mode, Mode::kAudit);
  const std::string text =
      SuggestPolicy(base, {Event("write", "/nonexistent-ws/out/a.txt", "deny",
                                 "filesystem.write")});
  const Policy learned = MustLoad(text);
  EXPECT_EQ(learned.mode, Mode::kEnforce) << text;
  EXPECT_FALSE(learned.filesystem.workspace_writable) << text;
  EXPECT_EQ(learned.filesystem.unlisted_writes, Unlisted::kAsk);
  EXPECT_EQ(learned.commands.unlisted, Unlisted::kAsk);
  EXPECT_TRUE(Lists(learned.system.allow, "ptrace")) << text;
  ASSERT_EQ(learned.programs.size(), 1u) << text;
  EXPECT_EQ(learned.programs[0].name, "curl");
  ASSERT_TRUE(learned.programs[0].write.has_value());
  EXPECT_TRUE(learned.programs[0].write->empty());
  ASSERT_TRUE(learned.programs[0].network_allow.has_value());
  EXPECT_TRUE(learned.programs[0].network_allow->empty());
  EXPECT_TRUE(Lists(learned.filesystem.write, "/nonexistent-ws/out/a.txt"));
  // Its sections still only narrow the learned policy.
  EXPECT_TRUE(Engine::Create(learned).ok()) << text;
}

TEST(Suggest, WhatThePersonAdmittedAtTheTerminalIsAskedNoMore) {
  const Policy base = MustLoad(kBase);
  const std::string text = SuggestPolicy(
      base,
      {Event("write", "/nonexistent-ws/out/b.txt", "allow", "terminal"),
       Event("exec", "/usr/bin/make", "allow", "terminal", "", "make test"),
       // Each admitted once: never widened into `rm *`.
       Event("exec", "/usr/bin/rm", "allow", "terminal", "", "rm -rf build"),
       Event("exec", "/usr/bin/rm", "allow", "terminal", "", "rm foo.o"),
       Event("exec", "/usr/bin/rm", "allow", "terminal", "", "rm *.o"),
       // An allow by a rule is no news.
       Event("read", "/usr/share/x", "allow", "filesystem.read[0]")});
  const Policy learned = MustLoad(text);
  EXPECT_TRUE(Lists(learned.filesystem.write, "/nonexistent-ws/out/b.txt"))
      << text;
  EXPECT_TRUE(Lists(learned.commands.allow, "/usr/bin/make test")) << text;
  EXPECT_TRUE(Lists(learned.commands.allow, "/usr/bin/rm -rf build")) << text;
  EXPECT_TRUE(Lists(learned.commands.allow, "/usr/bin/rm foo.o")) << text;
  EXPECT_EQ(learned.commands.allow.size(), 3u) << text;
  EXPECT_THAT(text, HasSubstr("#   rm *.o x1"));
  EXPECT_FALSE(Lists(learned.filesystem.read, "/usr/share/x")) << text;
  absl::StatusOr<Engine> engine = Engine::Create(learned);
  ASSERT_TRUE(engine.ok()) << engine.status();
  const Decision d =
      engine->CheckPath(Access::kWrite, "/nonexistent-ws/out/b.txt");
  EXPECT_TRUE(d.allowed()) << d.message;
}

TEST(Suggest, NeverWidensAProgramSectionButSaysWhatItDecided) {
  const Policy base = MustLoad(kBase);
  const std::string text =
      SuggestPolicy(base, {Event("write", "/nonexistent-ws/proj/x", "deny",
                                 "programs.\"curl\"", "curl"),
                           Event("write", "/nonexistent-ws/out/c.txt", "allow",
                                 "terminal", "curl")});
  const Policy learned = MustLoad(text);
  EXPECT_FALSE(Lists(learned.filesystem.write, "/nonexistent-ws/proj/x"))
      << text;
  EXPECT_FALSE(Lists(learned.filesystem.write, "/nonexistent-ws/out/c.txt"))
      << text;
  ASSERT_EQ(learned.programs.size(), 1u) << text;
  EXPECT_TRUE(learned.programs[0].write->empty()) << text;
  EXPECT_THAT(text, HasSubstr("/nonexistent-ws/proj/x (write, refused by "
                              "programs.\"curl\") x1"));
  EXPECT_THAT(text, HasSubstr("/nonexistent-ws/out/c.txt (write, admitted at "
                              "the terminal under programs.\"curl\") x1"));
  EXPECT_THAT(text, Not(HasSubstr("covers")));
}

TEST(Suggest, ANameThatIsNotUtf8GetsARuleThatAdmitsIt) {
  // TOML cannot hold the byte 0xe9: the rule is a glob over it, the file is
  // valid, and the policy it makes admits the real name.
  const std::string name = "/nonexistent-ws/out/caf\xe9.txt";
  const std::string text = SuggestPolicy(
      MustLoad(kBase),
      {Event("write", name, "deny", "filesystem.write"),
       Event("read", "/etc/x\xff", "deny", "filesystem.deny[0]")});
  EXPECT_THAT(text, HasSubstr("\"/nonexistent-ws/out/caf*.txt\""));
  EXPECT_THAT(text, HasSubstr("caf\\xe9.txt (not UTF-8"));
  EXPECT_THAT(text, HasSubstr("/etc/x\\xff (filesystem.deny[0])"));
  const Policy learned = MustLoad(text);
  absl::StatusOr<Engine> engine = Engine::Create(learned);
  ASSERT_TRUE(engine.ok()) << engine.status();
  EXPECT_EQ(engine->CheckPath(Access::kWrite, name).verdict, Verdict::kAllow)
      << text;
}

}  // namespace
}  // namespace klaunch
