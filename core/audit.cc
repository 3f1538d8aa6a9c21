#include "core/audit.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/json.h"

namespace klaunch {
namespace {

// `"name":value`, and where the value is not UTF-8 (so JSON cannot hold it
// as it is) `"name_base64":` its exact bytes too.
void AppendField(std::string* out, absl::string_view name,
                 absl::string_view value) {
  absl::StrAppend(out, ",\"", name, "\":");
  AppendJsonString(out, value);
  if (!IsUtf8(value)) {
    absl::StrAppend(out, ",\"", name, kBytesSuffix, "\":\"",
                    absl::Base64Escape(value), "\"");
  }
}

}  // namespace

std::string FormatAuditLine(const AuditEvent& e) {
  std::string out = "{\"time\":";
  AppendJsonString(&out, e.time);
  if (!e.run.empty()) AppendField(&out, "run", e.run);
  absl::StrAppend(&out, ",\"pid\":", e.pid);
  const std::pair<const char*, const std::string*> fields[] = {
      {"exe", &e.exe},         {"op", &e.op},           {"target", &e.target},
      {"access", &e.access},   {"verdict", &e.verdict}, {"rule", &e.rule},
      {"message", &e.message}, {"layer", &e.layer}};
  for (const auto& [name, value] : fields) AppendField(&out, name, *value);
  const std::pair<const char*, const std::string*> optional[] = {
      {"command", &e.command},
      {"program", &e.program},
      {"cwd", &e.cwd},
      {"policy", &e.policy},
      {"policy_sha256", &e.policy_sha256},
      {"mode", &e.mode}};
  for (const auto& [name, value] : optional) {
    if (!value->empty()) AppendField(&out, name, *value);
  }
  if (e.op == "start") {
    out += ",\"argv\":[";
    bool utf8 = true;
    for (size_t i = 0; i < e.argv.size(); ++i) {
      if (i > 0) out += ",";
      AppendJsonString(&out, e.argv[i]);
      utf8 = utf8 && IsUtf8(e.argv[i]);
    }
    out += "]";
    if (!utf8) {
      absl::StrAppend(&out, ",\"argv", kBytesSuffix, "\":[");
      for (size_t i = 0; i < e.argv.size(); ++i) {
        absl::StrAppend(&out, i > 0 ? "," : "", "\"",
                        absl::Base64Escape(e.argv[i]), "\"");
      }
      out += "]";
    }
  }
  const std::pair<const char*, long> numbers[] = {
      {"exit_code", e.exit_code},
      {"signal", e.signal},
      {"duration_ms", e.duration_ms},
      {"refusals", e.refusals}};
  for (const auto& [name, value] : numbers) {
    if (value >= 0) absl::StrAppend(&out, ",\"", name, "\":", value);
  }
  out += "}\n";
  return out;
}

namespace {

// The request's fields, in order.
std::string AuditEvent::*const kRequestFields[] = {
    &AuditEvent::op,      &AuditEvent::target, &AuditEvent::access,
    &AuditEvent::verdict, &AuditEvent::rule,   &AuditEvent::message,
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
  if (e.verdict != "deny" && e.verdict != "would_deny" &&
      e.verdict != "allow") {
    return absl::InvalidArgumentError(
        "record request: a shim records only refusals and traced calls");
  }
  return e;
}

bool IsTracedCall(absl::string_view access, absl::string_view target) {
  if (access == "exec" || access == "connect" || access == "link") {
    return true;
  }
  if (access != "write") return false;
  for (absl::string_view quiet :
       {"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"}) {
    if (target == quiet) return false;
  }
  return !absl::StartsWith(target, "/dev/pts/");
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

int AppendAuditEvent(const AuditLog& log, AuditEvent event) {
  event.run = log.run;
  const int err = AppendAuditLine(log.path, FormatAuditLine(event));
  if (log.also != nullptr) log.also(event);
  return err;
}

int AppendAuditLine(const std::string& log, const std::string& line) {
  // O_NONBLOCK: never waits for a lease (klaunch holds the log open for
  // the whole run, which keeps any lease off it).
  const int fd =
      open(log.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK,
           0600);
  if (fd < 0) return errno;
  const ssize_t n = write(fd, line.data(), line.size());
  const int err = n < 0 ? errno : ENOSPC;
  close(fd);
  return n == static_cast<ssize_t>(line.size()) ? 0 : err;
}

}  // namespace klaunch
