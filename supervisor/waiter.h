// The calls the supervisor performs that would block on an object the
// program controls (supervise.h, Pending): one thread waits for all of them,
// so that no thread of the supervisor is ever held by the program, however
// many such calls it makes.
//
//   waiter.Add(req.id, req.pid, std::move(pending));  // answered later
//
// The waiting thread starts with the first pending call. A pending call is
// retried when its descriptor is ready (or, with none,
// on a timer that backs off from 1 to 50 ms) and answered when it no longer
// would block. Every 50 ms each is checked: a target that is gone (killed,
// or its notification otherwise dead) is dropped, with the descriptors the
// call held; a target thread with a signal pending is answered "restart"
// (kRestartCall), as the kernel's own blocking call would be interrupted.
//
// Owns the pending calls and their descriptors; answers through the
// listener it is given, which it does not own.

#ifndef KLAUNCH_SUPERVISOR_WAITER_H_
#define KLAUNCH_SUPERVISOR_WAITER_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "supervisor/supervise.h"

namespace klaunch::supervise {

class Waiter {
 public:
  explicit Waiter(int listener);
  ~Waiter();  // drops every pending call
  Waiter(const Waiter&) = delete;
  Waiter& operator=(const Waiter&) = delete;

  void Add(uint64_t id, pid_t tid, std::shared_ptr<Pending> pending);
  // How many calls wait (for tests and --verbose).
  size_t Size();

 private:
  struct Entry {
    pid_t tid;
    std::shared_ptr<Pending> pending;
    int64_t next_retry_ms;  // timer-only calls
    int64_t backoff_ms;
  };
  void Run();
  void Arm(uint64_t id, const Entry& e);
  // Retries `id`; true when it was answered (and removed).
  bool Retry(uint64_t id);

  const int listener_;
  int epoll_ = -1, wake_ = -1;
  std::mutex mu_;
  std::map<uint64_t, Entry> calls_;  // guarded
  bool stopping_ = false;            // guarded
  std::thread thread_;
};

}  // namespace klaunch::supervise

#endif  // KLAUNCH_SUPERVISOR_WAITER_H_
