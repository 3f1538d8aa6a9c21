// What the core fuzzers share: a property check that libFuzzer records as a
// crash with what failed, and the textbook glob matcher the harnesses
// compare the core's matchers with. Header-only; fuzz/ builds only.

#ifndef KLAUNCH_FUZZ_SUPPORT_H_
#define KLAUNCH_FUZZ_SUPPORT_H_

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

#define FUZZ_CHECK(cond, ...)                                            \
  do {                                                                   \
    if (!(cond)) {                                                       \
      std::fprintf(stderr, "%s:%d: property failed: %s\n%s\n", __FILE__, \
                   __LINE__, #cond, absl::StrCat(__VA_ARGS__).c_str());  \
      std::abort();                                                      \
    }                                                                    \
  } while (0)

namespace klaunch::fuzz {

// Keeps the quadratic references cheap.
inline constexpr size_t kMaxRefCells = 1 << 16;

// `*` matches any run, everything else itself; nullopt when too big to ask.
inline std::optional<bool> RefGlob(absl::string_view glob,
                                   absl::string_view text) {
  if ((glob.size() + 1) * (text.size() + 1) > kMaxRefCells) return std::nullopt;
  // row[j]: glob[0..i) matches text[0..j)
  std::vector<char> row(text.size() + 1, 0), next(text.size() + 1, 0);
  row[0] = 1;
  for (char g : glob) {
    next.assign(text.size() + 1, 0);
    if (g == '*') {
      char any = 0;
      for (size_t j = 0; j <= text.size(); ++j) {
        any |= row[j];
        next[j] = any;
      }
    } else {
      for (size_t j = 1; j <= text.size(); ++j) {
        next[j] = row[j - 1] && text[j - 1] == g;
      }
    }
    row.swap(next);
  }
  return row[text.size()] != 0;
}

}  // namespace klaunch::fuzz

#endif  // KLAUNCH_FUZZ_SUPPORT_H_
