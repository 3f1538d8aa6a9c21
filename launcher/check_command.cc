#include "launcher/check_command.h"

#include <cstdio>
#include <string>

#include "core/effective.h"
#include "core/engine.h"
#include "core/loader.h"

namespace klaunch {

int RunCheck(int argc, char** argv) {
  if (argc != 1) {
    std::fprintf(stderr, "klaunch check: expected one policy file, got %d\n"
                         "usage: klaunch check FILE\n", argc);
    return 2;
  }
  // Compiling (LoadEngine) is what catches bad globs, RE2, hosts and ports.
  absl::StatusOr<Engine> engine = LoadEngine(argv[0], CurrentLoadContext());
  if (!engine.ok()) {
    std::fprintf(stderr, "klaunch: %s\n",
                 std::string(engine.status().message()).c_str());
    return 2;
  }
  std::fputs(EffectiveToml(engine->policy()).c_str(), stdout);
  return 0;
}

}  // namespace klaunch
