// `klaunch doctor [--json]`: what this machine and user give klaunch, and
// which of its layers (shim, seccomp, Landlock) a run will use here.
//
// Every kernel feature is probed for real, in a forked child when the probe
// changes the process (no_new_privs, a seccomp listener, loading the shim),
// so klaunch itself is left as it was. This module reports; it decides
// nothing for a run (run_command.h does, and a policy can still turn a
// layer off) and reads no policy.
//
// Exit 0 when every layer will be used, 1 when one will not, 125 on a bad
// argument.

#ifndef KLAUNCH_LAUNCHER_DOCTOR_COMMAND_H_
#define KLAUNCH_LAUNCHER_DOCTOR_COMMAND_H_

#include <string>
#include <vector>

namespace klaunch {

int RunDoctor(const std::vector<std::string>& args);

}  // namespace klaunch

#endif  // KLAUNCH_LAUNCHER_DOCTOR_COMMAND_H_
