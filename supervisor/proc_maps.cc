#include "supervisor/proc_maps.h"

#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace klaunch {
namespace {

// PROCMAP_QUERY's argument (linux/fs.h of kernel 6.11; Debian 12's headers
// predate it).
struct ProcmapQuery {
  uint64_t size;
  uint64_t query_flags;
  uint64_t query_addr;
  uint64_t vma_start;
  uint64_t vma_end;
  uint64_t vma_flags;
  uint64_t vma_page_size;
  uint64_t vma_offset;
  uint64_t inode;
  uint32_t dev_major;
  uint32_t dev_minor;
  uint32_t vma_name_size;
  uint32_t build_id_size;
  uint64_t vma_name_addr;
  uint64_t build_id_addr;
};
static_assert(sizeof(ProcmapQuery) == 104);
constexpr unsigned long kProcmapQuery = _IOWR('f', 17, ProcmapQuery);
constexpr uint64_t kProcmapExecutable = 0x04;

}  // namespace

bool ExecutableMappingInText(absl::string_view text, uint64_t ip, dev_t* dev,
                             uint64_t* ino) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    // An anonymous mapping has no path: five fields, inode 0, as the
    // kernel's own answer gives it.
    std::vector<absl::string_view> f =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (f.size() < 5 || f[1].size() < 3 || f[1][2] != 'x') continue;
    std::vector<absl::string_view> range = absl::StrSplit(f[0], '-');
    std::vector<absl::string_view> d = absl::StrSplit(f[3], ':');
    uint64_t lo, hi, inode;
    uint32_t major_n, minor_n;
    if (range.size() != 2 || d.size() != 2 ||
        !absl::SimpleHexAtoi(range[0], &lo) ||
        !absl::SimpleHexAtoi(range[1], &hi) ||
        !absl::SimpleHexAtoi(d[0], &major_n) ||
        !absl::SimpleHexAtoi(d[1], &minor_n) ||
        !absl::SimpleAtoi(f[4], &inode)) {
      continue;
    }
    if (ip < lo || ip >= hi) continue;
    *dev = makedev(major_n, minor_n);
    *ino = inode;
    return true;
  }
  return false;
}

bool ExecutableMappingAt(int maps, uint64_t ip, dev_t* dev, uint64_t* ino) {
  ProcmapQuery q;
  std::memset(&q, 0, sizeof(q));
  q.size = sizeof(q);
  // Without COVERING_OR_NEXT_VMA: the mapping holding ip if it is
  // executable, else ENOENT.
  q.query_flags = kProcmapExecutable;
  q.query_addr = ip;
  if (ioctl(maps, kProcmapQuery, &q) == 0) {
    *dev = makedev(q.dev_major, q.dev_minor);
    *ino = q.inode;
    return true;
  }
  if (errno != ENOTTY && errno != EINVAL) return false;
  std::string text;
  char buf[16384];
  ssize_t n;
  while ((n = read(maps, buf, sizeof(buf))) > 0) text.append(buf, n);
  return ExecutableMappingInText(text, ip, dev, ino);
}

}  // namespace klaunch
