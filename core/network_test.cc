#include "core/network.h"

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace klaunch {
namespace {

using ::testing::HasSubstr;

template <typename T>
void ExpectInvalid(const absl::StatusOr<T>& result,
                   absl::string_view substring) {
  ASSERT_FALSE(result.ok()) << "unexpectedly succeeded";
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(result.status().message()),
              HasSubstr(std::string(substring)));
}

IpAddress Ip(absl::string_view text) {
  std::optional<IpAddress> a = IpAddress::Parse(text);
  EXPECT_TRUE(a.has_value()) << text;
  return a.value_or(IpAddress{});
}

// An IPv4-mapped IPv6 address kept in its v6 form (as the kernel reports a
// peer on a dual-stack socket).
IpAddress RawMapped(uint8_t a, uint8_t b, uint8_t c, uint8_t d) {
  IpAddress out;
  out.v6 = true;
  out.bytes = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, a, b, c, d};
  return out;
}

NetworkRule Rule(absl::string_view text) {
  absl::StatusOr<NetworkRule> r = NetworkRule::Parse(text);
  EXPECT_TRUE(r.ok()) << text << ": " << r.status();
  if (!r.ok()) return *NetworkRule::Parse("never.invalid:1");
  return *std::move(r);
}

HostPort Target(absl::string_view text) {
  absl::StatusOr<HostPort> hp = ParseHostPort(text);
  EXPECT_TRUE(hp.ok()) << text << ": " << hp.status();
  return hp.ok() ? *hp : HostPort{};
}

const IpAddress kAnyAddr = IpAddress::V4(0x5db8d822);  // 93.184.216.34

// ---------------------------------------------------------------------------
// IpAddress

TEST(IpAddress, ParsesADottedQuad) {
  IpAddress a = Ip("10.1.2.3");
  EXPECT_FALSE(a.v6);
  EXPECT_EQ(a.bytes[0], 10);
  EXPECT_EQ(a.bytes[1], 1);
  EXPECT_EQ(a.bytes[2], 2);
  EXPECT_EQ(a.bytes[3], 3);
  EXPECT_EQ(a, IpAddress::V4(0x0a010203));
  EXPECT_EQ(Ip("0.0.0.0"), IpAddress::V4(0));
  EXPECT_EQ(Ip("255.255.255.255"), IpAddress::V4(0xffffffff));
}

TEST(IpAddress, RejectsShortAndLongIpv4Forms) {
  EXPECT_FALSE(IpAddress::Parse("127.1").has_value());
  EXPECT_FALSE(IpAddress::Parse("127.0.1").has_value());
  EXPECT_FALSE(IpAddress::Parse("2130706433").has_value());
  EXPECT_FALSE(IpAddress::Parse("1.2.3.4.5").has_value());
}

TEST(IpAddress, RejectsHexOctalAndLeadingZeros) {
  EXPECT_FALSE(IpAddress::Parse("0x7f.0.0.1").has_value());
  EXPECT_FALSE(IpAddress::Parse("0177.0.0.1").has_value());
  EXPECT_FALSE(IpAddress::Parse("010.0.0.1").has_value());
  EXPECT_FALSE(IpAddress::Parse("1.2.3.04").has_value());
  EXPECT_FALSE(IpAddress::Parse("00.0.0.0").has_value());
}

TEST(IpAddress, RejectsOutOfRangeAndMalformedIpv4) {
  EXPECT_FALSE(IpAddress::Parse("256.0.0.1").has_value());
  EXPECT_FALSE(IpAddress::Parse("1.2.3.1000").has_value());
  EXPECT_FALSE(IpAddress::Parse("1..3.4").has_value());
  EXPECT_FALSE(IpAddress::Parse("1.2.3.").has_value());
  EXPECT_FALSE(IpAddress::Parse(".1.2.3").has_value());
  EXPECT_FALSE(IpAddress::Parse("1.2.3.4.").has_value());
  EXPECT_FALSE(IpAddress::Parse(" 1.2.3.4").has_value());
  EXPECT_FALSE(IpAddress::Parse("1.2.3.4 ").has_value());
  EXPECT_FALSE(IpAddress::Parse("1.2.3.-4").has_value());
  EXPECT_FALSE(IpAddress::Parse("1.2.3.+4").has_value());
  EXPECT_FALSE(IpAddress::Parse("").has_value());
  EXPECT_FALSE(IpAddress::Parse("example.com").has_value());
}

TEST(IpAddress, ParsesIpv6) {
  IpAddress a = Ip("::1");
  EXPECT_TRUE(a.v6);
  for (int i = 0; i < 15; ++i) EXPECT_EQ(a.bytes[i], 0) << i;
  EXPECT_EQ(a.bytes[15], 1);

  IpAddress b = Ip("2001:DB8::ff00:42:8329");
  EXPECT_TRUE(b.v6);
  EXPECT_EQ(b.bytes[0], 0x20);
  EXPECT_EQ(b.bytes[1], 0x01);
  EXPECT_EQ(b.bytes[2], 0x0d);
  EXPECT_EQ(b.bytes[3], 0xb8);
  EXPECT_EQ(b.bytes[15], 0x29);
  EXPECT_EQ(b.ToString(), "2001:db8::ff00:42:8329");
}

TEST(IpAddress, RejectsMalformedIpv6) {
  EXPECT_FALSE(IpAddress::Parse("1:2:3:4:5:6:7:8:9").has_value());
  EXPECT_FALSE(IpAddress::Parse("1::2::3").has_value());
  EXPECT_FALSE(IpAddress::Parse("12345::1").has_value());
  EXPECT_FALSE(IpAddress::Parse("::g").has_value());
  EXPECT_FALSE(IpAddress::Parse("[::1]").has_value());
  EXPECT_FALSE(IpAddress::Parse(":").has_value());
}

