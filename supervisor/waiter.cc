#include "supervisor/waiter.h"

#include <fcntl.h>
#include <linux/seccomp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <vector>

namespace klaunch::supervise {
namespace {

constexpr int64_t kCheckMs = 50;
// The wake-up's epoll tag: notification ids are random 64-bit numbers,
// and this one is never handed out twice in a row by the kernel's counter
// before the heat death of the machine.
constexpr uint64_t kWake = ~uint64_t{0};
constexpr int64_t kMaxBackoffMs = 50;

int64_t NowMs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// A hexadecimal field of /proc/TID/status ("SigPnd:\t0000000000000000").
uint64_t HexField(const char* status, const char* name) {
  const char* at = std::strstr(status, name);
  return at != nullptr ? std::strtoull(at + std::strlen(name), nullptr, 16) : 0;
}

// True when thread `tid` has a signal pending it does not block: its own
// blocking call would have been interrupted.
bool SignalPending(pid_t tid) {
  char path[64], buf[4096];
  std::snprintf(path, sizeof(path), "/proc/%d/status", tid);
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (n <= 0) return false;
  buf[n] = '\0';
  const uint64_t pending =
      HexField(buf, "\nSigPnd:") | HexField(buf, "\nShdPnd:");
  return (pending & ~HexField(buf, "\nSigBlk:")) != 0;
}

}  // namespace

Answer Answer::Wait(Fd fd, uint32_t events,
                    std::function<std::optional<Answer>()> retry) {
  if (std::optional<Answer> now = retry()) return *std::move(now);
  Answer a{kPending};
  a.pending = std::make_shared<Pending>();
  a.pending->fd = std::move(fd);
  a.pending->events = events;
  a.pending->retry = std::move(retry);
  return a;
}

Waiter::Waiter(int listener) : listener_(listener) {
  epoll_ = epoll_create1(EPOLL_CLOEXEC);
  wake_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kWake;
  epoll_ctl(epoll_, EPOLL_CTL_ADD, wake_, &ev);
}

Waiter::~Waiter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  const uint64_t one = 1;
  ssize_t ignored = write(wake_, &one, sizeof(one));
  (void)ignored;
  if (thread_.joinable()) thread_.join();
  calls_.clear();
  close(epoll_);
  close(wake_);
}

size_t Waiter::Size() {
  std::lock_guard<std::mutex> lock(mu_);
  return calls_.size();
}

void Waiter::Arm(uint64_t id, const Entry& e) {
  if (!e.pending->fd.valid()) return;
  epoll_event ev{};
  ev.events = e.pending->events | EPOLLONESHOT;
  ev.data.u64 = id;
  if (epoll_ctl(epoll_, EPOLL_CTL_MOD, e.pending->fd.get(), &ev) != 0) {
    epoll_ctl(epoll_, EPOLL_CTL_ADD, e.pending->fd.get(), &ev);
  }
}

void Waiter::Add(uint64_t id, pid_t tid, std::shared_ptr<Pending> pending) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return;  // the run ends: the call fails with ENOSYS
  // Started with the first call that waits: most runs have none.
  if (!thread_.joinable()) {
    try {
      thread_ = std::thread([this] { Run(); });
    } catch (const std::system_error&) {
      // Out of threads (the program can exhaust them: it runs as the same
      // user): this call fails rather than wait for ever.
      Respond(listener_, id, Answer::Error(EAGAIN));
      return;
    }
  }
  Entry e{tid, std::move(pending), NowMs() + 1, 1};
  Arm(id, e);
  calls_.emplace(id, std::move(e));
  const uint64_t one = 1;
  ssize_t ignored = write(wake_, &one, sizeof(one));  // a new timer
  (void)ignored;
}

bool Waiter::Retry(uint64_t id) {
  std::shared_ptr<Pending> pending;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = calls_.find(id);
    if (it == calls_.end()) return true;
    pending = it->second.pending;
  }
  std::optional<Answer> answer = pending->retry();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = calls_.find(id);
  if (it == calls_.end()) return true;
  if (!answer) {
    Arm(id, it->second);
    return false;
  }
  if (pending->fd.valid()) {
    epoll_ctl(epoll_, EPOLL_CTL_DEL, pending->fd.get(), nullptr);
  }
  calls_.erase(it);
  Respond(listener_, id, *std::move(answer));
  return true;
}

void Waiter::Run() {
  int64_t next_check = NowMs() + kCheckMs;
  std::vector<epoll_event> events(64);
  while (true) {
    int64_t timeout = kCheckMs;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
      const int64_t now = NowMs();
      timeout = std::max<int64_t>(0, next_check - now);
      for (const auto& [id, e] : calls_) {
        if (!e.pending->fd.valid()) {
          timeout = std::min<int64_t>(
              timeout, std::max<int64_t>(0, e.next_retry_ms - now));
        }
      }
    }
    const int n = epoll_wait(epoll_, events.data(), events.size(),
                             static_cast<int>(timeout));
    for (int i = 0; i < n; ++i) {
      if (events[i].data.u64 == kWake) {
        uint64_t count;
        ssize_t ignored = read(wake_, &count, sizeof(count));
        (void)ignored;
        continue;
      }
      Retry(events[i].data.u64);
    }
    // Calls with no descriptor to wait on: on their timer, backing off.
    const int64_t now = NowMs();
    std::vector<uint64_t> due;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& [id, e] : calls_) {
        if (e.pending->fd.valid() || e.next_retry_ms > now) continue;
        e.backoff_ms = std::min(e.backoff_ms * 2, kMaxBackoffMs);
        e.next_retry_ms = now + e.backoff_ms;
        due.push_back(id);
      }
    }
    for (uint64_t id : due) Retry(id);
    if (now < next_check) continue;
    next_check = now + kCheckMs;
    // Every call still waiting: its target still there, and not signalled.
    std::vector<std::pair<uint64_t, pid_t>> all;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const auto& [id, e] : calls_) all.push_back({id, e.tid});
    }
    for (const auto& [id, tid] : all) {
      uint64_t valid_id = id;
      const bool live =
          ioctl(listener_, SECCOMP_IOCTL_NOTIF_ID_VALID, &valid_id) == 0;
      const bool signalled = live && SignalPending(tid);
      if (live && !signalled) continue;
      std::shared_ptr<Pending> dropped;
      {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = calls_.find(id);
        if (it == calls_.end()) continue;
        dropped = it->second.pending;
        if (dropped->fd.valid()) {
          epoll_ctl(epoll_, EPOLL_CTL_DEL, dropped->fd.get(), nullptr);
        }
        calls_.erase(it);
      }
      if (signalled) Respond(listener_, id, Answer::Error(kRestartCall));
    }
  }
}

}  // namespace klaunch::supervise
