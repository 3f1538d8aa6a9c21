// The shim needs no libm.
//
// Most programs klaunch runs (sh, coreutils, git) never load libm; the
// shim's NEEDED entry made every one of them load it: one more library to
// map and relocate, and, under the seccomp layer, one more open the dynamic
// loader makes before the shim is up, which the supervisor must judge
// (docs/performance.md). What the shim's archives take from it:
//   - frexp, ldexp and modf (Abseil's numbers and int128): libc exports
//     them too, and the link (shim/pic/meson.build) leaves libm out;
//   - log2 (Abseil's sampling of hash tables, exponential_biased.cc) and
//     nan, nanf (Abseil's charconv, for "nan" with a payload): defined here,
//     hidden like all of the shim (no <cmath>, whose declarations say
//     otherwise), so the program's own libm (if it has one) is not
//     displaced.
// RE2's FilteredRE2, the one user of log, is not linked (shim/pic).
// ShimFiles.TheShimNeedsOnlyLibc reads the shim's NEEDED entries;
// tests/no_libm_test.cc checks these functions.

extern "C" {

// log2 by the x87 unit (fyl2x: y * log2(x), here y = 1) in extended
// precision, so within an ulp of a double; -inf for 0 and NaN below it, as
// libm's log2 (tests/no_libm_test.cc).
double log2(double x) {
  long double r;
  __asm__("fld1\n\tfxch\n\tfyl2x" : "=t"(r) : "0"(static_cast<long double>(x)));
  return static_cast<double>(r);
}

// A quiet NaN. The payload a tag names is not kept: nothing in the shim
// reads one back.
double nan(const char*) { return __builtin_nan(""); }
float nanf(const char*) { return __builtin_nanf(""); }

}  // extern "C"