TEST(IpAddress, RejectsAZoneId) {
  EXPECT_FALSE(IpAddress::Parse("fe80::1%eth0").has_value());
  EXPECT_FALSE(IpAddress::Parse("fe80::1%1").has_value());
}

TEST(IpAddress, RejectsOverlongText) {
  EXPECT_FALSE(
      IpAddress::Parse(absl::StrCat("::1", std::string(100, ' '))).has_value());
  EXPECT_FALSE(
      IpAddress::Parse(absl::StrCat(std::string(100, '0'), "::1")).has_value());
}

TEST(IpAddress, ReturnsMappedIpv6AsIpv4) {
  IpAddress a = Ip("::ffff:1.2.3.4");
  EXPECT_FALSE(a.v6);
  EXPECT_EQ(a, IpAddress::V4(0x01020304));
  EXPECT_EQ(Ip("::FFFF:7f00:1"), IpAddress::V4(0x7f000001));
  EXPECT_EQ(Ip("0:0:0:0:0:ffff:10.0.0.1"), IpAddress::V4(0x0a000001));
}

TEST(IpAddress, KeepsNonMappedEmbeddedIpv4AsIpv6) {
  // IPv4-compatible (deprecated) and SIIT-translated forms are not mapped.
  EXPECT_TRUE(Ip("::1.2.3.4").v6);
  EXPECT_TRUE(Ip("::ffff:0:1.2.3.4").v6);
  EXPECT_TRUE(Ip("64:ff9b::1.2.3.4").v6);
}

TEST(IpAddress, UnmappedTurnsAMappedAddressIntoIpv4) {
  IpAddress mapped = RawMapped(192, 168, 1, 7);
  IpAddress plain = mapped.Unmapped();
  EXPECT_FALSE(plain.v6);
  EXPECT_EQ(plain, IpAddress::V4(0xc0a80107));
  EXPECT_EQ(plain.ToString(), "192.168.1.7");
}

TEST(IpAddress, UnmappedLeavesOtherAddressesAlone) {
  IpAddress v4 = IpAddress::V4(0x0a000001);
  EXPECT_EQ(v4.Unmapped(), v4);
  IpAddress v6 = Ip("2001:db8::1");
  EXPECT_EQ(v6.Unmapped(), v6);
  IpAddress loop6 = Ip("::1");
  EXPECT_EQ(loop6.Unmapped(), loop6);
  EXPECT_TRUE(loop6.Unmapped().v6);
  // ::fffe:a.b.c.d is one bit away from mapped.
  IpAddress near = RawMapped(1, 2, 3, 4);
  near.bytes[11] = 0xfe;
  EXPECT_EQ(near.Unmapped(), near);
}

TEST(IpAddress, FromBytesUnmaps) {
  const uint8_t mapped[16] = {0, 0, 0,    0,    0,   0, 0, 0,
                              0, 0, 0xff, 0xff, 127, 0, 0, 1};
  EXPECT_EQ(IpAddress::FromBytes(true, mapped), IpAddress::V4(0x7f000001));
  const uint8_t v4[4] = {8, 8, 4, 4};
  EXPECT_EQ(IpAddress::FromBytes(false, v4), IpAddress::V4(0x08080404));
}

TEST(IpAddress, ToStringPrintsCanonicalText) {
  EXPECT_EQ(IpAddress::V4(0x0a000001).ToString(), "10.0.0.1");
  EXPECT_EQ(Ip("0:0:0:0:0:0:0:1").ToString(), "::1");
  EXPECT_EQ(Ip("FD00:0000::0001").ToString(), "fd00::1");
}

// ---------------------------------------------------------------------------
// ParseHostPort

TEST(ParseHostPort, ParsesAHostAlone) {
  HostPort hp = Target("pypi.org");
  EXPECT_EQ(hp.host, "pypi.org");
  EXPECT_EQ(hp.port, 0);
  EXPECT_FALSE(hp.address.has_value());
}

TEST(ParseHostPort, ParsesAHostAndPort) {
  HostPort hp = Target("pypi.org:443");
  EXPECT_EQ(hp.host, "pypi.org");
  EXPECT_EQ(hp.port, 443);
  EXPECT_FALSE(hp.address.has_value());
}

TEST(ParseHostPort, UserinfoNeverNamesTheHost) {
  HostPort hp = Target("pypi.org@evil.example");
  EXPECT_EQ(hp.host, "evil.example");
  EXPECT_EQ(hp.port, 0);

  hp = Target("pypi.org:443@evil.example:8443");
  EXPECT_EQ(hp.host, "evil.example");
  EXPECT_EQ(hp.port, 8443);

  hp = Target("a@pypi.org@evil.example");
  EXPECT_EQ(hp.host, "evil.example");

  hp = Target("user@Example.COM:443");
  EXPECT_EQ(hp.host, "example.com");
  EXPECT_EQ(hp.port, 443);

  hp = Target("user:pw@[::1]:22");
  EXPECT_EQ(hp.host, "::1");
  EXPECT_EQ(hp.port, 22);
  ASSERT_TRUE(hp.address.has_value());
  EXPECT_TRUE(hp.address->v6);
}

TEST(ParseHostPort, LowerCasesTheHost) {
  EXPECT_EQ(Target("PyPI.ORG").host, "pypi.org");
  EXPECT_EQ(Target("FILES.PythonHosted.Org:443").host,
            "files.pythonhosted.org");
}

TEST(ParseHostPort, DropsATrailingDot) {
  EXPECT_EQ(Target("pypi.org.").host, "pypi.org");
  HostPort hp = Target("PyPI.org.:443");
  EXPECT_EQ(hp.host, "pypi.org");
  EXPECT_EQ(hp.port, 443);
}

