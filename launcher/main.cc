// klaunch: runs a program under a declared policy. This file only routes the
// command line to a subcommand.

#include <cstdio>
#include <cstring>
#include "absl/strings/string_view.h"

#include "launcher/check_command.h"

namespace {

constexpr char kUsage[] =
    "usage: klaunch check FILE      validate a policy, print its effective "
    "form\n"
    "       klaunch --help | --version\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const absl::string_view first = argv[1];
  if (first == "--help" || first == "-h") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (first == "--version") {
    std::printf("klaunch %s\n", KLAUNCH_VERSION);
    return 0;
  }
  if (first == "check") return klaunch::RunCheck(argc - 2, argv + 2);
  std::fprintf(stderr, "klaunch: unknown command '%s'\n%s", argv[1], kUsage);
  return 2;
}
