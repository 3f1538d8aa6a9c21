// What the shim tells klaunch: the records of its refusals and the
// questions it puts to the person at the terminal. The shim never writes
// the audit log itself, nor holds a descriptor of it: only klaunch does.
//
// Each request goes through the seccomp supervisor when there is one (the
// cookie query call, core/seccomp_tag.h: the kernel names the sender, and
// nothing is left in the process afterwards), else through klaunch's
// socket for it (KLAUNCH_RECORD_SOCKET, KLAUNCH_ASK_SOCKET: under
// --no-seccomp, where SO_PEERCRED names the sender). Raw calls throughout.

#ifndef KLAUNCH_SHIM_CHANNEL_H_
#define KLAUNCH_SHIM_CHANNEL_H_

#include <string>

#include "absl/strings/string_view.h"

namespace klaunch::shim {

// Sends a record request (core/audit.h RecordRequest). 0, or -errno when
// klaunch did not take it (there is none to hear it: -ENOSYS).
long SendRecord(absl::string_view request);

// Sends a question request (core/ask.h) and waits for the answer: 'y',
// 'n', 'r' (refused without asking), or 0 when no klaunch answered.
char SendQuestion(const std::string& request);

}  // namespace klaunch::shim

#endif  // KLAUNCH_SHIM_CHANNEL_H_
