// The policy a run enforces, made from the one the user gave (a file or a
// preset, as loaded): the command line's amendments and the entries klaunch
// adds for itself. `klaunch -- CMD` enforces it and `klaunch explain` judges
// with it, so that both answer alike.
//
// This module owns what klaunch adds and where; it does not load the policy
// (core/loader.h), find the shim or make the run's state (launcher/).

#ifndef KLAUNCH_CORE_RUN_POLICY_H_
#define KLAUNCH_CORE_RUN_POLICY_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/engine.h"
#include "core/loader.h"
#include "core/policy.h"

namespace klaunch {

struct RunAdditions {
  // The policy file as named on the command line (relative to the load
  // context's base_dir); empty for a preset. Kept read-only.
  std::string policy_file;
  bool audit = false;  // --audit: mode = "audit"
  bool ask = false;    // --ask: commands.unlisted = "ask"
  // The shim and klaunch's own binary: klaunch.read_only, whatever the
  // roots say, and the shim readable wherever the program runs. Empty: none.
  std::string shim;
  std::string binary;
  // klaunch's own state (its state directory, the log, its /proc entry,
  // the cgroup files): denied where the policy would otherwise admit it. A
  // pattern stands for every path it names below its literal root.
  std::vector<std::string> own;
};

// Amends `policy` as `add` says, in this order: the command line's
// amendments, the policy file kept read-only, then klaunch's own entries
// (each judged against the policy as it stood before them). Fails only where
// the policy cannot be compiled.
absl::Status MakeRunPolicy(Policy* policy, const RunAdditions& add,
                           const LoadContext& ctx);

// True when `policy` may let the program write somewhere below `dir`: a
// write root at, above or below it, or a write it may be asked about
// (`as_written` is `policy`'s engine). Program sections need no look: their
// write roots lie within the policy's, and they ask only where it does.
bool MayWriteBelow(const Policy& policy, const Engine& as_written,
                   const std::string& dir);

}  // namespace klaunch

#endif  // KLAUNCH_CORE_RUN_POLICY_H_
