#include "core/network.h"

#include <arpa/inet.h>

#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/types/span.h"

namespace klaunch {
namespace {

absl::Status Bad(absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("'", text, "': ", why));
}

std::optional<IpAddress> ParseV4(absl::string_view text) {
  std::vector<absl::string_view> parts = absl::StrSplit(text, '.');
  if (parts.size() != 4) return std::nullopt;
  IpAddress out;
  for (int i = 0; i < 4; ++i) {
    absl::string_view p = parts[i];
    if (p.empty() || p.size() > 3) return std::nullopt;
    if (p.size() > 1 && p[0] == '0') return std::nullopt;
    int value = 0;
    for (char c : p) {
      if (c < '0' || c > '9') return std::nullopt;
      value = value * 10 + (c - '0');
    }
    if (value > 255) return std::nullopt;
    out.bytes[i] = static_cast<uint8_t>(value);
  }
  return out;
}

// True for every spelling the C library would read as an IPv4 address
// ("127.1", "0x7f.0.0.1", "017.0.0.1") or that is only digits and dots: such
// a "name" is not a host name, and must not pass as one.
bool LooksNumeric(absl::string_view text) {
  bool digits_and_dots = true;
  for (char c : text) {
    if (c != '.' && (c < '0' || c > '9')) digits_and_dots = false;
  }
  if (digits_and_dots) return true;
  if (text.size() > 64) return false;
  char buf[65];
  std::memcpy(buf, text.data(), text.size());
  buf[text.size()] = '\0';
  struct in_addr unused;
  return inet_aton(buf, &unused) != 0;
}

absl::StatusOr<uint16_t> ParsePort(absl::string_view whole,
                                   absl::string_view port) {
  int value = 0;
  if (port.empty() || port.size() > 5 || !absl::SimpleAtoi(port, &value) ||
      port[0] == '+' || port[0] == '-' || value < 1 || value > 65535) {
    return Bad(whole,
               absl::StrCat("bad port '", port, "' (expected 1-65535 or *)"));
  }
  return static_cast<uint16_t>(value);
}

// Splits "HOST:PORT", "[V6]:PORT", "[V6]", "HOST" into host and port text.
// A bare IPv6 (two or more colons, no brackets) has no port.
struct Split {
  absl::string_view host;
  absl::string_view suffix;  // after ']' for bracketed forms, e.g. "/64"
  std::optional<absl::string_view> port;
  bool bracketed = false;
};

absl::StatusOr<Split> SplitHostPort(absl::string_view text) {
  Split out;
  if (!text.empty() && text[0] == '[') {
    size_t close = text.find(']');
    if (close == absl::string_view::npos) return Bad(text, "missing ']'");
    out.bracketed = true;
    out.host = text.substr(1, close - 1);
    absl::string_view rest = text.substr(close + 1);
    size_t colon = rest.find(':');
    if (colon != absl::string_view::npos) {
      out.port = rest.substr(colon + 1);
      rest = rest.substr(0, colon);
    }
    out.suffix = rest;
    return out;
  }
  size_t colons = std::count(text.begin(), text.end(), ':');
  if (colons >= 2) {
    out.host = text;
    return out;
  }
  size_t colon = text.rfind(':');
  if (colon == absl::string_view::npos) {
    out.host = text;
  } else {
    out.host = text.substr(0, colon);
    out.port = text.substr(colon + 1);
  }
  return out;
}

bool LabelIsValid(absl::string_view label) {
  if (label.empty() || label.size() > 63) return false;
  for (char c : label) {
    if (!absl::ascii_isalnum(c) && c != '-' && c != '_') return false;
  }
  return true;
}

}  // namespace

std::optional<IpAddress> IpAddress::Parse(absl::string_view text) {
  if (std::optional<IpAddress> v4 = ParseV4(text)) return v4;
  if (text.find(':') == absl::string_view::npos || text.size() > 45 ||
      text.find('%') != absl::string_view::npos) {
    return std::nullopt;
  }
  char buf[64];
  std::memcpy(buf, text.data(), text.size());
  buf[text.size()] = '\0';
  IpAddress out;
  out.v6 = true;
  if (inet_pton(AF_INET6, buf, out.bytes.data()) != 1) return std::nullopt;
  return out.Unmapped();
}

IpAddress IpAddress::V4(uint32_t host_order) {
  IpAddress out;
  out.bytes[0] = host_order >> 24;
  out.bytes[1] = host_order >> 16;
  out.bytes[2] = host_order >> 8;
  out.bytes[3] = host_order;
  return out;
}

IpAddress IpAddress::FromBytes(bool v6, const uint8_t* bytes) {
  IpAddress out;
  out.v6 = v6;
  std::memcpy(out.bytes.data(), bytes, v6 ? 16 : 4);
  return out.Unmapped();
}

