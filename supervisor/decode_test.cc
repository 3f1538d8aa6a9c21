// The decoders of decode.h on memory images: what each call's arguments
// become, and the errno each malformed argument is answered with. The
// supervisor's judging of the result is tested end to end in
// tests/seccomp_test.cc.

#include "supervisor/decode.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <linux/openat2.h>
#include <netinet/in.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <utime.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "supervisor/syscall_table.h"

namespace klaunch::supervise {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr uint64_t kBase = 0x10000;
constexpr uint64_t kNowhere = 0x7000000;  // outside every image
// As the register holds it.
constexpr uint64_t kAtFdcwd = static_cast<uint64_t>(int64_t{AT_FDCWD});

// A memory image built by appending; addresses are kBase-relative.
class Image {
 public:
  uint64_t Put(const void* data, size_t size) {
    Align(8);
    const uint64_t at = kBase + bytes_.size();
    const auto* p = static_cast<const uint8_t*>(data);
    bytes_.insert(bytes_.end(), p, p + size);
    return at;
  }
  template <typename T>
  uint64_t PutValue(const T& v) {
    return Put(&v, sizeof(v));
  }
  uint64_t PutString(const std::string& s) {
    return Put(s.c_str(), s.size() + 1);
  }
  // Raw bytes, no NUL added.
  uint64_t PutBytes(const std::string& s) { return Put(s.data(), s.size()); }
  void Align(size_t n) {
    while (bytes_.size() % n != 0) bytes_.push_back(0);
  }
  void PadTo(size_t size) { bytes_.resize(size, 0); }
  size_t size() const { return bytes_.size(); }

  // Valid until the next Put.
  ImageMemory memory() const {
    return ImageMemory(kBase, bytes_.data(), bytes_.size());
  }

