// `klaunch doctor` through the real binary. What this machine supports is
// not assumed and not taken from doctor: the test asks the kernel itself
// (MachineFacts: the Landlock ABI, seccomp's listener and its flags, the
// pidfd calls, no_new_privs) and compares doctor's every answer, and each
// layer it says it would use, with what it found, so it holds on any kernel
// and fails for a probe that always says yes.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
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
for k in bools:
    print('%s=%d' % (k, b(d.get(k))))
print('kernel=%s' % d.get('kernel'))
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

// What the kernel answers this test, asked here and not through doctor's
// code. Each seccomp question is put in a child of its own, since a filter
// once installed stays.
struct MachineFacts {
  bool no_new_privs = false;
  bool user_notif = false;  // a filter that returns a listener
  bool addfd = false;       // the listener knows SECCOMP_IOCTL_NOTIF_ADDFD
  bool wait_killable = false;
  bool pidfd_open = false;
  bool pidfd_getfd = false;
  bool root = false;
  int landlock_abi = 0;
  std::string kernel;
};

// Runs `probe` in a forked child; true when it exits 0.
bool InChild(bool (*probe)()) {
  const pid_t pid = fork();
  if (pid == 0) _exit(probe() ? 0 : 1);
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// A listener for a filter that lets every call through; -1 and errno when
// the kernel refuses `flags`.
int AllowAllListener(unsigned flags) {
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  sock_fprog prog = {1, &allow};
  return static_cast<int>(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                                  SECCOMP_FILTER_FLAG_NEW_LISTENER | flags,
                                  &prog));
}

MachineFacts AskTheKernel() {
  MachineFacts m;
  m.no_new_privs =
      InChild([] { return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0; });
  m.user_notif = InChild([] { return AllowAllListener(0) >= 0; });
  m.addfd = InChild([] {
    const int listener = AllowAllListener(0);
    if (listener < 0) return false;
    // No notification has this id: a kernel that knows the request says
    // so with ENOENT; one that does not, with EINVAL or ENOTTY.
    seccomp_notif_addfd addfd = {};
    addfd.id = 1;
    addfd.srcfd = 0;
    return ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &addfd) < 0 &&
           errno == ENOENT;
  });
  m.wait_killable = InChild([] {
    return AllowAllListener(SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV) >= 0;
  });
  const long pidfd = syscall(SYS_pidfd_open, getpid(), 0);
  m.pidfd_open = pidfd >= 0;
  if (pidfd >= 0) {
    const long fd = syscall(SYS_pidfd_getfd, pidfd, 0, 0);
    m.pidfd_getfd = fd >= 0;
    if (fd >= 0) close(static_cast<int>(fd));
    close(static_cast<int>(pidfd));
  }
  m.root = geteuid() == 0;
  m.landlock_abi = LandlockAbiOfThisKernel();
  utsname u;
  if (uname(&u) == 0) m.kernel = u.release;
  return m;
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

TEST(Doctor, EachAnswerIsWhatTheKernelTellsTheTest) {
  const std::string klaunch = RequiredEnv("KLAUNCH_BIN");
  ProcessResult r = RunProcess({klaunch, "doctor", "--json"});
  Facts facts = ReadJson(r.out);
  ASSERT_THAT(facts.bad, ::testing::IsEmpty()) << r.out;
  const MachineFacts m = AskTheKernel();
  const auto bit = [](bool b) { return b ? "1" : "0"; };
  EXPECT_EQ(facts.Get("no_new_privs"), bit(m.no_new_privs)) << r.out;
  EXPECT_EQ(facts.Get("seccomp_user_notif"), bit(m.user_notif)) << r.out;
  EXPECT_EQ(facts.Get("seccomp_addfd"), bit(m.addfd)) << r.out;
  EXPECT_EQ(facts.Get("wait_killable_recv"), bit(m.wait_killable)) << r.out;
  EXPECT_EQ(facts.Get("pidfd_open"), bit(m.pidfd_open)) << r.out;
  EXPECT_EQ(facts.Get("pidfd_getfd"), bit(m.pidfd_getfd)) << r.out;
  EXPECT_EQ(facts.Get("root"), bit(m.root)) << r.out;
  EXPECT_EQ(facts.Get("kernel"), m.kernel) << r.out;
}

// Each layer is used exactly where what it needs is there, as the test
// found it: the shim where it loads (FindsTheShimThisBuildMadeAndItLoads
// checks that), seccomp where the listener and every call the supervisor
// makes are, Landlock where the kernel has an ABI and no_new_privs holds.
TEST(Doctor, EachLayerIsUsedExactlyWhenWhatItNeedsIsThere) {
  const std::string klaunch = RequiredEnv("KLAUNCH_BIN");
  ProcessResult r = RunProcess({klaunch, "doctor", "--json"});
  Facts facts = ReadJson(r.out);
  ASSERT_THAT(facts.bad, ::testing::IsEmpty()) << r.out;
  const MachineFacts m = AskTheKernel();
  const bool seccomp = m.user_notif && m.addfd && m.wait_killable &&
                       m.pidfd_open && m.pidfd_getfd && m.no_new_privs;
  EXPECT_EQ(facts.Get("seccomp_used"), seccomp ? "1" : "0") << r.out;
  EXPECT_EQ(facts.Get("landlock_used"),
            m.landlock_abi >= 1 && m.no_new_privs ? "1" : "0")
      << r.out;
  EXPECT_EQ(facts.Get("shim_used"), "1") << r.out;
}

// `klaunch doctor --json` run where the kernel answers pidfd_getfd with
// ENOSYS, as one without the call would: its standard output and exit code.
std::pair<std::string, int> DoctorWithoutPidfdGetfd(
    const std::string& klaunch) {
  int out[2];
  if (pipe(out) != 0) return {"", -1};
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    close(out[0]);
    close(out[1]);
    sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pidfd_getfd, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    sock_fprog prog = {sizeof(code) / sizeof(code[0]), code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
      _exit(100);
    }
    execl(klaunch.c_str(), klaunch.c_str(), "doctor", "--json", nullptr);
    _exit(101);
  }
  close(out[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(out[0], buf, sizeof(buf))) > 0;)
    text.append(buf, n);
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return {text, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

// The other side of EachAnswerIsWhatTheKernelTellsTheTest: on this machine
// every probe may well say yes, so one call is taken away and doctor must
// see that it is gone and give up the seccomp layer for it.
TEST(Doctor, ACallTheKernelRefusesIsMissingAndItsLayerUnused) {
  const std::string klaunch = RequiredEnv("KLAUNCH_BIN");
  const auto [json, exit_code] = DoctorWithoutPidfdGetfd(klaunch);
  ASSERT_NE(exit_code, 100) << "could not install the test's filter";
  Facts facts = ReadJson(json);
  ASSERT_THAT(facts.bad, ::testing::IsEmpty()) << json;
  EXPECT_EQ(facts.Get("pidfd_getfd"), "0") << json;
  EXPECT_EQ(facts.Get("seccomp_used"), "0") << json;
  EXPECT_EQ(exit_code, 1) << json;
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
  EXPECT_EQ(
      r.out.rfind("| the program tries to | stopped by | tried by |\n", 0), 0u)
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