TEST(ParseHostPort, AcceptsPortsAtTheEdgesOfTheRange) {
  EXPECT_EQ(Target("h.example:1").port, 1);
  EXPECT_EQ(Target("h.example:65535").port, 65535);
}

TEST(ParseHostPort, RejectsBadPorts) {
  ExpectInvalid(ParseHostPort("h.example:0"), "bad port");
  ExpectInvalid(ParseHostPort("h.example:65536"), "bad port");
  ExpectInvalid(ParseHostPort("h.example:99999"), "bad port");
  ExpectInvalid(ParseHostPort("h.example:abc"), "bad port");
  ExpectInvalid(ParseHostPort("h.example:"), "bad port");
  ExpectInvalid(ParseHostPort("h.example:-1"), "bad port");
  ExpectInvalid(ParseHostPort("h.example:+80"), "bad port");
  ExpectInvalid(ParseHostPort("h.example:80x"), "bad port");
  ExpectInvalid(ParseHostPort("h.example:443/path"), "bad port");
  ExpectInvalid(ParseHostPort("[::1]:0"), "bad port");
  ExpectInvalid(ParseHostPort("[::1]:"), "bad port");
}

TEST(ParseHostPort, ParsesAnIpv4Literal) {
  HostPort hp = Target("10.1.2.3:8080");
  ASSERT_TRUE(hp.address.has_value());
  EXPECT_EQ(*hp.address, IpAddress::V4(0x0a010203));
  EXPECT_EQ(hp.host, "10.1.2.3");
  EXPECT_EQ(hp.port, 8080);
}

TEST(ParseHostPort, RejectsANonStrictIpv4Literal) {
  ExpectInvalid(ParseHostPort("127.1"), "four decimal parts");
  ExpectInvalid(ParseHostPort("127.1:80"), "four decimal parts");
  ExpectInvalid(ParseHostPort("010.0.0.1"), "four decimal parts");
  ExpectInvalid(ParseHostPort("2130706433"), "four decimal parts");
  ExpectInvalid(ParseHostPort("1.2.3.4.5"), "four decimal parts");
}

TEST(ParseHostPort, ParsesABracketedIpv6WithAndWithoutPort) {
  HostPort hp = Target("[::1]:8080");
  ASSERT_TRUE(hp.address.has_value());
  EXPECT_EQ(*hp.address, Ip("::1"));
  EXPECT_EQ(hp.host, "::1");
  EXPECT_EQ(hp.port, 8080);

  hp = Target("[2001:DB8::1]");
  ASSERT_TRUE(hp.address.has_value());
  EXPECT_EQ(hp.host, "2001:db8::1");
  EXPECT_EQ(hp.port, 0);
}

TEST(ParseHostPort, ReadsABareIpv6AsAnAddressWithoutPort) {
  HostPort hp = Target("fd00::1:443");
  ASSERT_TRUE(hp.address.has_value());
  EXPECT_TRUE(hp.address->v6);
  EXPECT_EQ(hp.port, 0);
  EXPECT_EQ(hp.host, "fd00::1:443");
}

TEST(ParseHostPort, JudgesAMappedIpv6LiteralAsIpv4) {
  HostPort hp = Target("[::ffff:127.0.0.1]:80");
  ASSERT_TRUE(hp.address.has_value());
  EXPECT_FALSE(hp.address->v6);
  EXPECT_EQ(*hp.address, IpAddress::V4(0x7f000001));
  EXPECT_EQ(hp.host, "127.0.0.1");
  EXPECT_EQ(hp.port, 80);
}

TEST(ParseHostPort, RejectsBadBrackets) {
  ExpectInvalid(ParseHostPort("[::1"), "missing ']'");
  ExpectInvalid(ParseHostPort("[1.2.3.4]:80"), "brackets hold an IPv6");
  ExpectInvalid(ParseHostPort("[example.com]:80"), "brackets hold an IPv6");
  ExpectInvalid(ParseHostPort("[]:80"), "brackets hold an IPv6");
  ExpectInvalid(ParseHostPort("[fe80::1%eth0]:80"), "brackets hold an IPv6");
  ExpectInvalid(ParseHostPort("[::1]x"), "after ']'");
  ExpectInvalid(ParseHostPort("[::1]/64"), "after ']'");
}

TEST(ParseHostPort, RejectsInvalidHostNames) {
  for (absl::string_view empty : {"", ".", "user@", ":443", "user@:443"}) {
    EXPECT_EQ(ParseHostPort(empty).status().code(),
              absl::StatusCode::kInvalidArgument)
        << "'" << empty << "'";
  }
  ExpectInvalid(ParseHostPort("a..b"), "not a valid label");
  ExpectInvalid(ParseHostPort(".example.com"), "not a valid label");
  ExpectInvalid(ParseHostPort("exa mple.com"), "not a valid label");
  ExpectInvalid(ParseHostPort("evil.example/x"), "not a valid label");
  ExpectInvalid(ParseHostPort("*.example.com"), "not a valid label");
  ExpectInvalid(ParseHostPort(absl::StrCat(std::string(64, 'a'), ".com")),
                "not a valid label");
  std::string long_name;
  for (int i = 0; i < 64; ++i) absl::StrAppend(&long_name, "abc.");
  long_name += "com";  // 259 characters
  ExpectInvalid(ParseHostPort(long_name), "longer than 253");
}

TEST(ParseHostPort, AcceptsALabelOfSixtyThreeCharacters) {
  const std::string label(63, 'a');
  EXPECT_EQ(Target(absl::StrCat(label, ".com")).host,
            absl::StrCat(label, ".com"));
}

TEST(NormalizeHostName, LowerCasesAndDropsTheTrailingDot) {
  absl::StatusOr<std::string> n = NormalizeHostName("WWW.Example.COM.");
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, "www.example.com");
  ExpectInvalid(NormalizeHostName("a..b"), "not a valid label");
  ExpectInvalid(NormalizeHostName(""), "empty host name");
}

