// Naming the program klaunch is asked about, as the shim names an exec: found
// in PATH as execvp would, its directory resolved, its final symlink kept
// (so /usr/bin/python3 stays python3) with the symlink's target beside it.

#ifndef KLAUNCH_LAUNCHER_PROGRAM_H_
#define KLAUNCH_LAUNCHER_PROGRAM_H_

#include <string>

namespace klaunch {

// `path` made absolute against the current directory and cleaned.
std::string AbsolutePath(const std::string& path);

// The file `cmd` names, searched in `path_var` (default "/bin:/usr/bin") as
// execvp would, made absolute. "" with errno ENOENT or EACCES when none.
std::string FindInPath(const std::string& cmd, const std::string& path_var);

struct ExecutableName {
  std::string named;   // directory resolved, final component as written
  std::string target;  // fully resolved
};
ExecutableName NameExecutable(const std::string& absolute_path);

}  // namespace klaunch

#endif  // KLAUNCH_LAUNCHER_PROGRAM_H_
