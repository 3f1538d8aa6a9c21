// The supervisor's reading of a notification: the call's number and six
// argument words, and what they point at in the target's memory, turned into
// plain structs, with the errno a malformed call is answered with (the
// kernel's own where it has one).
//
// Pure: everything is read through a Memory, so the module can be unit-tested
// and fuzzed on a byte image. It does not judge, resolve paths or touch
// descriptors (supervise_*.cc do), and it depends on nothing beyond the C++
// and C libraries' headers and the Linux UAPI, since fuzz/ builds it alone.

#ifndef KLAUNCH_SUPERVISOR_DECODE_H_
#define KLAUNCH_SUPERVISOR_DECODE_H_

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace klaunch::supervise {

// Readable memory: the target's (Target), or an image (ImageMemory).
class Memory {
 public:
  virtual ~Memory() = default;

  // Copies `size` bytes at `addr`; false unless all of them could be read.
  virtual bool Read(uint64_t addr, void* out, size_t size) const = 0;

  // A NUL-terminated string shorter than `max` bytes (max counts the NUL,
  // as PATH_MAX does): 0; -EFAULT when unreadable (or addr is 0);
  // -ENAMETOOLONG when longer. `out` is meaningful only on 0.
  int ReadString(uint64_t addr, std::string* out, size_t max = 4096) const;
};

// `bytes` placed at `base`: reads inside them succeed, every other fails.
class ImageMemory : public Memory {
 public:
  ImageMemory(uint64_t base, const uint8_t* bytes, size_t size)
      : base_(base), bytes_(bytes), size_(size) {}
  bool Read(uint64_t addr, void* out, size_t size) const override;

 private:
  uint64_t base_;
  const uint8_t* bytes_;
  size_t size_;
};

// A notification's call.
struct SyscallArgs {
  int nr = 0;
  uint64_t args[6] = {};

  uint64_t arg(int i) const { return args[i]; }
  int iarg(int i) const { return static_cast<int>(args[i]); }
};

// Not in Debian 12's headers.
constexpr int kSysFchmodat2 = 452;

constexpr size_t kMaxPath = 4096;         // ReadString's default, PATH_MAX
constexpr size_t kMaxArgs = 1 << 16;      // exec: argv entries
constexpr size_t kMaxArgBytes = 2 << 20;  // exec: argv's strings, NULs counted
constexpr size_t kMaxXattrName = 256;     // XATTR_NAME_MAX + 1
constexpr size_t kMaxXattrValue = 64 << 10;
constexpr size_t kMaxData = 4 << 20;      // a send's bytes
constexpr size_t kMaxControl = 64 << 10;  // a message's control bytes
constexpr size_t kMaxIov = 1024;          // UIO_MAXIOV
constexpr unsigned kMaxMessages = 1024;   // sendmmsg: UIO_MAXIOV

// open, creat, openat, openat2.
struct OpenCall {
  const char* op = "";
  int dirfd = AT_FDCWD;
  std::string path;
  int flags = 0;
  mode_t mode = 0;       // 0 unless the call creates (O_CREAT, O_TMPFILE)
  uint64_t resolve = 0;  // openat2's RESOLVE_*
};
// 0, or -errno: EINVAL/E2BIG for an open_how size out of range, EINVAL for
// flags above 32 bits, EFAULT, ENAMETOOLONG; ENOSYS for another call.
int DecodeOpen(const SyscallArgs& call, const Memory& mem, OpenCall* out);

// execve, execveat.
struct ExecCall {
  const char* op = "";
  int dirfd = AT_FDCWD;
  std::string path;
  std::vector<std::string> argv;  // a NULL argv is empty, as Linux takes it
  int flags = 0;
};
// 0, or -errno: the path's EFAULT/ENAMETOOLONG, then argv's EFAULT, or
// E2BIG past kMaxArgs entries or kMaxArgBytes; ENOSYS for another call.
int DecodeExec(const SyscallArgs& call, const Memory& mem, ExecCall* out);

// A socket address, as connect, bind, sendto and a msghdr carry it.
struct SocketAddress {
  enum Kind {
    kNoFamily,      // shorter than its family field
    kUnixUnnamed,   // AF_UNIX with no path: bind's autobind
    kUnixAbstract,  // `name` follows the leading NUL (not terminated)
    kUnixPath,      // `name` is sun_path up to its first NUL
    kIp,            // AF_INET or AF_INET6, long enough for its struct
    kOther,         // any other family, or an IP address cut short
  };
  Kind kind = kNoFamily;
  sockaddr_storage raw{};  // the `len` bytes read; the rest zero
  socklen_t len = 0;
  int family = AF_UNSPEC;
  std::string name;     // kUnixAbstract, kUnixPath
  bool v6 = false;      // kIp
  uint8_t ip[16] = {};  // kIp: 4 (v4) or 16 bytes, network order
  uint16_t port = 0;    // kIp, host order
};
// 0, or -errno: EINVAL when longer than sockaddr_storage, or an AF_UNIX
// address longer than sockaddr_un (the kernel's answer); EFAULT.
int DecodeSocketAddress(const Memory& mem, uint64_t addr, socklen_t len,
                        SocketAddress* out);

// sendto's bytes: 0, or -EMSGSIZE past kMaxData, -EFAULT.
int DecodeData(const Memory& mem, uint64_t addr, uint64_t len,
               std::vector<char>* out);

// A msghdr, its pointers as addresses in the target.
struct MessageHeader {
  uint64_t name = 0;
  socklen_t name_len = 0;
  uint64_t iov = 0;
  uint64_t iov_count = 0;
  uint64_t control = 0;
  uint64_t control_len = 0;
};
// sendmsg's msghdr at `addr`: 0 or -EFAULT.
int DecodeMessageHeader(const Memory& mem, uint64_t addr, MessageHeader* out);
// sendmmsg's vector of `count` mmsghdr (at most kMaxMessages are taken, as
// the kernel does): 0 or -EFAULT.
int DecodeMessageHeaders(const Memory& mem, uint64_t addr, uint64_t count,
                         std::vector<MessageHeader>* out);

// What a msghdr's iovecs and control point at, copied.
struct MessageBody {
  std::vector<std::vector<char>> buffers;  // one per iovec
  std::vector<char> control;
  // Where in `control` each SCM_RIGHTS descriptor number lies (an int).
  std::vector<size_t> rights;
};
// 0, or -errno: EMSGSIZE past kMaxIov iovecs or kMaxData bytes, ENOBUFS
// past kMaxControl, EINVAL for a control header whose length does not fit
// (the kernel's CMSG_OK), EFAULT.
int DecodeMessageBody(const Memory& mem, const MessageHeader& header,
                      MessageBody* out);

// A path argument as read; `error` is ReadString's (addr 0: -EFAULT). The
// handler looks at it where the call would use the path, so a refusal of
// an earlier argument is answered first.
struct PathArg {
  uint64_t addr = 0;
  std::string path;
  int error = 0;
};

// utimensat's times, and utime's and utimes' converted to them.
struct TimesArg {
  bool given = false;  // false: now (a NULL pointer)
  timespec times[2] = {};
  // -EFAULT when unreadable; -EINVAL for utimes' microseconds outside
  // [0, 10^6), as the kernel answers.
  int error = 0;
};

struct XattrArg {
  bool set = false;       // set*xattr, not remove*xattr
  bool nofollow = false;  // the l* calls
  std::string name;
  std::vector<char> value;
  int flags = 0;
  // 0, or -errno: the name's ERANGE (too long) or EFAULT, then the
  // value's E2BIG (past kMaxXattrValue) or EFAULT.
  int error = 0;
};

// The calls that change the filesystem (supervise_mutate.cc).
struct MutationCall {
  const char* op = "";  // as the record names the call
  int dirfd = AT_FDCWD;
  PathArg path;  // the name or object acted on; rename, link: the old one
  int new_dirfd = AT_FDCWD;
  PathArg new_path;   // rename, link: the new name
  PathArg link_text;  // symlink: what the link will hold
  int fd = -1;        // fchmod, fchown, f*xattr: the descriptor acted on
  int flags = 0;      // the call's AT_*, RENAME_* or unlinkat flags
  mode_t mode = 0;
  dev_t dev = 0;
  uid_t uid = 0;
  gid_t gid = 0;
  off_t length = 0;  // truncate
  TimesArg times;
  XattrArg xattr;
};
// 0, or -ENOSYS for a call that is not one of them; errors of the
// arguments are in their own fields.
int DecodeMutation(const SyscallArgs& call, const Memory& mem,
                   MutationCall* out);

// stat, lstat, newfstatat, statx, access, faccessat, faccessat2, readlink,
// readlinkat, getxattr, lgetxattr, listxattr, llistxattr, inotify_add_watch:
// a look at a path that opens nothing.
struct LookCall {
  enum Kind {
    kStat,
    kStatx,
    kAccess,
    kReadlink,
    kGetXattr,
    kListXattr,
    kWatch
  };
  Kind kind = kStat;
  const char* op = "";
  int dirfd = AT_FDCWD;
  std::string path;
  int flags = 0;       // AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH, AT_EACCESS, ...
  int mode = 0;        // access: R_OK | W_OK | X_OK
  unsigned mask = 0;   // statx
  uint64_t out = 0;    // where the answer goes: struct stat, statx, the link
  uint64_t size = 0;   // readlink, *xattr: the buffer's size
  std::string name;    // getxattr: the attribute
  int fd = -1;         // inotify_add_watch: the inotify descriptor
  uint32_t watch = 0;  // inotify_add_watch: the events
};
// 0; -ENOSYS for another call; -EINVAL for flags, a mode or a readlink size
// the kernel refuses; the path's ReadString error.
int DecodeLook(const SyscallArgs& call, const Memory& mem, LookCall* out);

}  // namespace klaunch::supervise

#endif  // KLAUNCH_SUPERVISOR_DECODE_H_
