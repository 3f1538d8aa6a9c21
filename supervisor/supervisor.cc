#include "supervisor/supervisor.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "core/ask.h"
#include "core/audit.h"
#include "core/programs.h"
#include "core/seccomp_tag.h"
#include "supervisor/ask_server.h"
#include "supervisor/chain_cgroups.h"
#include "supervisor/proc_maps.h"
#include "supervisor/shim_records.h"
#include "supervisor/syscall_table.h"
#include "supervisor/waiter.h"

// Kernel 6.6+: wake the supervisor on the target's CPU (linux/seccomp.h of
// Debian 12 predates it).
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

namespace klaunch {
namespace supervise {

namespace {

// True when the call was made from an executable mapping of the shim's
// file.
bool InShim(Call& c) {
  const Settings& s = c.settings();
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%d/maps", c.target().tid());
  Fd fd(open(path, O_RDONLY | O_CLOEXEC));
  dev_t dev;
  uint64_t ino;
  return fd.valid() && ExecutableMappingAt(fd.get(), c.ip(), &dev, &ino) &&
         ino == s.shim_ino && dev == s.shim_dev;
}

}  // namespace

void CountLostRecord(const Settings& s, int error) {
  if (s.lost_records != nullptr) s.lost_records->fetch_add(1);
  if (s.lost_errno != nullptr) s.lost_errno->store(error);
}

namespace {

// Reads `size` bytes at `addr` of the target, at most `max`.
std::optional<std::string> ReadRequest(Call& c, uint64_t addr, uint64_t size,
                                       size_t max) {
  if (size == 0 || size > max) return std::nullopt;
  std::string text(size, '\0');
  if (!c.target().Read(addr, text.data(), text.size())) return std::nullopt;
  return text;
}

// A shim's record of its refusal, written by klaunch: who sent it is the
// process the kernel names.
Answer WriteRecord(Call& c) {
  const std::optional<std::string> bytes =
      ReadRequest(c, c.arg(1), c.arg(2), kRecordRequestMax);
  if (!bytes) return Answer::Error(EINVAL);
  if (!c.Live()) return Answer::Error(ENOENT);
  ShimRecordSettings s;
  s.log = c.settings().log;
  s.engine = &c.engine();
  s.chain_known = c.settings().chains != nullptr;
  s.trace = c.settings().trace;
  AuditEvent written;
  const int err =
      WriteShimRecord(s, c.target().tgid(), c.target().exe(), *bytes, &written);
  if (err == 0 && c.settings().echoes != nullptr &&
      (c.engine().audit() || written.verdict == "allow")) {
    c.settings().echoes->Note(c.target().tid(), written.target, written.access);
  }
  if (err == EINVAL) return Answer::Error(EINVAL);
  if (err != 0) {
    CountLostRecord(c.settings(), err);
    return Answer::Error(err);
  }
  return Answer::Value(0);
}

// A shim's question, put to the person for the process the kernel names.
Answer PutShimQuestion(Call& c) {
  AskServer* server = c.settings().asker;
  const std::optional<std::string> bytes =
      ReadRequest(c, c.arg(1), c.arg(2), kAskRequestMax);
  if (server == nullptr || !bytes) return Answer::Value('r');
  return Answer::Value(server->Answer(c.target().tgid(), *bytes, "shim"));
}

}  // namespace

Answer SuperviseCookie(Call& c) {
  if (c.arg(0) == static_cast<uint64_t>(kPolicyRequest)) {
    // The policy is no secret of klaunch's: it is what every process is
    // held to. Sent into the target's memory, so no descriptor of
    // klaunch's files is ever in the program's process.
    const std::string& text = c.settings().effective_policy;
    if (c.arg(1) != 0 && c.arg(2) >= text.size() &&
        !c.target().Write(c.arg(1), text.data(), text.size())) {
      return Answer::Error(EFAULT);
    }
    return Answer::Value(static_cast<int64_t>(text.size()));
  }
  if (c.arg(0) == static_cast<uint64_t>(kRecordReport)) {
    return WriteRecord(c);
  }
  if (c.arg(0) == static_cast<uint64_t>(kAskRequest)) {
    return PutShimQuestion(c);
  }
  if (c.arg(0) == static_cast<uint64_t>(kSectionEnter)) {
    // Anyone may ask: a chain only grows.
    ChainCgroups* chains = c.settings().chains;
    if (chains == nullptr) return Answer::Error(ENOSYS);
    std::string text(c.arg(2) < 4096 ? c.arg(2) : 0, '\0');
    if (text.empty() || !c.target().Read(c.arg(1), text.data(), text.size())) {
      return Answer::Error(EFAULT);
    }
    const std::optional<std::vector<int>> claimed =
        ParseChain(c.engine().policy(), text);
    if (!claimed || !c.Live()) return Answer::Error(EINVAL);
    const int rc = chains->Enter(c.target().tgid(), *claimed);
    return rc < 0 ? Answer::Error(-rc) : Answer::Value(0);
  }
  if (!InShim(c) || !c.Live()) return Answer::Error(ENOSYS);
  // The shim judges under the chain its environment names; the cookie lets
  // its calls past the supervisor, so that chain must hold every section
  // of the one the supervisor keeps for the process (its cgroup's, or
  // CMD's): one that dropped a section would judge wider than the kernel's.
  const std::vector<int> required = c.engine().chain();
  if (!required.empty()) {
    std::string text;
    if (c.arg(0) == static_cast<uint64_t>(kCookieRequest) && c.arg(2) > 0 &&
        c.arg(2) < 4096) {
      text.resize(c.arg(2));
      if (!c.target().Read(c.arg(1), text.data(), text.size())) {
        return Answer::Error(EFAULT);
      }
    }
    const std::optional<std::vector<int>> claimed =
        ParseChain(c.engine().policy(), text);
    std::vector<int> missing;
    for (int i : required) {
      if (!claimed ||
          std::find(claimed->begin(), claimed->end(), i) == claimed->end()) {
        missing.push_back(i);
      }
    }
    if (!missing.empty()) {
      // Not final: the shim asks again once it has read its cgroup.
      if (c.arg(3) == 0) return Answer::Error(EPERM);
      c.Refuse("shim", c.target().exe(),
               absl::StrCat("the shim names the program sections '", text,
                            "', which lack ", ChainText(missing),
                            " of the process's own: it gets no cookie, and "
                            "the supervisor judges each of its calls"));
      return Answer::Error(EPERM);
    }
  }
  return Answer::Value(static_cast<int64_t>(c.settings().cookie));
}

bool MayBlock(const seccomp_data& call, const Settings& settings) {
  const SyscallEntry* e = FindSyscall(static_cast<int>(call.nr));
  switch (e != nullptr ? e->family : SyscallFamily::kNone) {
    case SyscallFamily::kCookie:
      return call.args[0] == static_cast<uint64_t>(kAskRequest);
    case SyscallFamily::kNetwork:
    case SyscallFamily::kExec:
      return true;
    default:
      return settings.asker != nullptr && settings.ask_writes;
  }
}

namespace {

// One handler per family of the table (syscall_table.h).
supervise::Answer Dispatch(Call& c) {
  const SyscallEntry* e = FindSyscall(c.nr());
  switch (e != nullptr ? e->family : SyscallFamily::kNone) {
    case SyscallFamily::kOpen:
      return SuperviseOpen(c);
    case SyscallFamily::kLook:
      return SuperviseStat(c);
    case SyscallFamily::kMutate:
    case SyscallFamily::kAttributes:
      return SuperviseMutation(c);
    case SyscallFamily::kExec:
      return SuperviseExec(c);
    case SyscallFamily::kNetwork:
      return SuperviseNetwork(c);
    case SyscallFamily::kProcess:
      return SuperviseProcess(c);
    case SyscallFamily::kIoctl:
      return SuperviseIoctl(c);
    case SyscallFamily::kCookie:
      return SuperviseCookie(c);
    case SyscallFamily::kSocket:
    case SyscallFamily::kNone:
      break;
  }
  // fcntl is filtered, not judged: only its owner commands come here.
  if (c.nr() == SYS_fcntl) return SuperviseProcess(c);
  c.Refuse("call", absl::StrCat("system call ", c.nr()),
           "the filter sent a call no handler judges");
  return Answer::Error(ENOSYS);
}

}  // namespace

void Respond(int listener, uint64_t id, Answer a) {
  seccomp_notif_resp resp;
  std::memset(&resp, 0, sizeof(resp));
  resp.id = id;
  switch (a.kind) {
    case supervise::Answer::kContinue:
      resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
      break;
    case supervise::Answer::kValue:
      resp.val = a.value;
      break;
    case supervise::Answer::kError:
      resp.error = -a.error;
      break;
    case supervise::Answer::kPending:  // the waiter's: never sent here
    case supervise::Answer::kSent:     // answered already
      return;
    case supervise::Answer::kInject: {
      // Two steps (add, then answer with the number) cost one wake-up less
      // than ADDFD_FLAG_SEND on this kind of machine (PERFORMANCE.md).
      seccomp_notif_addfd add;
      std::memset(&add, 0, sizeof(add));
      add.id = id;
      add.srcfd = static_cast<uint32_t>(a.fd.get());
      add.newfd_flags = a.cloexec ? O_CLOEXEC : 0;
      const int fd = ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
      if (fd < 0) {
        resp.error = -errno;
      } else {
        resp.val = fd;
      }
      break;
    }
  }
  // ENOENT: the target is gone, or was interrupted by a signal.
  ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

}  // namespace supervise

absl::StatusOr<std::unique_ptr<Supervisor>> Supervisor::Start(
    int listener, supervise::Settings settings) {
  const int stop = eventfd(0, EFD_CLOEXEC);
  if (stop < 0) {
    close(listener);
    return absl::InternalError(absl::StrCat("eventfd: ", strerror(errno)));
  }
  fcntl(listener, F_SETFD, FD_CLOEXEC);
  // Best effort: kernels before 6.6 answer EINVAL and wake the usual way.
  ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
        SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
  // klaunch creates on the target's behalf with the target's umask, applied
  // by hand; and sends for it without ever taking its SIGPIPE.
  umask(0);
  signal(SIGPIPE, SIG_IGN);
  std::unique_ptr<Supervisor> s(new Supervisor(listener, stop, settings));
  s->waiter_ = std::make_unique<supervise::Waiter>(listener);
  // The workers first: once it runs, the receiver adds to them.
  for (size_t i = 0; i < kMinWorkers; ++i) {
    s->workers_.emplace_back([p = s.get()] { p->Work(); });
  }
  s->receiver_ = std::thread([p = s.get()] { p->Receive(); });
  return s;
}

Supervisor::Supervisor(int listener, int stop, supervise::Settings settings)
    : listener_(listener), stop_(stop), settings_(std::move(settings)) {}

Supervisor::~Supervisor() {
  Stop();
  close(stop_);
}

void Supervisor::Stop() {
  if (listener_ < 0) return;
  const uint64_t one = 1;
  ssize_t ignored = write(stop_, &one, sizeof(one));
  (void)ignored;
  if (receiver_.joinable()) receiver_.join();
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : workers_) t.join();
  workers_.clear();
  waiter_.reset();  // drops what still waits, with the descriptors it held
  close(listener_);
  listener_ = -1;
}

void Supervisor::Answer(const seccomp_notif& req) {
  const Engine* engine = nullptr;
  if (settings_.chains != nullptr) {
    engine = settings_.chains->EngineOf(req.pid);
    if (engine == nullptr) {  // no chain known for it: judge nothing
      supervise::Respond(listener_, req.id, supervise::Answer::Error(EACCES));
      return;
    }
  }
  supervise::Call call(listener_, req, settings_, engine);
  supervise::Answer a = supervise::Dispatch(call);
  if (a.kind == supervise::Answer::kPending) {
    waiter_->Add(req.id, req.pid, std::move(a.pending));
    return;
  }
  if (a.kind == supervise::Answer::kSent) return;
  supervise::Respond(listener_, req.id, std::move(a));
}

void Supervisor::Receive() {
  while (true) {
    pollfd fds[2] = {{listener_, POLLIN, 0}, {stop_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents) return;
    if (!(fds[0].revents & POLLIN)) {
      if (fds[0].revents & (POLLHUP | POLLERR)) return;  // no process left
      continue;
    }
    seccomp_notif req;
    std::memset(&req, 0, sizeof(req));
    if (ioctl(listener_, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0) {
      if (errno == EINTR || errno == ENOENT) continue;
      return;
    }
    if (supervise::MayBlock(req.data, settings_)) {
      bool grow;
      {
        std::lock_guard<std::mutex> lock(mu_);
        queue_.push_back(req);
        grow = queue_.size() > idle_ && workers_.size() < kMaxWorkers;
      }
      cv_.notify_one();
      // Only this thread adds workers, and Stop joins it before it joins
      // them. Out of threads (the program can exhaust them: it runs as the
      // same user), the pool stays as it is.
      if (grow) {
        try {
          workers_.emplace_back([this] { Work(); });
        } catch (const std::system_error&) {
        }
      }
    } else {
      Answer(req);
    }
  }
}

void Supervisor::Work() {
  while (true) {
    seccomp_notif req;
    {
      std::unique_lock<std::mutex> lock(mu_);
      ++idle_;
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      --idle_;
      if (queue_.empty()) return;
      req = queue_.front();
      queue_.pop_front();
    }
    Answer(req);
  }
}

}  // namespace klaunch
