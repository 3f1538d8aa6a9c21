#include "launcher/journal.h"

#include <dlfcn.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>

#include <atomic>
#include <vector>

#include "absl/strings/str_cat.h"

namespace klaunch {
namespace {

std::atomic<decltype(&sd_journal_sendv)> g_sendv{nullptr};

int Priority(const std::string& verdict) {
  if (verdict == "deny") return 4;        // LOG_WARNING
  if (verdict == "would_deny") return 5;  // LOG_NOTICE
  return 6;                               // LOG_INFO
}

}  // namespace

std::string OpenJournal() {
  void* lib = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    return absl::StrCat("cannot open libsystemd: ", dlerror());
  }
  auto sendv = reinterpret_cast<decltype(&sd_journal_sendv)>(
      dlsym(lib, "sd_journal_sendv"));
  if (sendv == nullptr) return "libsystemd has no sd_journal_sendv";
  g_sendv.store(sendv);
  return "";
}

void SendToJournal(const AuditEvent& e) {
  const auto sendv = g_sendv.load();
  if (sendv == nullptr) return;
  std::vector<std::string> fields = {
      absl::StrCat("MESSAGE=klaunch: ",
                   e.message.empty()
                       ? absl::StrCat(e.verdict, " ", e.op, " ", e.target)
                       : e.message),
      absl::StrCat("PRIORITY=", Priority(e.verdict)),
      "SYSLOG_IDENTIFIER=klaunch",
  };
  auto add = [&](const char* key, const std::string& value) {
    if (!value.empty()) fields.push_back(absl::StrCat(key, "=", value));
  };
  auto add_number = [&](const char* key, long value) {
    if (value >= 0) fields.push_back(absl::StrCat(key, "=", value));
  };
  add("KLAUNCH_TIME", e.time);
  add("KLAUNCH_RUN", e.run);
  add_number("KLAUNCH_PID", e.pid);
  add("KLAUNCH_EXE", e.exe);
  add("KLAUNCH_OP", e.op);
  add("KLAUNCH_TARGET", e.target);
  add("KLAUNCH_ACCESS", e.access);
  add("KLAUNCH_VERDICT", e.verdict);
  add("KLAUNCH_RULE", e.rule);
  add("KLAUNCH_LAYER", e.layer);
  add("KLAUNCH_COMMAND", e.command);
  add("KLAUNCH_PROGRAM", e.program);
  add("KLAUNCH_CWD", e.cwd);
  add("KLAUNCH_POLICY", e.policy);
  add("KLAUNCH_POLICY_SHA256", e.policy_sha256);
  add("KLAUNCH_MODE", e.mode);
  // One field per argument, in order (the journal keeps repeats).
  for (const std::string& arg : e.argv) {
    fields.push_back(absl::StrCat("KLAUNCH_ARGV=", arg));
  }
  add_number("KLAUNCH_EXIT_CODE", e.exit_code);
  add_number("KLAUNCH_SIGNAL", e.signal);
  add_number("KLAUNCH_DURATION_MS", e.duration_ms);
  add_number("KLAUNCH_REFUSALS", e.refusals);
  std::vector<iovec> iov;
  iov.reserve(fields.size());
  for (std::string& f : fields) iov.push_back({f.data(), f.size()});
  // A journal that is not there loses the copy, never the file's record.
  sendv(iov.data(), static_cast<int>(iov.size()));
}

}  // namespace klaunch
