#include "supervisor/request_socket.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace klaunch {
namespace {

int64_t NowMs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

struct Connection {
  int fd;
  int64_t deadline;
};

}  // namespace

absl::StatusOr<std::unique_ptr<RequestSocket>> RequestSocket::Start(
    const std::string& path, size_t max, Handler handler) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) {
    return absl::FailedPreconditionError(
        absl::StrCat("the socket path is too long: ", path));
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const int listener =
      socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  int stop[2] = {-1, -1};
  if (listener < 0 ||
      bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      listen(listener, 64) != 0 || pipe2(stop, O_CLOEXEC) != 0) {
    const int err = errno;
    if (listener >= 0) close(listener);
    return absl::FailedPreconditionError(
        absl::StrCat("cannot listen at ", path, ": ", strerror(err)));
  }
  std::unique_ptr<RequestSocket> s(new RequestSocket(
      path, max, std::move(handler), listener, stop[0], stop[1]));
  s->thread_ = std::thread([p = s.get()] { p->Serve(); });
  return s;
}

RequestSocket::RequestSocket(std::string path, size_t max, Handler handler,
                             int listener, int stop_read, int stop_write)
    : path_(std::move(path)),
      max_(max),
      handler_(std::move(handler)),
      listener_(listener),
      stop_read_(stop_read),
      stop_write_(stop_write) {}

RequestSocket::~RequestSocket() {
  char c = 'x';
  ssize_t ignored = write(stop_write_, &c, 1);
  (void)ignored;
  if (thread_.joinable()) thread_.join();
  for (int fd : {listener_, stop_read_, stop_write_}) close(fd);
  unlink(path_.c_str());
}

void RequestSocket::Serve() {
  std::vector<Connection> pending;
  // One byte more than a request may have, so that a longer one is seen
  // as truncated however the kernel reports it.
  std::vector<char> buf(max_ + 1);
  while (true) {
    std::vector<pollfd> fds = {{stop_read_, POLLIN, 0}, {listener_, POLLIN, 0}};
    for (const Connection& c : pending) fds.push_back({c.fd, POLLIN, 0});
    int timeout = -1;
    const int64_t now = NowMs();
    for (const Connection& c : pending) {
      const int64_t left = c.deadline > now ? c.deadline - now : 0;
      if (timeout < 0 || left < timeout) timeout = static_cast<int>(left);
    }
    if (poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR) return;
    if (fds[0].revents) break;
    if (fds[1].revents & POLLIN) {
      while (true) {
        const int conn =
            accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (conn < 0) break;
        pending.push_back({conn, NowMs() + kIdleMs});
      }
    }
    std::vector<Connection> kept;
    for (size_t i = 0; i < pending.size(); ++i) {
      const Connection c = pending[i];
      const short revents =
          i + 2 < fds.size() && fds[i + 2].fd == c.fd ? fds[i + 2].revents : 0;
      iovec iov{buf.data(), buf.size()};
      msghdr msg{};
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      const ssize_t n = revents != 0 ? recvmsg(c.fd, &msg, MSG_DONTWAIT) : -1;
      if (n < 0 && (revents == 0 || errno == EAGAIN || errno == EINTR)) {
        if (NowMs() < c.deadline) {
          kept.push_back(c);
        } else {
          close(c.fd);  // idle too long: no answer
        }
        continue;
      }
      char reply = 'r';
      ucred peer{};
      socklen_t peer_size = sizeof(peer);
      const bool known =
          getsockopt(c.fd, SOL_SOCKET, SO_PEERCRED, &peer, &peer_size) == 0 &&
          peer.pid > 0;
      if (known && n > 0 && !(msg.msg_flags & MSG_TRUNC) &&
          static_cast<size_t>(n) <= max_) {
        const int64_t began = NowMs();
        reply = handler_(peer.pid, absl::string_view(buf.data(), n));
        // Time spent on the handler (a question at the terminal) is not
        // time the others sat idle.
        const int64_t spent = NowMs() - began;
        for (size_t j = i + 1; j < pending.size(); ++j) {
          pending[j].deadline += spent;
        }
        for (Connection& k : kept) k.deadline += spent;
      }
      send(c.fd, &reply, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
      close(c.fd);
    }
    pending = std::move(kept);
  }
  for (const Connection& c : pending) close(c.fd);
}

}  // namespace klaunch
