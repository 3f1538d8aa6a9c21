// klaunch: runs a program under a declared policy. This file only routes the
// command line to a subcommand.

#include <cstdio>
#include <string>
#include <vector>

#include "launcher/check_command.h"
#include "launcher/discover.h"
#include "launcher/doctor_command.h"
#include "launcher/explain_command.h"
#include "launcher/options.h"
#include "launcher/run_command.h"
#include "launcher/suggest.h"
#include "supervisor/syscall_table.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::fputs(klaunch::kUsage, stderr);
    return klaunch::kExitKlaunchFailed;
  }
  const std::string& first = args[0];
  if (first == "--help" || first == "-h" || first == "help") {
    std::fputs(klaunch::kUsage, stdout);
    return 0;
  }
  if (first == "--version") {
    std::printf("klaunch %s\n", KLAUNCH_VERSION);
    return 0;
  }
  if (first == "check") return klaunch::RunCheck(argc - 2, argv + 2);
  if (first == "doctor") {
    return klaunch::RunDoctor({args.begin() + 1, args.end()});
  }
  if (first == "explain") {
    return klaunch::RunExplain({args.begin() + 1, args.end()});
  }
  if (first == "syscalls") {
    // docs/syscalls.md: what the seccomp filter does with every call.
    std::fputs(klaunch::SyscallsMarkdown().c_str(), stdout);
    return 0;
  }
  if (first == "suggest") {
    return klaunch::RunSuggest({args.begin() + 1, args.end()});
  }
  absl::StatusOr<klaunch::RunOptions> options = klaunch::ParseRunOptions(args);
  if (!options.ok()) {
    std::fprintf(stderr, "klaunch: %s\n",
                 std::string(options.status().message()).c_str());
    return klaunch::kExitKlaunchFailed;
  }
  if (options->policy_file.empty() && options->preset.empty()) {
    options->policy_file = klaunch::DiscoverPolicyToUse(!options->quiet);
  }
  return klaunch::RunProgram(*options);
}
