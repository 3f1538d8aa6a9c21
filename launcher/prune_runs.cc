#include "launcher/prune_runs.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace klaunch {
namespace {

int RemoveOne(const char* path, const struct stat*, int type, struct FTW*) {
  // Best effort: what cannot go stays, and is tried again next run.
  if (type == FTW_DP) {
    rmdir(path);
  } else {
    unlink(path);
  }
  return 0;
}

}  // namespace

size_t RunsToKeep() {
  size_t keep = 0;
  const char* v = getenv("KLAUNCH_KEEP_RUNS");
  if (v != nullptr && absl::SimpleAtoi(v, &keep) && keep >= 1) return keep;
  return kKeepRuns;
}

int HoldRunDir(const std::string& dir) {
  const int fd = open(absl::StrCat(dir, "/lock").c_str(),
                      O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return -1;
  if (flock(fd, LOCK_SH) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

size_t PruneRuns(const std::string& runs, size_t keep) {
  std::vector<std::string> names;
  if (DIR* d = opendir(runs.c_str())) {
    while (const dirent* e = readdir(d)) {
      if (e->d_name[0] == '.' || e->d_type != DT_DIR) continue;
      names.push_back(e->d_name);
    }
    closedir(d);
  }
  if (names.size() <= keep) return 0;
  std::sort(names.begin(), names.end());
  size_t removed = 0;
  for (size_t i = 0; i + keep < names.size(); ++i) {
    const std::string dir = absl::StrCat(runs, "/", names[i]);
    // A run holds its directory shared; an exclusive hold that does not
    // wait says nobody does (a directory from before holding had no lock
    // file: it is made here, and so not held).
    const int fd = open(absl::StrCat(dir, "/lock").c_str(),
                        O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) continue;
    const bool free = flock(fd, LOCK_EX | LOCK_NB) == 0;
    if (free) {
      nftw(dir.c_str(), RemoveOne, 16, FTW_DEPTH | FTW_PHYS);
      ++removed;
    }
    close(fd);
  }
  return removed;
}

PruneLater::PruneLater(std::string runs, size_t keep)
    : runs_(std::move(runs)), keep_(keep) {}

void PruneLater::Start() {
  if (thread_.joinable()) return;
  try {
    thread_ = std::thread([this] {
      // Best effort: at the normal class it only competes a little more.
      const sched_param none{};
      pthread_setschedparam(pthread_self(), SCHED_IDLE, &none);
      PruneRuns(runs_, keep_);
    });
  } catch (const std::system_error&) {
    // Out of threads: the destructor prunes.
  }
}

PruneLater::~PruneLater() {
  if (thread_.joinable()) {
    thread_.join();
  } else {
    PruneRuns(runs_, keep_);
  }
}

}  // namespace klaunch
