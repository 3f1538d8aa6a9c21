#include "core/apply.h"

#include "core/audit.h"

namespace klaunch {

bool ApplyDecision(const JudgedCall& call, Decision* d, JudgingLayer& layer) {
  if (d->allowed()) {
    if (call.trace && layer.tracing() &&
        IsTracedCall(call.access, call.target)) {
      layer.Record(call, *d);
    }
    return true;
  }
  const bool audit = layer.audit();
  if (d->verdict == Verdict::kAsk && !audit) {
    std::string exe, chain;
    layer.Identify(&exe, &chain);
    AskQuestion q;
    // A hard link is asked about as a write: it makes a new name.
    q.write = call.access == "write" || call.access == "link";
    q.op = call.op;
    q.exe = exe;
    q.file = call.target;
    q.command = call.command;
    q.chain = chain;
    if (AskOrExplain(q, layer.asker(), d)) return true;
  }
  layer.Record(call, *d);
  return audit;
}

}  // namespace klaunch
