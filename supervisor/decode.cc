// The decoders of decode.h: argument words and Memory reads only, no
// system calls, no /proc and no judging (supervise_*.cc judge). The limits
// and errno values are the kernel's where it has them.

#include "supervisor/decode.h"

#include <arpa/inet.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include <utime.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace klaunch::supervise {
namespace {

// Reading nothing always succeeds, whatever the Memory does with it.
bool ReadExact(const Memory& mem, uint64_t addr, void* out, size_t size) {
  return size == 0 || mem.Read(addr, out, size);
}

PathArg ReadPath(const Memory& mem, uint64_t addr) {
  PathArg p;
  p.addr = addr;
  p.error = mem.ReadString(addr, &p.path);
  return p;
}

int ReadArgv(const Memory& mem, uint64_t addr, std::vector<std::string>* out) {
  if (addr == 0) return 0;  // Linux takes a NULL argv as empty
  size_t bytes = 0;
  for (size_t i = 0; i < kMaxArgs; ++i) {
    uint64_t p = 0;
    if (!mem.Read(addr + i * sizeof(p), &p, sizeof(p))) return -EFAULT;
    if (p == 0) return 0;
    std::string s;
    if (int e = mem.ReadString(p, &s, kMaxArgBytes); e < 0) {
      return e == -ENAMETOOLONG ? -E2BIG : e;
    }
    bytes += s.size() + 1;
    if (bytes > kMaxArgBytes) return -E2BIG;
    out->push_back(std::move(s));
  }
  return -E2BIG;
}

// utime's utimbuf (seconds) or utimes' timeval pair, as utimensat's times.
TimesArg ReadOldTimes(const Memory& mem, uint64_t addr, bool timeval_pair) {
  TimesArg t;
  if (addr == 0) return t;
  if (timeval_pair) {
    timeval tv[2];
    if (!mem.Read(addr, tv, sizeof(tv))) {
      t.error = -EFAULT;
      return t;
    }
    for (int i = 0; i < 2; ++i) {
      // The kernel's check: outside it the product overflows (or could
      // spell UTIME_NOW/UTIME_OMIT).
      if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000) {
        t.error = -EINVAL;
        return t;
      }
      t.times[i] = {tv[i].tv_sec, tv[i].tv_usec * 1000};
    }
  } else {
    utimbuf ub;
    if (!mem.Read(addr, &ub, sizeof(ub))) {
      t.error = -EFAULT;
      return t;
    }
    t.times[0] = {ub.actime, 0};
    t.times[1] = {ub.modtime, 0};
  }
  t.given = true;
  return t;
}

// set*xattr(path|fd, name, value, size, flags), remove*xattr(path|fd, name).
XattrArg ReadXattr(const SyscallArgs& a, const Memory& mem, bool set,
                   bool nofollow) {
  XattrArg x;
  x.set = set;
  x.nofollow = nofollow;
  if (int e = mem.ReadString(a.arg(1), &x.name, kMaxXattrName); e < 0) {
    x.error = e == -ENAMETOOLONG ? -ERANGE : e;
    return x;
  }
  if (set) {
    if (a.arg(3) > kMaxXattrValue) {
      x.error = -E2BIG;
      return x;
    }
    x.value.resize(a.arg(3));
    if (!ReadExact(mem, a.arg(2), x.value.data(), x.value.size())) {
      x.error = -EFAULT;
      return x;
    }
    x.flags = a.iarg(4);
  }
  return x;
}

// An attribute's name, as get*xattr takes it: ERANGE when too long.
int ReadXattrName(const Memory& mem, uint64_t addr, std::string* out) {
  const int e = mem.ReadString(addr, out, kMaxXattrName);
  return e == -ENAMETOOLONG ? -ERANGE : e;
}

}  // namespace