 private:
  std::vector<uint8_t> bytes_;
};

SyscallArgs Args(int nr, std::vector<uint64_t> words) {
  SyscallArgs a;
  a.nr = nr;
  for (size_t i = 0; i < words.size() && i < 6; ++i) a.args[i] = words[i];
  return a;
}

// --- Memory ---------------------------------------------------------------

TEST(ImageMemory, ReadsInsideTheImageAndNowhereElse) {
  Image img;
  const uint64_t at = img.PutBytes("abcdefgh");
  const ImageMemory mem = img.memory();
  char out[8];
  EXPECT_TRUE(mem.Read(at, out, 8));
  EXPECT_EQ(std::string(out, 8), "abcdefgh");
  EXPECT_FALSE(mem.Read(at + 1, out, 8));  // one byte past the end
  EXPECT_FALSE(mem.Read(kBase - 1, out, 2));
  EXPECT_FALSE(mem.Read(UINT64_MAX - 2, out, 8));  // an address that wraps
}

TEST(ReadString, AStringEndsAtItsNul) {
  Image img;
  const uint64_t at = img.PutString("/etc/hostname");
  img.PutString("more");
  std::string s;
  EXPECT_EQ(img.memory().ReadString(at, &s), 0);
  EXPECT_EQ(s, "/etc/hostname");
}

TEST(ReadString, ANullPointerIsEFAULT) {
  Image img;
  img.PutString("x");
  std::string s;
  EXPECT_EQ(img.memory().ReadString(0, &s), -EFAULT);
}

TEST(ReadString, UnreadableMemoryIsEFAULT) {
  Image img;
  img.PutString("x");
  std::string s;
  EXPECT_EQ(img.memory().ReadString(kNowhere, &s), -EFAULT);
}

TEST(ReadString, AStringWithoutNulBeforeTheImageEndsIsEFAULT) {
  Image img;
  const uint64_t at = img.PutBytes("no terminator");
  std::string s;
  EXPECT_EQ(img.memory().ReadString(at, &s), -EFAULT);
}

TEST(ReadString, AStringEndingInsideAPageAtTheImageEndIsRead) {
  // The image ends mid-page: the page-sized chunk cannot be read whole.
  Image img;
  img.PadTo(4096 + 100);
  const uint64_t at = img.PutString("tail");
  ASSERT_NE(img.size() % 4096, 0u);
  std::string s;
  EXPECT_EQ(img.memory().ReadString(at, &s), 0);
  EXPECT_EQ(s, "tail");
}

TEST(ReadString, AStringAcrossAPageBoundaryIsReadWhole) {
  Image img;
  img.PadTo(4096 - 8);
  const uint64_t at = img.PutString("across the page");
  ASSERT_EQ(at % 4096, 4096u - 8);
  std::string s;
  EXPECT_EQ(img.memory().ReadString(at, &s), 0);
  EXPECT_EQ(s, "across the page");
}

TEST(ReadString, MaxCountsTheNul) {
  Image img;
  const uint64_t fits = img.PutString(std::string(4095, 'a'));
  const uint64_t too_long = img.PutString(std::string(4096, 'b'));
  std::string s;
  EXPECT_EQ(img.memory().ReadString(fits, &s), 0);
  EXPECT_EQ(s.size(), 4095u);
  EXPECT_EQ(img.memory().ReadString(too_long, &s), -ENAMETOOLONG);
  EXPECT_EQ(img.memory().ReadString(fits, &s, 10), -ENAMETOOLONG);
}

// --- open -----------------------------------------------------------------

TEST(DecodeOpen, OpenKeepsTheModeOnlyWhenItCreates) {
  Image img;
  const uint64_t p = img.PutString("/tmp/f");
  OpenCall o;
  ASSERT_EQ(DecodeOpen(Args(SYS_open, {p, O_WRONLY | O_CREAT, 0640}),
                       img.memory(), &o),
            0);
  EXPECT_STREQ(o.op, "open");
  EXPECT_EQ(o.dirfd, AT_FDCWD);
  EXPECT_EQ(o.path, "/tmp/f");
  EXPECT_EQ(o.flags, O_WRONLY | O_CREAT);
  EXPECT_EQ(o.mode, 0640u);
  OpenCall plain;
  ASSERT_EQ(
      DecodeOpen(Args(SYS_open, {p, O_RDONLY, 0640}), img.memory(), &plain), 0);
  EXPECT_EQ(plain.mode, 0u);
}

TEST(DecodeOpen, CreatIsAWritingCreatingTruncatingOpen) {
  Image img;
  const uint64_t p = img.PutString("out");
  OpenCall o;
  ASSERT_EQ(DecodeOpen(Args(SYS_creat, {p, 0600}), img.memory(), &o), 0);
  EXPECT_STREQ(o.op, "creat");
  EXPECT_EQ(o.flags, O_CREAT | O_WRONLY | O_TRUNC);
  EXPECT_EQ(o.mode, 0600u);
}

TEST(DecodeOpen, OpenatTakesItsDirectory) {
  Image img;
  const uint64_t p = img.PutString("rel");
  OpenCall o;
  ASSERT_EQ(DecodeOpen(Args(SYS_openat, {7, p, O_RDONLY | O_DIRECTORY, 0}),
                       img.memory(), &o),
            0);
  EXPECT_STREQ(o.op, "openat");
  EXPECT_EQ(o.dirfd, 7);
  EXPECT_EQ(o.flags, O_RDONLY | O_DIRECTORY);
}

TEST(DecodeOpen, Openat2ReadsItsOpenHow) {
  Image img;
  const uint64_t p = img.PutString("x");
  open_how how{};
  how.flags = O_RDWR | O_CREAT;
  how.mode = 0644;
  how.resolve = RESOLVE_BENEATH;
  const uint64_t h = img.PutValue(how);
  img.PadTo(img.size() + 4096);  // room for the largest size accepted
  for (uint64_t size : {uint64_t{sizeof(open_how)}, uint64_t{4096}}) {
    OpenCall o;
    ASSERT_EQ(
        DecodeOpen(Args(SYS_openat2, {kAtFdcwd, p, h, size}), img.memory(), &o),
        0)
        << size;
    EXPECT_STREQ(o.op, "openat2");
    EXPECT_EQ(o.flags, O_RDWR | O_CREAT);
    EXPECT_EQ(o.mode, 0644u);
    EXPECT_EQ(o.resolve, uint64_t{RESOLVE_BENEATH});
  }
}

TEST(DecodeOpen, Openat2SizeTooSmallIsEINVALAndTooBigIsE2BIG) {
  Image img;
  const uint64_t p = img.PutString("x");
  const uint64_t h = img.PutValue(open_how{});
  OpenCall o;
  EXPECT_EQ(
      DecodeOpen(Args(SYS_openat2, {kAtFdcwd, p, h, 23}), img.memory(), &o),
      -EINVAL);
  EXPECT_EQ(
      DecodeOpen(Args(SYS_openat2, {kAtFdcwd, p, h, 0}), img.memory(), &o),
      -EINVAL);
  EXPECT_EQ(
      DecodeOpen(Args(SYS_openat2, {kAtFdcwd, p, h, 4097}), img.memory(), &o),
      -E2BIG);
}

TEST(DecodeOpen, Openat2FlagsAbove32BitsAreEINVAL) {
  Image img;
  const uint64_t p = img.PutString("x");
  open_how how{};
  how.flags = uint64_t{1} << 32;
  const uint64_t h = img.PutValue(how);
  OpenCall o;
  EXPECT_EQ(DecodeOpen(Args(SYS_openat2, {kAtFdcwd, p, h, sizeof(how)}),
                       img.memory(), &o),
            -EINVAL);
}

TEST(DecodeOpen, AnUnreadableOpenHowOrPathIsEFAULT) {
  Image img;
  const uint64_t p = img.PutString("x");
  const uint64_t h = img.PutValue(open_how{});
  OpenCall o;
  EXPECT_EQ(DecodeOpen(Args(SYS_openat2, {kAtFdcwd, p, kNowhere, 24}),
                       img.memory(), &o),
            -EFAULT);
  EXPECT_EQ(DecodeOpen(Args(SYS_openat2, {kAtFdcwd, kNowhere, h, 24}),
                       img.memory(), &o),
            -EFAULT);
  EXPECT_EQ(DecodeOpen(Args(SYS_open, {0, O_RDONLY}), img.memory(), &o),
            -EFAULT);
}

TEST(DecodeOpen, APathOfPathMaxBytesIsENAMETOOLONG) {
  Image img;
  const uint64_t p = img.PutString(std::string(kMaxPath, 'a'));
  OpenCall o;
  EXPECT_EQ(DecodeOpen(Args(SYS_open, {p, O_RDONLY}), img.memory(), &o),
            -ENAMETOOLONG);
}

TEST(DecodeOpen, AnotherCallIsENOSYS) {
  Image img;
  OpenCall o;
  EXPECT_EQ(DecodeOpen(Args(SYS_execve, {}), img.memory(), &o), -ENOSYS);
}

// --- exec -----------------------------------------------------------------

TEST(DecodeExec, ExecveReadsPathAndArgv) {
  Image img;
  const uint64_t path = img.PutString("/bin/echo");
  const uint64_t a0 = img.PutString("echo");
  const uint64_t a1 = img.PutString("hi there");
  const uint64_t pointers[] = {a0, a1, 0};
  const uint64_t argv = img.Put(pointers, sizeof(pointers));
  ExecCall x;
  ASSERT_EQ(DecodeExec(Args(SYS_execve, {path, argv, 0}), img.memory(), &x), 0);
  EXPECT_STREQ(x.op, "execve");
  EXPECT_EQ(x.dirfd, AT_FDCWD);
  EXPECT_EQ(x.path, "/bin/echo");
  EXPECT_THAT(x.argv, ElementsAre("echo", "hi there"));
}

TEST(DecodeExec, ExecveatTakesDirectoryAndFlags) {
  Image img;
  const uint64_t path = img.PutString("");
  ExecCall x;
  ASSERT_EQ(DecodeExec(Args(SYS_execveat, {5, path, 0, 0, AT_EMPTY_PATH}),
                       img.memory(), &x),
            0);
  EXPECT_STREQ(x.op, "execveat");
  EXPECT_EQ(x.dirfd, 5);
  EXPECT_EQ(x.flags, AT_EMPTY_PATH);
  EXPECT_EQ(x.path, "");
  EXPECT_THAT(x.argv, IsEmpty());  // a NULL argv
}

TEST(DecodeExec, AnUnreadableArgvOrArgumentIsEFAULT) {
  Image img;
  const uint64_t path = img.PutString("/bin/true");
  const uint64_t bad = img.PutValue(kNowhere);
  img.PutValue(uint64_t{0});
  ExecCall x;
  EXPECT_EQ(DecodeExec(Args(SYS_execve, {path, kNowhere}), img.memory(), &x),
            -EFAULT);
  ExecCall y;
  EXPECT_EQ(DecodeExec(Args(SYS_execve, {path, bad}), img.memory(), &y),
            -EFAULT);
}

TEST(DecodeExec, AnArgvRunningOffTheImageIsEFAULT) {
  Image img;
  const uint64_t path = img.PutString("/bin/true");
  const uint64_t a0 = img.PutString("true");
  const uint64_t argv = img.PutValue(a0);  // no NULL after it
  ExecCall x;
  EXPECT_EQ(DecodeExec(Args(SYS_execve, {path, argv}), img.memory(), &x),
            -EFAULT);
}

TEST(DecodeExec, AnArgvWithNoNullWithinTheLimitIsE2BIG) {
  Image img;
  const uint64_t path = img.PutString("/bin/true");
  const uint64_t empty = img.PutString("");
  const std::vector<uint64_t> pointers(kMaxArgs + 1, empty);
  const uint64_t argv = img.Put(pointers.data(), pointers.size() * 8);
  ExecCall x;
  EXPECT_EQ(DecodeExec(Args(SYS_execve, {path, argv}), img.memory(), &x),
            -E2BIG);
}

TEST(DecodeExec, ArgumentsOverTheByteLimitAreE2BIG) {
  Image img;
  const uint64_t path = img.PutString("/bin/true");
  const uint64_t half = img.PutString(std::string(kMaxArgBytes / 2, 'a'));
  const uint64_t whole = img.PutString(std::string(kMaxArgBytes, 'b'));
  const uint64_t two = img.PutValue(half);
  img.PutValue(half);
  img.PutValue(uint64_t{0});
  const uint64_t one = img.PutValue(whole);
  img.PutValue(uint64_t{0});
  ExecCall x;
  EXPECT_EQ(DecodeExec(Args(SYS_execve, {path, two}), img.memory(), &x),
            -E2BIG);  // 2 * (half + NUL) is past the limit
  ExecCall y;
  EXPECT_EQ(DecodeExec(Args(SYS_execve, {path, one}), img.memory(), &y),
            -E2BIG);  // one argument longer than the limit
}

TEST(DecodeExec, ThePathsErrorComesBeforeArgvs) {
  Image img;
  const uint64_t path = img.PutString(std::string(kMaxPath, 'p'));
  ExecCall x;
  EXPECT_EQ(DecodeExec(Args(SYS_execve, {path, kNowhere}), img.memory(), &x),
            -ENAMETOOLONG);
}

// --- socket addresses -------------------------------------------------------

TEST(DecodeSocketAddress, AnIPv4AddressGivesItsBytesAndPort) {
  Image img;
  sockaddr_in in{};
  in.sin_family = AF_INET;
  in.sin_port = htons(8080);
  in.sin_addr.s_addr = htonl(0x7f000001);
  const uint64_t at = img.PutValue(in);
  SocketAddress a;
  ASSERT_EQ(DecodeSocketAddress(img.memory(), at, sizeof(in), &a), 0);
  EXPECT_EQ(a.kind, SocketAddress::kIp);
  EXPECT_FALSE(a.v6);
  EXPECT_EQ(a.port, 8080);
  EXPECT_THAT(std::vector<uint8_t>(a.ip, a.ip + 4), ElementsAre(127, 0, 0, 1));
  EXPECT_EQ(a.len, sizeof(in));
  EXPECT_EQ(std::memcmp(&a.raw, &in, sizeof(in)), 0);
}

TEST(DecodeSocketAddress, AnIPv6AddressGivesItsBytesAndPort) {
  Image img;
  sockaddr_in6 in6{};
  in6.sin6_family = AF_INET6;
  in6.sin6_port = htons(443);
  in6.sin6_addr.s6_addr[15] = 1;
  const uint64_t at = img.PutValue(in6);
  SocketAddress a;
  ASSERT_EQ(DecodeSocketAddress(img.memory(), at, sizeof(in6), &a), 0);
  EXPECT_EQ(a.kind, SocketAddress::kIp);
  EXPECT_TRUE(a.v6);
  EXPECT_EQ(a.port, 443);
  EXPECT_EQ(a.ip[15], 1);
  EXPECT_EQ(a.ip[0], 0);
}

TEST(DecodeSocketAddress, AnIPAddressCutShortIsAnotherFamily) {
  Image img;
  sockaddr_in6 in6{};
  in6.sin6_family = AF_INET6;
  const uint64_t at = img.PutValue(in6);
  SocketAddress a;
  ASSERT_EQ(DecodeSocketAddress(img.memory(), at, sizeof(in6) - 1, &a), 0);
  EXPECT_EQ(a.kind, SocketAddress::kOther);
  EXPECT_EQ(a.family, AF_INET6);
  sockaddr_in in{};
  in.sin_family = AF_INET;
  const uint64_t at4 = img.PutValue(in);
  SocketAddress b;
  ASSERT_EQ(DecodeSocketAddress(img.memory(), at4, sizeof(in) - 1, &b), 0);
  EXPECT_EQ(b.kind, SocketAddress::kOther);
}

TEST(DecodeSocketAddress, OnlyTheLengthGivenIsRead) {
  Image img;
  sockaddr_in in{};
  in.sin_family = AF_INET;
  in.sin_port = htons(1);
  const uint64_t at = img.PutValue(in);
  SocketAddress a;
  ASSERT_EQ(DecodeSocketAddress(img.memory(), at, sizeof(sa_family_t), &a), 0);
  EXPECT_EQ(a.kind, SocketAddress::kOther);
  EXPECT_EQ(reinterpret_cast<const sockaddr_in*>(&a.raw)->sin_port, 0);
}

TEST(DecodeSocketAddress, ShorterThanTheFamilyHasNoFamily) {
  Image img;
  const uint64_t at = img.PutValue(uint16_t{AF_INET});
  SocketAddress a;
  ASSERT_EQ(DecodeSocketAddress(img.memory(), at, 1, &a), 0);
  EXPECT_EQ(a.kind, SocketAddress::kNoFamily);
  SocketAddress b;
  ASSERT_EQ(DecodeSocketAddress(img.memory(), kNowhere, 0, &b), 0);
  EXPECT_EQ(b.kind, SocketAddress::kNoFamily);
}

TEST(DecodeSocketAddress, LongerThanTheStorageIsEINVAL) {
  Image img;
  const uint64_t at = img.PutValue(sockaddr_storage{});
  img.PutValue(uint64_t{0});
  SocketAddress a;
  EXPECT_EQ(
      DecodeSocketAddress(img.memory(), at, sizeof(sockaddr_storage) + 1, &a),
      -EINVAL);
}

TEST(DecodeSocketAddress, UnreadableIsEFAULT) {
  Image img;
  img.PutValue(uint64_t{0});
  SocketAddress a;
  EXPECT_EQ(DecodeSocketAddress(img.memory(), kNowhere, 16, &a), -EFAULT);
}

TEST(DecodeSocketAddress, AUnixAddressWithNoPathIsUnnamed) {
  Image img;
  const uint64_t at = img.PutValue(uint16_t{AF_UNIX});
  SocketAddress a;
  ASSERT_EQ(DecodeSocketAddress(img.memory(), at, sizeof(sa_family_t), &a), 0);
  EXPECT_EQ(a.kind, SocketAddress::kUnixUnnamed);
}

TEST(DecodeSocketAddress, AUnixPathEndsAtItsNul) {
  Image img;
  sockaddr_un un{};
  un.sun_family = AF_UNIX;
  std::strcpy(un.sun_path, "/run/x.sock");
  const uint64_t at = img.PutValue(un);
  SocketAddress a;
  ASSERT_EQ(DecodeSocketAddress(img.memory(), at, sizeof(un), &a), 0);
  EXPECT_EQ(a.kind, SocketAddress::kUnixPath);
  EXPECT_EQ(a.name, "/run/x.sock");
}

TEST(DecodeSocketAddress, AUnixPathWithoutNulFillsSunPath) {
  Image img;
  sockaddr_un un{};
  un.sun_family = AF_UNIX;
  std::memset(un.sun_path, 'p', sizeof(un.sun_path));
  const uint64_t at = img.PutValue(un);
  SocketAddress a;
  ASSERT_EQ(DecodeSocketAddress(img.memory(), at, sizeof(un), &a), 0);
  EXPECT_EQ(a.kind, SocketAddress::kUnixPath);
  EXPECT_EQ(a.name, std::string(sizeof(un.sun_path), 'p'));
  SocketAddress shorter;  // the length given ends it
  ASSERT_EQ(DecodeSocketAddress(img.memory(), at,
                                offsetof(sockaddr_un, sun_path) + 5, &shorter),
            0);
  EXPECT_EQ(shorter.name, "ppppp");
}

TEST(DecodeSocketAddress, AUnixAddressLongerThanSockaddrUnIsEINVAL) {
  // As the kernel answers; before, the path ran on into the storage.
  Image img;
  sockaddr_storage ss{};
  ss.ss_family = AF_UNIX;
  std::memset(reinterpret_cast<char*>(&ss) + 2, 'p', sizeof(ss) - 2);
  const uint64_t at = img.PutValue(ss);
  SocketAddress a;
  EXPECT_EQ(DecodeSocketAddress(img.memory(), at, sizeof(sockaddr_un) + 1, &a),
            -EINVAL);
  EXPECT_EQ(DecodeSocketAddress(img.memory(), at, sizeof(ss), &a), -EINVAL);
}

TEST(DecodeSocketAddress, AnAbstractNameFollowsTheNulAndMayHoldNuls) {
  Image img;
  sockaddr_un un{};
  un.sun_family = AF_UNIX;
  std::memcpy(un.sun_path, "\0bus\0x", 6);
  const uint64_t at = img.PutValue(un);
  SocketAddress a;
  ASSERT_EQ(DecodeSocketAddress(img.memory(), at,
                                offsetof(sockaddr_un, sun_path) + 6, &a),
            0);
  EXPECT_EQ(a.kind, SocketAddress::kUnixAbstract);
  EXPECT_EQ(a.name, std::string("bus\0x", 5));
  SocketAddress empty;
  ASSERT_EQ(DecodeSocketAddress(img.memory(), at,
                                offsetof(sockaddr_un, sun_path) + 1, &empty),
            0);
  EXPECT_EQ(empty.kind, SocketAddress::kUnixAbstract);
  EXPECT_EQ(empty.name, "");
}

TEST(DecodeSocketAddress, AnotherFamilyIsOther) {
  Image img;
  sockaddr_storage ss{};
  ss.ss_family = AF_PACKET;
  const uint64_t at = img.PutValue(ss);
  SocketAddress a;
  ASSERT_EQ(DecodeSocketAddress(img.memory(), at, 20, &a), 0);
  EXPECT_EQ(a.kind, SocketAddress::kOther);
  EXPECT_EQ(a.family, AF_PACKET);
}

// --- sends ------------------------------------------------------------------

TEST(DecodeData, ReadsTheBytesUpToTheLimit) {
  Image img;
  const uint64_t at = img.PutBytes("payload");
  std::vector<char> out;
  ASSERT_EQ(DecodeData(img.memory(), at, 7, &out), 0);
  EXPECT_EQ(std::string(out.begin(), out.end()), "payload");
  EXPECT_EQ(DecodeData(img.memory(), at, 8, &out), -EFAULT);
  EXPECT_EQ(DecodeData(img.memory(), at, kMaxData + 1, &out), -EMSGSIZE);
  EXPECT_EQ(DecodeData(img.memory(), 0, 0, &out), 0);
  EXPECT_THAT(out, IsEmpty());
}

TEST(DecodeMessageHeader, ReadsTheMsghdrsPointersAndLengths) {
  Image img;
  msghdr m{};
  m.msg_name = reinterpret_cast<void*>(0x1111);
  m.msg_namelen = 16;
  m.msg_iov = reinterpret_cast<iovec*>(0x2222);
  m.msg_iovlen = 3;
  m.msg_control = reinterpret_cast<void*>(0x3333);
  m.msg_controllen = 24;
  const uint64_t at = img.PutValue(m);
  MessageHeader h;
  ASSERT_EQ(DecodeMessageHeader(img.memory(), at, &h), 0);
  EXPECT_EQ(h.name, 0x1111u);
  EXPECT_EQ(h.name_len, 16u);
  EXPECT_EQ(h.iov, 0x2222u);
  EXPECT_EQ(h.iov_count, 3u);
  EXPECT_EQ(h.control, 0x3333u);
  EXPECT_EQ(h.control_len, 24u);
  EXPECT_EQ(DecodeMessageHeader(img.memory(), at + 8, &h), -EFAULT);
}

TEST(DecodeMessageHeaders, TakesAtMostTheKernelsCount) {
  Image img;
  std::vector<mmsghdr> v(kMaxMessages + 1);
  v[1].msg_hdr.msg_namelen = 9;
  const uint64_t at = img.Put(v.data(), v.size() * sizeof(mmsghdr));
  std::vector<MessageHeader> out;
  ASSERT_EQ(DecodeMessageHeaders(img.memory(), at, 2, &out), 0);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].name_len, 9u);
  ASSERT_EQ(DecodeMessageHeaders(img.memory(), at, 1u << 31, &out), 0);
  EXPECT_EQ(out.size(), kMaxMessages);
  ASSERT_EQ(DecodeMessageHeaders(img.memory(), 0, 0, &out), 0);
  EXPECT_THAT(out, IsEmpty());
  EXPECT_EQ(DecodeMessageHeaders(img.memory(), kNowhere, 1, &out), -EFAULT);
}

