#include "core/exec_judge.h"

#include <fcntl.h>

#include <cerrno>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/command.h"
#include "core/loader.h"
#include "core/policy.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace klaunch {
namespace {

using ::testing::ElementsAre;

// Finds the programs it was given, refuses the commands it is told to, and
// records each step as "step name".
class FakeLayer final : public ExecLayer {
 public:
  std::map<std::string, FoundProgram> programs;  // by the path an exec names
  std::set<std::string> refused;                 // commands, by name
  bool audit = false;                            // Refuse goes on
  bool interpreters_ok = true;
  std::vector<std::string> seen;

  int Find(int dirfd, const char* path, int flags,
           FoundProgram* found) override {
    EXPECT_EQ(dirfd, AT_FDCWD);
    EXPECT_EQ(flags, 0);
    seen.push_back(std::string("find ") + path);
    auto it = programs.find(path);
    if (it == programs.end()) return ENOENT;
    *found = it->second;
    return 0;
  }
  bool Command(const FoundProgram& p,
               absl::Span<const absl::string_view> argv) override {
    seen.push_back("command " + CommandLineText(p.named, argv));
    return !refused.count(p.named);
  }
  bool Interpreters(const FoundProgram& p,
                    absl::Span<const absl::string_view>) override {
    seen.push_back("interpreters " + p.named);
    return interpreters_ok;
  }
  bool Refuse(const std::string& name, const char* why) override {
    seen.push_back("refuse " + name + ": " + why);
    return audit;
  }
};

Policy Load(absl::string_view toml) {
  absl::StatusOr<Policy> p = LoadPolicyText(
      toml, "test.toml",
      LoadContext{"/nonexistent-ws/proj", "/nonexistent-home/me", ""});
  EXPECT_TRUE(p.ok()) << p.status();
  return *std::move(p);
}

Policy Sections() {
  return Load("[programs.\"python3\"]\nnetwork.allow = []\n");
}

const Policy& NoSections() {
  static const Policy* p = new Policy(Load(""));
  return *p;
}

constexpr char kLoader[] = "/usr/lib64/ld-linux-x86-64.so.2";

int Exec(FakeLayer& layer, const char* path,
         std::vector<absl::string_view> argv, std::vector<int>* chain,
         const Policy& policy = NoSections()) {
  return JudgeExecOf(layer, policy, AT_FDCWD, path, 0, argv, chain);
}

TEST(ExecJudge, TheCommandIsJudgedBeforeTheScriptsInterpreters) {
  FakeLayer layer;
  layer.programs["./run.sh"] = {"/w/run.sh", "/w/run.sh", {}};
  std::vector<int> chain;
  EXPECT_EQ(Exec(layer, "./run.sh", {"./run.sh", "x"}, &chain), 0);
  EXPECT_THAT(layer.seen, ElementsAre("find ./run.sh", "command run.sh x",
                                      "interpreters /w/run.sh"));
}

TEST(ExecJudge, ARefusedCommandStopsBeforeItsInterpretersAndSections) {
  FakeLayer layer;
  layer.programs["python3"] = {"/usr/bin/python3", "/usr/bin/python3.11", {}};
  layer.refused = {"/usr/bin/python3"};
  const Policy policy = Sections();
  std::vector<int> chain;
  EXPECT_EQ(Exec(layer, "python3", {"python3"}, &chain, policy), EACCES);
  EXPECT_THAT(layer.seen, ElementsAre("find python3", "command python3"));
  EXPECT_TRUE(chain.empty());
}

TEST(ExecJudge, ARefusedInterpreterRefusesTheExec) {
  FakeLayer layer;
  layer.programs["s"] = {"/w/s", "/w/s", {}};
  layer.interpreters_ok = false;
  std::vector<int> chain;
  EXPECT_EQ(Exec(layer, "s", {"s"}, &chain), EACCES);
}

TEST(ExecJudge, AMissingProgramFailsWithTheErrnoItsLayerFound) {
  FakeLayer layer;
  std::vector<int> chain;
  EXPECT_EQ(Exec(layer, "/nope", {"nope"}, &chain), ENOENT);
  EXPECT_THAT(layer.seen, ElementsAre("find /nope"));
}

TEST(ExecJudge, AProgramWithNoPathIsRefusedWithoutItsCommandBeingJudged) {
  FakeLayer layer;
  layer.programs["fd"] = {"", "", {}};
  std::vector<int> chain;
  EXPECT_EQ(Exec(layer, "fd", {"x"}, &chain), EACCES);
  EXPECT_THAT(layer.seen,
              ElementsAre("find fd",
                          "refuse fd: the program has no path the policy can "
                          "name"));
}

TEST(ExecJudge, AnExecEntersTheSectionsOfEachNameItIsReachedBy) {
  FakeLayer layer;
  // Reached through a link named python3: the section by that name holds.
  layer.programs["/opt/py"] = {
      "/opt/py", "/usr/bin/python3.11", {"/usr/bin/python3"}};
  const Policy policy = Sections();
  std::vector<int> chain;
  EXPECT_EQ(Exec(layer, "/opt/py", {"py"}, &chain, policy), 0);
  EXPECT_THAT(chain, ElementsAre(0));
}

TEST(ExecJudge, TheProgramTheLoaderRunsIsJudgedAsAnExecOfItsOwn) {
  FakeLayer layer;
  layer.programs[kLoader] = {kLoader, kLoader, {}};
  layer.programs["/usr/bin/curl"] = {"/usr/bin/curl", "/usr/bin/curl", {}};
  std::vector<int> chain;
  EXPECT_EQ(Exec(layer, kLoader,
                 {"ld.so", "--argv0", "c", "/usr/bin/curl", "-s"}, &chain),
            0);
  // Its own command line is the words from PROGRAM on; a loader runs no
  // script, so interpreters are read for the file the call names only.
  EXPECT_THAT(layer.seen, ElementsAre(std::string("find ") + kLoader,
                                      "command ld-linux-x86-64.so.2 --argv0 c "
                                      "/usr/bin/curl -s",
                                      std::string("interpreters ") + kLoader,
                                      "find /usr/bin/curl", "command curl -s"));
  layer.refused = {"/usr/bin/curl"};
  EXPECT_EQ(Exec(layer, kLoader, {"ld.so", "/usr/bin/curl"}, &chain), EACCES);
}

TEST(ExecJudge, ALoaderProgramNamedWithoutASlashIsRefusedUnlessAuditing) {
  FakeLayer layer;
  layer.programs[kLoader] = {kLoader, kLoader, {}};
  std::vector<int> chain;
  EXPECT_EQ(Exec(layer, kLoader, {"ld.so", "curl"}, &chain), EACCES);
  EXPECT_EQ(layer.seen.back(), std::string("refuse curl: ") + kLoaderBareName);
  layer.audit = true;
  EXPECT_EQ(Exec(layer, kLoader, {"ld.so", "curl"}, &chain), 0);
}

TEST(ExecJudge, ALoaderRunningLoadersIsRefusedPastTheLimit) {
  FakeLayer layer;
  layer.programs[kLoader] = {kLoader, kLoader, {}};
  std::vector<int> chain;
  std::vector<absl::string_view> argv = {"ld.so"};
  // The loader the call names, then as many more as may run programs.
  for (int i = 1; i < kMaxLoaderDepth; ++i) argv.push_back(kLoader);
  argv.push_back("/bin/true");
  layer.programs["/bin/true"] = {"/bin/true", "/bin/true", {}};
  EXPECT_EQ(Exec(layer, kLoader, argv, &chain), 0);
  argv.insert(argv.begin() + 1, kLoader);
  EXPECT_EQ(Exec(layer, kLoader, argv, &chain), ELOOP);
}

}  // namespace
}  // namespace klaunch
