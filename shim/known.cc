#include "shim/known.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <atomic>

#include "shim/sys.h"

namespace klaunch::shim {
namespace {

constexpr size_t kSlots = 4096;  // a power of two; 32 KiB of tags
std::atomic<uint64_t> g_slots[kSlots];
uint64_t g_key[2];
uint64_t g_proc_mount;
std::atomic<bool> g_keyed{false};

inline uint64_t Rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

// SipHash-2-4 of whole 64-bit words, keyed by g_key: a program cannot pick
// an object whose tag matches one the shim remembered for another.
uint64_t Tag(const uint64_t* words, size_t n) {
  uint64_t v0 = 0x736f6d6570736575ull ^ g_key[0];
  uint64_t v1 = 0x646f72616e646f6dull ^ g_key[1];
  uint64_t v2 = 0x6c7967656e657261ull ^ g_key[0];
  uint64_t v3 = 0x7465646279746573ull ^ g_key[1];
  auto round = [&] {
    v0 += v1;
    v1 = Rotl(v1, 13);
    v1 ^= v0;
    v0 = Rotl(v0, 32);
    v2 += v3;
    v3 = Rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = Rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = Rotl(v1, 17);
    v1 ^= v2;
    v2 = Rotl(v2, 32);
  };
  for (size_t i = 0; i < n; ++i) {
    v3 ^= words[i];
    round();
    round();
    v0 ^= words[i];
  }
  const uint64_t last = static_cast<uint64_t>(n * 8) << 56;
  v3 ^= last;
  round();
  round();
  v0 ^= last;
  v2 ^= 0xff;
  round();
  round();
  round();
  round();
  const uint64_t h = v0 ^ v1 ^ v2 ^ v3;
  return h == 0 ? 1 : h;  // 0 marks an empty slot
}

uint64_t TagOf(const ObjectId& id, Access access) {
  const uint64_t words[5] = {
      id.mount, id.inode, static_cast<uint64_t>(id.ctime_sec),
      (static_cast<uint64_t>(id.dev_major) << 32) | id.dev_minor,
      (static_cast<uint64_t>(id.ctime_nsec) << 8) |
          static_cast<uint64_t>(access)};
  return Tag(words, 5);
}

}  // namespace

void InitKnown(bool audit) {
  if (audit) return;
  // /proc/PID means another process in a child (the shim judges
  // /proc/<own pid> as /proc/self): nothing under that mount is remembered.
  struct statx proc;
  if (sys(SYS_statx, AT_FDCWD, "/proc", 0, STATX_MNT_ID, &proc) != 0 ||
      !(proc.stx_mask & STATX_MNT_ID)) {
    return;
  }
  g_proc_mount = proc.stx_mnt_id;
  uint64_t key[2];
  if (sys(SYS_getrandom, key, sizeof(key), 0) != sizeof(key)) return;
  g_key[0] = key[0];
  g_key[1] = key[1];
  g_keyed.store(true, std::memory_order_release);
}

bool IdOfStatx(const struct statx& sx, ObjectId* out) {
  constexpr unsigned kNeeded =
      STATX_TYPE | STATX_INO | STATX_NLINK | STATX_CTIME | STATX_MNT_ID;
  if ((sx.stx_mask & kNeeded) != kNeeded) return false;
  out->mount = sx.stx_mnt_id;
  out->inode = sx.stx_ino;
  out->ctime_sec = sx.stx_ctime.tv_sec;
  out->ctime_nsec = sx.stx_ctime.tv_nsec;
  out->dev_major = sx.stx_dev_major;
  out->dev_minor = sx.stx_dev_minor;
  out->single_path =
      S_ISDIR(sx.stx_mode) ||
      ((S_ISREG(sx.stx_mode) || S_ISLNK(sx.stx_mode)) && sx.stx_nlink == 1);
  return true;
}

bool IdOfFd(int fd, ObjectId* out) {
  struct statx sx;
  if (sys(SYS_statx, fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS | STATX_MNT_ID,
          &sx) != 0) {
    return false;
  }
  return IdOfStatx(sx, out);
}

bool Remembering() { return g_keyed.load(std::memory_order_acquire); }

bool SameObject(const ObjectId& id, const struct stat& st) {
  return st.st_ino == id.inode && major(st.st_dev) == id.dev_major &&
         minor(st.st_dev) == id.dev_minor &&
         st.st_ctim.tv_sec == id.ctime_sec &&
         static_cast<uint64_t>(st.st_ctim.tv_nsec) == id.ctime_nsec;
}

bool Known(const ObjectId& id, Access access) {
  if (!id.single_path || !g_keyed.load(std::memory_order_acquire)) {
    return false;
  }
  const uint64_t tag = TagOf(id, access);
  return g_slots[tag & (kSlots - 1)].load(std::memory_order_relaxed) == tag;
}

void Remember(const ObjectId& id, Access access) {
  if (!id.single_path || !g_keyed.load(std::memory_order_acquire)) return;
  if (id.mount == g_proc_mount) return;
  const uint64_t tag = TagOf(id, access);
  g_slots[tag & (kSlots - 1)].store(tag, std::memory_order_relaxed);
}

}  // namespace klaunch::shim
