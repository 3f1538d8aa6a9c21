// The shim's records of its refusals, written to the audit log by klaunch
// (only klaunch writes the log): the request the shim sent (core/audit.h)
// completed with who sent it, as the kernel names the sender, whether it
// came through the seccomp supervisor or the record socket.

#ifndef KLAUNCH_SUPERVISOR_SHIM_RECORDS_H_
#define KLAUNCH_SUPERVISOR_SHIM_RECORDS_H_

#include <sys/types.h>

#include <string>

#include "absl/strings/string_view.h"
#include "core/audit.h"
#include "core/engine.h"

namespace klaunch {

struct ShimRecordSettings {
  AuditLog log;  // the audit log; empty: nothing is written
  // The engine the sender runs under: the verdict follows its mode, and
  // the record names its innermost section when `chain_known` (the
  // supervisor keeps a cgroup per chain); otherwise a section the policy
  // names is taken from the shim. Null (a test without klaunch): the
  // shim's verdict and section are taken as sent.
  const Engine* engine = nullptr;
  bool chain_known = false;
  // --trace: a shim's records of what it allowed are written; otherwise
  // they are refused (EINVAL).
  bool trace = false;
};

// Completes the request `request` from process `pid`, whose executable is
// `exe`, and appends it. 0, or an errno: EINVAL for a malformed request,
// else why the line could not be written.
// `written`, when given, gets the record as written.
int WriteShimRecord(const ShimRecordSettings& settings, pid_t pid,
                    const std::string& exe, absl::string_view request,
                    AuditEvent* written = nullptr);

}  // namespace klaunch

#endif  // KLAUNCH_SUPERVISOR_SHIM_RECORDS_H_
