#include "launcher/ask_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace klaunch {

absl::StatusOr<std::unique_ptr<AskServer>> AskServer::Start(
    const std::string& socket_path) {
  int tty = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
  if (tty < 0) {
    return absl::UnavailableError("no terminal to ask on (/dev/tty)");
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof(addr.sun_path)) {
    close(tty);
    return absl::FailedPreconditionError(
        absl::StrCat("the ask socket path is too long: ", socket_path));
  }
  std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
  int listener = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  int stop[2];
  if (listener < 0 ||
      bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      listen(listener, 16) != 0 || pipe2(stop, O_CLOEXEC) != 0) {
    const int err = errno;
    close(tty);
    if (listener >= 0) close(listener);
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot listen at ", socket_path, ": ", strerror(err)));
  }
  std::unique_ptr<AskServer> s(new AskServer(tty, listener, stop[0], stop[1]));
  s->thread_ = std::thread([p = s.get()] { p->Serve(); });
  return s;
}

AskServer::AskServer(int tty, int listener, int stop_read, int stop_write)
    : tty_(tty),
      listener_(listener),
      stop_read_(stop_read),
      stop_write_(stop_write) {}

AskServer::~AskServer() {
  char c = 'x';
  ssize_t ignored = write(stop_write_, &c, 1);
  (void)ignored;
  if (thread_.joinable()) thread_.join();
  for (int fd : {tty_, listener_, stop_read_, stop_write_}) close(fd);
}

namespace {

// What the program named, as the terminal shows it: a control character
// (an escape sequence, a newline) could make the question read as another.
std::string Shown(const std::string& s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

}  // namespace

std::optional<std::string> AskServer::ReadAnswer(const std::string& prompt) {
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

bool AskServer::Ask(const std::string& who, const std::string& command,
                    const std::string& file) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::optional<std::string> answer = ReadAnswer(
      absl::StrCat("\nklaunch: ", Shown(who), " wants to run `",
                   Shown(command), "` (", Shown(file),
                   "), which no rule admits. Allow it once? [Y/n] "));
  if (!answer) return false;  // no answer is no
  return answer->empty() || *answer == "y" || *answer == "Y" ||
         *answer == "yes";
}

bool AskServer::AskWrite(const std::string& who, const std::string& op,
                         const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  if (writable_.count(path) != 0) return true;
  const std::optional<std::string> answer = ReadAnswer(absl::StrCat(
      "\nklaunch: ", Shown(who), " wants to write ", Shown(path), " (", op,
      "), which no write root admits. Allow writing it for the rest of the "
      "run? [y/N] "));
  const bool yes =
      answer && (*answer == "y" || *answer == "Y" || *answer == "yes");
  if (yes) writable_.insert(path);
  return yes;
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

void AskServer::Serve() {
  while (true) {
    pollfd fds[2] = {{listener_, POLLIN, 0}, {stop_read_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents) return;
    if (!(fds[0].revents & POLLIN)) continue;
    int conn = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (conn < 0) continue;
    char buf[8192];
    ssize_t n = recv(conn, buf, sizeof(buf) - 1, 0);
    std::map<std::string, std::string> fields;
    if (n > 0) {
      for (absl::string_view line :
           absl::StrSplit(absl::string_view(buf, n), '\n')) {
        const size_t eq = line.find('=');
        if (eq == absl::string_view::npos) continue;
        fields[std::string(line.substr(0, eq))] = std::string(line.substr(eq + 1));
      }
    }
    const std::string who =
        absl::StrCat("pid ", fields["pid"], " (", fields["exe"], ")");
    const bool write = fields["kind"] == "write";
    const bool yes =
        n > 0 && (write ? AskWrite(who, fields["op"], fields["file"])
                        : Ask(who, fields["command"], fields["file"]));
    if (yes && !write) {
      long pid = 0;
      if (absl::SimpleAtoi(fields["pid"], &pid)) {
        std::lock_guard<std::mutex> lock(approvals_mu_);
        approvals_.push_back({pid, fields["file"], fields["command"]});
      }
    }
    const char reply = yes ? 'y' : 'n';
    send(conn, &reply, 1, MSG_NOSIGNAL);
    close(conn);
  }
}

}  // namespace klaunch