int Memory::ReadString(uint64_t addr, std::string* out, size_t max) const {
  out->clear();
  if (addr == 0) return -EFAULT;
  constexpr uint64_t kPage = 4096;
  char chunk[kPage];
  while (out->size() <= max) {
    // Never across a page boundary: the next page may be unmapped.
    const size_t n = kPage - (addr % kPage);
    size_t got = n;
    if (!Read(addr, chunk, n)) {
      // Only an image ends inside a page: find where. For a process this
      // fails at the first byte, the page being unreadable.
      got = 0;
      while (got < n && Read(addr + got, chunk + got, 1)) ++got;
    }
    const void* nul = std::memchr(chunk, '\0', got);
    if (nul != nullptr) {
      out->append(chunk, static_cast<const char*>(nul) - chunk);
      return out->size() < max ? 0 : -ENAMETOOLONG;
    }
    if (got < n) return -EFAULT;
    out->append(chunk, n);
    addr += n;
  }
  return -ENAMETOOLONG;
}

bool ImageMemory::Read(uint64_t addr, void* out, size_t size) const {
  if (size == 0) return true;
  if (addr < base_ || addr - base_ > size_ || size > size_ - (addr - base_)) {
    return false;
  }
  std::memcpy(out, bytes_ + (addr - base_), size);
  return true;
}

int DecodeOpen(const SyscallArgs& a, const Memory& mem, OpenCall* o) {
  uint64_t path_arg = 0;
  switch (a.nr) {
    case SYS_open:
      o->op = "open";
      path_arg = a.arg(0);
      o->flags = a.iarg(1);
      o->mode = static_cast<mode_t>(a.arg(2));
      break;
    case SYS_creat:
      o->op = "creat";
      path_arg = a.arg(0);
      o->flags = O_CREAT | O_WRONLY | O_TRUNC;
      o->mode = static_cast<mode_t>(a.arg(1));
      break;
    case SYS_openat:
      o->op = "openat";
      o->dirfd = a.iarg(0);
      path_arg = a.arg(1);
      o->flags = a.iarg(2);
      o->mode = static_cast<mode_t>(a.arg(3));
      break;
    case SYS_openat2: {
      o->op = "openat2";
      o->dirfd = a.iarg(0);
      path_arg = a.arg(1);
      open_how how{};
      if (a.arg(3) < sizeof(open_how)) return -EINVAL;
      if (a.arg(3) > 4096) return -E2BIG;
      if (!mem.Read(a.arg(2), &how, sizeof(how))) return -EFAULT;
      o->flags = static_cast<int>(how.flags);
      o->mode = static_cast<mode_t>(how.mode);
      o->resolve = how.resolve;
      if (how.flags >> 32) return -EINVAL;
      break;
    }
    default:
      return -ENOSYS;
  }
  if (!(o->flags & (O_CREAT | O_TMPFILE))) o->mode = 0;
  return mem.ReadString(path_arg, &o->path);
}

int DecodeExec(const SyscallArgs& a, const Memory& mem, ExecCall* out) {
  if (a.nr != SYS_execve && a.nr != SYS_execveat) return -ENOSYS;
  const bool at = a.nr == SYS_execveat;
  out->op = at ? "execveat" : "execve";
  out->dirfd = at ? a.iarg(0) : AT_FDCWD;
  out->flags = at ? a.iarg(4) : 0;
  if (int e = mem.ReadString(a.arg(at ? 1 : 0), &out->path); e < 0) return e;
  return ReadArgv(mem, a.arg(at ? 2 : 1), &out->argv);
}

