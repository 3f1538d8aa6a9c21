#include "launcher/shim_locator.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#ifndef KLAUNCH_SHIM_RELDIR
#define KLAUNCH_SHIM_RELDIR "../lib/klaunch"
#endif

namespace klaunch {

absl::StatusOr<std::string> FindShim() {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0) return absl::NotFoundError("cannot read /proc/self/exe");
  exe[n] = '\0';
  std::string dir(exe, std::string(exe).rfind('/'));
  std::vector<std::string> tried;
  for (const char* rel : {"../shim", KLAUNCH_SHIM_RELDIR}) {
    std::string candidate = absl::StrCat(dir, "/", rel, "/libklaunch-shim.so");
    char real[PATH_MAX];
    if (realpath(candidate.c_str(), real) != nullptr &&
        access(real, R_OK) == 0) {
      return std::string(real);
    }
    tried.push_back(candidate);
  }
  return absl::NotFoundError(
      absl::StrCat("the shim libklaunch-shim.so is missing (looked at ",
                   absl::StrJoin(tried, ", "), ")"));
}

}  // namespace klaunch
