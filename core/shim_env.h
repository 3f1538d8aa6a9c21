// The contract between klaunch and the shim that travels in the environment:
// the KLAUNCH_* variables klaunch puts in CMD's environment
// (launcher/run_command.cc), the shim captures before main (shim/state.cc)
// and hands on to every child it starts (shim/exec.cc). The numbers the
// seccomp filter and the shim agree on are core/seccomp_tag.h's.
//
// None of it is secret: the program can read and rewrite its environment.
// The shim captures the variables before the program's own code runs, the
// supervisor never believes them (it keeps each process's sections itself),
// and they name only paths and numbers the program may know.
//
// This header owns the names and their order; what each value means is the
// reader's and writer's (the comments below say where).

#ifndef KLAUNCH_CORE_SHIM_ENV_H_
#define KLAUNCH_CORE_SHIM_ENV_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace klaunch {

enum class ShimVar : int {
  // The effective policy (TOML, absolute throughout) to enforce; required.
  kPolicyFile,
  // Where refusals are sent without the seccomp layer
  // (supervisor/shim_records.h); with it they go through the supervisor
  // (shim/channel.h).
  kRecordSocket,
  // The shim's own path, put first in each child's LD_PRELOAD.
  kShim,
  // "1": one line on stderr per refusal.
  kVerbose,
  // The socket questions go to without the seccomp layer, set when klaunch
  // can ask the user (supervisor/ask_server.h).
  kAskSocket,
  // The program sections entered ("0,2", core/programs.h).
  kPrograms,
  // The Landlock ABI the run uses; unset or 0: none.
  kLandlock,
  // The run's cgroup (supervisor/chain_cgroups.h): the chain of the
  // process's cgroup below it is added to kPrograms's.
  kCgroup,
  // The sections whose Landlock rulesets the process holds; the shim
  // stacks those it lacks (shim/layers.h).
  kLandlocked,
  // "1": the writes, execs and connects allowed are recorded too (--trace).
  kTrace,
  kCount,
};

inline constexpr int kShimVarCount = static_cast<int>(ShimVar::kCount);

// Indexed by ShimVar.
inline constexpr const char* kShimVarNames[kShimVarCount] = {
    "KLAUNCH_POLICY_FILE", "KLAUNCH_RECORD_SOCKET", "KLAUNCH_SHIM",
    "KLAUNCH_VERBOSE",     "KLAUNCH_ASK_SOCKET",    "KLAUNCH_PROGRAMS",
    "KLAUNCH_LANDLOCK",    "KLAUNCH_CGROUP",        "KLAUNCH_LANDLOCKED",
    "KLAUNCH_TRACE",
};

// Every variable of the contract starts so; the shim drops every entry so
// named from a child's environment before it adds its own.
inline constexpr std::string_view kShimVarPrefix = "KLAUNCH_";

static_assert(
    [] {
      for (const char* name : kShimVarNames) {
        if (name == nullptr ||
            !std::string_view(name).starts_with(kShimVarPrefix)) {
          return false;
        }
      }
      return true;
    }(),
    "each ShimVar has a name, and it starts with KLAUNCH_");

constexpr const char* ShimVarName(ShimVar v) {
  return kShimVarNames[static_cast<int>(v)];
}

// "NAME=value", an environment entry.
inline std::string ShimVarEntry(ShimVar v, std::string_view value) {
  std::string out = ShimVarName(v);
  out += '=';
  out += value;
  return out;
}

}  // namespace klaunch

#endif  // KLAUNCH_CORE_SHIM_ENV_H_