// A message header over `iov` and `control` put into `img`.
MessageHeader Header(Image& img, const std::vector<iovec>& iov,
                     const std::vector<char>& control) {
  MessageHeader h;
  h.iov = iov.empty() ? 0 : img.Put(iov.data(), iov.size() * sizeof(iovec));
  h.iov_count = iov.size();
  if (!control.empty()) {
    h.control = img.Put(control.data(), control.size());
    h.control_len = control.size();
  }
  return h;
}

iovec Iov(uint64_t base, size_t len) {
  return iovec{reinterpret_cast<void*>(base), len};
}

// Control bytes: headers of (level, type, payload) back to back, each
// padded to alignment except the last when `pad_last` is false.
std::vector<char> Control(
    const std::vector<std::tuple<int, int, std::string>>& msgs,
    bool pad_last = true) {
  std::vector<char> out;
  for (size_t i = 0; i < msgs.size(); ++i) {
    const auto& [level, type, payload] = msgs[i];
    cmsghdr h{};
    h.cmsg_len = CMSG_LEN(payload.size());
    h.cmsg_level = level;
    h.cmsg_type = type;
    const size_t at = out.size();
    out.resize(at + CMSG_LEN(0));
    std::memcpy(out.data() + at, &h, sizeof(h));
    out.insert(out.end(), payload.begin(), payload.end());
    if (pad_last || i + 1 < msgs.size())
      out.resize(at + CMSG_SPACE(payload.size()));
  }
  return out;
}

