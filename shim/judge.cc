#include "shim/judge.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>

#include <atomic>
#include <cstdio>
#include <cstring>

#include "core/apply.h"
#include "core/ask.h"
#include "core/audit.h"
#include "core/path.h"
#include "core/seccomp_tag.h"
#include "shim/channel.h"
#include "shim/resolve.h"
#include "shim/state.h"
#include "shim/sys.h"

namespace klaunch::shim {
namespace {

// --- the audit record -------------------------------------------------------

void Record(absl::string_view op, absl::string_view target,
            absl::string_view access, const Decision& d, bool audit,
            absl::string_view command = {}) {
  const Config& c = GetConfig();
  const bool allowed = d.allowed();
  AuditEvent e;
  e.op = std::string(op);
  e.target = std::string(target);
  e.access = std::string(access);
  e.verdict = allowed ? "allow" : audit ? "would_deny" : "deny";
  e.rule = std::string(d.rule);
  if (!allowed) e.message = d.message;
  e.command = std::string(command);
  if (c.engine != nullptr) e.program = std::string(c.engine->program());
  // klaunch writes it, naming this process as the kernel names it.
  SendRecord(RecordRequest(e));
  if (c.verbose && !allowed) {
    const std::string msg = std::string("klaunch: ") +
                            (audit ? "(audit, not refused) " : "") + d.message +
                            "\n";
    sys(SYS_write, 2, msg.data(), msg.size());
  }
}

// A --trace record of an allowed call, built on the stack (RecordRequest's
// form): an allowed write or connect may be made in a signal handler,
// where nothing may allocate. True when it was sent; false when it does
// not fit, and the caller builds it the usual way.
bool SendAllowRecord(absl::string_view op, absl::string_view target,
                     absl::string_view access, const Decision& d,
                     absl::string_view command) {
  const Config& c = GetConfig();
  const absl::string_view program =
      c.engine != nullptr ? c.engine->program() : absl::string_view();
  const absl::string_view fields[] = {op,     target, access,  "allow",
                                      d.rule, "",     command, program};
  char buf[2 * kPathMax];
  size_t n = 0;
  for (absl::string_view f : fields) {
    if (f.size() > sizeof(buf) - n - 4) return false;
    const uint32_t len = static_cast<uint32_t>(f.size());
    for (int i = 0; i < 4; ++i) buf[n++] = static_cast<char>(len >> (8 * i));
    if (!f.empty()) std::memcpy(buf + n, f.data(), f.size());
    n += f.size();
  }
  SendRecord(absl::string_view(buf, n));
  return true;
}

// Puts a question to the user through klaunch (shim/channel.h).
class ChannelAsker final : public Asker {
 public:
  AskAnswer Put(const AskQuestion& q) override {
    absl::string_view pieces[kAskRequestPieces];
    const int n = AskRequestPieces(q, pieces);
    std::string request;
    for (int i = 0; i < n; ++i)
      request.append(pieces[i].data(), pieces[i].size());
    switch (SendQuestion(request)) {
      case 'y':
        return AskAnswer::kYes;
      case 'r':
        return AskAnswer::kRefused;
      default:
        return AskAnswer::kNo;
    }
  }
};

// The shim as a layer that judges (core/apply.h): its records and
// questions go to klaunch over the channel.
class ShimLayer final : public JudgingLayer {
 public:
  bool audit() const override { return GetConfig().engine->audit(); }
  bool tracing() const override { return GetConfig().trace; }
  Asker* asker() override {
    return GetConfig().ask_socket.empty() ? nullptr : &asker_;
  }
  void Identify(std::string* exe, std::string* chain) override {
    *exe = GetConfig().exe;
    *chain = GetConfig().chain;
  }
  void Record(const JudgedCall& call, const Decision& d) override {
    // An allowed call's record is built on the stack where it fits.
    if (d.allowed() &&
        SendAllowRecord(call.op, call.target, call.access, d, call.command)) {
      return;
    }
    shim::Record(call.op, call.target, call.access, d, audit(), call.command);
  }

