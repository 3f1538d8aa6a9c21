// --journal: every record of the run also reaches the system journal, its
// fields as journal fields. The test plays journald: on a machine without
// one (CI's), it binds the journal's socket itself and reads what
// libsystemd sends, in the journal's native protocol.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "tests/attack_support.h"

namespace klaunch::testing {
namespace {

constexpr char kSocket[] = "/run/systemd/journal/socket";

// One datagram of the native protocol: KEY=VALUE lines, or KEY, a newline,
// a 64-bit little-endian length and that many bytes.
std::multimap<std::string, std::string> Fields(const std::string& d) {
  std::multimap<std::string, std::string> out;
  size_t at = 0;
  while (at < d.size()) {
    const size_t nl = d.find('\n', at);
    if (nl == std::string::npos) break;
    const std::string line = d.substr(at, nl - at);
    const size_t eq = line.find('=');
    if (eq != std::string::npos) {
      out.emplace(line.substr(0, eq), line.substr(eq + 1));
      at = nl + 1;
      continue;
    }
    uint64_t n = 0;
    std::memcpy(&n, d.data() + nl + 1, 8);
    out.emplace(line, d.substr(nl + 9, n));
    at = nl + 9 + n + 1;
  }
  return out;
}

TEST(Journal, EveryRecordOfTheRunReachesTheJournalWithItsFields) {
  if (geteuid() != 0) GTEST_SKIP() << "binding the journal's socket needs root";
  struct stat st;
  if (stat(kSocket, &st) == 0) {
    GTEST_SKIP()
        << "a journald runs here; the test plays one only where none does";
  }
  const bool made_dir = stat("/run/systemd/journal", &st) != 0;
  RunProcess({"/bin/mkdir", "-p", "/run/systemd/journal"});
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  std::strcpy(addr.sun_path, kSocket);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0)
      << strerror(errno);
  KlaunchRun k;
  // read-only: the test's directory, under /tmp, is no root there.
  k.SetPolicy("extends = \"read-only\"\n");
  const std::string secret = k.Write("secret", "x\n");
  ProcessResult r = k.Run({"/bin/cat", secret}, {"--journal"});
  std::vector<std::multimap<std::string, std::string>> got;
  char buf[65536];
  for (ssize_t n; (n = recv(fd, buf, sizeof(buf), 0)) > 0;) {
    got.push_back(Fields(std::string(buf, n)));
  }
  close(fd);
  unlink(kSocket);
  if (made_dir) {
    rmdir("/run/systemd/journal");
    rmdir("/run/systemd");
  }
  EXPECT_NE(r.exit_code, 0) << Show(r);
  // As many journal entries as log lines, the same run, in order.
  const std::vector<std::string> lines = k.LogLines();
  ASSERT_EQ(got.size(), lines.size()) << Show(r);
  for (size_t i = 0; i < lines.size(); ++i) {
    auto field = [&](const char* key) {
      auto it = got[i].find(key);
      return it == got[i].end() ? std::string("(none)") : it->second;
    };
    EXPECT_EQ(field("KLAUNCH_RUN"), Field(lines[i], "run"));
    EXPECT_EQ(field("KLAUNCH_OP"), Field(lines[i], "op"));
    EXPECT_EQ(field("KLAUNCH_VERDICT"), Field(lines[i], "verdict"));
    EXPECT_EQ(field("SYSLOG_IDENTIFIER"), "klaunch");
  }
  bool refusal = false;
  for (const auto& f : got) {
    auto v = f.find("KLAUNCH_VERDICT");
    auto t = f.find("KLAUNCH_TARGET");
    if (v != f.end() && v->second == "deny" && t != f.end() &&
        t->second == secret) {
      refusal = true;
      EXPECT_EQ(f.find("PRIORITY")->second, "4");
      EXPECT_THAT(f.find("MESSAGE")->second, ::testing::HasSubstr(secret));
    }
  }
  EXPECT_TRUE(refusal) << "the refused read is not in the journal";
}

}  // namespace
}  // namespace klaunch::testing