std::string Fds(std::vector<int> fds) {
  return std::string(reinterpret_cast<const char*>(fds.data()),
                     fds.size() * sizeof(int));
}

TEST(DecodeMessageBody, CopiesEachIovec) {
  Image img;
  const uint64_t a = img.PutBytes("hello ");
  const uint64_t b = img.PutBytes("world");
  const MessageHeader h = Header(img, {Iov(a, 6), Iov(0, 0), Iov(b, 5)}, {});
  MessageBody body;
  ASSERT_EQ(DecodeMessageBody(img.memory(), h, &body), 0);
  ASSERT_EQ(body.buffers.size(), 3u);
  EXPECT_EQ(std::string(body.buffers[0].begin(), body.buffers[0].end()),
            "hello ");
  EXPECT_THAT(body.buffers[1], IsEmpty());
  EXPECT_EQ(std::string(body.buffers[2].begin(), body.buffers[2].end()),
            "world");
  EXPECT_THAT(body.control, IsEmpty());
}

TEST(DecodeMessageBody, TooManyIovecsOrBytesAreEMSGSIZE) {
  Image img;
  MessageHeader many;
  many.iov = kNowhere;
  many.iov_count = kMaxIov + 1;
  MessageBody body;
  EXPECT_EQ(DecodeMessageBody(img.memory(), many, &body), -EMSGSIZE);
  const MessageHeader big =
      Header(img, {Iov(kNowhere, kMaxData), Iov(kNowhere, 1)}, {});
  MessageBody big_body;
  // The first is unreadable, but the sum is checked before each read.
  EXPECT_EQ(DecodeMessageBody(img.memory(), big, &big_body), -EFAULT);
  const MessageHeader over = Header(img, {Iov(kNowhere, kMaxData + 1)}, {});
  MessageBody over_body;
  EXPECT_EQ(DecodeMessageBody(img.memory(), over, &over_body), -EMSGSIZE);
}

