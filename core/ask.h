// Questions put to the user at the terminal: what the shim, the seccomp
// supervisor and klaunch's question server (supervisor/ask_server.h) share.
//
// A decision of kAsk (a command no rule admits under `commands.unlisted =
// "ask"`, a write no write root admits under `filesystem.unlisted_writes =
// "ask"`) becomes one AskQuestion. AskOrExplain decides whether it may be
// put at all and what a refusal says, for every layer alike; an Asker puts
// it. The shim's Asker sends it to the server as one request on a
// SOCK_SEQPACKET socket; the supervisor's hands it to the server directly.
//
// The request is one datagram of "key=value\n" lines, each key once, in
// this order (the shim sends it as pieces, with no copy):
//
//   exec:  "op=OP\nexe=PATH\nfile=PATH\ncommand=LINE\nchain=0,2\n"
//   write: "kind=write\nop=OP\nexe=PATH\nfile=PATH\nchain=0,2\n"
//
// `chain` is the program sections in force (ChainText, core/programs.h;
// empty outside every section). The answer is one byte: 'y' or 'n' from
// the person, or 'r' when the server refused the request without asking:
// one ParseAskRequest does not read as exactly this shape, or one that is
// not the asking process's own (docs: supervisor/ask_server.h).
//
// What the terminal shows of a name a program chose goes through
// ShownAtTerminal, so that no name can make the question read as another.

#ifndef KLAUNCH_CORE_ASK_H_
#define KLAUNCH_CORE_ASK_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/engine.h"
#include "core/policy.h"

namespace klaunch {

// The largest request the server reads; a question whose request would be
// longer is not asked (a command line of kilobytes is no question a person
// can answer), by any layer.
inline constexpr size_t kAskRequestMax = 8192;

struct AskQuestion {
  bool write = false;
  absl::string_view op;       // the call: "execve", "open", "rename", ...
  absl::string_view exe;      // the asking process's executable
  absl::string_view file;     // exec: the executable; write: the path
  absl::string_view command;  // exec: the command line judged
  absl::string_view chain;    // the program sections in force ("0,2")
};

enum class AskAnswer {
  kYes,
  kNo,
  kRefused,  // not put to the user: klaunch refused the request
};

// Puts a question to the user.
class Asker {
 public:
  virtual AskAnswer Put(const AskQuestion& question) = 0;

 protected:
  ~Asker() = default;
};

// Applies a kAsk decision outside audit mode. Puts `question` through
// `asker` (null when klaunch has no terminal to ask on) unless it cannot be
// asked, and returns true for yes. Otherwise returns false with `d->message`
// saying why the call is refused: " (refused at the terminal)", " (asking
// needs a terminal)", " (not asked: the name holds a newline)" (a newline
// in any field could forge a line of the request), " (not asked: the
// question is too long)", " (not asked: klaunch refused the request)".
// Allocates only to append to the message.
bool AskOrExplain(const AskQuestion& question, Asker* asker, Decision* d);

// The request's pieces, in order, for one sendmsg with an iovec each:
// nothing is copied or allocated. Returns how many were written to `out`.
inline constexpr int kAskRequestPieces = 16;
int AskRequestPieces(const AskQuestion& question,
                     absl::string_view (&out)[kAskRequestPieces]);
size_t AskRequestSize(const AskQuestion& question);

// Reads a request. The result's views point into `text`. Fails, naming
// why, for a request that is empty, does not end in a newline, holds a NUL
// byte, a line without '=', an unknown or repeated key, a field the kind
// does not take or lacks one it needs, a file that is not absolute, or a
// chain that is not a list of section numbers.
absl::StatusOr<AskQuestion> ParseAskRequest(absl::string_view text);

// `text` as the terminal shows it: every byte outside printable ASCII
// (0x20..0x7e) and the backslash itself as \xHH, so that a control
// character, an escape sequence, a C1 control in UTF-8 (\xc2\x9b is CSI)
// or a bidirectional override (U+202E) shows as what it is, and two
// different names never show alike.
std::string ShownAtTerminal(absl::string_view text);

// True when the policy or one of its program sections may ask (a command
// or a write), so that klaunch needs its question server.
bool PolicyMayAsk(const Policy& policy);

}  // namespace klaunch

#endif  // KLAUNCH_CORE_ASK_H_
