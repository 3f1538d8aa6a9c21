#include "launcher/check_command.h"

#include <cstdio>
#include <string>

#include "core/effective.h"
#include "core/engine.h"
#include "core/loader.h"
#include "launcher/run_command.h"

namespace klaunch {

int RunCheck(int argc, char** argv) {
  constexpr char kCheckUsage[] = "usage: klaunch check FILE\n";
  if (argc == 1 &&
      (std::string(argv[0]) == "--help" || std::string(argv[0]) == "-h")) {
    std::fputs(kCheckUsage, stdout);
    return 0;
  }
  // A policy named `-x` is written `./-x`: an option is never a file.
  if (argc >= 1 && argv[0][0] == '-') {
    std::fprintf(stderr, "klaunch check: unknown option '%s'\n%s", argv[0],
                 kCheckUsage);
    return kExitUsage;
  }
  if (argc != 1) {
    std::fprintf(stderr, "klaunch check: expected one policy file, got %d\n%s",
                 argc, kCheckUsage);
    return kExitUsage;
  }
  // Compiling (LoadEngine) is what catches bad globs, RE2, hosts and ports.
  absl::StatusOr<Engine> engine = LoadEngine(argv[0], CurrentLoadContext());
  if (!engine.ok()) {
    std::fprintf(stderr, "klaunch: %s\n",
                 std::string(engine.status().message()).c_str());
    return kExitUsage;
  }
  std::fputs(EffectiveToml(engine->policy()).c_str(), stdout);
  return 0;
}

}  // namespace klaunch