IpAddress IpAddress::Unmapped() const {
  static constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0,    0,
                                          0, 0, 0, 0, 0xff, 0xff};
  if (!v6 || std::memcmp(bytes.data(), kMapped, 12) != 0) return *this;
  IpAddress out;
  std::memcpy(out.bytes.data(), bytes.data() + 12, 4);
  return out;
}

std::string IpAddress::ToString() const {
  char buf[INET6_ADDRSTRLEN];
  inet_ntop(v6 ? AF_INET6 : AF_INET, bytes.data(), buf, sizeof(buf));
  return buf;
}

absl::StatusOr<std::string> NormalizeHostName(absl::string_view name) {
  std::string host = absl::AsciiStrToLower(name);
  if (!host.empty() && host.back() == '.') host.pop_back();
  if (host.empty()) return Bad(name, "empty host name");
  if (LooksNumeric(host)) return Bad(name, "an address, not a host name");
  if (host.size() > 253) return Bad(name, "host name longer than 253");
  for (absl::string_view label : absl::StrSplit(host, '.')) {
    if (!LabelIsValid(label)) {
      return Bad(name, absl::StrCat("'", label, "' is not a valid label"));
    }
  }
  return host;
}

absl::StatusOr<HostPort> ParseHostPort(absl::string_view text) {
  absl::string_view rest = text;
  // Userinfo never names the host: "pypi.org@evil.example" is evil.example.
  size_t at = rest.rfind('@');
  if (at != absl::string_view::npos) rest = rest.substr(at + 1);
  absl::StatusOr<Split> split = SplitHostPort(rest);
  if (!split.ok()) return split.status();
  if (!split->suffix.empty()) return Bad(text, "unexpected text after ']'");
  HostPort out;
  if (split->port) {
    absl::StatusOr<uint16_t> port = ParsePort(text, *split->port);
    if (!port.ok()) return port.status();
    out.port = *port;
  }
  std::optional<IpAddress> address = IpAddress::Parse(split->host);
  if (split->bracketed &&
      (!address || split->host.find(':') == absl::string_view::npos)) {
    return Bad(text, "brackets hold an IPv6 address");
  }
  if (address) {
    out.address = address;
    out.host = address->ToString();
    return out;
  }
  if (LooksNumeric(split->host)) {
    return Bad(text, "not a valid IPv4 address (write four decimal parts)");
  }
  absl::StatusOr<std::string> host = NormalizeHostName(split->host);
  if (!host.ok()) return host.status();
  out.host = *host;
  return out;
}

absl::StatusOr<NetworkRule> NetworkRule::Parse(absl::string_view text) {
  NetworkRule rule;
  rule.text_ = std::string(text);
  if (text.empty()) return Bad(text, "empty network rule");
  if (text.find('@') != absl::string_view::npos) {
    return Bad(text, "a rule names a host, not user@host");
  }
  if (text.find("://") != absl::string_view::npos) {
    return Bad(text, "a rule names a host, not a URL");
  }
  absl::StatusOr<Split> split = SplitHostPort(text);
  if (!split.ok()) return split.status();
  if (split->port && *split->port != "*") {
    absl::StatusOr<uint16_t> port = ParsePort(text, *split->port);
    if (!port.ok()) return port.status();
    rule.port_ = *port;
  }
  absl::string_view host = split->host;
  absl::string_view prefix_text;
  if (split->bracketed) {
    if (!split->suffix.empty()) {
      if (split->suffix[0] != '/')
        return Bad(text, "unexpected text after ']'");
      prefix_text = split->suffix.substr(1);
    }
  } else if (size_t slash = host.find('/'); slash != absl::string_view::npos) {
    prefix_text = host.substr(slash + 1);
    host = host.substr(0, slash);
  }
  if (host == "*" && !split->bracketed && prefix_text.empty()) {
    rule.kind_ = Kind::kAny;
    return rule;
  }
  std::optional<IpAddress> address = IpAddress::Parse(host);
  if (split->bracketed &&
      (!address || host.find(':') == absl::string_view::npos)) {
    return Bad(text, "brackets hold an IPv6 address");
  }
  if (address) {
    rule.kind_ = Kind::kCidr;
    rule.base_ = *address;
    const int bits = address->v6 ? 128 : 32;
    rule.prefix_ = bits;
    if (!prefix_text.empty() || split->suffix == "/" ||
        (host.size() < split->host.size())) {
      int prefix = -1;
      if (!absl::SimpleAtoi(prefix_text, &prefix) || prefix < 0 ||
          prefix > bits || prefix_text[0] == '+' || prefix_text[0] == '-') {
        return Bad(text, absl::StrCat("bad prefix length '", prefix_text,
                                      "' (expected 0-", bits, ")"));
      }
      rule.prefix_ = prefix;
    }
    for (int bit = rule.prefix_; bit < bits; ++bit) {
      if (rule.base_.bytes[bit / 8] & (0x80 >> (bit % 8))) {
        return Bad(text, "host bits are set after the prefix length");
      }
    }
    return rule;
  }
  if (!prefix_text.empty() || host.size() < split->host.size()) {
    return Bad(text, "a prefix length needs an address before it");
  }
  rule.kind_ = Kind::kHost;
  std::string lower = absl::AsciiStrToLower(host);
  if (!lower.empty() && lower.back() == '.') lower.pop_back();
  if (lower.empty()) return Bad(text, "empty host name");
  // No name it could be matched against is longer (NormalizeHostName).
  if (lower.size() > 253) return Bad(text, "host name longer than 253");
  // After the final dot is gone, as NormalizeHostName judges the names it
  // is matched against: "0x7f." is no more a name than "0x7f".
  if (LooksNumeric(lower)) {
    return Bad(text, "not a valid IPv4 address (write four decimal parts)");
  }
  for (absl::string_view label : absl::StrSplit(lower, '.')) {
    if (label != "*" && label != "**" && !LabelIsValid(label)) {
      return Bad(text, absl::StrCat("'", label,
                                    "' is not a label (globs match whole "
                                    "labels: *.example.com)"));
    }
    rule.labels_.emplace_back(label);
  }
  return rule;
}

