#include "shim/judge.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>

#include <atomic>
#include <cstdio>
#include <cstring>

#include "shim/resolve.h"
#include "shim/state.h"
#include "shim/sys.h"

namespace klaunch::shim {
namespace {

// --- the audit record -------------------------------------------------------

// A fixed buffer a JSON line is built in; output past its end is dropped and
// the line still ends well-formed.
class Line {
 public:
  void Raw(const char* s) {
    while (*s && n_ < kCap) buf_[n_++] = *s++;
  }
  void Str(const char* s, size_t len = static_cast<size_t>(-1)) {
    Raw("\"");
    for (size_t i = 0; i < len && s[i] && n_ < kCap - 8; ++i) {
      const unsigned char c = static_cast<unsigned char>(s[i]);
      if (c == '"' || c == '\\') {
        buf_[n_++] = '\\';
        buf_[n_++] = c;
      } else if (c < 0x20 || c == 0x7f) {
        n_ += std::snprintf(buf_ + n_, 7, "\\u%04x", c);
      } else {
        buf_[n_++] = c;
      }
    }
    Raw("\"");
  }
  void Field(const char* name, const char* value, bool first = false) {
    if (!first) Raw(",");
    Str(name);
    Raw(":");
    Str(value);
  }
  void Field(const char* name, absl::string_view value) {
    Raw(",");
    Str(name);
    Raw(":");
    Str(value.data(), value.size());
  }
  const char* data() {
    buf_[n_ < kCap ? n_ : kCap] = '\0';
    return buf_;
  }
  size_t size() const { return n_; }

 private:
  static constexpr size_t kCap = 8190;
  char buf_[kCap + 2];
  size_t n_ = 0;
};

// UTC "2026-12-02T15:32:09.123Z" without gmtime (no locale or tz locks).
void FormatTime(char* out, size_t size) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  long long days = ts.tv_sec / 86400, rem = ts.tv_sec % 86400;
  // Howard Hinnant's civil_from_days.
  days += 719468;
  const long long era = days / 146097;
  const unsigned doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  const long long y = yoe + era * 400 + (m <= 2);
  std::snprintf(out, size, "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%03ldZ", y, m,
                d, rem / 3600, rem / 60 % 60, rem % 60, ts.tv_nsec / 1000000);
}

void Record(const char* op, const char* target, const char* access,
            const Decision& d, bool audit) {
  const Config& c = GetConfig();
  const char* verdict = audit ? "would_deny" : "deny";
  if (!c.audit_log.empty()) {
    Line line;
    char when[64], pid[24];
    FormatTime(when, sizeof(when));
    std::snprintf(pid, sizeof(pid), "%ld", sys(SYS_getpid));
    line.Raw("{");
    line.Field("time", when, true);
    line.Raw(",\"pid\":");
    line.Raw(pid);
    line.Field("exe", c.exe.c_str());
    line.Field("op", op);
    line.Field("target", target);
    line.Field("access", access);
    line.Field("verdict", verdict);
    line.Field("rule", d.rule);
    line.Field("message", absl::string_view(d.message));
    line.Field("layer", "shim");
    line.Raw("}\n");
    // One write on an O_APPEND descriptor: concurrent processes never
    // interleave inside a line.
    long fd = sys_openat(AT_FDCWD, c.audit_log.c_str(),
                         O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0) {
      sys(SYS_write, fd, line.data(), line.size());
      sys_close(fd);
    }
  }
  if (c.verbose) {
    char msg[4200];
    int n = std::snprintf(msg, sizeof(msg), "klaunch: %s%s\n",
                          audit ? "(audit, not refused) " : "",
                          d.message.c_str());
    if (n > 0) {
      sys(SYS_write, 2, msg,
          static_cast<size_t>(n) < sizeof(msg) ? n : sizeof(msg) - 1);
    }
  }
}

// Applies a decision: true when the call may go on.
bool Apply(const char* op, const char* target, const char* access,
           Decision d) {
  if (d.verdict == Verdict::kAllow) return true;
  if (d.verdict == Verdict::kAsk) {
    d.message += " (asking needs klaunch --ask and a terminal)";
  }
  const bool audit = GetConfig().engine->audit();
  Record(op, target, access, d, audit);
  if (audit) return true;
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
NameSlot g_names[kSlots];
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

bool SockaddrToIp(const sockaddr* addr, unsigned len, IpAddress* ip,
                  uint16_t* port) {
  if (addr->sa_family == AF_INET && len >= sizeof(sockaddr_in)) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(addr);
    *ip = IpAddress::FromBytes(false,
                               reinterpret_cast<const uint8_t*>(&in->sin_addr));
    *port = ntohs(in->sin_port);
    return true;
  }
  if (addr->sa_family == AF_INET6 && len >= sizeof(sockaddr_in6)) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(addr);
    *ip = IpAddress::FromBytes(
        true, reinterpret_cast<const uint8_t*>(&in6->sin6_addr));
    *port = ntohs(in6->sin6_port);
    return true;
  }
  return false;
}

}  // namespace

bool AllowPath(const char* op, Access access, const char* path) {
  const Config& c = GetConfig();
  if (c.engine == nullptr) return NoEngine(op, path);
  if (path[0] != '/') return true;  // no filesystem object
  return Apply(op, path, AccessName(access).data(),
               c.engine->CheckPath(access, path));
}

bool AllowMissing(const char* op, Access access, int dirfd, const char* path) {
  const Config& c = GetConfig();
  if (c.engine == nullptr) return NoEngine(op, path);
  char where[kPathMax];
  ApproximatePath(dirfd, path, where, sizeof(where));
  Decision d = c.engine->CheckPath(Access::kStat, where);
  if (d.allowed()) return true;  // no deny rule: fail natively
  return Apply(op, where, AccessName(access).data(), std::move(d));
}

bool AllowCommand(const char* op, const char* named, const char* target,
                  char* const argv[]) {
  const Config& c = GetConfig();
  if (c.engine == nullptr) return NoEngine(op, named);
  absl::string_view args[256];
  size_t n = 0;
  std::vector<absl::string_view> many;
  if (argv != nullptr) {
    while (argv[n] != nullptr) ++n;
  }
  absl::string_view* view = args;
  if (n > 256) {
    many.resize(n);
    view = many.data();
  }
  for (size_t i = 0; i < n; ++i) view[i] = argv[i];
  return Apply(op, named, "exec",
               c.engine->CheckCommand(named, absl::MakeConstSpan(view, n),
                                      target));
}

bool AllowInet(const char* op, const sockaddr* addr, unsigned len) {
  const Config& c = GetConfig();
  IpAddress ip;
  uint16_t port = 0;
  if (addr == nullptr || len < sizeof(sa_family_t)) return true;
  const int family = addr->sa_family;
  if (family == AF_UNSPEC || family == AF_NETLINK) return true;
  if (!SockaddrToIp(addr, len, &ip, &port)) {
    char what[32];
    std::snprintf(what, sizeof(what), "address family %d", family);
    return Refuse(op, what, "the policy covers IPv4, IPv6 and Unix sockets only");
  }
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
    if (c.engine->CheckConnect(ip, port, names[i]).allowed()) return true;
  }
  Decision d = c.engine->CheckConnect(ip, port, found ? names[0] : "");
  char target[320];
  const std::string a = ip.ToString();
  std::snprintf(target, sizeof(target), ip.v6 ? "[%s]:%u" : "%s:%u", a.c_str(),
                port);
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