int DecodeSocketAddress(const Memory& mem, uint64_t addr, socklen_t len,
                        SocketAddress* out) {
  if (len > sizeof(sockaddr_storage)) return -EINVAL;
  if (!ReadExact(mem, addr, &out->raw, len)) return -EFAULT;
  out->len = len;
  if (len < sizeof(sa_family_t)) {
    out->kind = SocketAddress::kNoFamily;
    return 0;
  }
  out->family = out->raw.ss_family;
  switch (out->family) {
    case AF_UNIX: {
      // The kernel refuses more (unix_validate_addr); taking it would let
      // a path run past sun_path into the rest of the storage.
      if (len > sizeof(sockaddr_un)) return -EINVAL;
      const auto* un = reinterpret_cast<const sockaddr_un*>(&out->raw);
      const size_t path_len = len - offsetof(sockaddr_un, sun_path);
      if (path_len == 0) {
        out->kind = SocketAddress::kUnixUnnamed;
      } else if (un->sun_path[0] == '\0') {
        out->kind = SocketAddress::kUnixAbstract;
        out->name.assign(un->sun_path + 1, path_len - 1);
      } else {
        out->kind = SocketAddress::kUnixPath;
        out->name.assign(un->sun_path, strnlen(un->sun_path, path_len));
      }
      return 0;
    }
    case AF_INET:
      if (len < sizeof(sockaddr_in)) break;
      {
        const auto* in = reinterpret_cast<const sockaddr_in*>(&out->raw);
        out->kind = SocketAddress::kIp;
        std::memcpy(out->ip, &in->sin_addr, sizeof(in->sin_addr));
        out->port = ntohs(in->sin_port);
      }
      return 0;
    case AF_INET6:
      if (len < sizeof(sockaddr_in6)) break;
      {
        const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&out->raw);
        out->kind = SocketAddress::kIp;
        out->v6 = true;
        std::memcpy(out->ip, &in6->sin6_addr, sizeof(in6->sin6_addr));
        out->port = ntohs(in6->sin6_port);
      }
      return 0;
    default:
      break;
  }
  out->kind = SocketAddress::kOther;
  return 0;
}

int DecodeData(const Memory& mem, uint64_t addr, uint64_t len,
               std::vector<char>* out) {
  if (len > kMaxData) return -EMSGSIZE;
  out->resize(len);
  return ReadExact(mem, addr, out->data(), len) ? 0 : -EFAULT;
}

namespace {

MessageHeader FromMsghdr(const msghdr& m) {
  MessageHeader h;
  h.name = reinterpret_cast<uint64_t>(m.msg_name);
  h.name_len = m.msg_namelen;
  h.iov = reinterpret_cast<uint64_t>(m.msg_iov);
  h.iov_count = m.msg_iovlen;
  h.control = reinterpret_cast<uint64_t>(m.msg_control);
  h.control_len = m.msg_controllen;
  return h;
}

// The control headers, walked as the kernel walks them (for_each_cmsghdr,
// CMSG_OK): a header whose length is short of itself or runs past the end
// is EINVAL, where glibc's CMSG_NXTHDR would not stop the first one.
int FindRights(const std::vector<char>& control, std::vector<size_t>* rights) {
  size_t at = 0;
  while (control.size() - at >= sizeof(cmsghdr)) {
    cmsghdr h;
    std::memcpy(&h, control.data() + at, sizeof(h));
    if (h.cmsg_len < sizeof(cmsghdr) || h.cmsg_len > control.size() - at) {
      return -EINVAL;
    }
    if (h.cmsg_level == SOL_SOCKET && h.cmsg_type == SCM_RIGHTS) {
      const size_t n = (h.cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t i = 0; i < n; ++i) {
        rights->push_back(at + CMSG_LEN(0) + i * sizeof(int));
      }
    }
    const size_t step = CMSG_ALIGN(h.cmsg_len);
    if (step > control.size() - at) break;
    at += step;
  }
  return 0;
}

}  // namespace

int DecodeMessageHeader(const Memory& mem, uint64_t addr, MessageHeader* out) {
  msghdr m{};
  if (!mem.Read(addr, &m, sizeof(m))) return -EFAULT;
  *out = FromMsghdr(m);
  return 0;
}

int DecodeMessageHeaders(const Memory& mem, uint64_t addr, uint64_t count,
                         std::vector<MessageHeader>* out) {
  const unsigned n =
      std::min<unsigned>(static_cast<unsigned>(count), kMaxMessages);
  std::vector<mmsghdr> v(n);
  if (!ReadExact(mem, addr, v.data(), n * sizeof(mmsghdr))) return -EFAULT;
  out->clear();
  for (const mmsghdr& h : v) out->push_back(FromMsghdr(h.msg_hdr));
  return 0;
}