TEST(DecodeMessageBody, IovecLengthsThatWrapPast64BitsAreEMSGSIZE) {
  // The sum wrapped to 0 before, and a vector of 2^64-1 bytes was asked for.
  Image img;
  const uint64_t a = img.PutBytes("x");
  const MessageHeader h = Header(img, {Iov(a, 1), Iov(a, SIZE_MAX)}, {});
  MessageBody body;
  EXPECT_EQ(DecodeMessageBody(img.memory(), h, &body), -EMSGSIZE);
}

TEST(DecodeMessageBody, UnreadableIovecsOrBuffersAreEFAULT) {
  Image img;
  MessageHeader h;
  h.iov = kNowhere;
  h.iov_count = 1;
  MessageBody body;
  EXPECT_EQ(DecodeMessageBody(img.memory(), h, &body), -EFAULT);
  const MessageHeader buf = Header(img, {Iov(kNowhere, 4)}, {});
  MessageBody buf_body;
  EXPECT_EQ(DecodeMessageBody(img.memory(), buf, &buf_body), -EFAULT);
}

TEST(DecodeMessageBody, FindsEverySCMRightsDescriptor) {
  Image img;
  const std::vector<char> control =
      Control({{SOL_SOCKET, SCM_RIGHTS, Fds({4, 5})},
               {SOL_SOCKET, SCM_CREDENTIALS, std::string(12, '\0')},
               {SOL_IP, SCM_RIGHTS, Fds({8})},
               {SOL_SOCKET, SCM_RIGHTS, Fds({6})}});
  const MessageHeader h = Header(img, {}, control);
  MessageBody body;
  ASSERT_EQ(DecodeMessageBody(img.memory(), h, &body), 0);
  EXPECT_EQ(body.control, control);
  std::vector<int> found;
  for (size_t at : body.rights) {
    int fd;
    std::memcpy(&fd, body.control.data() + at, sizeof(fd));
    found.push_back(fd);
  }
  EXPECT_THAT(found, ElementsAre(4, 5, 6));
}

TEST(DecodeMessageBody, ALastHeaderEndingUnalignedIsStillRead) {
  Image img;
  const std::vector<char> control = Control(
      {{SOL_SOCKET, SCM_RIGHTS, ""}, {SOL_SOCKET, SCM_RIGHTS, Fds({9})}},
      /*pad_last=*/false);
  ASSERT_EQ(control.size(), 36u);
  const MessageHeader h = Header(img, {}, control);
  MessageBody body;
  ASSERT_EQ(DecodeMessageBody(img.memory(), h, &body), 0);
  ASSERT_EQ(body.rights.size(), 1u);
  EXPECT_EQ(body.rights[0], 32u);
}

TEST(DecodeMessageBody, AControlHeaderLongerThanTheControlIsEINVAL) {
  // It claimed descriptors past the end of the copy, read (and rewritten)
  // out of bounds before.
  Image img;
  std::vector<char> control = Control({{SOL_SOCKET, SCM_RIGHTS, Fds({0})}});
  cmsghdr h;
  std::memcpy(&h, control.data(), sizeof(h));
  h.cmsg_len = CMSG_LEN(4 * 1000);
  std::memcpy(control.data(), &h, sizeof(h));
  const MessageHeader header = Header(img, {}, control);
  MessageBody body;
  EXPECT_EQ(DecodeMessageBody(img.memory(), header, &body), -EINVAL);
  EXPECT_THAT(body.rights, IsEmpty());
}

TEST(DecodeMessageBody, AControlHeaderShorterThanItselfIsEINVAL) {
  Image img;
  std::vector<char> control =
      Control({{SOL_SOCKET, SCM_CREDENTIALS, std::string(12, '\0')},
               {SOL_SOCKET, SCM_RIGHTS, Fds({1})}});
  cmsghdr h;
  std::memcpy(&h, control.data() + CMSG_SPACE(12), sizeof(h));
  h.cmsg_len = sizeof(cmsghdr) - 1;
  std::memcpy(control.data() + CMSG_SPACE(12), &h, sizeof(h));
  const MessageHeader header = Header(img, {}, control);
  MessageBody body;
  EXPECT_EQ(DecodeMessageBody(img.memory(), header, &body), -EINVAL);
}

TEST(DecodeMessageBody, ControlTooSmallForAHeaderHoldsNothing) {
  Image img;
  const MessageHeader h = Header(img, {}, std::vector<char>(8, '\x7f'));
  MessageBody body;
  ASSERT_EQ(DecodeMessageBody(img.memory(), h, &body), 0);
  EXPECT_EQ(body.control.size(), 8u);
  EXPECT_THAT(body.rights, IsEmpty());
}

