// What every seccomp handler shares: the notification being answered, the
// answer, and the judgement (engine, audit record with layer "seccomp",
// --verbose line, --ask), so a refusal by the supervisor means what the
// shim's means.
//
// Handlers (supervise_*.cc) decode the call's arguments (decode.h), judge
// the object the kernel would use, and then either perform the call on the
// target's behalf through the descriptors they judged (opens inject the
// descriptor), or, for exec, let the kernel go on after checking the
// notification is still live. In audit mode a refusal is recorded as
// "would_deny" and the call is performed all the same.

#ifndef KLAUNCH_SUPERVISOR_SUPERVISE_H_
#define KLAUNCH_SUPERVISOR_SUPERVISE_H_

#include <linux/seccomp.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/audit.h"
#include "core/engine.h"
#include "core/seccomp_tag.h"
#include "supervisor/decode.h"
#include "supervisor/target.h"

namespace klaunch {
class AskServer;
class ChainCgroups;
class NameCache;
class RunMembers;
}  // namespace klaunch

namespace klaunch::supervise {

// In audit mode the shim records a call it would refuse and then makes it;
// when the filter sends that call to the supervisor too, the same would-be
// refusal must not be recorded twice. The shim's last record per thread is
// kept here until that thread's next call reaches the supervisor.
class ShimEchoes {
 public:
  using Records = std::vector<std::pair<std::string, std::string>>;
  void Note(pid_t tid, std::string target, std::string access);
  // The records `tid` sent since its last call, once (target, access).
  Records Take(pid_t tid);

 private:
  std::mutex mu_;
  std::unordered_map<pid_t, Records> last_;
};

struct Settings {
  const Engine* engine = nullptr;
  AuditLog log;                  // the audit log
  std::string effective_policy;  // what the shim loads (kPolicyRequest)
  bool verbose = false;
  // --trace: allowed writes, execs and connects are recorded too.
  bool trace = false;
  AskServer* asker = nullptr;  // null: "ask" refuses
  // filesystem.unlisted_writes = "ask": any call that writes may wait for
  // the terminal.
  bool ask_writes = false;
  // The policy's host names as klaunch resolved them, so a connect the shim
  // did not see (no name known) can still be admitted by a host rule. Null:
  // only address rules admit such a connect.
  NameCache* names = nullptr;
  uint64_t cookie = 0;
  // The filter's FilterSettings::reads_floor: a read open the supervisor
  // judged goes on to the kernel (seccomp_filter.h,
  // ATaggedOpenSkipsAsAReader).
  bool reads_floor = false;
  // The shim's file: the cookie is given only to code mapped from it.
  dev_t shim_dev = 0;
  ino_t shim_ino = 0;
  // Counts the audit records that could not be written, by the supervisor
  // or reported by the shim (core/seccomp_tag.h), and the last errno; null:
  // not counted.
  std::atomic<uint64_t>* lost_records = nullptr;
  std::atomic<int>* lost_errno = nullptr;
  // The chains of program sections processes entered below CMD, and their
  // engines (chain_cgroups.h). Null: every call is judged by `engine`.
  ChainCgroups* chains = nullptr;
  // Which processes belong to the run, for the calls that reach another
  // process (supervise_process.cc). Null: every such call is refused.
  const RunMembers* members = nullptr;
  // Audit mode: the shim's records whose calls may reach the supervisor.
  ShimEchoes* echoes = nullptr;
  // klaunch and its reaper: no path below /proc/PID of theirs is opened,
  // looked at or written for the target (klaunch reads its own /proc with
  // its own rights, which the program's may not have).
  std::vector<pid_t> protected_pids;
};

struct Answer;

// A call the supervisor performs that would block on an object the program
// controls (a send to a full socket, a connect no one accepts yet, an open
// a lease holds up): handed to the waiter (waiter.h), which retries it when
// `fd` is ready for `events` (or on a timer when `fd` is -1) and never
// holds a thread for it.
struct Pending {
  Fd fd;                // what readiness is waited on; invalid: timer only
  uint32_t events = 0;  // EPOLLOUT, EPOLLIN
  // Tries again without blocking: the answer, or nothing while it still
  // would block. Called on the waiter's thread.
  std::function<std::optional<Answer>()> retry;
};

// The errno that makes the kernel restart the call, or fail it with EINTR
// where the signal's handler says so: the answer to a call interrupted by
// a signal while it waited (the target waits killable only, so the signal
// cannot interrupt it itself).
inline constexpr int kRestartCall = 512;  // ERESTARTSYS

struct Answer {
  enum Kind { kContinue, kValue, kError, kInject, kPending, kSent };
  Kind kind = kError;
  int64_t value = 0;
  int error = EPERM;
  Fd fd;  // kInject: the descriptor to give the target
  bool cloexec = false;
  std::shared_ptr<Pending> pending;  // kPending

