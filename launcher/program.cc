#include "launcher/program.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/path.h"

namespace klaunch {

std::string AbsolutePath(const std::string& path) {
  std::string abs = path;
  if (path.empty() || path[0] != '/') {
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof(cwd)) == nullptr) return path;
    abs = absl::StrCat(cwd, "/", path);
  }
  absl::StatusOr<std::string> n = NormalizePath(abs);
  return n.ok() ? *n : abs;
}

std::string FindInPath(const std::string& cmd, const std::string& path_var) {
  if (cmd.find('/') != std::string::npos) return AbsolutePath(cmd);
  const std::string path = path_var.empty() ? "/bin:/usr/bin" : path_var;
  int err = ENOENT;
  for (absl::string_view dir : absl::StrSplit(path, ':')) {
    const std::string candidate =
        dir.empty() ? cmd : absl::StrCat(dir, "/", cmd);
    struct stat st;
    if (stat(candidate.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (access(candidate.c_str(), X_OK) != 0) {
      err = EACCES;
      continue;
    }
    return AbsolutePath(candidate);
  }
  errno = err;
  return "";
}

ExecutableName NameExecutable(const std::string& abs) {
  ExecutableName out{abs, abs};
  const size_t slash = abs.rfind('/');
  char buf[PATH_MAX];
  if (slash != std::string::npos &&
      realpath(slash == 0 ? "/" : abs.substr(0, slash).c_str(), buf)) {
    const std::string dir = buf;
    out.named = absl::StrCat(dir == "/" ? "" : dir, abs.substr(slash));
  }
  if (realpath(abs.c_str(), buf) != nullptr) out.target = buf;
  return out;
}

}  // namespace klaunch
