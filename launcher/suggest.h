// `klaunch suggest AUDIT.jsonl [--base FILE]`: a policy learned from a dry
// run. It extends the base (the workspace-write preset without one) with the
// narrowest entries that admit every recorded refusal (and every write or
// command admitted at the terminal):
//
//   - paths: the file itself, or its directory once three or more refused
//     paths share it (never `/` nor a top-level directory such as /etc);
//     reads go to filesystem.read, writes to filesystem.write;
//   - commands: the exact command line when a program was refused once, its
//     first two words then ` *` when they agree, else `PROGRAM *`; a
//     program found in a writable root is named by its absolute path;
//   - connects: `host:port` as the program asked for it;
//   - abstract Unix sockets: unix_abstract = true.
//
// A write or a command the person admitted at the terminal (an "allow"
// record, rule "terminal") is added so the next run asks nothing: a write
// as a refusal would be, a command as its exact line by the executable's
// path (never collapsed into a glob; one holding a `*` is only listed).
// Refusals by `deny` entries are not undone, nor are program sections
// widened (for what they refused or what was admitted inside them): both
// are listed in comments. Everything else of the base is kept:
// workspace_writable, unlisted_writes, [system] and every
// [programs."NAME"] section; the result enforces, whatever the base's mode.
// Every added line says how many events it covers. The result is valid
// under `klaunch check`.

#ifndef KLAUNCH_LAUNCHER_SUGGEST_H_
#define KLAUNCH_LAUNCHER_SUGGEST_H_

#include <string>
#include <vector>

#include "core/audit.h"
#include "core/policy.h"

namespace klaunch {

std::string SuggestPolicy(const Policy& base,
                          const std::vector<AuditEvent>& events);

int RunSuggest(const std::vector<std::string>& args);

}  // namespace klaunch

#endif  // KLAUNCH_LAUNCHER_SUGGEST_H_
