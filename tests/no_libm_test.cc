// The functions shim/no_libm.cc gives the shim in libm's place, compiled
// here into the test (where they stand in for libm's own log2 and nan), and
// compared with what libm's log and the IEEE bit patterns say.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "gtest/gtest.h"

namespace {

uint64_t Bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof(b));
  return b;
}

// Distance in units of the last place between two finite doubles of one sign.
uint64_t Ulps(double a, double b) {
  const uint64_t x = Bits(a), y = Bits(b);
  return x > y ? x - y : y - x;
}

TEST(NoLibm, Log2IsExactOnPowersOfTwo) {
  for (int e = -1074; e <= 1023; ++e) {
    EXPECT_EQ(log2(std::ldexp(1.0, e)), static_cast<double>(e)) << e;
  }
}

TEST(NoLibm, Log2AgreesWithLibmsLogWithinAnUlp) {
  // libm's log is not replaced; log2(x) = log(x) / log(2) within rounding.
  uint64_t state = 0x9e3779b97f4a7c15u;
  for (int i = 0; i < 100000; ++i) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    const double x = std::ldexp(1.0 + (state >> 11) * 0x1p-53,
                                static_cast<int>(state % 2000) - 1000);
    const long double want = std::log(static_cast<long double>(x)) /
                             std::log(static_cast<long double>(2));
    EXPECT_LE(Ulps(log2(x), static_cast<double>(want)), 1u) << x;
  }
}

TEST(NoLibm, Log2OfZeroNegativeInfinityAndNaNIsWhatLibmGives) {
  EXPECT_EQ(log2(0.0), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(log2(-0.0), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(log2(-1.0)));
  EXPECT_EQ(log2(std::numeric_limits<double>::infinity()),
            std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(log2(std::numeric_limits<double>::quiet_NaN())));
}

TEST(NoLibm, NanIsAQuietNaN) {
  EXPECT_TRUE(std::isnan(nan("")));
  EXPECT_TRUE(std::isnan(nan("123")));
  EXPECT_TRUE(std::isnan(nanf("")));
  // The quiet bit, which a signalling NaN lacks.
  EXPECT_NE(Bits(nan("")) & (uint64_t{1} << 51), 0u);
}

}  // namespace