// ---------------------------------------------------------------------------
// NetworkRule::Parse

TEST(NetworkRule, ParsesAHostWithAndWithoutPort) {
  NetworkRule r = Rule("pypi.org:443");
  EXPECT_TRUE(r.names_host());
  EXPECT_EQ(r.port(), 443);
  EXPECT_EQ(r.text(), "pypi.org:443");

  NetworkRule any_port = Rule("pypi.org");
  EXPECT_EQ(any_port.port(), 0);
  EXPECT_EQ(Rule("pypi.org:*").port(), 0);
}

TEST(NetworkRule, AnAddressOrCidrRuleDoesNotNameAHost) {
  EXPECT_FALSE(Rule("10.0.0.0/8").names_host());
  EXPECT_FALSE(Rule("10.0.0.1:53").names_host());
  EXPECT_FALSE(Rule("[::1]").names_host());
  EXPECT_FALSE(Rule("*").names_host());
  EXPECT_FALSE(Rule("*:443").names_host());
}

TEST(NetworkRule, ALiteralHostRuleGivesItsNameNormalised) {
  EXPECT_EQ(Rule("pypi.org:443").literal_host(), "pypi.org");
  EXPECT_EQ(Rule("PyPI.Org.").literal_host(), "pypi.org");
  EXPECT_EQ(Rule("localhost:*").literal_host(), "localhost");
}

TEST(NetworkRule, AGlobAnAddressOrAnyHostGivesNoLiteralName) {
  EXPECT_EQ(Rule("*.pythonhosted.org:443").literal_host(), "");
  EXPECT_EQ(Rule("files.*.org").literal_host(), "");
  EXPECT_EQ(Rule("**.example.com").literal_host(), "");
  EXPECT_EQ(Rule("**").literal_host(), "");
  EXPECT_EQ(Rule("*:443").literal_host(), "");
  EXPECT_EQ(Rule("10.0.0.0/8").literal_host(), "");
  EXPECT_EQ(Rule("127.0.0.1:8080").literal_host(), "");
  EXPECT_EQ(Rule("[::1]:8080").literal_host(), "");
}

