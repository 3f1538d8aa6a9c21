// Which file an address of a process is executable code of: the one
// question the supervisor asks of /proc/PID/maps (is the cookie query the
// shim's own call?).
//
// This module owns reading the answer, by PROCMAP_QUERY where the kernel has
// it (6.11) and from the text of maps where it does not. Whose file counts
// as the shim is supervisor.cc's to say.

#ifndef KLAUNCH_SUPERVISOR_PROC_MAPS_H_
#define KLAUNCH_SUPERVISOR_PROC_MAPS_H_

#include <sys/types.h>

#include <cstdint>

#include "absl/strings/string_view.h"

namespace klaunch {

// The device and inode of the file whose executable mapping holds `ip`, in
// the process whose /proc/PID/maps `maps` is open on: true and both set;
// false when no executable mapping holds it or the process is gone.
bool ExecutableMappingAt(int maps, uint64_t ip, dev_t* dev, uint64_t* ino);

// The same answer from the text of a maps file (lines of "start-end perms
// offset major:minor inode path").
bool ExecutableMappingInText(absl::string_view text, uint64_t ip, dev_t* dev,
                             uint64_t* ino);

}  // namespace klaunch

#endif  // KLAUNCH_SUPERVISOR_PROC_MAPS_H_