  static Answer Continue() { return Answer{kContinue}; }
  static Answer Value(int64_t v) { return Answer{kValue, v, 0}; }
  static Answer Error(int e) { return Answer{kError, 0, e}; }
  // -errno or a value, as the kernel returns them.
  static Answer Result(long r) { return r < 0 ? Error(-r) : Value(r); }
  static Answer Inject(Fd fd, bool cloexec) {
    Answer a{kInject};
    a.fd = std::move(fd);
    a.cloexec = cloexec;
    return a;
  }
  // The handler answered the call itself (Call::Send).
  static Answer Sent() { return Answer{kSent}; }
  // Tries `retry` now; hands it to the waiter while it would block.
  static Answer Wait(Fd fd, uint32_t events,
                     std::function<std::optional<Answer>()> retry);
};

class Call {
 public:
  // `engine`: the one of the chain the target runs under; null for
  // settings.engine.
  Call(int listener, const seccomp_notif& req, const Settings& settings,
       const Engine* engine = nullptr)
      : listener_(listener),
        req_(req),
        settings_(settings),
        engine_(engine != nullptr ? engine : settings.engine),
        target_(req.pid) {
    args_.nr = req.data.nr;
    for (int i = 0; i < 6; ++i) args_.args[i] = req.data.args[i];
    // The shim's own requests (its records among them) consume nothing.
    if (settings.echoes != nullptr && args_.nr != kCookieQuerySyscall) {
      echoes_ = settings.echoes->Take(req.pid);
    }
  }

  // What decode.h reads the call from.
  const SyscallArgs& args() const { return args_; }
  uint64_t arg(int i) const { return args_.arg(i); }
  int iarg(int i) const { return args_.iarg(i); }
  int nr() const { return args_.nr; }
  uint64_t ip() const { return req_.data.instruction_pointer; }
  Target& target() { return target_; }
  const Settings& settings() const { return settings_; }
  const Engine& engine() const { return *engine_; }

  // True while the target still waits in this call: checked after reading
  // from /proc/PID, so a pid reused by another process is never acted for.
  bool Live() const;

  // Applies a decision: true when the call may go on (allowed, approved at
  // the terminal, or audit mode). A refusal is recorded.
  // `access` as the record names it: "read", "write", "exec", "connect".
  // `trace`: false for a second judgement of a call already judged (a
  // directory's move), which --trace does not record again.
  bool Judge(const char* op, const std::string& what, const char* access,
             Decision d, const std::string& command = "", bool trace = true);
  // `label`: the record's access when not the access's own name ("link"
  // for a hard link's source, judged as a write).
  bool JudgePath(const char* op, Access access, const std::string& path,
                 const char* label = nullptr);
  // A target that does not resolve: true when it may fail natively; false
  // (recorded) when a deny rule covers where it would be.
  bool JudgeMissing(const char* op, Access access, int dirfd,
                    const std::string& path);
  // True when the program may look at `path` (no deny entry covers it),
  // as the shim's MaySee: the kernel's own answer about it may be given.
  bool MaySee(const std::string& path) {
    return engine_->CheckPath(Access::kStat, target_.SelfView(path)).allowed();
  }
  // Refuses without consulting the engine.
  bool Refuse(const char* op, const std::string& what, const std::string& why);

  // Answers the call now (the handler then returns Answer::Sent()): for a
  // handler that must act once the target goes on.
  void Send(Answer answer);

 private:
  void Record(const char* op, const std::string& what, const char* access,
              const Decision& d, const std::string& command);

  int listener_;
  const seccomp_notif& req_;
  const Settings& settings_;
  const Engine* engine_;
  Target target_;
  SyscallArgs args_;
  ShimEchoes::Records echoes_;  // the shim's records just before
};

// Sends `answer` to the notification `id` (supervisor.cc).
void Respond(int listener, uint64_t id, Answer answer);

Answer SuperviseOpen(Call& call);
Answer SuperviseExec(Call& call);
Answer SuperviseNetwork(Call& call);
Answer SuperviseMutation(Call& call);
Answer SuperviseStat(Call& call);
// Signals, limits, priorities and owners naming another process.
Answer SuperviseProcess(Call& call);
// FIOSETOWN, SIOCSPGRP: a new owner of a descriptor's signals.
Answer SuperviseOwnerIoctl(Call& call);
// ioctl requests that change a file (syscall_table.h, IoctlTable).
Answer SuperviseIoctl(Call& call);
// The cookie query, and the shim's other requests to klaunch (a record,
// a question, a section entered: core/seccomp_tag.h).
Answer SuperviseCookie(Call& call);

// Counts one audit record lost with `error`.
void CountLostRecord(const Settings& settings, int error);

// True for the calls a handler may block on for long (a connect, a
// question at the terminal): they are answered off the receiving thread.
bool MayBlock(const seccomp_data& call, const Settings& settings);

}  // namespace klaunch::supervise

#endif  // KLAUNCH_SUPERVISOR_SUPERVISE_H_
