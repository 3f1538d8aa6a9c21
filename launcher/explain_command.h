// `klaunch explain [--policy FILE | --preset NAME] (--read PATH | --write
// PATH | --exec 'CMD LINE' | --connect HOST:PORT)`: prints the decision the
// policy makes for one target and the rule that made it. Runs nothing.
//
// Exit 0 when admitted, 1 when refused (or asked), 2 on a usage or policy
// error.

#ifndef KLAUNCH_LAUNCHER_EXPLAIN_COMMAND_H_
#define KLAUNCH_LAUNCHER_EXPLAIN_COMMAND_H_

#include <string>
#include <vector>

namespace klaunch {

int RunExplain(const std::vector<std::string>& args);

}  // namespace klaunch

#endif  // KLAUNCH_LAUNCHER_EXPLAIN_COMMAND_H_
