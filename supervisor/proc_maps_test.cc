#include "supervisor/proc_maps.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "gtest/gtest.h"

namespace klaunch {
namespace {

constexpr char kMaps[] =
    "55d0a1000000-55d0a1002000 r--p 00000000 fe:01 1311 /usr/bin/prog\n"
    "55d0a1002000-55d0a1008000 r-xp 00002000 fe:01 1311 /usr/bin/prog\n"
    "7f0000000000-7f0000010000 rw-p 00000000 00:00 0\n"
    "7f1000000000-7f1000200000 r-xp 00028000 08:11 42 /lib/libshim.so\n"
    "7f2000000000-7f2000001000 r-xp 00000000 00:00 0\n"
    "7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0 [vdso]\n";

TEST(ProcMaps, TheTextNamesTheFileOfTheExecutableMappingHoldingAnAddress) {
  dev_t dev = 0;
  uint64_t ino = 0;
  ASSERT_TRUE(ExecutableMappingInText(kMaps, 0x7f1000000010, &dev, &ino));
  EXPECT_EQ(dev, makedev(0x08, 0x11));
  EXPECT_EQ(ino, 42u);
  ASSERT_TRUE(ExecutableMappingInText(kMaps, 0x55d0a1007fff, &dev, &ino));
  EXPECT_EQ(dev, makedev(0xfe, 0x01));
  EXPECT_EQ(ino, 1311u);
  // Anonymous code (a JIT's) is no file's: inode 0.
  ASSERT_TRUE(ExecutableMappingInText(kMaps, 0x7f2000000800, &dev, &ino));
  EXPECT_EQ(dev, makedev(0, 0));
  EXPECT_EQ(ino, 0u);
}

TEST(ProcMaps, AnAddressInNoExecutableMappingHasNoFile) {
  dev_t dev = 0;
  uint64_t ino = 0;
  // The program's read-only part, an anonymous writable mapping, the end
  // of a mapping (exclusive) and a hole.
  EXPECT_FALSE(ExecutableMappingInText(kMaps, 0x55d0a1000100, &dev, &ino));
  EXPECT_FALSE(ExecutableMappingInText(kMaps, 0x7f0000000100, &dev, &ino));
  EXPECT_FALSE(ExecutableMappingInText(kMaps, 0x7f1000200000, &dev, &ino));
  EXPECT_FALSE(ExecutableMappingInText(kMaps, 0x600000000000, &dev, &ino));
  EXPECT_FALSE(ExecutableMappingInText("", 0x7f1000000010, &dev, &ino));
  EXPECT_FALSE(ExecutableMappingInText("garbage r-xp\n", 0, &dev, &ino));
}

int OpenOwnMaps() { return open("/proc/self/maps", O_RDONLY | O_CLOEXEC); }

std::string ReadOwnMaps() {
  const int fd = OpenOwnMaps();
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) text.append(buf, n);
  close(fd);
  return text;
}

int g_data = 1;

TEST(ProcMaps, ThisTestsOwnCodeIsOfItsOwnExecutable) {
  struct stat exe;
  ASSERT_EQ(stat("/proc/self/exe", &exe), 0);
  const int fd = OpenOwnMaps();
  ASSERT_GE(fd, 0);
  dev_t dev = 0;
  uint64_t ino = 0;
  const auto code = reinterpret_cast<uintptr_t>(&OpenOwnMaps);
  EXPECT_TRUE(ExecutableMappingAt(fd, code, &dev, &ino));
  EXPECT_EQ(dev, exe.st_dev);
  EXPECT_EQ(ino, exe.st_ino);
  // Data and the stack are no one's code.
  EXPECT_FALSE(ExecutableMappingAt(fd, reinterpret_cast<uintptr_t>(&g_data),
                                   &dev, &ino));
  EXPECT_FALSE(
      ExecutableMappingAt(fd, reinterpret_cast<uintptr_t>(&dev), &dev, &ino));
  close(fd);
}

TEST(ProcMaps, TheKernelsAnswerIsTheTextsAnswer) {
  // Wherever PROCMAP_QUERY answers, the fallback must say the same.
  void* jit = mmap(nullptr, 4096, PROT_READ | PROT_EXEC,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(jit, MAP_FAILED);
  const std::string text = ReadOwnMaps();
  const uintptr_t addresses[] = {
      reinterpret_cast<uintptr_t>(&OpenOwnMaps),
      reinterpret_cast<uintptr_t>(&::getpid),
      reinterpret_cast<uintptr_t>(&std::fputs),
      reinterpret_cast<uintptr_t>(&g_data),
      reinterpret_cast<uintptr_t>(&text),
      reinterpret_cast<uintptr_t>(text.data()),
      reinterpret_cast<uintptr_t>(jit),
      0,
  };
  for (uintptr_t a : addresses) {
    const int fd = OpenOwnMaps();
    ASSERT_GE(fd, 0);
    dev_t kernel_dev = 0, text_dev = 0;
    uint64_t kernel_ino = 0, text_ino = 0;
    const bool kernel = ExecutableMappingAt(fd, a, &kernel_dev, &kernel_ino);
    close(fd);
    const bool from_text =
        ExecutableMappingInText(text, a, &text_dev, &text_ino);
    EXPECT_EQ(kernel, from_text) << std::hex << a;
    if (kernel && from_text) {
      EXPECT_EQ(kernel_dev, text_dev) << std::hex << a;
      EXPECT_EQ(kernel_ino, text_ino) << std::hex << a;
    }
  }
  munmap(jit, 4096);
}

}  // namespace
}  // namespace klaunch
