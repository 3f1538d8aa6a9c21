// --journal: each audit record also goes to the system journal, through
// libsystemd's sd_journal_sendv, with its fields as journal fields
// (KLAUNCH_RUN, KLAUNCH_VERDICT, KLAUNCH_TARGET, ...; docs/audit-log.md),
// so that a fleet's existing log pipeline takes them. A field that holds
// bytes that are not text goes as they are (the journal's binary-safe
// form), so nothing is lost there either.
//
// libsystemd is opened only when --journal is given: every other run
// starts without it and the libraries it pulls in.

#ifndef KLAUNCH_LAUNCHER_JOURNAL_H_
#define KLAUNCH_LAUNCHER_JOURNAL_H_

#include <string>

#include "core/audit.h"

namespace klaunch {

// Opens libsystemd. "" when records can go to the journal, else why not.
std::string OpenJournal();

// Sends `event` (OpenJournal succeeded first). For AuditLog::also.
void SendToJournal(const AuditEvent& event);

}  // namespace klaunch

#endif  // KLAUNCH_LAUNCHER_JOURNAL_H_
