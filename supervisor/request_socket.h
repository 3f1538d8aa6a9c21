// A socket in the run directory where processes of the run send klaunch
// one request each and get a one-byte answer: the shim's records and
// questions when there is no seccomp supervisor to carry them
// (shim/channel.h). With the supervisor they travel through it instead.
//
//   auto s = RequestSocket::Start(dir + "/record.sock", kRecordRequestMax,
//                                 [&](pid_t pid, absl::string_view req) {
//                                   return Write(pid, req) ? '0' : 'e';
//                                 });
//
// One thread serves it and never waits on a process: connections are
// accepted and read without blocking, and one that has sent nothing within
// kIdleMs is closed unanswered, so an idle or stalled connection holds up
// nobody else. The sender is the process at the other end (SO_PEERCRED),
// whatever the request says. A request longer than `max` (truncated) is
// answered 'r' without calling the handler.
//
// The handler runs on the serving thread, one request at a time; it may
// wait on the person at the terminal (a question), never on a process.

#ifndef KLAUNCH_SUPERVISOR_REQUEST_SOCKET_H_
#define KLAUNCH_SUPERVISOR_REQUEST_SOCKET_H_

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace klaunch {

class RequestSocket {
 public:
  using Handler = std::function<char(pid_t pid, absl::string_view request)>;

  static constexpr int kIdleMs = 2000;

  // Listens at `path` (which must not exist) and starts serving.
  static absl::StatusOr<std::unique_ptr<RequestSocket>> Start(
      const std::string& path, size_t max, Handler handler);
  // Stops serving, closes every connection and removes the socket.
  ~RequestSocket();

 private:
  RequestSocket(std::string path, size_t max, Handler handler, int listener,
                int stop_read, int stop_write);
  void Serve();

  const std::string path_;
  const size_t max_;
  const Handler handler_;
  int listener_, stop_read_, stop_write_;
  std::thread thread_;
};

}  // namespace klaunch

#endif  // KLAUNCH_SUPERVISOR_REQUEST_SOCKET_H_
