#include "core/exec_judge.h"

#include <fcntl.h>

#include <cerrno>
#include <optional>
#include <string>

#include "core/command.h"
#include "core/programs.h"

namespace klaunch {
namespace {

int Judge(ExecLayer& layer, const Policy& policy, int dirfd, const char* path,
          int flags, absl::Span<const absl::string_view> argv,
          std::vector<int>* chain, int depth) {
  if (depth > kMaxLoaderDepth) return ELOOP;
  FoundProgram p;
  if (int e = layer.Find(dirfd, path, flags, &p); e != 0) return e;
  if (p.real.empty()) {
    if (!layer.Refuse(p.named.empty() ? std::string(path) : p.named,
                      "the program has no path the policy can name")) {
      return EACCES;
    }
  } else if (!layer.Command(p, argv)) {
    return EACCES;
  }
  const std::vector<absl::string_view> links(p.links.begin(), p.links.end());
  *chain = EnterSections(policy, *chain, p.named, p.real, links);
  // ld.so runs no script: only the file the call names can have a #! line.
  if (depth == 0 && !layer.Interpreters(p, argv)) return EACCES;
  const std::optional<size_t> i = LoaderProgramIndex(p.real, argv);
  if (!i) return 0;
  const std::string program(argv[*i]);
  if (program.find('/') == std::string::npos) {
    return layer.Refuse(program, kLoaderBareName) ? 0 : EACCES;
  }
  return Judge(layer, policy, AT_FDCWD, program.c_str(), 0, argv.subspan(*i),
               chain, depth + 1);
}

}  // namespace

int JudgeExecOf(ExecLayer& layer, const Policy& policy, int dirfd,
                const char* path, int flags,
                absl::Span<const absl::string_view> argv,
                std::vector<int>* chain) {
  return Judge(layer, policy, dirfd, path, flags, argv, chain, 0);
}

}  // namespace klaunch