TEST(DecodeMessageBody, TooMuchControlIsENOBUFSAndUnreadableIsEFAULT) {
  Image img;
  MessageHeader h;
  h.control = kNowhere;
  h.control_len = kMaxControl + 1;
  MessageBody body;
  EXPECT_EQ(DecodeMessageBody(img.memory(), h, &body), -ENOBUFS);
  h.control_len = 16;
  MessageBody body2;
  EXPECT_EQ(DecodeMessageBody(img.memory(), h, &body2), -EFAULT);
  h.control = 0;  // a NULL control is no control
  MessageBody body3;
  EXPECT_EQ(DecodeMessageBody(img.memory(), h, &body3), 0);
}

// --- mutations --------------------------------------------------------------

TEST(DecodeMutation, UnlinkatTakesDirectoryPathAndFlags) {
  Image img;
  const uint64_t p = img.PutString("gone");
  MutationCall m;
  ASSERT_EQ(DecodeMutation(Args(SYS_unlinkat, {3, p, AT_REMOVEDIR}),
                           img.memory(), &m),
            0);
  EXPECT_STREQ(m.op, "unlinkat");
  EXPECT_EQ(m.dirfd, 3);
  EXPECT_EQ(m.path.path, "gone");
  EXPECT_EQ(m.path.error, 0);
  EXPECT_EQ(m.flags, AT_REMOVEDIR);
}

TEST(DecodeMutation, EachPathKeepsItsOwnError) {
  // The old name is judged before the new one is looked at.
  Image img;
  const uint64_t from = img.PutString("from");
  MutationCall m;
  ASSERT_EQ(DecodeMutation(
                Args(SYS_renameat2, {4, from, 5, kNowhere, RENAME_NOREPLACE}),
                img.memory(), &m),
            0);
  EXPECT_STREQ(m.op, "renameat2");
  EXPECT_EQ(m.dirfd, 4);
  EXPECT_EQ(m.path.path, "from");
  EXPECT_EQ(m.path.error, 0);
  EXPECT_EQ(m.new_dirfd, 5);
  EXPECT_EQ(m.new_path.error, -EFAULT);
  EXPECT_EQ(m.flags, RENAME_NOREPLACE);
}

TEST(DecodeMutation, RenameAndLinkTakeTwoNames) {
  Image img;
  const uint64_t a = img.PutString("a");
  const uint64_t b = img.PutString("b");
  MutationCall r;
  ASSERT_EQ(DecodeMutation(Args(SYS_rename, {a, b}), img.memory(), &r), 0);
  EXPECT_STREQ(r.op, "rename");
  EXPECT_EQ(r.dirfd, AT_FDCWD);
  EXPECT_EQ(r.new_dirfd, AT_FDCWD);
  EXPECT_EQ(r.path.path, "a");
  EXPECT_EQ(r.new_path.path, "b");
  MutationCall l;
  ASSERT_EQ(DecodeMutation(Args(SYS_linkat, {1, a, 2, b, AT_SYMLINK_FOLLOW}),
                           img.memory(), &l),
            0);
  EXPECT_STREQ(l.op, "link");
  EXPECT_EQ(l.flags, AT_SYMLINK_FOLLOW);
  EXPECT_EQ(l.new_dirfd, 2);
  MutationCall ra;
  ASSERT_EQ(DecodeMutation(Args(SYS_renameat, {1, a, 2, b, RENAME_EXCHANGE}),
                           img.memory(), &ra),
            0);
  EXPECT_EQ(ra.flags, 0);  // renameat has no flags argument
}

TEST(DecodeMutation, SymlinkatReadsTheTextAndTheName) {
  Image img;
  const uint64_t text = img.PutString("../elsewhere");
  const uint64_t name = img.PutString("link");
  MutationCall m;
  ASSERT_EQ(
      DecodeMutation(Args(SYS_symlinkat, {text, 9, name}), img.memory(), &m),
      0);
  EXPECT_STREQ(m.op, "symlink");
  EXPECT_EQ(m.link_text.path, "../elsewhere");
  EXPECT_EQ(m.dirfd, 9);
  EXPECT_EQ(m.path.path, "link");
  MutationCall s;
  ASSERT_EQ(
      DecodeMutation(Args(SYS_symlink, {kNowhere, name}), img.memory(), &s), 0);
  EXPECT_EQ(s.link_text.error, -EFAULT);
  EXPECT_EQ(s.path.path, "link");
}

TEST(DecodeMutation, MknodatTakesModeAndDevice) {
  Image img;
  const uint64_t p = img.PutString("node");
  MutationCall m;
  ASSERT_EQ(
      DecodeMutation(Args(SYS_mknodat, {kAtFdcwd, p, S_IFCHR | 0600, 0x0103}),
                     img.memory(), &m),
      0);
  EXPECT_STREQ(m.op, "mknod");
  EXPECT_EQ(m.mode, static_cast<mode_t>(S_IFCHR | 0600));
  EXPECT_EQ(m.dev, 0x0103u);
}

TEST(DecodeMutation, ChownFormsTakeTheirFlags) {
  Image img;
  const uint64_t p = img.PutString("f");
  MutationCall l;
  ASSERT_EQ(DecodeMutation(Args(SYS_lchown, {p, 10, 20}), img.memory(), &l), 0);
  EXPECT_STREQ(l.op, "chown");
  EXPECT_EQ(l.uid, 10u);
  EXPECT_EQ(l.gid, 20u);
  EXPECT_EQ(l.flags, AT_SYMLINK_NOFOLLOW);
  MutationCall at;
  ASSERT_EQ(DecodeMutation(Args(SYS_fchownat, {6, p, 1, 2, AT_EMPTY_PATH}),
                           img.memory(), &at),
            0);
  EXPECT_EQ(at.dirfd, 6);
  EXPECT_EQ(at.flags, AT_EMPTY_PATH);
  MutationCall f;
  ASSERT_EQ(DecodeMutation(Args(SYS_fchown, {8, 3, 4}), img.memory(), &f), 0);
  EXPECT_EQ(f.fd, 8);
  EXPECT_EQ(f.uid, 3u);
}

TEST(DecodeMutation, ChmodFormsTakeModeAndOnlyFchmodat2Flags) {
  Image img;
  const uint64_t p = img.PutString("f");
  MutationCall m2;
  ASSERT_EQ(
      DecodeMutation(Args(kSysFchmodat2, {5, p, 0700, AT_SYMLINK_NOFOLLOW}),
                     img.memory(), &m2),
      0);
  EXPECT_STREQ(m2.op, "chmod");
  EXPECT_EQ(m2.mode, 0700u);
  EXPECT_EQ(m2.flags, AT_SYMLINK_NOFOLLOW);
  MutationCall m1;
  ASSERT_EQ(
      DecodeMutation(Args(SYS_fchmodat, {5, p, 0700, AT_SYMLINK_NOFOLLOW}),
                     img.memory(), &m1),
      0);
  EXPECT_EQ(m1.flags, 0);
  MutationCall t;
  ASSERT_EQ(DecodeMutation(Args(SYS_truncate, {p, 4096}), img.memory(), &t), 0);
  EXPECT_EQ(t.length, 4096);
}

