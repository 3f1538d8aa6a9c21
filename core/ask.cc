#include "core/ask.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace klaunch {
namespace {

bool HoldsNewline(const AskQuestion& q) {
  for (absl::string_view field : {q.op, q.exe, q.file, q.command, q.chain}) {
    if (field.find('\n') != absl::string_view::npos) return true;
  }
  return false;
}

absl::Status Malformed(absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("malformed request: ", why));
}

}  // namespace

bool AskOrExplain(const AskQuestion& question, Asker* asker, Decision* d) {
  const char* why = "";
  if (HoldsNewline(question)) {
    why = " (not asked: the name holds a newline)";
  } else if (AskRequestSize(question) > kAskRequestMax) {
    why = " (not asked: the question is too long)";
  } else if (asker == nullptr) {
    why = " (asking needs a terminal)";
  } else {
    switch (asker->Put(question)) {
      case AskAnswer::kYes:
        return true;
      case AskAnswer::kNo:
        why = " (refused at the terminal)";
        break;
      case AskAnswer::kRefused:
        why = " (not asked: klaunch refused the request)";
        break;
    }
  }
  d->message += why;
  return false;
}

int AskRequestPieces(const AskQuestion& q,
                     absl::string_view (&out)[kAskRequestPieces]) {
  int n = 0;
  auto field = [&](absl::string_view key, absl::string_view value) {
    out[n++] = key;
    out[n++] = value;
    out[n++] = "\n";
  };
  if (q.write) out[n++] = "kind=write\n";
  field("op=", q.op);
  field("exe=", q.exe);
  field("file=", q.file);
  if (!q.write) field("command=", q.command);
  field("chain=", q.chain);
  return n;
}

size_t AskRequestSize(const AskQuestion& q) {
  absl::string_view pieces[kAskRequestPieces];
  const int n = AskRequestPieces(q, pieces);
  size_t size = 0;
  for (int i = 0; i < n; ++i) size += pieces[i].size();
  return size;
}

absl::StatusOr<AskQuestion> ParseAskRequest(absl::string_view text) {
  if (text.empty() || text.back() != '\n') {
    return Malformed("it does not end in a newline");
  }
  if (text.find('\0') != absl::string_view::npos) {
    return Malformed("it holds a NUL byte");
  }
  enum Key { kKind, kOp, kExe, kFile, kCommand, kChain, kKeys };
  static constexpr absl::string_view kNames[kKeys] = {
      "kind", "op", "exe", "file", "command", "chain"};
  absl::string_view value[kKeys];
  bool seen[kKeys] = {};
  text.remove_suffix(1);
  while (true) {
    const size_t end = text.find('\n');
    const absl::string_view line = text.substr(0, end);
    const size_t eq = line.find('=');
    if (eq == absl::string_view::npos) {
      return Malformed("a line holds no '='");
    }
    const absl::string_view key = line.substr(0, eq);
    int k = 0;
    while (k < kKeys && kNames[k] != key) ++k;
    if (k == kKeys) return Malformed(absl::StrCat("unknown key '", key, "'"));
    if (seen[k]) return Malformed(absl::StrCat("key '", key, "' repeated"));
    seen[k] = true;
    value[k] = line.substr(eq + 1);
    if (end == absl::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  AskQuestion q;
  q.write = seen[kKind];
  if (q.write && value[kKind] != "write") {
    return Malformed(absl::StrCat("unknown kind '", value[kKind], "'"));
  }
  // Each kind takes exactly its own fields.
  const bool wants[kKeys] = {q.write, true, true, true, !q.write, true};
  for (int k = 0; k < kKeys; ++k) {
    if (seen[k] != wants[k]) {
      return Malformed(absl::StrCat(
          seen[k] ? "a field it does not take: '" : "a field missing: '",
          kNames[k], "'"));
    }
  }
  q.op = value[kOp];
  q.exe = value[kExe];
  q.file = value[kFile];
  q.command = value[kCommand];
  q.chain = value[kChain];
  if (q.op.empty()) return Malformed("an empty op");
  if (q.file.empty() || q.file[0] != '/') {
    return Malformed("the file is not an absolute path");
  }
  // "", or numbers separated by single commas.
  bool digit_before = false;
  for (char c : q.chain) {
    if (c >= '0' && c <= '9') {
      digit_before = true;
    } else if (c == ',' && digit_before) {
      digit_before = false;
    } else {
      return Malformed("the chain is not a list of section numbers");
    }
  }
  if (!q.chain.empty() && !digit_before) {
    return Malformed("the chain is not a list of section numbers");
  }
  return q;
}

std::string ShownAtTerminal(absl::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (c >= 0x20 && c <= 0x7e && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

bool PolicyMayAsk(const Policy& policy) {
  if (policy.commands.unlisted == Unlisted::kAsk ||
      policy.filesystem.unlisted_writes == Unlisted::kAsk) {
    return true;
  }
  for (const ProgramSection& s : policy.programs) {
    if (s.unlisted == Unlisted::kAsk || s.unlisted_writes == Unlisted::kAsk) {
      return true;
    }
  }
  return false;
}

}  // namespace klaunch
