#include "launcher/explain_command.h"

#include <limits.h>
#include <netdb.h>
#include <stdlib.h>
#include <sys/socket.h>

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/engine.h"
#include "core/loader.h"
#include "core/run_policy.h"
#include "launcher/discover.h"
#include "launcher/program.h"
#include "launcher/run_command.h"

namespace klaunch {
namespace {

constexpr char kExplainUsage[] =
    "usage: klaunch explain [--policy FILE | --preset NAME] (--read PATH | "
    "--write PATH | --exec 'CMD LINE' | --connect HOST:PORT)\n";

int Usage(const std::string& why) {
  std::fprintf(stderr, "klaunch explain: %s\n%s", why.c_str(), kExplainUsage);
  return kExitUsage;
}

int Print(const std::string& what, const Decision& d) {
  if (d.allowed()) {
    std::printf("allow: %s (%s)\n", what.c_str(), std::string(d.rule).c_str());
    return 0;
  }
  std::printf("%s: %s\n", d.verdict == Verdict::kAsk ? "ask" : "deny",
              d.message.c_str());
  return 1;
}

// The path the kernel would reach: existing part resolved through symlinks.
std::string ResolveForJudgement(const std::string& path) {
  std::string abs = AbsolutePath(path);
  char buf[PATH_MAX];
  if (realpath(abs.c_str(), buf) != nullptr) return buf;
  const size_t slash = abs.rfind('/');
  if (slash != std::string::npos && slash > 0 &&
      realpath(abs.substr(0, slash).c_str(), buf) != nullptr) {
    return absl::StrCat(buf, abs.substr(slash));
  }
  return abs;
}

}  // namespace

int RunExplain(const std::vector<std::string>& args) {
  std::string policy_file, preset, kind, target;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kExplainUsage, stdout);
      return 0;
    }
    if (a != "--policy" && a != "--preset" && a != "--read" && a != "--write" &&
        a != "--exec" && a != "--connect") {
      return Usage("unknown option '" + a + "'");
    }
    if (i + 1 >= args.size()) return Usage("option " + a + " needs a value");
    const std::string& v = args[++i];
    if (a == "--policy") {
      policy_file = v;
    } else if (a == "--preset") {
      preset = v;
    } else if (a == "--read" || a == "--write" || a == "--exec" ||
               a == "--connect") {
      if (!kind.empty()) return Usage("one question at a time");
      kind = a.substr(2);
      target = v;
    } else {
      return Usage("unknown option '" + a + "'");
    }
  }
  if (kind.empty()) return Usage("nothing to explain");
  const LoadContext ctx = CurrentLoadContext();
  // As a run from here would judge: the policy it would find.
  if (policy_file.empty() && preset.empty()) {
    policy_file = DiscoverPolicyToUse(true);
  }
  absl::StatusOr<Policy> policy =
      policy_file.empty()
          ? PresetPolicy(preset.empty() ? "workspace-write" : preset, ctx)
          : LoadPolicyFile(policy_file, ctx);
  // As a run would judge: its policy file is kept from being written.
  if (policy.ok()) {
    RunAdditions additions;
    additions.policy_file = policy_file;
    if (absl::Status s = MakeRunPolicy(&*policy, additions, ctx); !s.ok()) {
      policy = s;
    }
  }
  absl::StatusOr<Engine> engine =
      policy.ok() ? Engine::Create(*policy) : policy.status();
  if (!engine.ok()) {
    std::fprintf(stderr, "klaunch: %s\n",
                 std::string(engine.status().message()).c_str());
    return kExitUsage;
  }
  if (kind == "read" || kind == "write") {
    const std::string path = ResolveForJudgement(target);
    return Print(kind + " of " + path,
                 engine->CheckPath(
                     kind == "read" ? Access::kRead : Access::kWrite, path));
  }
  if (kind == "exec") {
    std::vector<std::string> words =
        absl::StrSplit(target, ' ', absl::SkipEmpty());
    if (words.empty()) return Usage("--exec needs a command line");
    const char* path_var = getenv("PATH");
    const std::string program = FindInPath(words[0], path_var ? path_var : "");
    if (program.empty()) {
      std::fprintf(stderr, "klaunch: %s: command not found\n",
                   words[0].c_str());
      return kExitUsage;
    }
    const ExecutableName name = NameExecutable(program);
    std::vector<absl::string_view> argv(words.begin(), words.end());
    return Print("exec of `" + target + "` (" + name.named + ")",
                 engine->CheckCommand(name.named, argv, name.target));
  }
  absl::StatusOr<HostPort> hp = ParseHostPort(target);
  if (!hp.ok()) return Usage(std::string(hp.status().message()));
  if (hp->port == 0) return Usage("--connect needs HOST:PORT");
  if (hp->address) {
    return Print("connect to " + target,
                 engine->CheckConnect(*hp->address, hp->port, ""));
  }
  // A name: judged as a program that resolved it would be, for each address
  // it resolves to here.
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  int worst = 0;
  bool any = false;
  if (getaddrinfo(hp->host.c_str(), nullptr, &hints, &res) == 0) {
    for (addrinfo* a = res; a != nullptr; a = a->ai_next) {
      std::optional<IpAddress> ip;
      if (a->ai_family == AF_INET) {
        ip = IpAddress::FromBytes(
            false, reinterpret_cast<const uint8_t*>(
                       &reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_addr));
      } else if (a->ai_family == AF_INET6) {
        ip = IpAddress::FromBytes(
            true, reinterpret_cast<const uint8_t*>(
                      &reinterpret_cast<sockaddr_in6*>(a->ai_addr)->sin6_addr));
      }
      if (!ip) continue;
      any = true;
      const int r = Print(absl::StrCat("connect to ", hp->host, ":", hp->port,
                                       " (", ip->ToString(), ")"),
                          engine->CheckConnect(*ip, hp->port, hp->host));
      worst = std::max(worst, r);
      break;  // one answer: every address of the name gets the same rules
    }
    freeaddrinfo(res);
  }
  if (!any) {
    std::printf("(%s does not resolve here; judged by its name only)\n",
                hp->host.c_str());
    return Print("connect to " + hp->host + ":" + std::to_string(hp->port),
                 engine->CheckConnect(IpAddress{true, {}}, hp->port, hp->host));
  }
  return worst;
}

}  // namespace klaunch
