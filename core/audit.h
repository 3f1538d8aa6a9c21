// The audit record: one JSON object per line, the same from every layer.
//
//   {"time":"2026-12-02T15:32:09.123Z","run":"20261202T153209Z-41-aB3dE9",
//    "pid":42,"exe":"/usr/bin/cat","op":"open","target":"/etc/shadow",
//    "access":"read","verdict":"deny","rule":"filesystem.unlisted",
//    "message":"read of /etc/shadow refused: ...","layer":"shim"}
//
// An exec's record also has "command": the command line the rules judged.
//
// `verdict` is "deny" (enforced) or "would_deny" (audit mode); `layer` says
// which layer decided ("shim", "seccomp", "launcher"). A call the person at
// the terminal admitted (`"ask"`) has verdict "allow" and rule "terminal",
// written once per yes by klaunch's question server with the layer that
// asked. A run begins with a record of op "start" (verdict "info": argv,
// cwd, the policy file and its SHA-256, the mode, the layers in "message")
// and ends with one of op "end" (exit code or signal, duration, refusals).
// Every field is documented in docs/audit-log.md and checked against
// docs/audit-record.schema.json. Every line is valid JSON (RFC 8259) for
// any bytes a name holds, and loses none of them (kBytesSuffix).
//
// This module formats lines and appends them for klaunch (one write on an
// O_APPEND file, so that concurrent processes never interleave); reading
// them is core/audit_read.h's.
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
#include <vector>

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
  // The run the record belongs to (klaunch's run id, its run directory's
  // name), so that runs appended to one log can be told apart. Every record
  // klaunch writes has it.
  std::string run;
  // The start record's (op "start"): CMD's arguments as given, klaunch's
  // working directory, the policy file as named ("" for the default policy)
  // and the SHA-256 of its bytes, "enforce" or "audit".
  std::vector<std::string> argv;
  std::string cwd;
  std::string policy;
  std::string policy_sha256;
  std::string mode;
  // The end record's (op "end"): CMD's exit code, or the signal that ended
  // it; the run's length; how many calls were refused (would have been, in
  // audit mode). -1 where not known.
  int exit_code = -1;
  int signal = -1;
  long duration_ms = -1;
  long refusals = -1;
};

// A string field that is not UTF-8 is written as JSON can hold it (each
// byte of no well-formed sequence as U+FFFD, core/json.h) and its exact
// bytes again, in base64, under the same name with this suffix
// ("target" and "target_base64"); for "argv", "argv_base64" is the whole
// array in base64. A reader that wants the bytes takes the second field
// where it is there.
inline constexpr char kBytesSuffix[] = "_base64";

// The line, newline included.
std::string FormatAuditLine(const AuditEvent& event);

// Where klaunch writes a run's records: the file, and the run id every
// record gets.
struct AuditLog {
  std::string path;
  std::string run;
  // Where each record also goes once written (klaunch's --journal: the
  // system journal, launcher/journal.h); null: the file alone. The shim
  // never sets it.
  void (*also)(const AuditEvent& event) = nullptr;
  bool empty() const { return path.empty(); }
};

// Appends `event`, given the log's run id, as AppendAuditLine does.
int AppendAuditEvent(const AuditLog& log, AuditEvent event);

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
// after them, at most kRecordRequestMax bytes, and a verdict of "deny",
// "would_deny" or, for a call --trace records, "allow". The other fields of the
// result are empty.
absl::StatusOr<AuditEvent> ParseRecordRequest(absl::string_view bytes);

// What --trace records of the calls a layer allows: writes (creations,
// deletions, renames, links and every other change), execs and connects.
// Reads and looks are left out: they are most calls, and change nothing;
// so are writes to the terminal and to the devices that hold nothing
// (/dev/null and its kind), which every shell makes.
bool IsTracedCall(absl::string_view access, absl::string_view target);

// The current UTC time as AuditEvent::time wants it. Takes no lock and
// allocates nothing.
void FormatAuditTime(char* out, size_t size);

}  // namespace klaunch

#endif  // KLAUNCH_CORE_AUDIT_H_
