// Fuzzes core/network.h: address literals, connect targets
// ("user@host:port"), host names and `network.allow` rules parsed from
// fuzzer-made text, and rules matched against fuzzer-made addresses, ports
// and names. Checked: round trips through ToString, what a parsed target
// may hold, host globs against a reference matcher written here, CIDRs built
// from fuzzer bytes against a bit-by-bit reference, mapped IPv6 judged as its
// IPv4, and port and name independence where the grammar promises it.
//
// Input: 19 bytes of address and port (byte 0 picks v4/v6 and a prefix
// length, 1-16 the address, 17-18 the port), then lines: a rule, a connect
// target, a host name. It does not resolve names (the launcher does).

#include <arpa/inet.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "core/network.h"
#include "fuzz/support.h"

namespace klaunch {
namespace {

IpAddress Mapped(const IpAddress& v4) {
  IpAddress out;
  out.v6 = true;
  out.bytes[10] = out.bytes[11] = 0xff;
  std::memcpy(out.bytes.data() + 12, v4.bytes.data(), 4);
  return out;
}

bool SamePrefix(const IpAddress& a, const IpAddress& b, int bits) {
  for (int bit = 0; bit < bits; ++bit) {
    const uint8_t mask = 0x80 >> (bit % 8);
    if ((a.bytes[bit / 8] & mask) != (b.bytes[bit / 8] & mask)) return false;
  }
  return true;
}

// `*` is one label, `**` one or more; labels compared as they are (both
// sides are lower case by then).
bool RefHostMatch(const std::vector<std::string>& rule,
                  const std::vector<absl::string_view>& host) {
  const size_t n = rule.size(), m = host.size();
  // can[i][j]: rule[i..n) matches host[j..m) exactly
  std::vector<std::vector<char>> can(n + 1, std::vector<char>(m + 1, 0));
  can[n][m] = 1;
  for (size_t i = n; i-- > 0;) {
    for (size_t j = m; j-- > 0;) {
      if (rule[i] == "**") {
        can[i][j] = can[i + 1][j + 1] || can[i][j + 1];
      } else {
        can[i][j] = (rule[i] == "*" || rule[i] == host[j]) && can[i + 1][j + 1];
      }
    }
  }
  return can[0][0] != 0;
}

void CheckAddressText(absl::string_view text) {
  std::optional<IpAddress> a = IpAddress::Parse(text);
  if (!a) return;
  FUZZ_CHECK(a->Unmapped() == *a, text);
  const std::string shown = a->ToString();
  std::optional<IpAddress> again = IpAddress::Parse(shown);
  FUZZ_CHECK(again && *again == *a, "'", text, "' shown as '", shown, "'");
  if (!absl::StrContains(text, ':')) {
    // Strict IPv4: only the canonical dotted quad.
    FUZZ_CHECK(!a->v6 && text == shown, "'", text, "' read as ", shown);
  } else {
    FUZZ_CHECK(absl::StrContains(text, ':') && !absl::StrContains(text, '%'),
               text);
  }
}

void CheckAddressBytes(const IpAddress& a) {
  const std::string shown = a.ToString();
  std::optional<IpAddress> parsed = IpAddress::Parse(shown);
  FUZZ_CHECK(parsed && *parsed == a.Unmapped(), shown);
  if (!a.v6) {
    FUZZ_CHECK(Mapped(a).Unmapped() == a, shown);
    FUZZ_CHECK(IpAddress::Parse(Mapped(a).ToString()) == a,
               Mapped(a).ToString());
  }
}

void CheckHostName(absl::string_view text) {
  absl::StatusOr<std::string> n = NormalizeHostName(text);
  if (!n.ok()) return;
  absl::StatusOr<std::string> again = NormalizeHostName(*n);
  FUZZ_CHECK(again.ok() && *again == *n, "'", text, "' -> '", *n, "'");
  std::string want = absl::AsciiStrToLower(text);
  if (absl::EndsWith(want, ".")) want.pop_back();
  FUZZ_CHECK(*n == want, "'", text, "' -> '", *n, "'");
  FUZZ_CHECK(!IpAddress::Parse(*n), "'", text, "' is an address");
  FUZZ_CHECK(n->size() <= 253, text);
}

void CheckTarget(absl::string_view text) {
  absl::StatusOr<HostPort> hp = ParseHostPort(text);
  if (!hp.ok()) return;
  // Userinfo never names the host.
  if (size_t at = text.rfind('@'); at != absl::string_view::npos) {
    absl::StatusOr<HostPort> after = ParseHostPort(text.substr(at + 1));
    FUZZ_CHECK(after.ok() && after->host == hp->host &&
                   after->port == hp->port && after->address == hp->address,
               text);
  }
  if (hp->address) {
    FUZZ_CHECK(hp->host == hp->address->ToString(), text, " -> ", hp->host);
  } else {
    absl::StatusOr<std::string> n = NormalizeHostName(hp->host);
    FUZZ_CHECK(n.ok() && *n == hp->host, "'", text, "' -> '", hp->host, "'");
  }
  // Written back, it reads the same.
  std::string written = hp->address && hp->address->v6
                            ? absl::StrCat("[", hp->host, "]")
                            : hp->host;
  if (hp->port != 0) absl::StrAppend(&written, ":", hp->port);
  absl::StatusOr<HostPort> again = ParseHostPort(written);
  FUZZ_CHECK(again.ok() && again->host == hp->host && again->port == hp->port &&
                 again->address == hp->address,
             "'", text, "' written as '", written,
             "': ", again.status().ToString());
}

void CheckRule(absl::string_view text, const IpAddress& address, uint16_t port,
               absl::string_view hostname) {
  absl::StatusOr<NetworkRule> rule = NetworkRule::Parse(text);
  if (!rule.ok()) return;
  FUZZ_CHECK(!absl::StrContains(text, '@') && !absl::StrContains(text, "://"),
             text);
  const std::string what =
      absl::StrCat("rule '", text, "' address ", address.ToString(), " port ",
                   port, " name '", hostname, "'");
  const bool admits = rule->Admits(address, port, hostname);
  // A rule's port, when it has one, is the only port it admits.
  if (rule->port() != 0) {
    FUZZ_CHECK(!admits || port == rule->port(), what);
    const uint16_t other = rule->port() == 65535 ? 1 : rule->port() + 1;
    FUZZ_CHECK(!rule->Admits(address, other, hostname), what, " other port");
  }
  const uint16_t good_port = rule->port() != 0 ? rule->port() : port;
  // A mapped IPv6 address is judged as the IPv4 address it carries.
  if (!address.v6) {
    FUZZ_CHECK(rule->Admits(Mapped(address), port, hostname) == admits, what,
               " mapped");
  }
  if (rule->names_host()) {
    // A host rule looks at the name only, and only at a name.
    FUZZ_CHECK(!rule->Admits(address, good_port, ""), what, " without a name");
    FUZZ_CHECK(
        rule->Admits(IpAddress::V4(0x7f000001), port, hostname) == admits, what,
        " other address");
    // Its labels, from the text: before the port, lower case, no final dot.
    std::string host = absl::AsciiStrToLower(text.substr(0, text.find(':')));
    if (absl::EndsWith(host, ".")) host.pop_back();
    const std::vector<std::string> labels = absl::StrSplit(host, '.');
    absl::StatusOr<std::string> name = NormalizeHostName(hostname);
    if (hostname.empty() || !name.ok()) {
      FUZZ_CHECK(!admits, what);
    } else if (name->size() <= 253 && labels.size() <= 64) {
      const bool want = (rule->port() == 0 || port == rule->port()) &&
                        RefHostMatch(labels, absl::StrSplit(*name, '.'));
      FUZZ_CHECK(admits == want, what, " want ", want);
    }
    const std::string literal = rule->literal_host();
    if (!literal.empty()) {
      FUZZ_CHECK(literal == host, what, " literal '", literal, "'");
      FUZZ_CHECK(rule->Admits(address, good_port, literal), what);
      FUZZ_CHECK(
          rule->Admits(address, good_port,
                       absl::StrCat(absl::AsciiStrToUpper(literal), ".")),
          what);
    }
  } else {
    FUZZ_CHECK(rule->literal_host().empty(), what);
    // An address, a CIDR or `*` does not look at the name.
    FUZZ_CHECK(rule->Admits(address, port, "") == admits, what, " no name");
    FUZZ_CHECK(rule->Admits(address, port, "other.example") == admits, what,
               " other name");
  }
}

// A CIDR written from fuzzer bytes, host bits cleared: it must parse, and
// admit exactly the addresses that share its prefix.
void CheckCidr(const uint8_t* bytes, bool v6, int prefix,
               const IpAddress& probe, uint16_t port) {
  const int bits = v6 ? 128 : 32;
  prefix %= bits + 1;
  IpAddress base = IpAddress::FromBytes(v6, bytes);
  if (base.v6 != v6) return;  // mapped: it is an IPv4 address then
  for (int bit = prefix; bit < bits; ++bit) {
    base.bytes[bit / 8] &= ~(0x80 >> (bit % 8));
  }
  std::vector<std::string> texts;
  const std::string shown = base.ToString();
  if (v6) {
    texts = {absl::StrCat(shown, "/", prefix),
             absl::StrCat("[", shown, "]/", prefix),
             absl::StrCat("[", shown, "]/", prefix, ":", port == 0 ? 1 : port)};
  } else {
    texts = {absl::StrCat(shown, "/", prefix),
             absl::StrCat(shown, "/", prefix, ":", port == 0 ? 1 : port)};
  }
  if (prefix == bits) {
    texts.push_back(v6 ? absl::StrCat("[", shown, "]") : shown);
  }
  for (const std::string& text : texts) {
    absl::StatusOr<NetworkRule> rule = NetworkRule::Parse(text);
    FUZZ_CHECK(rule.ok(), "'", text, "': ", rule.status().ToString());
    FUZZ_CHECK(!rule->names_host(), text);
    const uint16_t p = rule->port() != 0 ? rule->port() : port;
    FUZZ_CHECK(rule->Admits(base, p, "any.name"), text);
    const IpAddress a = probe.Unmapped();
    const bool want = a.v6 == v6 && SamePrefix(a, base, prefix);
    FUZZ_CHECK(rule->Admits(probe, p, "") == want, "'", text, "' probe ",
               probe.ToString(), " want ", want);
    if (prefix > 0) {
      IpAddress flipped = base;
      flipped.bytes[(prefix - 1) / 8] ^= 0x80 >> ((prefix - 1) % 8);
      FUZZ_CHECK(!rule->Admits(flipped, p, ""), text, " ", flipped.ToString());
    }
    if (prefix < bits) {
      IpAddress host = base;
      host.bytes[(bits - 1) / 8] ^= 1;
      FUZZ_CHECK(rule->Admits(host, p, ""), text, " ", host.ToString());
    }
  }
}

}  // namespace
}  // namespace klaunch

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace klaunch;
  if (size < 19) return 0;
  const bool v6 = data[0] & 1;
  const int prefix = data[0] >> 1;
  const IpAddress address = IpAddress::FromBytes(v6, data + 1);
  const uint16_t port = static_cast<uint16_t>(data[17] << 8 | data[18]);
  const absl::string_view text(reinterpret_cast<const char*>(data) + 19,
                               size - 19);
  CheckAddressBytes(address);
  CheckCidr(data + 1, v6, prefix, address, port);
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  for (absl::string_view line : lines) {
    CheckAddressText(line);
    CheckHostName(line);
    CheckTarget(line);
  }
  lines.resize(std::max<size_t>(lines.size(), 3));
  // The name the program resolved; a target line that parses gives the
  // address too.
  IpAddress target = address;
  if (absl::StatusOr<HostPort> hp = ParseHostPort(lines[1]);
      hp.ok() && hp->address) {
    target = *hp->address;
  }
  CheckRule(lines[0], target, port, lines[2]);
  CheckRule(lines[0], address, port, lines[1]);
  return 0;
}
