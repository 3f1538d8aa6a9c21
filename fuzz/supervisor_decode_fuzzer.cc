// Fuzzes supervisor/decode.h, the supervisor's reading of a notification: a
// supervised call's number and argument words, and a memory image they may
// point into, go through every decoder. Checked: strings against a
// byte-by-byte reference reader, the limits each decoder promises (paths,
// argv, xattr names and values, socket addresses within sun_path, message
// sizes), SCM_RIGHTS descriptors found as glibc's CMSG_NXTHDR walks a
// control the decoder accepted, and only the errno values documented.
//
// Input: bytes 0-1 the call (little-endian; a number that is not supervised
// picks one of the supervised by its remainder), 2-49 the six argument
// words (little-endian), then the image, placed at kImageBase (0x10000):
// reads inside it succeed and every other fails, so a word or a pointer in
// a structure equal to 0x10000 + offset points into the image.
//
// fuzz/corpus/supervisor_decode/ holds one seed per decoder and call family,
// made by a one-off script (struct.pack('<H6Q', nr, *args) + image).

#include <linux/openat2.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "supervisor/decode.h"

namespace klaunch::supervise {
namespace {

#define FUZZ_CHECK(cond, what)                                            \
  do {                                                                    \
    if (!(cond)) {                                                        \
      std::fprintf(stderr, "%s:%d: property failed: %s (%s)\n", __FILE__, \
                   __LINE__, #cond, std::string(what).c_str());           \
      std::abort();                                                       \
    }                                                                     \
  } while (0)

constexpr uint64_t kImageBase = 0x10000;

constexpr int kCalls[] = {
    SYS_open,       SYS_openat,      SYS_openat2,      SYS_creat,
    SYS_execve,     SYS_execveat,    SYS_connect,      SYS_bind,
    SYS_sendto,     SYS_sendmsg,     SYS_sendmmsg,     SYS_unlink,
    SYS_unlinkat,   SYS_rename,      SYS_renameat,     SYS_renameat2,
    SYS_mkdir,      SYS_mkdirat,     SYS_rmdir,        SYS_link,
    SYS_linkat,     SYS_symlink,     SYS_symlinkat,    SYS_truncate,
    SYS_chmod,      SYS_fchmodat,    kSysFchmodat2,    SYS_fchmod,
    SYS_chown,      SYS_lchown,      SYS_fchownat,     SYS_fchown,
    SYS_mknod,      SYS_mknodat,     SYS_utimensat,    SYS_utime,
    SYS_utimes,     SYS_futimesat,   SYS_setxattr,     SYS_lsetxattr,
    SYS_fsetxattr,  SYS_removexattr, SYS_lremovexattr, SYS_fremovexattr,
    SYS_stat,       SYS_lstat,       SYS_newfstatat,   SYS_statx,
    SYS_access,     SYS_faccessat,   SYS_faccessat2,   SYS_readlink,
    SYS_readlinkat,
};
constexpr size_t kNumCalls = sizeof(kCalls) / sizeof(kCalls[0]);

bool IsOneOf(int nr, std::initializer_list<int> set) {
  return std::find(set.begin(), set.end(), nr) != set.end();
}

bool IsOpen(int nr) {
  return IsOneOf(nr, {SYS_open, SYS_openat, SYS_openat2, SYS_creat});
}
bool IsExec(int nr) { return IsOneOf(nr, {SYS_execve, SYS_execveat}); }
bool IsNetwork(int nr) {
  return IsOneOf(
      nr, {SYS_connect, SYS_bind, SYS_sendto, SYS_sendmsg, SYS_sendmmsg});
}

bool IsLook(int nr) {
  return IsOneOf(nr,
                 {SYS_stat, SYS_lstat, SYS_newfstatat, SYS_statx, SYS_access,
                  SYS_faccessat, SYS_faccessat2, SYS_readlink, SYS_readlinkat});
}

bool HasNul(const std::string& s) { return s.find('\0') != std::string::npos; }

bool OneOf(int e, std::initializer_list<int> allowed) {
  return e == 0 || IsOneOf(e, allowed);
}

std::string Num(uint64_t v) { return std::to_string(v); }

// The image as the fuzzer gave it, read byte by byte.
struct Image {
  const uint8_t* bytes;
  size_t size;

  bool Has(uint64_t addr) const {
    return addr >= kImageBase && addr - kImageBase < size;
  }

  // What ReadString must answer, worked out from where the scan stops
  // (the NUL, or the image's end) and the page-sized chunks it reads in.
  int String(uint64_t addr, size_t max, std::string* out) const {
    out->clear();
    if (addr == 0 || !Has(addr)) return -EFAULT;
    const size_t start = addr - kImageBase;
    const uint8_t* nul = static_cast<const uint8_t*>(
        std::memchr(bytes + start, 0, size - start));
    const size_t stop = nul != nullptr ? nul - (bytes + start) : size - start;
    const size_t first = 4096 - addr % 4096;
    const size_t chunk_start =
        stop < first ? 0 : first + (stop - first) / 4096 * 4096;
    if (chunk_start > max) return -ENAMETOOLONG;
    if (nul == nullptr) return -EFAULT;
    if (stop >= max) return -ENAMETOOLONG;
    out->assign(reinterpret_cast<const char*>(bytes + start), stop);
    return 0;
  }

  bool Word(uint64_t addr, uint64_t* out) const {
    if (!Has(addr) || size - (addr - kImageBase) < 8) return false;
    std::memcpy(out, bytes + (addr - kImageBase), 8);
    return true;
  }
};

void CheckStrings(const Image& img, const Memory& mem, const SyscallArgs& a,
                  size_t small_max) {
  for (uint64_t addr : a.args) {
    for (size_t max : {kMaxPath, kMaxXattrName, small_max}) {
      std::string got, want;
      const int e = mem.ReadString(addr, &got, max);
      const int want_e = img.String(addr, max, &want);
      FUZZ_CHECK(e == want_e, "ReadString " + Num(addr) + " max " + Num(max) +
                                  ": " + Num(-e) + " vs " + Num(-want_e));
      if (e == 0) {
        FUZZ_CHECK(got == want, "ReadString's string");
        FUZZ_CHECK(!HasNul(got) && got.size() < max, "ReadString's limit");
      }
    }
  }
}

// A decoded path argument must be what ReadString reads there. One the
// call does not have is left as constructed.
void CheckPath(const Image& img, const PathArg& p, const char* which) {
  if (p.addr == 0 && p.error == 0) {
    FUZZ_CHECK(p.path.empty(), which);
    return;
  }
  std::string want;
  const int want_e = img.String(p.addr, kMaxPath, &want);
  FUZZ_CHECK(p.error == want_e, which);
  if (p.error == 0) FUZZ_CHECK(p.path == want, which);
}

void CheckOpen(const Image& img, const Memory& mem, const SyscallArgs& a) {
  OpenCall o;
  const int e = DecodeOpen(a, mem, &o);
  if (!IsOpen(a.nr)) {
    FUZZ_CHECK(e == -ENOSYS, "open decoded another call");
    return;
  }
  FUZZ_CHECK(OneOf(-e, {EINVAL, E2BIG, EFAULT, ENAMETOOLONG}),
             "open's errno " + Num(-e));
  if (a.nr == SYS_openat2 && a.arg(3) < sizeof(open_how)) {
    FUZZ_CHECK(e == -EINVAL, "open_how too small");
  }
  if (a.nr == SYS_openat2 && a.arg(3) > 4096) {
    FUZZ_CHECK(e == -E2BIG, "open_how too big");
  }
  if (e != 0) return;
  FUZZ_CHECK(o.op != nullptr && o.op[0] != '\0', "open's name");
  if (!(o.flags & (O_CREAT | O_TMPFILE))) FUZZ_CHECK(o.mode == 0, "mode kept");
  if (a.nr != SYS_openat2)
    FUZZ_CHECK(o.resolve == 0, "resolve outside openat2");
  if (a.nr == SYS_open || a.nr == SYS_creat) {
    FUZZ_CHECK(o.dirfd == AT_FDCWD, "open's directory");
  }
  PathArg p;
  p.addr = a.arg(a.nr == SYS_open || a.nr == SYS_creat ? 0 : 1);
  p.path = o.path;
  CheckPath(img, p, "open's path");
}

void CheckExec(const Image& img, const Memory& mem, const SyscallArgs& a) {
  ExecCall x;
  const int e = DecodeExec(a, mem, &x);
  if (!IsExec(a.nr)) {
    FUZZ_CHECK(e == -ENOSYS, "exec decoded another call");
    return;
  }
  FUZZ_CHECK(OneOf(-e, {EFAULT, ENAMETOOLONG, E2BIG}),
             "exec's errno " + Num(-e));
  if (e != 0) return;
  const bool at = a.nr == SYS_execveat;
  PathArg p;
  p.addr = a.arg(at ? 1 : 0);
  p.path = x.path;
  CheckPath(img, p, "exec's path");
  FUZZ_CHECK(x.argv.size() <= kMaxArgs, "argv entries");
  size_t bytes = 0;
  for (const std::string& s : x.argv) {
    FUZZ_CHECK(!HasNul(s), "NUL in an argument");
    bytes += s.size() + 1;
  }
  FUZZ_CHECK(bytes <= kMaxArgBytes, "argv bytes");
  // Each entry is the string its pointer names, and a NULL follows them.
  const uint64_t argv = a.arg(at ? 2 : 1);
  if (argv == 0) {
    FUZZ_CHECK(x.argv.empty(), "a NULL argv");
    return;
  }
  for (size_t i = 0; i <= x.argv.size(); ++i) {
    uint64_t ptr = 0;
    FUZZ_CHECK(img.Word(argv + 8 * i, &ptr), "argv's pointers");
    if (i == x.argv.size()) {
      FUZZ_CHECK(ptr == 0, "argv's NULL");
      break;
    }
    std::string want;
    FUZZ_CHECK(img.String(ptr, kMaxArgBytes, &want) == 0 && want == x.argv[i],
               "argv entry " + Num(i));
  }
}

void CheckAddress(const Memory& mem, uint64_t addr, socklen_t len) {
  SocketAddress s;
  const int e = DecodeSocketAddress(mem, addr, len, &s);
  FUZZ_CHECK(OneOf(-e, {EINVAL, EFAULT}), "address errno " + Num(-e));
  if (len > sizeof(sockaddr_storage)) FUZZ_CHECK(e == -EINVAL, "long address");
  if (e != 0) return;
  FUZZ_CHECK(s.len == len, "address length");
  const auto* raw = reinterpret_cast<const uint8_t*>(&s.raw);
  for (size_t i = len; i < sizeof(s.raw); ++i) {
    FUZZ_CHECK(raw[i] == 0, "bytes past the length");
  }
  if (len < sizeof(sa_family_t)) {
    FUZZ_CHECK(s.kind == SocketAddress::kNoFamily, "no family");
    return;
  }
  FUZZ_CHECK(s.family == s.raw.ss_family, "family");
  const auto* un = reinterpret_cast<const sockaddr_un*>(&s.raw);
  const size_t path_len = len - offsetof(sockaddr_un, sun_path);
  switch (s.kind) {
    case SocketAddress::kUnixUnnamed:
      FUZZ_CHECK(s.family == AF_UNIX && path_len == 0, "unnamed");
      break;
    case SocketAddress::kUnixAbstract:
      FUZZ_CHECK(s.family == AF_UNIX && un->sun_path[0] == '\0', "abstract");
      FUZZ_CHECK(s.name.size() == path_len - 1, "abstract name's length");
      FUZZ_CHECK(s.name.size() < sizeof(un->sun_path),
                 "abstract past sun_path");
      FUZZ_CHECK(
          std::memcmp(s.name.data(), un->sun_path + 1, s.name.size()) == 0,
          "abstract name");
      break;
    case SocketAddress::kUnixPath:
      FUZZ_CHECK(s.family == AF_UNIX, "unix path");
      FUZZ_CHECK(!s.name.empty() && !HasNul(s.name), "unix path's NUL");
      FUZZ_CHECK(
          s.name.size() <= sizeof(un->sun_path) && s.name.size() <= path_len,
          "a unix path past sun_path: " + Num(s.name.size()));
      FUZZ_CHECK(std::memcmp(s.name.data(), un->sun_path, s.name.size()) == 0,
                 "unix path");
      break;
    case SocketAddress::kIp:
      if (s.v6) {
        const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&s.raw);
        FUZZ_CHECK(s.family == AF_INET6 && len >= sizeof(sockaddr_in6), "v6");
        FUZZ_CHECK(s.port == ntohs(in6->sin6_port), "v6 port");
        FUZZ_CHECK(std::memcmp(s.ip, &in6->sin6_addr, 16) == 0, "v6 address");
      } else {
        const auto* in = reinterpret_cast<const sockaddr_in*>(&s.raw);
        FUZZ_CHECK(s.family == AF_INET && len >= sizeof(sockaddr_in), "v4");
        FUZZ_CHECK(s.port == ntohs(in->sin_port), "v4 port");
        FUZZ_CHECK(std::memcmp(s.ip, &in->sin_addr, 4) == 0, "v4 address");
      }
      break;
    case SocketAddress::kOther:
      FUZZ_CHECK(s.family != AF_UNIX, "unix as other");
      FUZZ_CHECK((s.family != AF_INET || len < sizeof(sockaddr_in)) &&
                     (s.family != AF_INET6 || len < sizeof(sockaddr_in6)),
                 "an IP address as other");
      break;
    case SocketAddress::kNoFamily:
      FUZZ_CHECK(false, "a family read but not kept");
  }
}

// glibc's own walk of a control the decoder accepted: it must find the
// same descriptors.
std::vector<size_t> GlibcRights(std::vector<char> control) {
  std::vector<size_t> out;
  if (control.empty()) return out;
  msghdr m{};
  m.msg_control = control.data();
  m.msg_controllen = control.size();
  for (cmsghdr* h = CMSG_FIRSTHDR(&m); h != nullptr; h = CMSG_NXTHDR(&m, h)) {
    if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS) continue;
    const size_t at = reinterpret_cast<char*>(CMSG_DATA(h)) - control.data();
    for (size_t i = 0; i < (h->cmsg_len - CMSG_LEN(0)) / sizeof(int); ++i) {
      out.push_back(at + i * sizeof(int));
    }
  }
  return out;
}

void CheckMessage(const Memory& mem, const MessageHeader& h) {
  if (h.name != 0 && h.name_len > 0) CheckAddress(mem, h.name, h.name_len);
  MessageBody b;
  const int e = DecodeMessageBody(mem, h, &b);
  FUZZ_CHECK(OneOf(-e, {EMSGSIZE, EFAULT, ENOBUFS, EINVAL}),
             "message errno " + Num(-e));
  if (h.iov_count > kMaxIov) FUZZ_CHECK(e == -EMSGSIZE, "too many iovecs");
  if (e != 0) return;
  FUZZ_CHECK(b.buffers.size() == h.iov_count, "one buffer per iovec");
  size_t total = 0;
  for (const std::vector<char>& buf : b.buffers) total += buf.size();
  FUZZ_CHECK(total <= kMaxData, "message bytes " + Num(total));
  if (h.control == 0 || h.control_len == 0) {
    FUZZ_CHECK(b.control.empty() && b.rights.empty(), "no control");
    return;
  }
  FUZZ_CHECK(
      b.control.size() == h.control_len && b.control.size() <= kMaxControl,
      "control length");
  for (size_t i = 0; i < b.rights.size(); ++i) {
    FUZZ_CHECK(b.rights[i] >= CMSG_LEN(0) &&
                   b.rights[i] + sizeof(int) <= b.control.size(),
               "a descriptor outside the control");
    FUZZ_CHECK(i == 0 || b.rights[i] > b.rights[i - 1], "descriptor order");
  }
  FUZZ_CHECK(b.rights == GlibcRights(b.control),
             "SCM_RIGHTS as glibc walks them");
}

void CheckNetwork(const Memory& mem, const SyscallArgs& a) {
  // Every address and message decoder, whatever the call.
  CheckAddress(mem, a.arg(1), static_cast<socklen_t>(a.arg(2)));
  CheckAddress(mem, a.arg(4), static_cast<socklen_t>(a.arg(5)));
  std::vector<char> data;
  const int e = DecodeData(mem, a.arg(1), a.arg(2), &data);
  FUZZ_CHECK(OneOf(-e, {EMSGSIZE, EFAULT}), "data errno " + Num(-e));
  if (e == 0) FUZZ_CHECK(data.size() == a.arg(2), "data length");
  MessageHeader h;
  if (DecodeMessageHeader(mem, a.arg(1), &h) == 0) CheckMessage(mem, h);
  std::vector<MessageHeader> v;
  if (DecodeMessageHeaders(mem, a.arg(1), a.arg(2), &v) == 0) {
    FUZZ_CHECK(v.size() == std::min<uint64_t>(static_cast<unsigned>(a.arg(2)),
                                              kMaxMessages),
               "mmsghdr count");
    for (const MessageHeader& m : v) CheckMessage(mem, m);
  }
}

void CheckMutation(const Image& img, const Memory& mem, const SyscallArgs& a) {
  MutationCall m;
  const int e = DecodeMutation(a, mem, &m);
  if (IsOpen(a.nr) || IsExec(a.nr) || IsNetwork(a.nr) || IsLook(a.nr)) {
    FUZZ_CHECK(e == -ENOSYS, "mutation decoded another call");
    return;
  }
  FUZZ_CHECK(e == 0, "a mutation not decoded");
  FUZZ_CHECK(m.op != nullptr && m.op[0] != '\0', "mutation's name");
  CheckPath(img, m.path, "path");
  CheckPath(img, m.new_path, "new path");
  CheckPath(img, m.link_text, "link text");
  const XattrArg& x = m.xattr;
  FUZZ_CHECK(OneOf(-x.error, {ERANGE, EFAULT, E2BIG}),
             "xattr errno " + Num(-x.error));
  FUZZ_CHECK(OneOf(-m.times.error, {EFAULT, EINVAL}), "times errno");
  if (m.times.error == 0 && m.times.given) {
    for (const timespec& t : m.times.times) {
      if (a.nr == SYS_utimes || a.nr == SYS_futimesat) {
        FUZZ_CHECK(
            t.tv_nsec >= 0 && t.tv_nsec < 1000000000 && t.tv_nsec % 1000 == 0,
            "utimes' microseconds as nanoseconds");
      }
      if (a.nr == SYS_utime) FUZZ_CHECK(t.tv_nsec == 0, "utime's seconds");
    }
  }
  if (x.error == 0) {
    FUZZ_CHECK(!HasNul(x.name) && x.name.size() < kMaxXattrName, "xattr name");
    FUZZ_CHECK(x.value.size() <= kMaxXattrValue, "xattr value");
    if (x.set) FUZZ_CHECK(x.value.size() == a.arg(3), "xattr value length");
    if (!x.set) FUZZ_CHECK(x.value.empty(), "a value removed");
  }
}

void CheckLook(const Image& img, const Memory& mem, const SyscallArgs& a) {
  LookCall l;
  const int e = DecodeLook(a, mem, &l);
  if (!IsLook(a.nr)) {
    FUZZ_CHECK(e == -ENOSYS, "a look decoded another call");
    return;
  }
  FUZZ_CHECK(OneOf(-e, {0, EINVAL, EFAULT, ENAMETOOLONG}),
             "look errno " + Num(-e));
  if (e != 0) return;
  FUZZ_CHECK(l.op[0] != '\0', "look's name");
  const bool at =
      !IsOneOf(a.nr, {SYS_stat, SYS_lstat, SYS_access, SYS_readlink});
  std::string want;
  FUZZ_CHECK(
      img.String(a.arg(at ? 1 : 0), kMaxPath, &want) == 0 && want == l.path,
      "look's path");
  FUZZ_CHECK((l.mode & ~(R_OK | W_OK | X_OK)) == 0, "access mode");
  if (l.kind == LookCall::kReadlink) {
    FUZZ_CHECK(l.size > 0 && l.size <= 0x7fffffff, "readlink size");
  }
  if (!at) FUZZ_CHECK(l.dirfd == AT_FDCWD, "a look without a directory");
}

}  // namespace
}  // namespace klaunch::supervise

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace klaunch::supervise;
  constexpr size_t kHeader = 2 + 6 * 8;
  if (size < kHeader) return 0;
  SyscallArgs a;
  uint16_t nr;
  std::memcpy(&nr, data, 2);
  a.nr = std::find(std::begin(kCalls), std::end(kCalls), nr) != std::end(kCalls)
             ? nr
             : kCalls[nr % kNumCalls];
  std::memcpy(a.args, data + 2, sizeof(a.args));
  const Image img{data + kHeader, size - kHeader};
  const ImageMemory mem(kImageBase, img.bytes, img.size);

  CheckStrings(img, mem, a, 1 + nr % 64);
  CheckOpen(img, mem, a);
  CheckExec(img, mem, a);
  CheckNetwork(mem, a);
  CheckMutation(img, mem, a);
  CheckLook(img, mem, a);
  return 0;
}