 private:
  ChannelAsker asker_;
};

// Applies a decision: true when the call may go on; errno is EACCES when
// it may not. `trace`: false for a second judgement of a call already
// judged (a directory's move), which --trace does not record again.
bool Apply(const char* op, const char* target, const char* access, Decision d,
           const std::string& command = {}, bool trace = true) {
  ShimLayer layer;
  if (ApplyDecision({op, target, access, command, trace}, &d, layer)) {
    return true;
  }
  errno = EACCES;
  return false;
}

bool NoEngine(const char* op, const char* target) {
  const Config& c = GetConfig();
  Decision d{Verdict::kDeny, "shim",
             std::string("klaunch shim has no usable policy (") + c.error +
                 "): refusing " + op + " of " + target};
  Record(op, target, "", d, false);
  errno = EACCES;
  return false;
}

// --- names a process resolved ----------------------------------------------

struct NameSlot {
  IpAddress address;
  char name[256];
  bool used = false;
};
constexpr int kSlots = 256;
// Constant-initialised: zero pages the kernel gives only when a name is kept,
// not 74 KB written by a constructor in every process.
constinit NameSlot g_names[kSlots]{};
unsigned g_next = 0;
std::atomic_flag g_names_lock = ATOMIC_FLAG_INIT;
pthread_once_t g_atfork_once = PTHREAD_ONCE_INIT;

void LockNames() {
  pthread_once(&g_atfork_once, [] {
    // A fork while another thread holds the lock must not leave the child
    // locked out.
    pthread_atfork(nullptr, nullptr, [] { g_names_lock.clear(); });
  });
  while (g_names_lock.test_and_set(std::memory_order_acquire)) {
    sys(SYS_sched_yield);
  }
}
void UnlockNames() { g_names_lock.clear(std::memory_order_release); }

}  // namespace

// The kernel names this process's own /proc entries by number; the policy
// names them /proc/self and /proc/thread-self.
const char* SelfProcPath(const char* path, char* buf, size_t size) {
  if (std::strncmp(path, "/proc/", 6) != 0) return path;
  char self[48];
  const int n = std::snprintf(self, sizeof(self), "/proc/%ld", sys(SYS_getpid));
  if (std::strncmp(path, self, n) != 0 || (path[n] != '/' && path[n] != '\0')) {
    return path;
  }
  char task[64];
  const int t =
      std::snprintf(task, sizeof(task), "%s/task/%ld", self, sys(SYS_gettid));
  if (std::strncmp(path, task, t) == 0 && (path[t] == '/' || path[t] == '\0')) {
    std::snprintf(buf, size, "/proc/thread-self%s", path + t);
  } else {
    std::snprintf(buf, size, "/proc/self%s", path + n);
  }
  return buf;
}

bool AllowPath(const char* op, Access access, const char* path) {
  const Config& c = GetConfig();
  if (c.engine == nullptr) return NoEngine(op, path);
  if (path[0] != '/') return true;  // no filesystem object
  char buf[kPathMax];
  path = SelfProcPath(path, buf, sizeof(buf));
  return Apply(op, path, AccessName(access).data(),
               c.engine->CheckPath(access, path));
}

bool AllowObject(const char* op, Access access, const char* real, int dirfd,
                 const char* written) {
  if (real[0] == '/') return AllowPath(op, access, real);
  if (written[0] == '\0') return true;  // AT_EMPTY_PATH: a descriptor it holds
  // No filesystem path (a pipe, a socket): one of this process's own
  // descriptors is its own business; another process's, reached through
  // /proc/PID/fd, is judged by the path the program wrote.
  char where[kPathMax], buf[kPathMax];
  ApproximatePath(dirfd, written, where, sizeof(where));
  const char* self = SelfProcPath(where, buf, sizeof(buf));
  if (PathIsWithin(self, "/proc/self/fd") ||
      PathIsWithin(self, "/proc/thread-self/fd")) {
    return true;
  }
  return AllowPath(op, access, self);
}

bool AllowMove(const char* op, const char* path) {
  const Config& c = GetConfig();
  if (c.engine == nullptr) return NoEngine(op, path);
  return Apply(op, path, "write", c.engine->CheckMove(path), {},
               /*trace=*/false);
}

bool AllowMissing(const char* op, Access access, int dirfd, const char* path) {
  const Config& c = GetConfig();
  if (c.engine == nullptr) return NoEngine(op, path);
  char approx[kPathMax], buf[kPathMax];
  ApproximatePath(dirfd, path, approx, sizeof(approx));
  const char* where = SelfProcPath(approx, buf, sizeof(buf));
  Decision d = c.engine->CheckPath(Access::kStat, where);
  if (d.allowed()) return true;  // no deny rule: fail natively
  return Apply(op, where, AccessName(access).data(), std::move(d));
}

bool AllowLinkSource(const char* op, const char* path) {
  const Config& c = GetConfig();
  if (c.engine == nullptr) return NoEngine(op, path);
  if (path[0] != '/') return true;
  char buf[kPathMax];
  path = SelfProcPath(path, buf, sizeof(buf));
  return Apply(op, path, "link", c.engine->CheckPath(Access::kWrite, path));
}

bool MaySee(const char* path) {
  const Config& c = GetConfig();
  if (c.engine == nullptr || path[0] != '/') return false;
  if (!c.engine->has_deny_rules()) return true;
  char buf[kPathMax];
  return c.engine
      ->CheckPath(Access::kStat, SelfProcPath(path, buf, sizeof(buf)))
      .allowed();
}

bool AllowCommand(const char* op, const char* named, const char* target,
                  absl::Span<const absl::string_view> argv,
                  const std::vector<std::string>& links) {
  const Config& c = GetConfig();
  if (c.engine == nullptr) return NoEngine(op, named);
  std::vector<absl::string_view> link_views(links.begin(), links.end());
  Decision d = c.engine->CheckCommand(named, argv, target, link_views);
  if (d.allowed()) return true;
  return Apply(op, named, "exec", std::move(d), CommandLineText(named, argv));
}

bool AllowInterpreterLine(const char* op, const char* named, const char* target,
                          const std::vector<std::string>& argv) {
  const Config& c = GetConfig();
  if (c.engine == nullptr) return NoEngine(op, named);
  std::vector<absl::string_view> args(argv.begin(), argv.end());
  Decision d = c.engine->CheckDeniedCommand(named, args, target);
  if (d.allowed()) return true;
  return Apply(op, named, "exec", std::move(d), CommandLineText(named, args));
}

bool AllowIp(const char* op, const IpAddress& ip, uint16_t port, char* hint,
             size_t hint_size) {
  const Config& c = GetConfig();
  if (hint_size > 0) hint[0] = '\0';
  if (c.engine == nullptr) return NoEngine(op, ip.ToString().c_str());
  // Judge by every name this process resolved to the address, newest first.
  char names[8][256];
  int found = 0;
  LockNames();
  for (int i = 0; i < kSlots && found < 8; ++i) {
    const NameSlot& s = g_names[(g_next + kSlots - 1 - i) % kSlots];
    if (s.used && s.address == ip) {
      std::memcpy(names[found++], s.name, sizeof(s.name));
    }
  }
  UnlockNames();
  for (int i = 0; i < found; ++i) {
    if (c.engine->CheckConnect(ip, port, names[i]).allowed()) {
      // The supervisor believes the name only once it resolves there for
      // klaunch too: it is passed along with the call.
      std::snprintf(hint, hint_size, "%s", names[i]);
      return true;
    }
  }
  Decision d = c.engine->CheckConnect(ip, port, found ? names[0] : "");
  // Named by the host the program asked for when there is one, as a rule
  // would name it.
  char target[320];
  const std::string a = ip.ToString();
  if (found) {
    std::snprintf(target, sizeof(target), "%s:%u", names[0], port);
  } else {
    std::snprintf(target, sizeof(target), ip.v6 ? "[%s]:%u" : "%s:%u",
                  a.c_str(), port);
  }
  return Apply(op, target, "connect", std::move(d));
}

bool AllowAbstractUnix(const char* op, const char* name, unsigned len) {
  const Config& c = GetConfig();
  char shown[120];
  std::snprintf(shown, sizeof(shown), "@%.*s", static_cast<int>(len), name);
  if (c.engine == nullptr) return NoEngine(op, shown);
  return Apply(op, shown, "connect",
               c.engine->CheckAbstractUnix(absl::string_view(name, len)));
}

void RememberName(const char* name, int family, const void* addr) {
  if (name == nullptr || *name == '\0') return;
  IpAddress ip = IpAddress::FromBytes(family == AF_INET6,
                                      static_cast<const uint8_t*>(addr));
  LockNames();
  NameSlot& s = g_names[g_next++ % kSlots];
  s.address = ip;
  std::snprintf(s.name, sizeof(s.name), "%s", name);
  s.used = true;
  UnlockNames();
}

bool Refuse(const char* op, const char* target, const char* why) {
  const Config& c = GetConfig();
  Decision d{Verdict::kDeny, "shim",
             std::string(op) + " of " + target + " refused: " + why};
  if (c.engine != nullptr && c.engine->audit()) {
    Record(op, target, "", d, true);
    return true;
  }
  Record(op, target, "", d, false);
  errno = EACCES;
  return false;
}

}  // namespace klaunch::shim
