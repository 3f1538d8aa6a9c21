// `klaunch doctor` through the real binary. What this machine supports is
// not assumed: the test reads the Landlock ABI itself and derives the
// expected exit status from the layers the JSON reports, so it holds on any
// kernel.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <limits.h>
#include <stdlib.h>

#include <sstream>
#include <string>
#include <vector>

#include "tests/run_process.h"

namespace klaunch::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kPython[] = "/usr/bin/python3";

// Checks the document's shape and prints what the test compares, one
// `key=value` a line; any error in the shape is a line starting "bad ".
constexpr char kReadJson[] = R"(
import json, sys
d = json.load(sys.stdin)
bools = ['seccomp_filter', 'seccomp_user_notif', 'seccomp_addfd',
         'pidfd_open', 'pidfd_getfd', 'no_new_privs', 'wait_killable_recv',
         'ptrace_attach', 'run_cgroup', 'root']
for k in bools:
    if not isinstance(d.get(k), bool): print('bad', k)
if not isinstance(d.get('kernel'), str) or not d['kernel']: print('bad kernel')
abi = d.get('landlock_abi')
if not isinstance(abi, int) or isinstance(abi, bool): print('bad landlock_abi')
shim = d.get('shim', {})
for k in ['found', 'loads']:
    if not isinstance(shim.get(k), bool): print('bad shim.' + k)
for k in ['path', 'error']:
    if k not in shim or not (shim[k] is None or isinstance(shim[k], str)):
        print('bad shim.' + k)
layers = d.get('layers', {})
for name in ['shim', 'seccomp', 'landlock']:
    l = layers.get(name, {})
    if not isinstance(l.get('used'), bool): print('bad layers.%s.used' % name)
    if not isinstance(l.get('why'), str) or not l['why']:
        print('bad layers.%s.why' % name)
holds = d.get('holds')
if not isinstance(holds, list) or not holds: print('bad holds')
for h in holds or []:
    if not (isinstance(h.get('attack'), str) and isinstance(h.get('held_by'), str)):
        print('bad holds entry')
b = lambda v: int(bool(v))
read = [h for h in holds or [] if h.get('attack') == 'read a file outside every root']
print('read_outside_held_by=%s' % (read[0]['held_by'] if read else None))
print('landlock_abi=%d' % abi)
print('shim_found=%d' % b(shim.get('found')))
print('shim_loads=%d' % b(shim.get('loads')))
print('shim_path=%s' % shim.get('path'))
print('shim_error=%s' % shim.get('error'))
for name in ['shim', 'seccomp', 'landlock']:
    print('%s_used=%d' % (name, b(layers.get(name, {}).get('used'))))
print('shim_needs=%d' % b(shim.get('found') and shim.get('loads')))
print('seccomp_needs=%d' % b(all(d.get(k) for k in [
    'seccomp_user_notif', 'seccomp_addfd', 'pidfd_open', 'pidfd_getfd',
    'no_new_privs', 'wait_killable_recv'])))
print('landlock_needs=%d' % b(abi >= 1 and d.get('no_new_privs')))
)";

// The lines kReadJson printed, as key -> value; "bad ..." lines under "bad".
struct Facts {
  std::vector<std::string> bad;
  std::vector<std::pair<std::string, std::string>> values;
  std::string Get(const std::string& key) const {
    for (const auto& [k, v] : values) {
      if (k == key) return v;
    }
    return "<missing " + key + ">";
  }
};

Facts ReadJson(const std::string& json) {
  ProcessOptions options;
  options.stdin_text = json;
  ProcessResult r = RunProcess({kPython, "-c", kReadJson}, options);
  Facts facts;
  if (r.exit_code != 0) {
    facts.bad.push_back("not JSON python reads: " + r.err + "\n" + json);
    return facts;
  }
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("bad ", 0) == 0) {
      facts.bad.push_back(line);
      continue;
    }
    const size_t eq = line.find('=');
    if (eq != std::string::npos) {
      facts.values.emplace_back(line.substr(0, eq), line.substr(eq + 1));
    }
  }
  return facts;
}