std::string NetworkRule::literal_host() const {
  if (kind_ != Kind::kHost) return "";
  for (const std::string& label : labels_) {
    if (label == "*" || label == "**") return "";
  }
  return absl::StrJoin(labels_, ".");
}

bool NetworkRule::HostMatches(absl::string_view hostname) const {
  std::vector<absl::string_view> labels = absl::StrSplit(hostname, '.');
  // Small backtracking match: `**` takes one or more labels.
  auto match = [&](auto&& self, size_t r, size_t h) -> bool {
    if (r == labels_.size()) return h == labels.size();
    if (labels_[r] == "**") {
      for (size_t take = 1; h + take <= labels.size(); ++take) {
        if (self(self, r + 1, h + take)) return true;
      }
      return false;
    }
    if (h == labels.size()) return false;
    if (labels_[r] != "*" && labels_[r] != labels[h]) return false;
    return self(self, r + 1, h + 1);
  };
  return match(match, 0, 0);
}

namespace {

// True when every label sequence `inner` (a host glob's labels: `*` one
// label, `**` one or more) matches is matched by `outer`.
bool LabelsCover(absl::Span<const std::string> outer,
                 absl::Span<const std::string> inner) {
  if (outer.empty()) return inner.empty();
  if (outer[0] == "**") {
    for (size_t take = 1; take <= inner.size(); ++take) {
      if (LabelsCover(outer.subspan(1), inner.subspan(take))) return true;
    }
    return false;
  }
  if (inner.empty() || inner[0] == "**") return false;
  if (outer[0] != "*" && (inner[0] == "*" || outer[0] != inner[0])) {
    return false;
  }
  return LabelsCover(outer.subspan(1), inner.subspan(1));
}

}  // namespace

bool NetworkRule::Includes(const NetworkRule& inner) const {
  if (port_ != 0 && port_ != inner.port_) return false;
  switch (kind_) {
    case Kind::kAny:
      return true;
    case Kind::kHost:
      // An address rule admits whatever name led there; a host rule only
      // its names.
      return inner.kind_ == Kind::kHost && LabelsCover(labels_, inner.labels_);
    case Kind::kCidr:
      if (inner.kind_ != Kind::kCidr || inner.base_.v6 != base_.v6 ||
          inner.prefix_ < prefix_) {
        return false;
      }
      for (int bit = 0; bit < prefix_; ++bit) {
        const uint8_t mask = 0x80 >> (bit % 8);
        if ((inner.base_.bytes[bit / 8] & mask) !=
            (base_.bytes[bit / 8] & mask)) {
          return false;
        }
      }
      return true;
  }
  return false;
}

bool NetworkRule::Admits(const IpAddress& address, uint16_t port,
                         absl::string_view hostname) const {
  if (port_ != 0 && port_ != port) return false;
  switch (kind_) {
    case Kind::kAny:
      return true;
    case Kind::kHost: {
      if (hostname.empty()) return false;
      absl::StatusOr<std::string> name = NormalizeHostName(hostname);
      return name.ok() && HostMatches(*name);
    }
    case Kind::kCidr: {
      IpAddress a = address.Unmapped();
      if (a.v6 != base_.v6) return false;
      for (int bit = 0; bit < prefix_; ++bit) {
        const uint8_t mask = 0x80 >> (bit % 8);
        if ((a.bytes[bit / 8] & mask) != (base_.bytes[bit / 8] & mask)) {
          return false;
        }
      }
      return true;
    }
  }
  return false;
}

}  // namespace klaunch
