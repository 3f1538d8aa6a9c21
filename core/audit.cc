#include "core/audit.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace klaunch {
namespace {

void AppendString(std::string* out, absl::string_view s) {
  out->push_back('"');
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(c));
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out->append(buf);
    } else {
      out->push_back(static_cast<char>(c));
    }
  }
  out->push_back('"');
}

// A reader for the flat objects FormatAuditLine writes: string and integer
// values only.
class Reader {
 public:
  explicit Reader(absl::string_view s) : s_(s) {}
  void Space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
  }
  bool Eat(char c) {
    Space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool String(std::string* out) {
    if (!Eat('"')) return false;
    while (i_ < s_.size()) {
      char c = s_[i_++];
      if (c == '"') return true;
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (i_ >= s_.size()) return false;
      char e = s_[i_++];
      switch (e) {
        case 'n':
          out->push_back('\n');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          if (i_ + 4 > s_.size()) return false;
          unsigned v = 0;
          for (int k = 0; k < 4; ++k) {
            char h = s_[i_++];
            v <<= 4;
            if (h >= '0' && h <= '9') v |= h - '0';
            else if (h >= 'a' && h <= 'f') v |= h - 'a' + 10;
            else if (h >= 'A' && h <= 'F') v |= h - 'A' + 10;
            else return false;
          }
          if (v > 0x7f) return false;  // only what the writer escapes
          out->push_back(static_cast<char>(v));
          break;
        }
        default:
          out->push_back(e);
      }
    }
    return false;
  }
  bool Integer(long* out) {
    Space();
    bool neg = Eat('-');
    size_t start = i_;
    long v = 0;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
      v = v * 10 + (s_[i_++] - '0');
    }
    *out = neg ? -v : v;
    return i_ > start;
  }
  bool AtEnd() {
    Space();
    while (i_ < s_.size() && (s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
    return i_ == s_.size();
  }

 private:
  absl::string_view s_;
  size_t i_ = 0;
};

}  // namespace

std::string FormatAuditLine(const AuditEvent& e) {
  std::string out = "{\"time\":";
  AppendString(&out, e.time);
  absl::StrAppend(&out, ",\"pid\":", e.pid);
  const std::pair<const char*, const std::string*> fields[] = {
      {"exe", &e.exe},         {"op", &e.op},     {"target", &e.target},
      {"access", &e.access},   {"verdict", &e.verdict},
      {"rule", &e.rule},       {"message", &e.message},
      {"layer", &e.layer}};
  for (const auto& [name, value] : fields) {
    absl::StrAppend(&out, ",\"", name, "\":");
    AppendString(&out, *value);
  }
  if (!e.command.empty()) {
    out += ",\"command\":";
    AppendString(&out, e.command);
  }
  if (!e.program.empty()) {
    out += ",\"program\":";
    AppendString(&out, e.program);
  }
  out += "}\n";
  return out;
}

std::optional<AuditEvent> ParseAuditLine(absl::string_view line) {
  Reader r(line);
  AuditEvent e;
  if (!r.Eat('{')) return std::nullopt;
  bool first = true;
  while (!r.Eat('}')) {
    if (!first && !r.Eat(',')) return std::nullopt;
    first = false;
    std::string key;
    if (!r.String(&key) || !r.Eat(':')) return std::nullopt;
    if (key == "pid") {
      if (!r.Integer(&e.pid)) return std::nullopt;
      continue;
    }
    std::string value;
    if (!r.String(&value)) return std::nullopt;
    if (key == "time") e.time = value;
    else if (key == "exe") e.exe = value;
    else if (key == "op") e.op = value;
    else if (key == "target") e.target = value;
    else if (key == "access") e.access = value;
    else if (key == "verdict") e.verdict = value;
    else if (key == "rule") e.rule = value;
    else if (key == "message") e.message = value;
    else if (key == "layer") e.layer = value;
    else if (key == "command") e.command = value;
    else if (key == "program") e.program = value;
  }
  if (!r.AtEnd()) return std::nullopt;
  return e;
}

namespace {

// The request's fields, in order.
std::string AuditEvent::*const kRequestFields[] = {
    &AuditEvent::op,      &AuditEvent::target,  &AuditEvent::access,
    &AuditEvent::verdict, &AuditEvent::rule,    &AuditEvent::message,
    &AuditEvent::command, &AuditEvent::program};

}  // namespace

std::string RecordRequest(const AuditEvent& e) {
  std::string out;
  for (std::string AuditEvent::*field : kRequestFields) {
    const std::string& v = e.*field;
    const uint32_t n = static_cast<uint32_t>(v.size());
    const char len[4] = {static_cast<char>(n & 0xff),
                         static_cast<char>((n >> 8) & 0xff),
                         static_cast<char>((n >> 16) & 0xff),
                         static_cast<char>((n >> 24) & 0xff)};
    out.append(len, 4);
    out.append(v);
  }
  return out;
}

absl::StatusOr<AuditEvent> ParseRecordRequest(absl::string_view bytes) {
  if (bytes.size() > kRecordRequestMax) {
    return absl::InvalidArgumentError("record request: longer than the limit");
  }
  AuditEvent e;
  for (std::string AuditEvent::*field : kRequestFields) {
    if (bytes.size() < 4) {
      return absl::InvalidArgumentError("record request: a field is missing");
    }
    const auto b = [&](int i) {
      return static_cast<uint32_t>(static_cast<unsigned char>(bytes[i]));
    };
    const uint32_t n = b(0) | b(1) << 8 | b(2) << 16 | b(3) << 24;
    bytes.remove_prefix(4);
    if (n > bytes.size()) {
      return absl::InvalidArgumentError(
          "record request: a field is longer than what follows it");
    }
    e.*field = std::string(bytes.substr(0, n));
    bytes.remove_prefix(n);
  }
  if (!bytes.empty()) {
    return absl::InvalidArgumentError(
        "record request: bytes after the last field");
  }
  if (e.verdict != "deny" && e.verdict != "would_deny") {
    return absl::InvalidArgumentError(
        "record request: a shim records only refusals");
  }
  return e;
}

void FormatAuditTime(char* out, size_t size) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  long long days = ts.tv_sec / 86400, rem = ts.tv_sec % 86400;
  // Howard Hinnant's civil_from_days: no gmtime, so no tz lock.
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

int AppendAuditLine(const std::string& log, const std::string& line) {
  // O_NONBLOCK: never waits for a lease (klaunch holds the log open for
  // the whole run, which keeps any lease off it).
  const int fd = open(log.c_str(),
                      O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK,
                      0600);
  if (fd < 0) return errno;
  const ssize_t n = write(fd, line.data(), line.size());
  const int err = n < 0 ? errno : ENOSPC;
  close(fd);
  return n == static_cast<ssize_t>(line.size()) ? 0 : err;
}

}  // namespace klaunch