int ExpectedExit(const Facts& facts) {
  return facts.Get("shim_used") == "1" && facts.Get("seccomp_used") == "1" &&
                 facts.Get("landlock_used") == "1"
             ? 0
             : 1;
}

TEST(Doctor, TheTableNamesEveryCheckAndLayerInAlignedColumns) {
  const std::string klaunch = RequiredEnv("KLAUNCH_BIN");
  ProcessResult r = RunProcess({klaunch, "doctor"});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  for (const char* name :
       {"kernel", "seccomp filter", "seccomp user notification",
        "SECCOMP_IOCTL_NOTIF_ADDFD", "pidfd_open", "pidfd_getfd",
        "landlock ABI", "shim found", "shim loads", "no_new_privs", "root",
        "shim layer", "seccomp layer", "landlock layer"}) {
    EXPECT_THAT(r.out, HasSubstr("\n" + std::string(name) + " ")) << r.out;
  }
  // Every row's result starts where the header's "result" does.
  std::istringstream lines(r.out);
  std::string header;
  std::getline(lines, header);
  ASSERT_EQ(header.rfind("check ", 0), 0u) << r.out;
  const size_t result_column = header.find("result");
  const size_t note_column = header.find("note");
  ASSERT_NE(result_column, std::string::npos) << r.out;
  ASSERT_NE(note_column, std::string::npos) << r.out;
  int rows = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) break;  // the layers follow after a blank line
    ++rows;
    ASSERT_GT(line.size(), result_column) << line;
    EXPECT_EQ(line[result_column - 1], ' ') << line;
    EXPECT_NE(line[result_column], ' ') << line;
  }
  EXPECT_EQ(rows, 14) << r.out;
}

TEST(Doctor, TheJsonNamesEveryLayerAndAgreesWithTheExitStatus) {
  const std::string klaunch = RequiredEnv("KLAUNCH_BIN");
  ProcessResult r = RunProcess({klaunch, "doctor", "--json"});
  Facts facts = ReadJson(r.out);
  ASSERT_THAT(facts.bad, ::testing::IsEmpty()) << r.out;
  EXPECT_EQ(r.exit_code, ExpectedExit(facts)) << r.out;
  EXPECT_EQ(r.err, "");
  // The table and the JSON come from the same probes.
  EXPECT_EQ(RunProcess({klaunch, "doctor"}).exit_code, r.exit_code);
}

TEST(Doctor, EachLayerIsUsedExactlyWhenWhatItNeedsIsThere) {
  const std::string klaunch = RequiredEnv("KLAUNCH_BIN");
  ProcessResult r = RunProcess({klaunch, "doctor", "--json"});
  Facts facts = ReadJson(r.out);
  ASSERT_THAT(facts.bad, ::testing::IsEmpty()) << r.out;
  for (const char* layer : {"shim", "seccomp", "landlock"}) {
    EXPECT_EQ(facts.Get(std::string(layer) + "_used"),
              facts.Get(std::string(layer) + "_needs"))
        << layer << "\n"
        << r.out;
  }
}

TEST(Doctor, TheLandlockAbiIsTheOneTheKernelGivesTheTest) {
  const std::string klaunch = RequiredEnv("KLAUNCH_BIN");
  ProcessResult r = RunProcess({klaunch, "doctor", "--json"});
  Facts facts = ReadJson(r.out);
  ASSERT_THAT(facts.bad, ::testing::IsEmpty()) << r.out;
  EXPECT_EQ(facts.Get("landlock_abi"),
            std::to_string(LandlockAbiOfThisKernel()));
}