TEST(DecodeMutation, UtimensatReadsItsTimesOrNone) {
  Image img;
  const uint64_t p = img.PutString("f");
  timespec ts[2] = {{1, 2}, {3, UTIME_OMIT}};
  const uint64_t t = img.Put(ts, sizeof(ts));
  MutationCall m;
  ASSERT_EQ(
      DecodeMutation(Args(SYS_utimensat, {kAtFdcwd, p, t, AT_SYMLINK_NOFOLLOW}),
                     img.memory(), &m),
      0);
  EXPECT_TRUE(m.times.given);
  EXPECT_EQ(m.times.times[0].tv_nsec, 2);
  EXPECT_EQ(m.times.times[1].tv_nsec, UTIME_OMIT);
  EXPECT_EQ(m.flags, AT_SYMLINK_NOFOLLOW);
  MutationCall now;
  ASSERT_EQ(
      DecodeMutation(Args(SYS_utimensat, {4, 0, 0, 0}), img.memory(), &now), 0);
  EXPECT_FALSE(now.times.given);
  EXPECT_EQ(now.path.addr, 0u);  // futimens
  MutationCall bad;
  ASSERT_EQ(DecodeMutation(Args(SYS_utimensat, {kAtFdcwd, p, kNowhere}),
                           img.memory(), &bad),
            0);
  EXPECT_EQ(bad.times.error, -EFAULT);
}

TEST(DecodeMutation, UtimeAndUtimesTimesBecomeUtimensats) {
  Image img;
  const uint64_t p = img.PutString("f");
  utimbuf ub{100, 200};
  const uint64_t u = img.PutValue(ub);
  timeval tv[2] = {{5, 6}, {7, 8}};
  const uint64_t t = img.Put(tv, sizeof(tv));
  MutationCall a;
  ASSERT_EQ(DecodeMutation(Args(SYS_utime, {p, u}), img.memory(), &a), 0);
  EXPECT_STREQ(a.op, "utimes");
  EXPECT_EQ(a.times.times[0].tv_sec, 100);
  EXPECT_EQ(a.times.times[0].tv_nsec, 0);
  EXPECT_EQ(a.times.times[1].tv_sec, 200);
  MutationCall b;
  ASSERT_EQ(DecodeMutation(Args(SYS_futimesat, {3, p, t}), img.memory(), &b),
            0);
  EXPECT_EQ(b.dirfd, 3);
  EXPECT_EQ(b.times.times[0].tv_nsec, 6000);
  EXPECT_EQ(b.times.times[1].tv_sec, 7);
  MutationCall none;
  ASSERT_EQ(DecodeMutation(Args(SYS_utimes, {p, 0}), img.memory(), &none), 0);
  EXPECT_FALSE(none.times.given);
  MutationCall bad;
  ASSERT_EQ(DecodeMutation(Args(SYS_utimes, {p, kNowhere}), img.memory(), &bad),
            0);
  EXPECT_EQ(bad.times.error, -EFAULT);
}

TEST(DecodeMutation, UtimesMicrosecondsOutOfRangeAreEINVAL) {
  // As the kernel answers; the conversion overflowed before.
  Image img;
  const uint64_t p = img.PutString("f");
  for (long usec : {-1L, 1000000L, 28266721668235264L}) {
    timeval tv[2] = {{0, 0}, {0, usec}};
    const uint64_t t = img.Put(tv, sizeof(tv));
    MutationCall m;
    ASSERT_EQ(DecodeMutation(Args(SYS_utimes, {p, t}), img.memory(), &m), 0);
    EXPECT_EQ(m.times.error, -EINVAL) << usec;
  }
  timeval ok[2] = {{0, 999999}, {0, 0}};
  const uint64_t t = img.Put(ok, sizeof(ok));
  MutationCall m;
  ASSERT_EQ(DecodeMutation(Args(SYS_utimes, {p, t}), img.memory(), &m), 0);
  EXPECT_EQ(m.times.error, 0);
  EXPECT_EQ(m.times.times[0].tv_nsec, 999999000);
}

TEST(DecodeMutation, SetxattrReadsNameValueAndFlags) {
  Image img;
  const uint64_t p = img.PutString("f");
  const uint64_t name = img.PutString("user.k");
  const uint64_t value = img.PutBytes(std::string("v\0v", 3));
  MutationCall m;
  ASSERT_EQ(
      DecodeMutation(Args(SYS_lsetxattr, {p, name, value, 3, XATTR_CREATE}),
                     img.memory(), &m),
      0);
  EXPECT_STREQ(m.op, "lsetxattr");
  EXPECT_EQ(m.path.path, "f");
  EXPECT_EQ(m.fd, -1);
  EXPECT_TRUE(m.xattr.set);
  EXPECT_TRUE(m.xattr.nofollow);
  EXPECT_EQ(m.xattr.error, 0);
  EXPECT_EQ(m.xattr.name, "user.k");
  EXPECT_EQ(std::string(m.xattr.value.begin(), m.xattr.value.end()),
            std::string("v\0v", 3));
  EXPECT_EQ(m.xattr.flags, XATTR_CREATE);
}

TEST(DecodeMutation, AnXattrNameTooLongIsERANGE) {
  Image img;
  const uint64_t p = img.PutString("f");
  const uint64_t longest = img.PutString(std::string(kMaxXattrName - 1, 'n'));
  const uint64_t too_long = img.PutString(std::string(kMaxXattrName, 'n'));
  MutationCall ok;
  ASSERT_EQ(
      DecodeMutation(Args(SYS_removexattr, {p, longest}), img.memory(), &ok),
      0);
  EXPECT_STREQ(ok.op, "removexattr");
  EXPECT_EQ(ok.xattr.error, 0);
  EXPECT_FALSE(ok.xattr.set);
  MutationCall m;
  ASSERT_EQ(
      DecodeMutation(Args(SYS_removexattr, {p, too_long}), img.memory(), &m),
      0);
  EXPECT_EQ(m.xattr.error, -ERANGE);
  MutationCall unreadable;
  ASSERT_EQ(DecodeMutation(Args(SYS_removexattr, {p, kNowhere}), img.memory(),
                           &unreadable),
            0);
  EXPECT_EQ(unreadable.xattr.error, -EFAULT);
}

TEST(DecodeMutation, AnXattrValueTooBigIsE2BIGAndUnreadableIsEFAULT) {
  Image img;
  const uint64_t p = img.PutString("f");
  const uint64_t name = img.PutString("user.k");
  MutationCall big;
  ASSERT_EQ(DecodeMutation(
                Args(SYS_setxattr, {p, name, kNowhere, kMaxXattrValue + 1}),
                img.memory(), &big),
            0);
  EXPECT_EQ(big.xattr.error, -E2BIG);
  MutationCall bad;
  ASSERT_EQ(DecodeMutation(Args(SYS_setxattr, {p, name, kNowhere, 1}),
                           img.memory(), &bad),
            0);
  EXPECT_EQ(bad.xattr.error, -EFAULT);
  MutationCall empty;  // no value: nothing read
  ASSERT_EQ(
      DecodeMutation(Args(SYS_setxattr, {p, name, 0, 0}), img.memory(), &empty),
      0);
  EXPECT_EQ(empty.xattr.error, 0);
}

