#include "supervisor/shim_records.h"

#include <cerrno>

#include "core/audit.h"
#include "core/policy.h"

namespace klaunch {
namespace {

// True when `name` is empty or names a program section of `policy`.
bool SectionNamed(const Policy& policy, absl::string_view name) {
  if (name.empty()) return true;
  for (const ProgramSection& s : policy.programs) {
    if (s.name == name) return true;
  }
  return false;
}

}  // namespace

int WriteShimRecord(const ShimRecordSettings& settings, pid_t pid,
                    const std::string& exe, absl::string_view request,
                    AuditEvent* written) {
  absl::StatusOr<AuditEvent> e = ParseRecordRequest(request);
  if (!e.ok()) return EINVAL;
  char when[64];
  FormatAuditTime(when, sizeof(when));
  e->time = when;
  e->pid = pid;
  e->exe = exe;
  e->layer = "shim";
  const bool allowed = e->verdict == "allow";
  if (allowed && !settings.trace) return EINVAL;
  if (const Engine* engine = settings.engine; engine != nullptr && !allowed) {
    e->verdict = engine->audit() ? "would_deny" : "deny";
  }
  if (const Engine* engine = settings.engine) {
    if (settings.chain_known || !SectionNamed(engine->policy(), e->program)) {
      e->program = std::string(engine->program());
    }
  }
  if (written != nullptr) *written = *e;
  if (settings.log.empty()) return 0;
  return AppendAuditEvent(settings.log, *e);
}

}  // namespace klaunch