// What holds here is the column of this machine's setting: Landlock stops
// a forged tag's read outside every root where the kernel has it, the
// supervisor where it does not; the table says it too.
TEST(Doctor, SaysWhatHoldsOnThisMachine) {
  const std::string klaunch = RequiredEnv("KLAUNCH_BIN");
  ProcessResult r = RunProcess({klaunch, "doctor", "--json"});
  Facts facts = ReadJson(r.out);
  ASSERT_THAT(facts.bad, ::testing::IsEmpty()) << r.out;
  EXPECT_EQ(facts.Get("read_outside_held_by"),
            LandlockAbiOfThisKernel() > 0 ? "Landlock" : "supervisor")
      << r.out;
  ProcessResult table = RunProcess({klaunch, "doctor"});
  EXPECT_THAT(table.out, HasSubstr("What holds here ("));
  EXPECT_THAT(table.out, HasSubstr("  read a file outside every root:\n"));
  // Capped as on an older kernel, the answer follows.
  ProcessOptions capped;
  capped.extra_env = {"KLAUNCH_TEST_LANDLOCK_ABI=0"};
  ProcessResult none = RunProcess({klaunch, "doctor", "--json"}, capped);
  Facts none_facts = ReadJson(none.out);
  ASSERT_THAT(none_facts.bad, ::testing::IsEmpty()) << none.out;
  EXPECT_EQ(none_facts.Get("read_outside_held_by"), "supervisor") << none.out;
}

TEST(Doctor, SettingsPrintsTheTableOfEverySetting) {
  const std::string klaunch = RequiredEnv("KLAUNCH_BIN");
  ProcessResult r = RunProcess({klaunch, "doctor", "--settings"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("| the program tries to | stopped by | tried by |\n", 0),
            0u)
      << r.out;
  EXPECT_THAT(r.out, HasSubstr("**ABI 0**: supervisor"));
}

TEST(Doctor, FindsTheShimThisBuildMadeAndItLoads) {
  const std::string klaunch = RequiredEnv("KLAUNCH_BIN");
  const std::string shim = RequiredEnv("KLAUNCH_SHIM");
  char real[PATH_MAX];
  ASSERT_NE(realpath(shim.c_str(), real), nullptr) << shim;
  ProcessResult r = RunProcess({klaunch, "doctor", "--json"});
  Facts facts = ReadJson(r.out);
  ASSERT_THAT(facts.bad, ::testing::IsEmpty()) << r.out;
  EXPECT_EQ(facts.Get("shim_found"), "1") << r.out;
  EXPECT_EQ(facts.Get("shim_path"), real);
  EXPECT_EQ(facts.Get("shim_loads"), "1") << r.out;
  EXPECT_EQ(facts.Get("shim_error"), "None");
  EXPECT_EQ(facts.Get("shim_used"), "1");
}

// A copy of klaunch in a directory whose name JSON must escape has no shim
// beside it: the message naming where it looked still parses, and the
// missing layer is exit 1.
TEST(Doctor, AKlaunchWithoutItsShimSaysWhereItLookedAndExitsOne) {
  const std::string klaunch = RequiredEnv("KLAUNCH_BIN");
  TempDir tmp;
  const std::string dir = tmp.Path("a \"quoted\\\" dir\tx");
  ASSERT_EQ(RunProcess({"/bin/mkdir", "-p", dir}).exit_code, 0);
  const std::string copy = dir + "/klaunch";
  ASSERT_EQ(RunProcess({"/bin/cp", klaunch, copy}).exit_code, 0);
  ProcessResult r = RunProcess({copy, "doctor", "--json"});
  Facts facts = ReadJson(r.out);
  ASSERT_THAT(facts.bad, ::testing::IsEmpty()) << r.out;
  EXPECT_EQ(facts.Get("shim_found"), "0") << r.out;
  EXPECT_EQ(facts.Get("shim_path"), "None");
  EXPECT_THAT(facts.Get("shim_error"), HasSubstr(dir)) << r.out;
  EXPECT_EQ(facts.Get("shim_used"), "0");
  EXPECT_EQ(r.exit_code, 1);

  ProcessResult table = RunProcess({copy, "doctor"});
  EXPECT_EQ(table.exit_code, 1);
  EXPECT_THAT(table.out, HasSubstr("will not use: shim"));
}

TEST(Doctor, AnUnknownArgumentIsTheUsageExitCodeAndNamesIt) {
  const std::string klaunch = RequiredEnv("KLAUNCH_BIN");
  ProcessResult r = RunProcess({klaunch, "doctor", "--frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("unknown argument '--frobnicate'"));
  EXPECT_THAT(r.err, HasSubstr("usage: klaunch doctor [--json]"));
  EXPECT_EQ(r.out, "");
}

}  // namespace
}  // namespace klaunch::testing