TEST(DecodeMutation, FsetxattrActsOnTheDescriptorWithNoPath) {
  Image img;
  const uint64_t name = img.PutString("user.k");
  MutationCall m;
  ASSERT_EQ(DecodeMutation(Args(SYS_fremovexattr, {7, name}), img.memory(), &m),
            0);
  EXPECT_STREQ(m.op, "fremovexattr");
  EXPECT_EQ(m.fd, 7);
  EXPECT_EQ(m.path.addr, 0u);
  EXPECT_EQ(m.path.error, -EFAULT);  // what a negative fd falls back to
}

TEST(DecodeMutation, AnotherCallIsENOSYS) {
  Image img;
  MutationCall m;
  EXPECT_EQ(DecodeMutation(Args(SYS_openat, {}), img.memory(), &m), -ENOSYS);
  EXPECT_EQ(DecodeMutation(Args(SYS_connect, {}), img.memory(), &m), -ENOSYS);
}

// --- DecodeLook -----------------------------------------------------------

TEST(DecodeLook, LstatIsAStatThatDoesNotFollow) {
  Image img;
  const uint64_t p = img.PutString("/etc/link");
  LookCall l;
  ASSERT_EQ(DecodeLook(Args(SYS_lstat, {p, 0x5000}), img.memory(), &l), 0);
  EXPECT_EQ(l.kind, LookCall::kStat);
  EXPECT_STREQ(l.op, "lstat");
  EXPECT_EQ(l.path, "/etc/link");
  EXPECT_EQ(l.flags, AT_SYMLINK_NOFOLLOW);
  EXPECT_EQ(l.out, 0x5000u);
}

TEST(DecodeLook, StatxTakesItsDirectoryFlagsMaskAndBuffer) {
  Image img;
  const uint64_t p = img.PutString("rel");
  LookCall l;
  ASSERT_EQ(
      DecodeLook(Args(SYS_statx, {5, p, AT_EMPTY_PATH, STATX_SIZE, 0x6000}),
                 img.memory(), &l),
      0);
  EXPECT_EQ(l.kind, LookCall::kStatx);
  EXPECT_EQ(l.dirfd, 5);
  EXPECT_EQ(l.flags, AT_EMPTY_PATH);
  EXPECT_EQ(l.mask, unsigned{STATX_SIZE});
  EXPECT_EQ(l.out, 0x6000u);
}

TEST(DecodeLook,
     UnknownFlagsAModeBeyondRwxAndANonPositiveReadlinkSizeAreEinval) {
  Image img;
  const uint64_t p = img.PutString("/x");
  LookCall l;
  EXPECT_EQ(DecodeLook(Args(SYS_newfstatat, {kAtFdcwd, p, 0x1000, 0x8000}),
                       img.memory(), &l),
            -EINVAL);
  EXPECT_EQ(DecodeLook(Args(SYS_access, {p, 8}), img.memory(), &l), -EINVAL);
  EXPECT_EQ(DecodeLook(Args(SYS_faccessat2, {kAtFdcwd, p, R_OK, 0x8000}),
                       img.memory(), &l),
            -EINVAL);
  EXPECT_EQ(DecodeLook(Args(SYS_readlink, {p, 0x5000, 0}), img.memory(), &l),
            -EINVAL);
  EXPECT_EQ(DecodeLook(Args(SYS_readlinkat,
                            {kAtFdcwd, p, 0x5000, uint64_t{0xffffffff}}),
                       img.memory(), &l),
            -EINVAL);
}

TEST(DecodeLook, AccessJudgesByItsModeAndReadlinkKeepsItsSize) {
  Image img;
  const uint64_t p = img.PutString("/x");
  LookCall a;
  ASSERT_EQ(
      DecodeLook(Args(SYS_faccessat, {kAtFdcwd, p, W_OK}), img.memory(), &a),
      0);
  EXPECT_EQ(a.kind, LookCall::kAccess);
  EXPECT_EQ(a.mode, W_OK);
  LookCall r;
  ASSERT_EQ(DecodeLook(Args(SYS_readlink, {p, 0x5000, 64}), img.memory(), &r),
            0);
  EXPECT_EQ(r.kind, LookCall::kReadlink);
  EXPECT_EQ(r.size, 64u);
  EXPECT_EQ(r.flags, AT_SYMLINK_NOFOLLOW);
}

TEST(DecodeLook, AnUnreadablePathIsEfaultAndOtherCallsAreNotLooks) {
  Image img;
  LookCall l;
  EXPECT_EQ(DecodeLook(Args(SYS_stat, {kNowhere, 0x5000}), img.memory(), &l),
            -EFAULT);
  EXPECT_EQ(DecodeLook(Args(SYS_open, {kNowhere, 0}), img.memory(), &l),
            -ENOSYS);
}

// --- The table ------------------------------------------------------------

// The syscall table (syscall_table.h) says which family each judged call
// is in, and the supervisor dispatches on it; each family's decoder must
// take every call of the family and refuse (ENOSYS) every other, or a call
// the filter traps would meet a decoder that does not know it.
TEST(DecodeAgreesWithTheTable, EachFamilysDecoderTakesItsCallsAndNoOthers) {
  const ImageMemory empty(kBase, nullptr, 0);
  int judged = 0;
  for (const SyscallEntry& e : SyscallTable()) {
    // Null pointers: a decoder that takes the call reads them as EFAULT (or
    // keeps the error in the call's fields); one that does not, ENOSYS.
    const SyscallArgs call = Args(e.nr, {0, 0, 0, 0, 0, 0});
    OpenCall open;
    ExecCall exec;
    MutationCall mutation;
    LookCall look;
    const bool takes_open = DecodeOpen(call, empty, &open) != -ENOSYS;
    const bool takes_exec = DecodeExec(call, empty, &exec) != -ENOSYS;
    const bool takes_mutation =
        DecodeMutation(call, empty, &mutation) != -ENOSYS;
    const bool takes_look = DecodeLook(call, empty, &look) != -ENOSYS;
    EXPECT_EQ(takes_open, e.family == SyscallFamily::kOpen) << e.name;
    EXPECT_EQ(takes_exec, e.family == SyscallFamily::kExec) << e.name;
    EXPECT_EQ(takes_mutation, e.family == SyscallFamily::kMutate ||
                                  e.family == SyscallFamily::kAttributes)
        << e.name;
    EXPECT_EQ(takes_look, e.family == SyscallFamily::kLook) << e.name;
    judged += takes_open || takes_exec || takes_mutation || takes_look;
  }
  EXPECT_GT(judged, 50);  // not an empty table
}

}  // namespace
}  // namespace klaunch::supervise
