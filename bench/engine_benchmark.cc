// Nanoseconds per decision of the Engine on a realistic policy: the
// python-agent example plus 50 rules of every kind (read roots, deny
// patterns, command rules, network entries), as a long-lived agent policy
// grows. Run by bench/run; on its own:
//
//   build/bench/engine_benchmark --benchmark_min_time=0.2

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/engine.h"
#include "core/loader.h"

namespace klaunch {
namespace {

Entry Rule(std::string value, std::string key) {
  Entry e;
  e.value = value;
  e.resolved = std::move(value);
  e.key = std::move(key);
  e.where.file = "bench";
  return e;
}

// 50 rules: 15 read roots, 10 deny patterns, 15 command rules, 10 hosts.
void AddFiftyRules(Policy* p) {
  auto& fs = p->filesystem;
  for (int i = 0; i < 15; ++i) {
    fs.read.push_back(
        Rule(absl::StrCat("/srv/data", i),
             absl::StrCat("filesystem.read[", fs.read.size(), "]")));
  }
  for (int i = 0; i < 10; ++i) {
    fs.deny.push_back(
        Rule(absl::StrCat("**/secret", i, "*.key"),
             absl::StrCat("filesystem.deny[", fs.deny.size(), "]")));
  }
  auto& c = p->commands;
  for (int i = 0; i < 10; ++i) {
    c.allow.push_back(
        Rule(absl::StrCat("tool", i, " run *"),
             absl::StrCat("commands.allow[", c.allow.size(), "]")));
  }
  for (int i = 0; i < 5; ++i) {
    c.deny.push_back(Rule(absl::StrCat("tool", i, " run --unsafe*"),
                          absl::StrCat("commands.deny[", c.deny.size(), "]")));
  }
  auto& n = p->network;
  for (int i = 0; i < 10; ++i) {
    n.allow.push_back(
        Rule(absl::StrCat("mirror", i, ".registry.example:443"),
             absl::StrCat("network.allow[", n.allow.size(), "]")));
  }
}

const Engine& TheEngine() {
  static const Engine* engine = [] {
    const char* examples = std::getenv("KLAUNCH_EXAMPLES");
    std::string file = absl::StrCat(examples ? examples : "policy-examples",
                                    "/python-agent.toml");
    LoadContext ctx{.base_dir = "/home/agent/project", .home = "/home/agent"};
    absl::StatusOr<Policy> policy = LoadPolicyFile(file, ctx);
    if (!policy.ok()) {
      std::fprintf(stderr, "engine_benchmark: %s (set KLAUNCH_EXAMPLES)\n",
                   policy.status().ToString().c_str());
      std::exit(2);
    }
    AddFiftyRules(&*policy);
    absl::StatusOr<Engine> e = Engine::Create(*policy);
    if (!e.ok()) {
      std::fprintf(stderr, "engine_benchmark: %s\n",
                   e.status().ToString().c_str());
      std::exit(2);
    }
    return new Engine(*std::move(e));
  }();
  return *engine;
}

// Each benchmark checks its decision once before timing it, so a policy
// change that flips the answer stops the run instead of timing the wrong path.
void Expect(benchmark::State& state, const Decision& d, bool allowed) {
  if (d.allowed() != allowed) {
    state.SkipWithError(allowed ? "expected allow" : "expected deny");
  }
}

void Path(benchmark::State& state, Access access, const char* path,
          bool allowed) {
  const Engine& e = TheEngine();
  Expect(state, e.CheckPath(access, path), allowed);
  for (auto _ : state) benchmark::DoNotOptimize(e.CheckPath(access, path));
}

void BM_CheckPath_ReadUnderUsr(benchmark::State& s) {
  Path(s, Access::kRead, "/usr/lib/python3.11/json/decoder.py", true);
}
void BM_CheckPath_WriteInWorkspace(benchmark::State& s) {
  Path(s, Access::kWrite, "/home/agent/project/src/agent/main.py", true);
}
void BM_CheckPath_DeniedByPattern(benchmark::State& s) {
  Path(s, Access::kRead, "/home/agent/project/config/.env", false);
}
void BM_CheckPath_OutsideEveryRoot(benchmark::State& s) {
  Path(s, Access::kRead, "/var/lib/private/db", false);
}
void BM_CheckPath_StatUnderUsr(benchmark::State& s) {
  Path(s, Access::kStat, "/usr/share/doc/git/README.md", true);
}

void Command(benchmark::State& state, const char* exe,
             std::vector<absl::string_view> argv, bool allowed) {
  const Engine& e = TheEngine();
  Expect(state, e.CheckCommand(exe, argv), allowed);
  for (auto _ : state) benchmark::DoNotOptimize(e.CheckCommand(exe, argv));
}

void BM_CheckCommand_AllowedPrefix(benchmark::State& s) {
  Command(s, "/usr/bin/git", {"git", "status", "--short"}, true);
}
void BM_CheckCommand_AllowedPattern(benchmark::State& s) {
  Command(s, "/usr/bin/python3", {"python3", "-m", "pytest", "-q"}, true);
}
void BM_CheckCommand_Denied(benchmark::State& s) {
  Command(s, "/usr/bin/git", {"git", "push", "origin", "main"}, false);
}
void BM_CheckCommand_Unlisted(benchmark::State& s) {
  Command(s, "/usr/bin/curl", {"curl", "-fsS", "http://203.0.113.9/x"}, false);
}

void Connect(benchmark::State& state, const char* ip, uint16_t port,
             const char* host, bool allowed) {
  const Engine& e = TheEngine();
  std::optional<IpAddress> addr = IpAddress::Parse(ip);
  if (!addr) {
    state.SkipWithError("bad address");
    return;
  }
  Expect(state, e.CheckConnect(*addr, port, host), allowed);
  for (auto _ : state) {
    benchmark::DoNotOptimize(e.CheckConnect(*addr, port, host));
  }
}

void BM_CheckConnect_ListedHost(benchmark::State& s) {
  Connect(s, "151.101.0.223", 443, "pypi.org", true);
}
void BM_CheckConnect_LastListedHost(benchmark::State& s) {
  Connect(s, "192.0.2.10", 443, "mirror9.registry.example", true);
}
void BM_CheckConnect_UnlistedAddress(benchmark::State& s) {
  Connect(s, "198.51.100.7", 80, "", false);
}

BENCHMARK(BM_CheckPath_ReadUnderUsr);
BENCHMARK(BM_CheckPath_WriteInWorkspace);
BENCHMARK(BM_CheckPath_DeniedByPattern);
BENCHMARK(BM_CheckPath_OutsideEveryRoot);
BENCHMARK(BM_CheckPath_StatUnderUsr);
BENCHMARK(BM_CheckCommand_AllowedPrefix);
BENCHMARK(BM_CheckCommand_AllowedPattern);
BENCHMARK(BM_CheckCommand_Denied);
BENCHMARK(BM_CheckCommand_Unlisted);
BENCHMARK(BM_CheckConnect_ListedHost);
BENCHMARK(BM_CheckConnect_LastListedHost);
BENCHMARK(BM_CheckConnect_UnlistedAddress);

}  // namespace
}  // namespace klaunch

BENCHMARK_MAIN();
