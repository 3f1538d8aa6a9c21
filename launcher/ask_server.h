// Asking the user: a command no rule admits, under `unlisted = "ask"` (or
// --ask), and a write no write root admits, under
// `filesystem.unlisted_writes = "ask"`, are put to the person at the
// controlling terminal.
//
// The server listens on a Unix socket in the run directory (which the policy
// denies to the program); the shim in any sandboxed process sends one request
// and blocks for the answer. Requests are put to the terminal one at a time,
// on a thread of their own, so klaunch keeps reaping and forwarding signals
// while a question waits. An empty answer or "y" allows that one exec;
// anything else (or end of input) refuses it.
//
// Request (one datagram): "pid=N\nexe=PATH\nfile=PATH\ncommand=LINE\n",
// or for a write "kind=write\npid=N\nexe=PATH\nop=OP\nfile=PATH\n".
// Answer: one byte, 'y' or 'n'.
//
// A write's yes admits that path, for every process, for the rest of the
// run; only "y" or "yes" is yes there (an empty answer is no), since a
// write outside the write roots is the rarer and riskier question.
//
// A yes is also remembered for that process, once: when the exec it allowed
// is made by libc on the process's behalf (posix_spawn, system, popen) and
// so reaches the seccomp supervisor too, the supervisor takes the approval
// instead of asking again.

#ifndef KLAUNCH_LAUNCHER_ASK_SERVER_H_
#define KLAUNCH_LAUNCHER_ASK_SERVER_H_

#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"

namespace klaunch {

class AskServer {
 public:
  // Opens /dev/tty and listens at `socket_path`. Fails (kUnavailable) when
  // there is no terminal.
  static absl::StatusOr<std::unique_ptr<AskServer>> Start(
      const std::string& socket_path);
  ~AskServer();

  // Puts one question to the terminal; true for yes. Thread-safe.
  bool Ask(const std::string& who, const std::string& command,
           const std::string& file);

  // Puts a write no rule admits to the terminal, unless the user already
  // admitted `path`; true for yes, which admits it from then on.
  // Thread-safe.
  bool AskWrite(const std::string& who, const std::string& op,
                const std::string& path);

  // True, once, when the user allowed `command` (of `file`) for process
  // `pid` and that approval has not been used by the supervisor yet.
  bool TakeApproval(long pid, const std::string& file,
                    const std::string& command);

 private:
  AskServer(int tty, int listener, int stop_read, int stop_write);
  void Serve();
  // Writes `prompt` and reads one line; nothing at the end of input. The
  // caller holds mu_.
  std::optional<std::string> ReadAnswer(const std::string& prompt);

  int tty_, listener_, stop_read_, stop_write_;
  std::mutex mu_;
  struct Approval {
    long pid;
    std::string file, command;
  };
  std::mutex approvals_mu_;
  std::vector<Approval> approvals_;
  std::set<std::string> writable_;  // guarded by mu_
  std::thread thread_;
};

}  // namespace klaunch

#endif  // KLAUNCH_LAUNCHER_ASK_SERVER_H_
