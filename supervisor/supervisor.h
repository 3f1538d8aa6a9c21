// The seccomp supervisor: answers the notifications the filter
// (seccomp_filter.h) sends, for every process and thread of the run.
//
//   auto s = Supervisor::Start(listener, settings);  // after fork, in klaunch
//   ...wait for the program...
//   s->Stop();
//
// One thread receives and answers the common calls itself (opens and
// mutations, which never wait on anything but the filesystem); calls that
// may wait long (an exec, a connect, a question at the terminal) go to a
// pool that starts with one thread and gains one whenever a call finds
// every thread busy (up to kMaxWorkers), so that waiting answers, questions
// the person has not answered yet among them, never hold up the others.
// (A thread costs about 0.3 ms to start here, and the program's first exec
// waits for the supervisor: threads no call needs are not made up front.)
// The supervisor ends when Stop is called or when no process uses the
// filter any more.
//
// If klaunch dies, the kernel answers every pending and later notification
// with ENOSYS: the sandboxed processes fail closed.

#ifndef KLAUNCH_SUPERVISOR_SUPERVISOR_H_
#define KLAUNCH_SUPERVISOR_SUPERVISOR_H_

#include <linux/seccomp.h>

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "supervisor/supervise.h"
#include "supervisor/waiter.h"

namespace klaunch {

class Supervisor {
 public:
  // Takes ownership of `listener`.
  static absl::StatusOr<std::unique_ptr<Supervisor>> Start(
      int listener, supervise::Settings settings);
  ~Supervisor();

  // Stops answering. Calls still pending then fail with ENOSYS once the
  // listener closes.
  void Stop();

 private:
  Supervisor(int listener, int stop, supervise::Settings settings);
  void Receive();
  void Work();
  void Answer(const seccomp_notif& req);

  static constexpr size_t kMinWorkers = 1;
  static constexpr size_t kMaxWorkers = 64;

  int listener_, stop_;
  std::unique_ptr<supervise::Waiter> waiter_;
  supervise::Settings settings_;
  std::thread receiver_;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<seccomp_notif> queue_;
  size_t idle_ = 0;  // workers waiting for a call
  bool stopping_ = false;
};

}  // namespace klaunch

#endif  // KLAUNCH_SUPERVISOR_SUPERVISOR_H_
