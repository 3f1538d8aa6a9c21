// A loopback TCP listener for integration tests: a thread accepts (and
// counts) every connection, so a program's connects never wait on a full
// backlog, and Accepted() also drains what is still queued, so a count
// taken after the program exited includes every connect that succeeded.

#ifndef KLAUNCH_TESTS_LISTENER_H_
#define KLAUNCH_TESTS_LISTENER_H_

#include <atomic>
#include <thread>

namespace klaunch::testing {

class Listener {
 public:
  // `port` 0 picks a free one.
  explicit Listener(const char* address = "127.0.0.1", int port = 0);
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  bool ok() const { return ok_; }  // bound and listening
  int port() const { return port_; }
  // The connections accepted since the last call.
  int Accepted();

 private:
  void Drain();

  int fd_ = -1;
  int port_ = 0;
  bool ok_ = false;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepted_{0};
  std::thread thread_;
};

}  // namespace klaunch::testing

#endif  // KLAUNCH_TESTS_LISTENER_H_
