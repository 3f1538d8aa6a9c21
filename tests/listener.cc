#include "tests/listener.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>

namespace klaunch::testing {

Listener::Listener(const char* address, int port) {
  fd_ = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, address, &a.sin_addr);
  ok_ = fd_ >= 0 &&
        bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
        listen(fd_, 4096) == 0;
  socklen_t len = sizeof(a);
  if (ok_) getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
  port_ = ntohs(a.sin_port);
  if (!ok_) return;
  thread_ = std::thread([this] {
    while (!stop_) {
      pollfd p = {fd_, POLLIN, 0};
      if (poll(&p, 1, 50) > 0) Drain();
    }
  });
}

Listener::~Listener() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (fd_ >= 0) close(fd_);
}

void Listener::Drain() {
  for (int c; (c = accept(fd_, nullptr, nullptr)) >= 0;) {
    close(c);
    ++accepted_;
  }
}

int Listener::Accepted() {
  if (ok_) Drain();
  return accepted_.exchange(0);
}

}  // namespace klaunch::testing
