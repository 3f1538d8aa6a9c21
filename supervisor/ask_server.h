// Asking the user: a command no rule admits, under `unlisted = "ask"` (or
// --ask), and a write no write root admits, under
// `filesystem.unlisted_writes = "ask"`, are put to the person at the
// controlling terminal.
//
// The shim in any sandboxed process sends one request (core/ask.h) and
// blocks for the answer: through the seccomp supervisor, which calls
// Answer with the process the kernel names, or, without the seccomp layer,
// through a socket in the run directory (which the policy denies to the
// program; supervisor/request_socket.h, where SO_PEERCRED names it). The
// supervisor's own questions call Ask directly. Questions are put to the
// terminal one at a time, never on klaunch's main thread, so klaunch keeps
// reaping and forwarding signals while a question waits. An empty answer or "y"
// allows that one exec; anything else (or end of input) refuses it.
//
// The asking process is the one at the other end of the connection
// (SO_PEERCRED), and its executable is read from /proc/PID/exe, not taken
// from the request. A request that is truncated or not exactly one question
// (ParseAskRequest), or whose chain of program sections is not the
// process's own (its cgroup's, where klaunch keeps one per chain), is
// refused without asking (answered 'r'). Input typed or pushed before a prompt
// is discarded, so only what comes after the question answers it.
//
// A write's yes admits that path for the rest of the run, to every process
// under the same chain of program sections (the question names the
// innermost): a yes given to the agent is not one given to a tool whose
// section narrows it. Only "y" or "yes" is yes there (an empty answer is
// no), since a write outside the write roots is the rarer and riskier
// question.
//
// Every yes is recorded in the audit log, once: verdict "allow", rule
// "terminal", the layer that asked, and the innermost section as
// "program". A write admitted again without asking is not recorded again.
//
// A yes to a command is also remembered for that process, once: when the
// exec it allowed is made by libc on the process's behalf (posix_spawn,
// system, popen) and so reaches the seccomp supervisor too, the supervisor
// takes the approval instead of asking again.

#ifndef KLAUNCH_SUPERVISOR_ASK_SERVER_H_
#define KLAUNCH_SUPERVISOR_ASK_SERVER_H_

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/ask.h"
#include "core/audit.h"

namespace klaunch {

class ChainCgroups;
class RequestSocket;

class AskServer {
 public:
  struct Options {
    // Where the shim's questions arrive without the seccomp layer; empty:
    // only through Answer.
    std::string socket_path;
    // The audit log every yes is recorded in; empty: none.
    AuditLog log;
    // Count the records that could not be written; null: not counted.
    std::atomic<uint64_t>* lost_records = nullptr;
    std::atomic<int>* lost_errno = nullptr;
    // The name of each program section, by index (policy.programs[i].name):
    // a request's chain must name these, and the question names the
    // innermost section of the chain.
    std::vector<std::string> programs;
    // When set, a request's chain must be the one the asking process's
    // cgroup says it runs under.
    ChainCgroups* chains = nullptr;
    // A terminal already open to ask on (the server takes it); -1 opens
    // /dev/tty.
    int tty = -1;
  };

  // Opens the terminal and listens at `options.socket_path` when it is
  // set. Fails (kUnavailable) when there is no terminal.
  static absl::StatusOr<std::unique_ptr<AskServer>> Start(Options options);
  ~AskServer();

  // Puts `question`, asked by process `pid` (0: klaunch itself, about
  // CMD) through `layer` ("shim", "seccomp", "launcher"), to the terminal,
  // unless the user already admitted that write under that chain; true for
  // yes, which is recorded. `question.chain` must name sections of the
  // policy. Thread-safe.
  bool Ask(pid_t pid, const AskQuestion& question, absl::string_view layer);

  // A shim's question request from process `pid` (as the kernel names
  // it), through `layer`: 'y' or 'n' from the person, or 'r' when it is
  // refused without asking (malformed, or not the process's own chain of
  // sections). A yes to a command is remembered for TakeApproval.
  char Answer(pid_t pid, absl::string_view request, absl::string_view layer);

  // Remembers that the user allowed `command` (of `file`) for process
  // `pid`, which asked otherwise (klaunch about CMD before its fork).
  void RememberApproval(long pid, const std::string& file,
                        const std::string& command);

  // True, once, when the user allowed `command` (of `file`) for process
  // `pid` and that approval has not been used by the supervisor yet.
  bool TakeApproval(long pid, const std::string& file,
                    const std::string& command);

 private:
  AskServer(Options options, int tty);
  // True when `chain` names sections of the policy and, where klaunch
  // keeps a cgroup per chain, is the one process `pid` runs under.
  bool ChainIsTheCallers(pid_t pid, absl::string_view chain) const;
  // The asking process's executable as the kernel names it.
  static std::string ExeOf(pid_t pid, const AskQuestion& q);
  // The innermost program section of the question's chain; "" for none.
  std::string ProgramOf(const AskQuestion& q) const;
  // "pid 812 (/usr/bin/curl) in programs."curl"", as the terminal shows it.
  static std::string Who(pid_t pid, const std::string& exe,
                         const std::string& program);
  void RecordYes(pid_t pid, const AskQuestion& q, absl::string_view layer,
                 const std::string& exe, const std::string& program);
  // Discards what was typed or pushed so far, writes `prompt` and reads one
  // line; nothing at the end of input. The caller holds mu_.
  std::optional<std::string> ReadAnswer(const std::string& prompt);

  const Options options_;
  int tty_;
  std::mutex mu_;
  struct Approval {
    long pid;
    std::string file, command;
  };
  std::mutex approvals_mu_;
  std::vector<Approval> approvals_;
  // Writes admitted at the terminal: (chain, path). Guarded by mu_.
  std::set<std::pair<std::string, std::string>> writable_;
  std::unique_ptr<RequestSocket> socket_;
};

}  // namespace klaunch

#endif  // KLAUNCH_SUPERVISOR_ASK_SERVER_H_
