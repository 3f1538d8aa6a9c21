#include "supervisor/ask_server.h"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/audit.h"
#include "supervisor/chain_cgroups.h"
#include "supervisor/request_socket.h"

namespace klaunch {

absl::StatusOr<std::unique_ptr<AskServer>> AskServer::Start(Options options) {
  int tty = options.tty;
  options.tty = -1;
  if (tty < 0) tty = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
  if (tty < 0) {
    return absl::UnavailableError("no terminal to ask on (/dev/tty)");
  }
  std::unique_ptr<AskServer> s(new AskServer(std::move(options), tty));
  if (!s->options_.socket_path.empty()) {
    AskServer* server = s.get();
    absl::StatusOr<std::unique_ptr<RequestSocket>> socket =
        RequestSocket::Start(s->options_.socket_path, kAskRequestMax,
                             [server](pid_t pid, absl::string_view request) {
                               return server->Answer(pid, request, "shim");
                             });
    if (!socket.ok()) return socket.status();
    s->socket_ = *std::move(socket);
  }
  return s;
}

AskServer::AskServer(Options options, int tty)
    : options_(std::move(options)), tty_(tty) {}

AskServer::~AskServer() {
  socket_.reset();  // its thread calls Answer: stopped first
  close(tty_);
}

std::optional<std::string> AskServer::ReadAnswer(const std::string& prompt) {
  // Only what is typed once the question shows answers it: input already
  // waiting (typed ahead, or pushed by a program where the seccomp layer
  // does not refuse TIOCSTI) is discarded. Before the prompt rather than
  // after, so that an answer typed as soon as it shows is never lost.
  tcflush(tty_, TCIFLUSH);
  ssize_t ignored = write(tty_, prompt.data(), prompt.size());
  (void)ignored;
  std::string answer;
  char c;
  while (true) {
    ssize_t n = read(tty_, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    if (c == '\n' || c == '\r') break;
    answer.push_back(c);
    if (answer.size() > 64) break;
  }
  return answer;
}

std::string AskServer::ExeOf(pid_t pid, const AskQuestion& q) {
  if (pid == 0) return "klaunch";
  // The kernel's name for the process's executable; the one the process
  // sent only when the kernel's cannot be read (a process that changed its
  // credentials, say).
  char exe[PATH_MAX];
  const ssize_t n =
      readlink(absl::StrCat("/proc/", pid, "/exe").c_str(), exe, sizeof(exe));
  return n > 0 ? std::string(exe, n) : std::string(q.exe);
}

std::string AskServer::ProgramOf(const AskQuestion& q) const {
  const size_t comma = q.chain.rfind(',');
  int innermost;
  if (q.chain.empty() ||
      !absl::SimpleAtoi(
          q.chain.substr(comma == absl::string_view::npos ? 0 : comma + 1),
          &innermost) ||
      innermost < 0 ||
      static_cast<size_t>(innermost) >= options_.programs.size()) {
    return "";
  }
  return options_.programs[innermost];
}

std::string AskServer::Who(pid_t pid, const std::string& exe,
                           const std::string& program) {
  if (pid == 0) return "klaunch";
  std::string who = absl::StrCat("pid ", pid, " (", ShownAtTerminal(exe), ")");
  // The innermost section in force: a yes holds under this chain only.
  if (!program.empty()) {
    absl::StrAppend(&who, " in programs.\"", ShownAtTerminal(program), "\"");
  }
  return who;
}

void AskServer::RecordYes(pid_t pid, const AskQuestion& q,
                          absl::string_view layer, const std::string& exe,
                          const std::string& program) {
  if (options_.log.empty()) return;
  char when[64];
  FormatAuditTime(when, sizeof(when));
  const std::string section =
      program.empty() ? "" : absl::StrCat(" [programs.\"", program, "\"]");
  const std::string message =
      q.write ? absl::StrCat("write of ", q.file, " (", q.op,
                             ") admitted at the terminal for the rest of the "
                             "run",
                             section)
              : absl::StrCat("exec of `", q.command, "` (", q.file,
                             ") admitted at the terminal, once", section);
  const int e = AppendAuditEvent(
      options_.log,
      AuditEvent{when, pid == 0 ? getpid() : pid, exe, std::string(q.op),
                 std::string(q.file), q.write ? "write" : "exec", "allow",
                 "terminal", message, std::string(layer),
                 std::string(q.command), program});
  if (e != 0) {
    if (options_.lost_records != nullptr) options_.lost_records->fetch_add(1);
    if (options_.lost_errno != nullptr) options_.lost_errno->store(e);
  }
}

bool AskServer::ChainIsTheCallers(pid_t pid, absl::string_view chain) const {
  std::vector<int> sections;
  if (!chain.empty()) {
    for (absl::string_view part : absl::StrSplit(chain, ',')) {
      int i;
      if (!absl::SimpleAtoi(part, &i) || i < 0 ||
          static_cast<size_t>(i) >= options_.programs.size()) {
        return false;
      }
      sections.push_back(i);
    }
  }
  if (options_.chains == nullptr) return true;
  const std::optional<std::vector<int>> its = options_.chains->ChainOf(pid);
  return its && *its == sections;
}

bool AskServer::Ask(pid_t pid, const AskQuestion& q, absl::string_view layer) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::pair<std::string, std::string> key(q.chain, q.file);
  if (q.write && writable_.count(key) != 0) return true;
  const std::string exe = ExeOf(pid, q);
  const std::string program = ProgramOf(q);
  const std::string who = Who(pid, exe, program);
  const std::optional<std::string> answer = ReadAnswer(
      q.write
          ? absl::StrCat("\nklaunch: ", who, " wants to write ",
                         ShownAtTerminal(q.file), " (", ShownAtTerminal(q.op),
                         "), which no write root admits. Allow writing it for "
                         "the rest of the run? [y/N] ")
          : absl::StrCat("\nklaunch: ", who, " wants to run `",
                         ShownAtTerminal(q.command), "` (",
                         ShownAtTerminal(q.file),
                         "), which no rule admits. Allow it once? [Y/n] "));
  if (!answer) return false;  // no answer is no
  const bool yes = *answer == "y" || *answer == "Y" || *answer == "yes" ||
                   (!q.write && answer->empty());
  if (yes && q.write) writable_.insert(key);
  // Every write outside the policy, and every command, the person admitted
  // is in the log, once, as every refusal is.
  if (yes) RecordYes(pid, q, layer, exe, program);
  return yes;
}

void AskServer::RememberApproval(long pid, const std::string& file,
                                 const std::string& command) {
  std::lock_guard<std::mutex> lock(approvals_mu_);
  approvals_.push_back({pid, file, command});
}

bool AskServer::TakeApproval(long pid, const std::string& file,
                             const std::string& command) {
  std::lock_guard<std::mutex> lock(approvals_mu_);
  for (auto it = approvals_.begin(); it != approvals_.end(); ++it) {
    if (it->pid == pid && it->file == file && it->command == command) {
      approvals_.erase(it);
      return true;
    }
  }
  return false;
}

char AskServer::Answer(pid_t pid, absl::string_view request,
                       absl::string_view layer) {
  if (pid <= 0 || request.size() > kAskRequestMax) return 'r';
  const absl::StatusOr<AskQuestion> q = ParseAskRequest(request);
  if (!q.ok() || !ChainIsTheCallers(pid, q->chain)) return 'r';
  const bool yes = Ask(pid, *q, layer);
  if (yes && !q->write) {
    std::lock_guard<std::mutex> lock(approvals_mu_);
    approvals_.push_back({pid, std::string(q->file), std::string(q->command)});
  }
  return yes ? 'y' : 'n';
}

}  // namespace klaunch