int DecodeMessageBody(const Memory& mem, const MessageHeader& m,
                      MessageBody* out) {
  if (m.iov_count > kMaxIov) return -EMSGSIZE;
  std::vector<iovec> remote(m.iov_count);
  if (!ReadExact(mem, m.iov, remote.data(), remote.size() * sizeof(iovec))) {
    return -EFAULT;
  }
  size_t total = 0;
  for (const iovec& v : remote) {
    // Compared before adding: a length near 2^64 would wrap the sum.
    if (v.iov_len > kMaxData - total) return -EMSGSIZE;
    total += v.iov_len;
    out->buffers.emplace_back(v.iov_len);
    if (!ReadExact(mem, reinterpret_cast<uint64_t>(v.iov_base),
                   out->buffers.back().data(), v.iov_len)) {
      return -EFAULT;
    }
  }
  if (m.control != 0 && m.control_len > 0) {
    if (m.control_len > kMaxControl) return -ENOBUFS;
    out->control.resize(m.control_len);
    if (!mem.Read(m.control, out->control.data(), out->control.size())) {
      return -EFAULT;
    }
    return FindRights(out->control, &out->rights);
  }
  return 0;
}

int DecodeMutation(const SyscallArgs& a, const Memory& mem, MutationCall* m) {
  const int nr = a.nr;
  switch (nr) {
    case SYS_unlink:
    case SYS_rmdir:
      m->op = nr == SYS_unlink ? "unlink" : "rmdir";
      m->path = ReadPath(mem, a.arg(0));
      return 0;
    case SYS_unlinkat:
      m->op = "unlinkat";
      m->dirfd = a.iarg(0);
      m->path = ReadPath(mem, a.arg(1));
      m->flags = a.iarg(2);
      return 0;
    case SYS_mkdir:
    case SYS_mkdirat: {
      const bool at = nr == SYS_mkdirat;
      m->op = "mkdir";
      m->dirfd = at ? a.iarg(0) : AT_FDCWD;
      m->path = ReadPath(mem, a.arg(at ? 1 : 0));
      m->mode = static_cast<mode_t>(a.arg(at ? 2 : 1));
      return 0;
    }
    case SYS_mknod:
    case SYS_mknodat: {
      const bool at = nr == SYS_mknodat;
      m->op = "mknod";
      m->dirfd = at ? a.iarg(0) : AT_FDCWD;
      m->path = ReadPath(mem, a.arg(at ? 1 : 0));
      m->mode = static_cast<mode_t>(a.arg(at ? 2 : 1));
      m->dev = static_cast<dev_t>(a.arg(at ? 3 : 2));
      return 0;
    }
    case SYS_symlink:
    case SYS_symlinkat: {
      const bool at = nr == SYS_symlinkat;
      m->op = "symlink";
      m->link_text = ReadPath(mem, a.arg(0));
      m->dirfd = at ? a.iarg(1) : AT_FDCWD;
      m->path = ReadPath(mem, a.arg(at ? 2 : 1));
      return 0;
    }
    case SYS_rename:
    case SYS_link:
      m->op = nr == SYS_rename ? "rename" : "link";
      m->path = ReadPath(mem, a.arg(0));
      m->new_path = ReadPath(mem, a.arg(1));
      return 0;
    case SYS_renameat:
    case SYS_renameat2:
    case SYS_linkat:
      m->op = nr == SYS_renameat    ? "renameat"
              : nr == SYS_renameat2 ? "renameat2"
                                    : "link";
      m->dirfd = a.iarg(0);
      m->path = ReadPath(mem, a.arg(1));
      m->new_dirfd = a.iarg(2);
      m->new_path = ReadPath(mem, a.arg(3));
      // renameat2's are unsigned RENAME_* bits, linkat's AT_* flags.
      if (nr != SYS_renameat) m->flags = a.iarg(4);
      return 0;
    case SYS_truncate:
      m->op = "truncate";
      m->path = ReadPath(mem, a.arg(0));
      m->length = static_cast<off_t>(a.arg(1));
      return 0;
    case SYS_chmod:
    case SYS_fchmodat:
    case kSysFchmodat2: {
      const bool at = nr != SYS_chmod;
      m->op = "chmod";
      m->dirfd = at ? a.iarg(0) : AT_FDCWD;
      m->path = ReadPath(mem, a.arg(at ? 1 : 0));
      m->mode = static_cast<mode_t>(a.arg(at ? 2 : 1));
      m->flags = nr == kSysFchmodat2 ? a.iarg(3) : 0;
      return 0;
    }
    case SYS_chown:
    case SYS_lchown:
    case SYS_fchownat: {
      const bool at = nr == SYS_fchownat;
      m->op = "chown";
      m->dirfd = at ? a.iarg(0) : AT_FDCWD;
      m->path = ReadPath(mem, a.arg(at ? 1 : 0));
      m->uid = static_cast<uid_t>(a.arg(at ? 2 : 1));
      m->gid = static_cast<gid_t>(a.arg(at ? 3 : 2));
      m->flags = at ? a.iarg(4) : nr == SYS_lchown ? AT_SYMLINK_NOFOLLOW : 0;
      return 0;
    }
    case SYS_fchmod:
      m->op = "fchmod";
      m->fd = a.iarg(0);
      m->mode = static_cast<mode_t>(a.arg(1));
      return 0;
    case SYS_fchown:
      m->op = "fchown";
      m->fd = a.iarg(0);
      m->uid = static_cast<uid_t>(a.arg(1));
      m->gid = static_cast<gid_t>(a.arg(2));
      return 0;
    case SYS_utimensat:
      m->op = "utimensat";
      m->dirfd = a.iarg(0);
      m->path = ReadPath(mem, a.arg(1));
      m->flags = a.iarg(3);
      if (a.arg(2) != 0) {
        m->times.given = true;
        if (!mem.Read(a.arg(2), m->times.times, sizeof(m->times.times))) {
          m->times.error = -EFAULT;
        }
      }
      return 0;
    case SYS_utime:
    case SYS_utimes:
    case SYS_futimesat: {
      const bool at = nr == SYS_futimesat;
      m->op = "utimes";
      m->dirfd = at ? a.iarg(0) : AT_FDCWD;
      m->path = ReadPath(mem, a.arg(at ? 1 : 0));
      m->times = ReadOldTimes(mem, a.arg(at ? 2 : 1), nr != SYS_utime);
      return 0;
    }
    case SYS_setxattr:
    case SYS_lsetxattr:
    case SYS_removexattr:
    case SYS_lremovexattr: {
      const bool set = nr == SYS_setxattr || nr == SYS_lsetxattr;
      const bool nofollow = nr == SYS_lsetxattr || nr == SYS_lremovexattr;
      m->op = set ? (nofollow ? "lsetxattr" : "setxattr")
                  : (nofollow ? "lremovexattr" : "removexattr");
      m->path = ReadPath(mem, a.arg(0));
      m->xattr = ReadXattr(a, mem, set, nofollow);
      return 0;
    }
    case SYS_fsetxattr:
    case SYS_fremovexattr: {
      const bool set = nr == SYS_fsetxattr;
      m->op = set ? "fsetxattr" : "fremovexattr";
      m->fd = a.iarg(0);
      m->path = ReadPath(mem, 0);  // none: a negative fd fails as EFAULT
      m->xattr = ReadXattr(a, mem, set, false);
      return 0;
    }
    default:
      return -ENOSYS;
  }
}

