// `klaunch check FILE`: validates a policy and prints its effective form.
//
// Exit 0 with the effective TOML on stdout, or 2 with one error line on
// stderr naming file:line:column and the key. Runs nothing.

#ifndef KLAUNCH_LAUNCHER_CHECK_COMMAND_H_
#define KLAUNCH_LAUNCHER_CHECK_COMMAND_H_

namespace klaunch {

int RunCheck(int argc, char** argv);

}  // namespace klaunch

#endif  // KLAUNCH_LAUNCHER_CHECK_COMMAND_H_
