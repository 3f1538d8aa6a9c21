// The supervisor's judgement: the engine's decision applied as the shim
// applies it (shim/judge.cc), recorded with layer "seccomp".

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "core/apply.h"
#include "core/ask.h"
#include "core/audit.h"
#include "core/programs.h"
#include "supervisor/ask_server.h"
#include "supervisor/supervise.h"

namespace klaunch::supervise {

void Call::Send(Answer answer) {
  Respond(listener_, req_.id, std::move(answer));
}

bool Call::Live() const {
  uint64_t id = req_.id;
  return ioctl(listener_, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

void ShimEchoes::Note(pid_t tid, std::string target, std::string access) {
  std::lock_guard<std::mutex> lock(mu_);
  Records& r = last_[tid];
  if (r.size() < 8) r.emplace_back(std::move(target), std::move(access));
}

ShimEchoes::Records ShimEchoes::Take(pid_t tid) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = last_.find(tid);
  if (it == last_.end()) return {};
  Records out = std::move(it->second);
  last_.erase(it);
  return out;
}

void Call::Record(const char* op, const std::string& what, const char* access,
                  const Decision& d, const std::string& command) {
  const bool audit = engine_->audit();
  const bool allowed = d.allowed();
  if (audit || allowed) {
    for (auto it = echoes_.begin(); it != echoes_.end(); ++it) {
      if (it->first == what && it->second == access) {
        echoes_.erase(it);  // the shim recorded this very call already
        return;
      }
    }
  }
  if (!settings_.log.empty()) {
    char when[64];
    FormatAuditTime(when, sizeof(when));
    const AuditEvent event{when,
                           target_.tgid(),
                           target_.exe(),
                           op,
                           what,
                           access,
                           allowed ? "allow"
                           : audit ? "would_deny"
                                   : "deny",
                           std::string(d.rule),
                           allowed ? "" : d.message,
                           "seccomp",
                           command,
                           std::string(engine_->program())};
    if (int e = AppendAuditEvent(settings_.log, event); e != 0) {
      CountLostRecord(settings_, e);
    }
  }
  if (settings_.verbose && !allowed) {
    const std::string msg = absl::StrCat(
        "klaunch: ", audit ? "(audit, not refused) " : "", d.message, "\n");
    ssize_t ignored = write(2, msg.data(), msg.size());
    (void)ignored;
  }
}

namespace {

// The supervisor's questions go to the server directly. A command the shim
// had approved in this process (or its parent, for posix_spawn's child)
// before libc made the exec is not asked again.
class ServerAsker final : public Asker {
 public:
  ServerAsker(AskServer* server, Target& target)
      : server_(server), target_(target) {}
  AskAnswer Put(const AskQuestion& q) override {
    const std::string file(q.file), command(q.command);
    const bool yes =
        (!q.write && (server_->TakeApproval(target_.tgid(), file, command) ||
                      server_->TakeApproval(target_.ppid(), file, command))) ||
        server_->Ask(target_.tgid(), q, "seccomp");
    return yes ? AskAnswer::kYes : AskAnswer::kNo;
  }

 private:
  AskServer* server_;
  Target& target_;
};

}  // namespace

bool Call::Judge(const char* op, const std::string& what, const char* access,
                 Decision d, const std::string& command, bool trace) {
  // The supervisor as a layer that judges (core/apply.h): its records go to
  // the log with layer "seccomp", its questions to the server directly.
  class Layer final : public JudgingLayer {
   public:
    Layer(Call& call, const char* op, const std::string& what,
          const char* access, const std::string& command)
        : call_(call),
          asker_(call.settings_.asker, call.target_),
          op_(op),
          what_(what),
          access_(access),
          command_(command) {}
    bool audit() const override { return call_.engine_->audit(); }
    bool tracing() const override { return call_.settings_.trace; }
    Asker* asker() override {
      return call_.settings_.asker != nullptr ? &asker_ : nullptr;
    }
    void Identify(std::string* exe, std::string* chain) override {
      *exe = call_.target_.exe();
      *chain = ChainText(call_.engine_->chain());
    }
    void Record(const JudgedCall&, const Decision& d) override {
      call_.Record(op_, what_, access_, d, command_);
    }

   private:
    Call& call_;
    ServerAsker asker_;
    const char* op_;
    const std::string& what_;
    const char* access_;
    const std::string& command_;
  } layer(*this, op, what, access, command);
  return ApplyDecision({op, what, access, command, trace}, &d, layer);
}

bool Call::JudgePath(const char* op, Access access, const std::string& path,
                     const char* label) {
  if (path.empty() || path[0] != '/') return true;  // no filesystem object
  for (pid_t p : settings_.protected_pids) {
    const std::string proc = absl::StrCat("/proc/", p);
    if (path.compare(0, proc.size(), proc) == 0 &&
        (path.size() == proc.size() || path[proc.size()] == '/')) {
      return Refuse(op, path, "it is klaunch's own process");
    }
  }
  const std::string view = target_.SelfView(path);
  return Judge(op, view, label != nullptr ? label : AccessName(access).data(),
               engine_->CheckPath(access, view));
}

bool Call::JudgeMissing(const char* op, Access access, int dirfd,
                        const std::string& path) {
  const std::string where = ApproximatePath(target_, dirfd, path);
  if (where.empty()) return true;
  Decision d = engine_->CheckPath(Access::kStat, where);
  if (d.allowed()) return true;  // no deny rule: fail natively
  return Judge(op, where, AccessName(access).data(), std::move(d));
}

bool Call::Refuse(const char* op, const std::string& what,
                  const std::string& why) {
  Decision d{Verdict::kDeny, "seccomp",
             absl::StrCat(op, " of ", what, " refused: ", why)};
  Record(op, what, "", d, "");
  return engine_->audit();
}

}  // namespace klaunch::supervise