int DecodeLook(const SyscallArgs& a, const Memory& mem, LookCall* l) {
  constexpr int kStatFlags =
      AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT;
  uint64_t path_arg = 0;
  int allowed_flags = 0;
  switch (a.nr) {
    case SYS_stat:
    case SYS_lstat:
      l->op = a.nr == SYS_stat ? "stat" : "lstat";
      path_arg = a.arg(0);
      l->flags = a.nr == SYS_lstat ? AT_SYMLINK_NOFOLLOW : 0;
      l->out = a.arg(1);
      allowed_flags = kStatFlags;
      break;
    case SYS_newfstatat:
      l->op = "newfstatat";
      l->dirfd = a.iarg(0);
      path_arg = a.arg(1);
      l->out = a.arg(2);
      l->flags = a.iarg(3);
      allowed_flags = kStatFlags;
      break;
    case SYS_statx:
      l->kind = LookCall::kStatx;
      l->op = "statx";
      l->dirfd = a.iarg(0);
      path_arg = a.arg(1);
      l->flags = a.iarg(2);
      l->mask = static_cast<unsigned>(a.arg(3));
      l->out = a.arg(4);
      allowed_flags = kStatFlags | AT_STATX_SYNC_TYPE;
      break;
    case SYS_access:
    case SYS_faccessat:
    case SYS_faccessat2: {
      l->kind = LookCall::kAccess;
      const bool at = a.nr != SYS_access;
      l->op = a.nr == SYS_access      ? "access"
              : a.nr == SYS_faccessat ? "faccessat"
                                      : "faccessat2";
      l->dirfd = at ? a.iarg(0) : AT_FDCWD;
      path_arg = a.arg(at ? 1 : 0);
      l->mode = a.iarg(at ? 2 : 1);
      l->flags = a.nr == SYS_faccessat2 ? a.iarg(3) : 0;
      allowed_flags = AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH;
      if (l->mode & ~(R_OK | W_OK | X_OK)) return -EINVAL;
      break;
    }
    case SYS_readlink:
    case SYS_readlinkat: {
      l->kind = LookCall::kReadlink;
      const bool at = a.nr == SYS_readlinkat;
      l->op = at ? "readlinkat" : "readlink";
      l->dirfd = at ? a.iarg(0) : AT_FDCWD;
      path_arg = a.arg(at ? 1 : 0);
      l->out = a.arg(at ? 2 : 1);
      // The kernel takes the size as an int.
      const int size = a.iarg(at ? 3 : 2);
      if (size <= 0) return -EINVAL;
      l->size = static_cast<uint64_t>(size);
      l->flags = AT_SYMLINK_NOFOLLOW;
      allowed_flags = AT_SYMLINK_NOFOLLOW;
      break;
    }
    case SYS_getxattr:
    case SYS_lgetxattr:
    case SYS_listxattr:
    case SYS_llistxattr: {
      const bool get = a.nr == SYS_getxattr || a.nr == SYS_lgetxattr;
      const bool nofollow = a.nr == SYS_lgetxattr || a.nr == SYS_llistxattr;
      l->kind = get ? LookCall::kGetXattr : LookCall::kListXattr;
      l->op = a.nr == SYS_getxattr    ? "getxattr"
              : a.nr == SYS_lgetxattr ? "lgetxattr"
              : a.nr == SYS_listxattr ? "listxattr"
                                      : "llistxattr";
      path_arg = a.arg(0);
      l->flags = nofollow ? AT_SYMLINK_NOFOLLOW : 0;
      allowed_flags = AT_SYMLINK_NOFOLLOW;
      l->out = a.arg(get ? 2 : 1);
      l->size = std::min<uint64_t>(a.arg(get ? 3 : 2), kMaxXattrValue);
      if (get) {
        if (int e = ReadXattrName(mem, a.arg(1), &l->name); e < 0) return e;
      }
      break;
    }
    case SYS_inotify_add_watch:
      l->kind = LookCall::kWatch;
      l->op = "inotify_add_watch";
      l->fd = a.iarg(0);
      path_arg = a.arg(1);
      l->watch = static_cast<uint32_t>(a.arg(2));
      // IN_DONT_FOLLOW: the final symlink itself is watched.
      l->flags = (l->watch & 0x02000000) ? AT_SYMLINK_NOFOLLOW : 0;
      allowed_flags = AT_SYMLINK_NOFOLLOW;
      break;
    default:
      return -ENOSYS;
  }
  if (l->flags & ~allowed_flags) return -EINVAL;
  return mem.ReadString(path_arg, &l->path);
}

}  // namespace klaunch::supervise
