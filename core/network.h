// Hosts, addresses and ports: parsing of `network.allow` entries and of
// connect targets, and matching one against the other.
//
//   NetworkRule r = *NetworkRule::Parse("*.pythonhosted.org:443");
//   r.Admits(addr, 443, "files.pythonhosted.org")  // true
//   r.Admits(addr, 443, "pythonhosted.org")        // false: * is one label
//
// Grammar of a rule (no userinfo, no scheme):
//   HOST[:PORT]       HOST is a name glob whose labels are names, `*` (one
//                     label) or `**` (one or more labels); compared without
//                     regard to case; a trailing dot is dropped
//   ADDR[:PORT]       a dotted-quad IPv4 address, or `[IPv6]`
//   CIDR[:PORT]       `10.0.0.0/8`, `[fd00::]/8`; a bare `fd00::/8` (no port)
//   *[:PORT]          any host and address
// PORT is 1-65535 or `*`; without one, every port is admitted. IPv4-mapped
// IPv6 addresses are judged as the IPv4 address they carry. Loopback is not
// special: it is admitted only by a rule that names it.

#ifndef KLAUNCH_CORE_NETWORK_H_
#define KLAUNCH_CORE_NETWORK_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace klaunch {

struct IpAddress {
  bool v6 = false;
  std::array<uint8_t, 16> bytes{};  // IPv4 uses the first four

  // Strict: IPv4 only as four decimal parts without leading zeros (so
  // "127.1" and "0x7f.0.0.1" are not addresses); IPv6 as inet_pton reads it,
  // without a zone. IPv4-mapped IPv6 is returned as IPv4.
  static std::optional<IpAddress> Parse(absl::string_view text);
  static IpAddress V4(uint32_t host_order);
  static IpAddress FromBytes(bool v6, const uint8_t* bytes);

  // ::ffff:a.b.c.d as a.b.c.d; every other address as itself.
  IpAddress Unmapped() const;
  std::string ToString() const;
  bool operator==(const IpAddress& other) const = default;
};

// A parsed connect target: "user@Example.COM:443", "[::1]:8080", "10.1.2.3".
struct HostPort {
  std::string host;                  // lower case, no trailing dot
  std::optional<IpAddress> address;  // set when host is an address literal
  uint16_t port = 0;                 // 0: none given
};
absl::StatusOr<HostPort> ParseHostPort(absl::string_view text);

class NetworkRule {
 public:
  static absl::StatusOr<NetworkRule> Parse(absl::string_view text);

  // `hostname` is the name the program resolved to reach `address`, or empty
  // when it connected to an address it did not resolve by name.
  bool Admits(const IpAddress& address, uint16_t port,
              absl::string_view hostname) const;

  // True when every connection `inner` admits, this rule admits too
  // (ports, CIDR containment, host globs label by label). May say false
  // for an inclusion it cannot show; never true for one that fails.
  bool Includes(const NetworkRule& inner) const;

  const std::string& text() const { return text_; }
  // 0 when the rule admits every port.
  uint16_t port() const { return port_; }
  bool names_host() const { return kind_ == Kind::kHost; }
  // The one host name the rule names ("pypi.org" for "PyPI.org.:443"), lower
  // case and without a trailing dot; empty for a glob (`*.example.com`,
  // `**`), an address, a CIDR or `*`. Only such a name can be resolved ahead
  // of the program: a glob names no host to ask the resolver about.
  std::string literal_host() const;

 private:
  enum class Kind { kAny, kHost, kCidr };
  bool HostMatches(absl::string_view hostname) const;

  std::string text_;
  Kind kind_ = Kind::kAny;
  std::vector<std::string> labels_;  // kHost
  IpAddress base_;                   // kCidr
  int prefix_ = 0;                   // kCidr
  uint16_t port_ = 0;
};

// Lower case, trailing dot dropped, checked for valid labels.
absl::StatusOr<std::string> NormalizeHostName(absl::string_view name);

}  // namespace klaunch

#endif  // KLAUNCH_CORE_NETWORK_H_
