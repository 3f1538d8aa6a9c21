#include "shim/channel.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <cstdio>

#include "core/seccomp_tag.h"
#include "shim/state.h"
#include "shim/sys.h"

namespace klaunch::shim {
namespace {

// One request on a SOCK_SEQPACKET connection to `socket_path`, and the
// one-byte answer; 0 when there is none. The socket lies in klaunch's run
// directory, which the policy denies to the program: the shim's own calls
// are not judged.
char OverSocket(const std::string& socket_path, absl::string_view request) {
  if (socket_path.empty()) return 0;
  const long fd = sys(SYS_socket, AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof(addr.sun_path), "%s",
                socket_path.c_str());
  char answer = 0;
  if (sys(SYS_connect, fd, &addr, sizeof(addr)) == 0 &&
      sys_call6(SYS_sendto, fd, reinterpret_cast<long>(request.data()),
                static_cast<long>(request.size()), MSG_NOSIGNAL, 0, 0) > 0) {
    long r;
    do {
      r = sys_call6(SYS_recvfrom, fd, reinterpret_cast<long>(&answer), 1, 0, 0,
                    0);
    } while (r == -EINTR);
    if (r != 1) answer = 0;
  }
  sys_close(fd);
  return answer;
}

}  // namespace

long SendRecord(absl::string_view request) {
  long r =
      sys(kCookieQuerySyscall, kRecordReport, request.data(), request.size());
  if (r != -ENOSYS) return r;
  // No supervisor (--no-seccomp): klaunch's socket, which answers '0' once
  // the record is written.
  const char answer = OverSocket(GetConfig().record_socket, request);
  return answer == '0' ? 0 : -ENOSYS;
}

char SendQuestion(const std::string& request) {
  long r;
  do {
    r = sys(kCookieQuerySyscall, kAskRequest, request.data(), request.size());
  } while (r == -EINTR);
  if (r == 'y' || r == 'n' || r == 'r') return static_cast<char>(r);
  if (r != -ENOSYS) return 0;
  return OverSocket(GetConfig().ask_socket, request);
}

}  // namespace klaunch::shim