TEST(NetworkRule, RejectsAnEmptyRule) {
  ExpectInvalid(NetworkRule::Parse(""), "empty");
  EXPECT_EQ(NetworkRule::Parse(".").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(NetworkRule::Parse(":443").status().code(),
            absl::StatusCode::kInvalidArgument);
}

// Found by fuzz/network_fuzzer: "0x7f." was taken for a host name no
// connection could match, since the numeric check came before the final
// dot was dropped.
TEST(NetworkRule, ANumericNameWithAFinalDotIsRejectedLikeOneWithout) {
  ExpectInvalid(NetworkRule::Parse("0x7f"), "not a valid IPv4 address");
  ExpectInvalid(NetworkRule::Parse("0x7f."), "not a valid IPv4 address");
  ExpectInvalid(NetworkRule::Parse("127.1."), "not a valid IPv4 address");
}

// Found by fuzz/network_fuzzer: a host rule longer than a name can be was
// accepted and admitted nothing.
TEST(NetworkRule, AHostNameLongerThan253IsRejected) {
  const std::string label(63, 'a');
  const std::string name = label + "." + label + "." + label + "." + label;
  ASSERT_GT(name.size(), 253u);
  ExpectInvalid(NetworkRule::Parse(name), "longer than 253");
  EXPECT_TRUE(NetworkRule::Parse(name.substr(0, 253)).ok());
}

TEST(NetworkRule, RejectsBadPorts) {
  ExpectInvalid(NetworkRule::Parse("pypi.org:0"), "bad port");
  ExpectInvalid(NetworkRule::Parse("pypi.org:65536"), "bad port");
  ExpectInvalid(NetworkRule::Parse("pypi.org:abc"), "bad port");
  ExpectInvalid(NetworkRule::Parse("pypi.org:"), "bad port");
  ExpectInvalid(NetworkRule::Parse("pypi.org:-1"), "bad port");
  ExpectInvalid(NetworkRule::Parse("pypi.org:+443"), "bad port");
  ExpectInvalid(NetworkRule::Parse("pypi.org:**"), "bad port");
  ExpectInvalid(NetworkRule::Parse("10.0.0.0/8:0"), "bad port");
  ExpectInvalid(NetworkRule::Parse("[::1]:65536"), "bad port");
  ExpectInvalid(NetworkRule::Parse("*:0"), "bad port");
}

TEST(NetworkRule, AcceptsPortsAtTheEdgesOfTheRange) {
  EXPECT_EQ(Rule("pypi.org:1").port(), 1);
  EXPECT_EQ(Rule("pypi.org:65535").port(), 65535);
}

TEST(NetworkRule, RejectsABadCidrPrefix) {
  ExpectInvalid(NetworkRule::Parse("10.0.0.0/33"), "bad prefix length");
  ExpectInvalid(NetworkRule::Parse("10.0.0.0/-1"), "bad prefix length");
  ExpectInvalid(NetworkRule::Parse("10.0.0.0/+8"), "bad prefix length");
  ExpectInvalid(NetworkRule::Parse("10.0.0.0/"), "bad prefix length");
  ExpectInvalid(NetworkRule::Parse("10.0.0.0/8x"), "bad prefix length");
  ExpectInvalid(NetworkRule::Parse("10.0.0.0/ab"), "bad prefix length");
  ExpectInvalid(NetworkRule::Parse("[fd00::]/129"), "bad prefix length");
  ExpectInvalid(NetworkRule::Parse("[fd00::]/"), "bad prefix length");
  ExpectInvalid(NetworkRule::Parse("fd00::/129"), "bad prefix length");
}

TEST(NetworkRule, RejectsHostBitsSetAfterThePrefix) {
  ExpectInvalid(NetworkRule::Parse("10.0.0.1/8"), "host bits");
  ExpectInvalid(NetworkRule::Parse("192.168.1.1/24"), "host bits");
  ExpectInvalid(NetworkRule::Parse("1.2.3.5/31"), "host bits");
  ExpectInvalid(NetworkRule::Parse("128.0.0.0/0"), "host bits");
  ExpectInvalid(NetworkRule::Parse("[fd00::1]/8"), "host bits");
  ExpectInvalid(NetworkRule::Parse("fd01::/8"), "host bits");
}

TEST(NetworkRule, AcceptsCidrsWithCleanHostBits) {
  EXPECT_TRUE(NetworkRule::Parse("0.0.0.0/0").ok());
  EXPECT_TRUE(NetworkRule::Parse("1.2.3.4/32").ok());
  EXPECT_TRUE(NetworkRule::Parse("1.2.3.4/31").ok());
  EXPECT_TRUE(NetworkRule::Parse("10.0.0.0/8:443").ok());
  EXPECT_TRUE(NetworkRule::Parse("[fd00::]/8").ok());
  EXPECT_TRUE(NetworkRule::Parse("[fd00::]/8:443").ok());
  EXPECT_TRUE(NetworkRule::Parse("fd00::/8").ok());
  EXPECT_TRUE(NetworkRule::Parse("[::]/0").ok());
}

TEST(NetworkRule, RejectsAPrefixWithoutAnAddress) {
  ExpectInvalid(NetworkRule::Parse("example.com/8"), "needs an address");
  ExpectInvalid(NetworkRule::Parse("*/8"), "needs an address");
  ExpectInvalid(NetworkRule::Parse("example.com/path"), "needs an address");
}

TEST(NetworkRule, RejectsPartialLabelGlobs) {
  ExpectInvalid(NetworkRule::Parse("foo*.com"), "not a label");
  ExpectInvalid(NetworkRule::Parse("*foo.com"), "not a label");
  ExpectInvalid(NetworkRule::Parse("f*o.example.com"), "not a label");
  ExpectInvalid(NetworkRule::Parse("***.example.com"), "not a label");
  ExpectInvalid(NetworkRule::Parse("*.example.*com"), "not a label");
  ExpectInvalid(NetworkRule::Parse("exa?mple.com"), "not a label");
}

TEST(NetworkRule, RejectsEmptyOrInvalidLabels) {
  ExpectInvalid(NetworkRule::Parse("example..com"), "not a label");
  ExpectInvalid(NetworkRule::Parse(".example.com"), "not a label");
  ExpectInvalid(NetworkRule::Parse("exa mple.com"), "not a label");
  ExpectInvalid(NetworkRule::Parse("pypi.org:443:80"), "not a label");
  ExpectInvalid(NetworkRule::Parse(absl::StrCat(std::string(64, 'a'), ".com")),
                "not a label");
}

TEST(NetworkRule, RejectsUserinfo) {
  ExpectInvalid(NetworkRule::Parse("user@example.com"), "user@host");
  ExpectInvalid(NetworkRule::Parse("pypi.org@evil.example"), "user@host");
  ExpectInvalid(NetworkRule::Parse("a@10.0.0.1:22"), "user@host");
}

TEST(NetworkRule, RejectsUrls) {
  ExpectInvalid(NetworkRule::Parse("https://pypi.org"), "URL");
  ExpectInvalid(NetworkRule::Parse("http://pypi.org:80/simple"), "URL");
  ExpectInvalid(NetworkRule::Parse("ftp://10.0.0.1"), "URL");
}

TEST(NetworkRule, RejectsANonStrictIpv4Address) {
  ExpectInvalid(NetworkRule::Parse("127.1"), "four decimal parts");
  ExpectInvalid(NetworkRule::Parse("010.0.0.1:80"), "four decimal parts");
  ExpectInvalid(NetworkRule::Parse("1.2.3.4.5"), "four decimal parts");
  EXPECT_EQ(NetworkRule::Parse("127.1/8").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(NetworkRule, RejectsBadBrackets) {
  ExpectInvalid(NetworkRule::Parse("[::1"), "missing ']'");
  ExpectInvalid(NetworkRule::Parse("[10.0.0.1]:80"), "brackets hold an IPv6");
  ExpectInvalid(NetworkRule::Parse("[example.com]"), "brackets hold an IPv6");
  ExpectInvalid(NetworkRule::Parse("[*]:443"), "brackets hold an IPv6");
  ExpectInvalid(NetworkRule::Parse("[fd00::]8"), "after ']'");
}

// ---------------------------------------------------------------------------
// NetworkRule::Admits: host names

TEST(NetworkRule, AnExactHostAdmitsOnlyThatName) {
  NetworkRule r = Rule("pypi.org");
  EXPECT_TRUE(r.Admits(kAnyAddr, 443, "pypi.org"));
  EXPECT_TRUE(r.Admits(kAnyAddr, 80, "pypi.org"));
  EXPECT_FALSE(r.Admits(kAnyAddr, 443, "www.pypi.org"));
  EXPECT_FALSE(r.Admits(kAnyAddr, 443, "pypi.org.evil.example"));
  EXPECT_FALSE(r.Admits(kAnyAddr, 443, "notpypi.org"));
  EXPECT_FALSE(r.Admits(kAnyAddr, 443, "pypi.or"));
  EXPECT_FALSE(r.Admits(kAnyAddr, 443, "pypi"));
}

TEST(NetworkRule, AHostRuleNeedsAHostName) {
  NetworkRule r = Rule("pypi.org");
  EXPECT_FALSE(r.Admits(kAnyAddr, 443, ""));
  EXPECT_FALSE(Rule("**").Admits(kAnyAddr, 443, ""));
  EXPECT_FALSE(Rule("*").names_host());
}

TEST(NetworkRule, HostMatchingIgnoresCaseAndATrailingDot) {
  EXPECT_TRUE(Rule("pypi.org").Admits(kAnyAddr, 443, "PyPI.ORG"));
  EXPECT_TRUE(Rule("pypi.org").Admits(kAnyAddr, 443, "pypi.org."));
  EXPECT_TRUE(Rule("PyPI.Org.").Admits(kAnyAddr, 443, "pypi.org"));
  EXPECT_TRUE(Rule("PyPI.Org.:443").Admits(kAnyAddr, 443, "pypi.org"));
  EXPECT_TRUE(Rule("*.PythonHosted.ORG:443")
                  .Admits(kAnyAddr, 443, "FILES.pythonhosted.org."));
}

TEST(NetworkRule, AnInvalidHostNameIsNeverAdmitted) {
  EXPECT_FALSE(Rule("*.org").Admits(kAnyAddr, 443, "a..org"));
  EXPECT_FALSE(Rule("**").Admits(kAnyAddr, 443, "bad name"));
  EXPECT_FALSE(Rule("*.*").Admits(kAnyAddr, 443, ".org"));
}

TEST(NetworkRule, AStarIsExactlyOneLabel) {
  NetworkRule r = Rule("*.pythonhosted.org:443");
  EXPECT_TRUE(r.Admits(kAnyAddr, 443, "files.pythonhosted.org"));
  EXPECT_FALSE(r.Admits(kAnyAddr, 443, "pythonhosted.org"));
  EXPECT_FALSE(r.Admits(kAnyAddr, 443, "a.b.pythonhosted.org"));
  EXPECT_FALSE(r.Admits(kAnyAddr, 443, "files.pythonhosted.org.evil.com"));
  EXPECT_FALSE(r.Admits(kAnyAddr, 443, "filespythonhosted.org"));

  NetworkRule mid = Rule("a.*.c");
  EXPECT_TRUE(mid.Admits(kAnyAddr, 1, "a.b.c"));
  EXPECT_FALSE(mid.Admits(kAnyAddr, 1, "a.c"));
  EXPECT_FALSE(mid.Admits(kAnyAddr, 1, "a.b.b.c"));
}

TEST(NetworkRule, ADoubleStarIsOneOrMoreLabels) {
  NetworkRule r = Rule("**.example.com");
  EXPECT_TRUE(r.Admits(kAnyAddr, 443, "a.example.com"));
  EXPECT_TRUE(r.Admits(kAnyAddr, 443, "a.b.c.example.com"));
  EXPECT_FALSE(r.Admits(kAnyAddr, 443, "example.com"));
  EXPECT_FALSE(r.Admits(kAnyAddr, 443, "evilexample.com"));
  EXPECT_FALSE(r.Admits(kAnyAddr, 443, "a.example.com.evil"));

  NetworkRule mid = Rule("a.**.z");
  EXPECT_TRUE(mid.Admits(kAnyAddr, 1, "a.b.z"));
  EXPECT_TRUE(mid.Admits(kAnyAddr, 1, "a.b.c.d.z"));
  EXPECT_FALSE(mid.Admits(kAnyAddr, 1, "a.z"));

  NetworkRule all = Rule("**");
  EXPECT_TRUE(all.Admits(kAnyAddr, 1, "localhost"));
  EXPECT_TRUE(all.Admits(kAnyAddr, 1, "a.b.c"));
}

TEST(NetworkRule, StarsCombine) {
  NetworkRule r = Rule("*.**.example.com");
  EXPECT_FALSE(r.Admits(kAnyAddr, 1, "a.example.com"));
  EXPECT_TRUE(r.Admits(kAnyAddr, 1, "a.b.example.com"));
  EXPECT_TRUE(r.Admits(kAnyAddr, 1, "a.b.c.example.com"));

  NetworkRule trailing = Rule("example.**");
  EXPECT_TRUE(trailing.Admits(kAnyAddr, 1, "example.com"));
  EXPECT_TRUE(trailing.Admits(kAnyAddr, 1, "example.co.uk"));
  EXPECT_FALSE(trailing.Admits(kAnyAddr, 1, "example"));
  EXPECT_FALSE(trailing.Admits(kAnyAddr, 1, "www.example.com"));
}

TEST(NetworkRule, AHostRuleIgnoresTheAddress) {
  NetworkRule r = Rule("pypi.org");
  EXPECT_TRUE(r.Admits(Ip("10.0.0.1"), 443, "pypi.org"));
  EXPECT_TRUE(r.Admits(Ip("2001:db8::1"), 443, "pypi.org"));
}

// ---------------------------------------------------------------------------
// NetworkRule::Admits: ports

TEST(NetworkRule, APortSpecificRuleAdmitsOnlyThatPort) {
  NetworkRule r = Rule("pypi.org:443");
  EXPECT_TRUE(r.Admits(kAnyAddr, 443, "pypi.org"));
  EXPECT_FALSE(r.Admits(kAnyAddr, 80, "pypi.org"));
  EXPECT_FALSE(r.Admits(kAnyAddr, 444, "pypi.org"));
  EXPECT_FALSE(r.Admits(kAnyAddr, 0, "pypi.org"));

  NetworkRule cidr = Rule("10.0.0.0/8:53");
  EXPECT_TRUE(cidr.Admits(Ip("10.1.1.1"), 53, ""));
  EXPECT_FALSE(cidr.Admits(Ip("10.1.1.1"), 5353, ""));

  NetworkRule v6 = Rule("[::1]:8080");
  EXPECT_TRUE(v6.Admits(Ip("::1"), 8080, ""));
  EXPECT_FALSE(v6.Admits(Ip("::1"), 8081, ""));
}

TEST(NetworkRule, ARuleWithoutPortOrWithStarAdmitsEveryPort) {
  for (absl::string_view text : {"pypi.org", "pypi.org:*"}) {
    NetworkRule r = Rule(text);
    EXPECT_TRUE(r.Admits(kAnyAddr, 1, "pypi.org")) << text;
    EXPECT_TRUE(r.Admits(kAnyAddr, 443, "pypi.org")) << text;
    EXPECT_TRUE(r.Admits(kAnyAddr, 65535, "pypi.org")) << text;
  }
}

TEST(NetworkRule, StarColonPortAdmitsAnyHostOnThatPortOnly) {
  NetworkRule r = Rule("*:443");
  EXPECT_EQ(r.port(), 443);
  EXPECT_TRUE(r.Admits(kAnyAddr, 443, "anything.example"));
  EXPECT_TRUE(r.Admits(Ip("10.0.0.1"), 443, ""));
  EXPECT_TRUE(r.Admits(Ip("2001:db8::1"), 443, ""));
  EXPECT_TRUE(r.Admits(Ip("127.0.0.1"), 443, ""));
  EXPECT_FALSE(r.Admits(kAnyAddr, 80, "anything.example"));
  EXPECT_FALSE(r.Admits(Ip("10.0.0.1"), 22, ""));
}

TEST(NetworkRule, StarAloneAdmitsEverything) {
  NetworkRule r = Rule("*");
  EXPECT_EQ(r.port(), 0);
  EXPECT_TRUE(r.Admits(kAnyAddr, 1, ""));
  EXPECT_TRUE(r.Admits(Ip("::1"), 65535, "localhost"));
  EXPECT_TRUE(Rule("*:*").Admits(Ip("10.0.0.1"), 22, ""));
}

// ---------------------------------------------------------------------------
// NetworkRule::Admits: addresses

TEST(NetworkRule, AnAddressRuleAdmitsOnlyThatAddress) {
  NetworkRule r = Rule("10.1.2.3");
  EXPECT_TRUE(r.Admits(Ip("10.1.2.3"), 80, ""));
  EXPECT_TRUE(r.Admits(Ip("10.1.2.3"), 80, "whatever.example"));
  EXPECT_FALSE(r.Admits(Ip("10.1.2.4"), 80, ""));
  EXPECT_FALSE(r.Admits(Ip("10.1.2.2"), 80, ""));
}

TEST(NetworkRule, AnAddressRuleIgnoresTheHostName) {
  NetworkRule r = Rule("10.1.2.3");
  EXPECT_FALSE(r.Admits(Ip("10.9.9.9"), 80, "10.1.2.3"));
}

TEST(NetworkRule, ASlashZeroAdmitsEveryAddressOfItsFamily) {
  NetworkRule v4 = Rule("0.0.0.0/0");
  EXPECT_TRUE(v4.Admits(Ip("0.0.0.0"), 1, ""));
  EXPECT_TRUE(v4.Admits(Ip("1.2.3.4"), 1, ""));
  EXPECT_TRUE(v4.Admits(Ip("255.255.255.255"), 1, ""));
  EXPECT_FALSE(v4.Admits(Ip("2001:db8::1"), 1, ""));

  NetworkRule v6 = Rule("[::]/0");
  EXPECT_TRUE(v6.Admits(Ip("2001:db8::1"), 1, ""));
  EXPECT_TRUE(v6.Admits(Ip("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"), 1, ""));
  EXPECT_FALSE(v6.Admits(Ip("1.2.3.4"), 1, ""));
}

TEST(NetworkRule, ASlashThirtyTwoAdmitsOneAddress) {
  NetworkRule r = Rule("1.2.3.4/32");
  EXPECT_TRUE(r.Admits(Ip("1.2.3.4"), 1, ""));
  EXPECT_FALSE(r.Admits(Ip("1.2.3.5"), 1, ""));
  EXPECT_FALSE(r.Admits(Ip("1.2.3.3"), 1, ""));
  EXPECT_FALSE(r.Admits(Ip("129.2.3.4"), 1, ""));
}

TEST(NetworkRule, ASlashThirtyOneAdmitsTwoAddresses) {
  NetworkRule r = Rule("1.2.3.4/31");
  EXPECT_TRUE(r.Admits(Ip("1.2.3.4"), 1, ""));
  EXPECT_TRUE(r.Admits(Ip("1.2.3.5"), 1, ""));
  EXPECT_FALSE(r.Admits(Ip("1.2.3.3"), 1, ""));
  EXPECT_FALSE(r.Admits(Ip("1.2.3.6"), 1, ""));
}

TEST(NetworkRule, ASlashTwentyFourAdmitsItsFirstAndLastAddressAndNoMore) {
  NetworkRule r = Rule("192.168.1.0/24");
  EXPECT_TRUE(r.Admits(Ip("192.168.1.0"), 1, ""));
  EXPECT_TRUE(r.Admits(Ip("192.168.1.128"), 1, ""));
  EXPECT_TRUE(r.Admits(Ip("192.168.1.255"), 1, ""));
  EXPECT_FALSE(r.Admits(Ip("192.168.2.0"), 1, ""));
  EXPECT_FALSE(r.Admits(Ip("192.168.0.255"), 1, ""));
  EXPECT_FALSE(r.Admits(Ip("193.168.1.1"), 1, ""));
}

TEST(NetworkRule, AnOddPrefixSplitsAnOctet) {
  NetworkRule r = Rule("10.0.0.0/9");
  EXPECT_TRUE(r.Admits(Ip("10.0.0.0"), 1, ""));
  EXPECT_TRUE(r.Admits(Ip("10.127.255.255"), 1, ""));
  EXPECT_FALSE(r.Admits(Ip("10.128.0.0"), 1, ""));
  EXPECT_FALSE(r.Admits(Ip("9.255.255.255"), 1, ""));
}

TEST(NetworkRule, AnIpv4CidrAdmitsAMappedIpv6Address) {
  NetworkRule r = Rule("10.0.0.0/8");
  EXPECT_TRUE(r.Admits(RawMapped(10, 1, 2, 3), 443, ""));
  EXPECT_FALSE(r.Admits(RawMapped(11, 1, 2, 3), 443, ""));
  EXPECT_TRUE(Rule("127.0.0.1").Admits(RawMapped(127, 0, 0, 1), 80, ""));
  EXPECT_TRUE(Rule("0.0.0.0/0").Admits(RawMapped(8, 8, 8, 8), 53, ""));
}

TEST(NetworkRule, AMappedIpv6RuleIsJudgedAsIpv4) {
  NetworkRule r = Rule("[::ffff:10.0.0.1]");
  EXPECT_TRUE(r.Admits(Ip("10.0.0.1"), 1, ""));
  EXPECT_TRUE(r.Admits(RawMapped(10, 0, 0, 1), 1, ""));
  EXPECT_FALSE(r.Admits(Ip("10.0.0.2"), 1, ""));
}

TEST(NetworkRule, AnIpv6CidrAdmitsItsRangeOnly) {
  for (absl::string_view text : {"[fd00::]/8", "fd00::/8"}) {
    NetworkRule r = Rule(text);
    EXPECT_EQ(r.port(), 0) << text;
    EXPECT_TRUE(r.Admits(Ip("fd00::"), 1, "")) << text;
    EXPECT_TRUE(r.Admits(Ip("fd12:3456::1"), 1, "")) << text;
    EXPECT_TRUE(r.Admits(Ip("fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"), 1, ""))
        << text;
    EXPECT_FALSE(r.Admits(Ip("fe00::"), 1, "")) << text;
    EXPECT_FALSE(r.Admits(Ip("fc00::1"), 1, "")) << text;
    EXPECT_FALSE(r.Admits(Ip("10.0.0.1"), 1, "")) << text;
  }

  NetworkRule doc = Rule("[2001:db8::]/32:443");
  EXPECT_EQ(doc.port(), 443);
  EXPECT_TRUE(doc.Admits(Ip("2001:db8::"), 443, ""));
  EXPECT_TRUE(
      doc.Admits(Ip("2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"), 443, ""));
  EXPECT_FALSE(doc.Admits(Ip("2001:db9::"), 443, ""));
  EXPECT_FALSE(doc.Admits(Ip("2001:db7:ffff::"), 443, ""));
  EXPECT_FALSE(doc.Admits(Ip("2001:db8::1"), 80, ""));
}

TEST(NetworkRule, AnIpv6AddressRuleAdmitsOnlyThatAddress) {
  NetworkRule r = Rule("[2001:db8::1]");
  EXPECT_TRUE(r.Admits(Ip("2001:db8::1"), 1, ""));
  EXPECT_FALSE(r.Admits(Ip("2001:db8::2"), 1, ""));
  EXPECT_FALSE(r.Admits(Ip("0.0.0.1"), 1, ""));
}

TEST(NetworkRule, LoopbackIsAdmittedOnlyWhenListed) {
  const IpAddress lo4 = Ip("127.0.0.1");
  const IpAddress lo6 = Ip("::1");
  for (absl::string_view text :
       {"10.0.0.0/8", "*.example.com", "**.com", "[fd00::]/8", "192.168.0.0/16",
        "pypi.org:443"}) {
    NetworkRule r = Rule(text);
    EXPECT_FALSE(r.Admits(lo4, 443, "")) << text;
    EXPECT_FALSE(r.Admits(lo6, 443, "")) << text;
    EXPECT_FALSE(r.Admits(RawMapped(127, 0, 0, 1), 443, "")) << text;
  }
  EXPECT_TRUE(Rule("127.0.0.1").Admits(lo4, 443, ""));
  EXPECT_FALSE(Rule("127.0.0.1").Admits(lo6, 443, ""));
  EXPECT_TRUE(Rule("127.0.0.0/8").Admits(Ip("127.0.0.53"), 53, ""));
  EXPECT_TRUE(Rule("[::1]").Admits(lo6, 443, ""));
  EXPECT_TRUE(Rule("::1").Admits(lo6, 443, ""));
  EXPECT_FALSE(Rule("[::1]").Admits(lo4, 443, ""));
  EXPECT_TRUE(Rule("localhost").Admits(lo4, 8080, "localhost"));
}

}  // namespace
}  // namespace klaunch

namespace klaunch {
namespace {

TEST(ParseHostPort,
     RefusesEveryNumericSpellingTheCLibraryWouldReadAsAnAddress) {
  for (const char* text :
       {"0x7f.0.0.1:80", "0x7f000001", "017.0.0.1", "127.1", "2130706433:80"}) {
    EXPECT_FALSE(ParseHostPort(text).ok()) << text;
  }
}

TEST(NetworkRule, ANumericSpellingIsNeitherAnAddressNorAHostRule) {
  for (const char* text : {"0x7f.0.0.1", "0x7f.0.0.1:80", "0177.0.0.1:22"}) {
    absl::StatusOr<NetworkRule> r = NetworkRule::Parse(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

TEST(NetworkRule, ANumericNameResolvedByAProgramNeverSatisfiesAHostGlob) {
  // getaddrinfo("0x7f.0.0.1") yields 127.0.0.1; the "name" must not match.
  NetworkRule r = *NetworkRule::Parse("*.0.0.1");
  EXPECT_FALSE(r.Admits(IpAddress::V4(0x7f000001), 80, "0x7f.0.0.1"));
}

}  // namespace
}  // namespace klaunch
