// The audit record: one JSON object per line, the same from every layer.
//
//   {"time":"2026-12-02T15:32:09.123Z","pid":42,"exe":"/usr/bin/cat",
//    "op":"open","target":"/etc/shadow","access":"read","verdict":"deny",
//    "rule":"filesystem.unlisted","message":"read of /etc/shadow refused: ...",
//    "layer":"shim"}
//
// An exec's record also has "command": the command line the rules judged.
//
// `verdict` is "deny" (enforced) or "would_deny" (audit mode); `layer` says
// which layer decided ("shim", "seccomp", "launcher"). A call the person at
// the terminal admitted (`"ask"`) has verdict "allow" and rule "terminal",
// written once per yes by klaunch's question server with the layer that
// asked. The launcher's first
// line of a run is no decision: op "start", verdict "info", the command in
// "command" and the layers in force in "message". This module
// formats and reads lines, and appends them for klaunch (one write on an
// O_APPEND file, so that concurrent processes never interleave).
//
// Only klaunch writes the log. The shim sends what it knows of a refusal
// as a record request (RecordRequest) to klaunch, through the seccomp
// supervisor (core/seccomp_tag.h, kRecordReport) or, without the seccomp
// layer, the record socket (launcher/record_server.h); klaunch fills in who
// sent it as the kernel names the sender.

#ifndef KLAUNCH_CORE_AUDIT_H_
#define KLAUNCH_CORE_AUDIT_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace klaunch {

struct AuditEvent {
  std::string time;  // UTC, ISO 8601 with milliseconds
  long pid = 0;
  std::string exe;
  std::string op;      // the call: "open", "execve", "connect", ...
  std::string target;  // the path, executable or host:port judged
  std::string access;  // "read", "write", "exec", "stat", "connect"
  std::string verdict;
  std::string rule;
  std::string message;
  std::string layer;
  std::string command;  // for an exec: the command line judged
  // The innermost program section in force ("curl"), as the layer that
  // judged knows it; empty outside every section.
  std::string program;
};

// The line, newline included.
std::string FormatAuditLine(const AuditEvent& event);

// Appends `line` to the log with one write on an O_APPEND descriptor, so
// that concurrent writers never interleave inside a line. 0, or the errno
// that kept the whole line out (ENOSPC for a short write). The shim writes
// with its own raw calls instead (shim/judge.cc).
int AppendAuditLine(const std::string& log, const std::string& line);

// A shim's record request: the fields only the shim knows (op, target,
// access, verdict, rule, message, command, program), each as a 4-byte
// little-endian length and its bytes, so that whatever bytes a name holds
// travel unchanged. klaunch sets the time, pid, exe and layer itself.
inline constexpr size_t kRecordRequestMax = 64 * 1024;
std::string RecordRequest(const AuditEvent& event);

// Reads a request RecordRequest wrote: exactly its eight fields, nothing
// after them, at most kRecordRequestMax bytes, and a verdict of "deny" or
// "would_deny" (a shim records nothing else). The other fields of the
// result are empty.
absl::StatusOr<AuditEvent> ParseRecordRequest(absl::string_view bytes);

// Reads a line FormatAuditLine wrote (or one with more fields); nullopt for
// anything else.
std::optional<AuditEvent> ParseAuditLine(absl::string_view line);

// The current UTC time as AuditEvent::time wants it. Takes no lock and
// allocates nothing.
void FormatAuditTime(char* out, size_t size);

}  // namespace klaunch

#endif  // KLAUNCH_CORE_AUDIT_H_
