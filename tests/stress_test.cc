// Stress: tests/programs/stress.c built dynamic (the shim judges it) and
// static (only the seccomp supervisor does), both run at once under one
// real klaunch, in enforce mode and in audit mode: 8 worker processes of 32
// threads, 512 exec'd children, each thread opening, stat-ing, connecting
// and exec'ing admitted and denied targets. The run is bounded (a hang is a
// failure, not a stuck test); then the audit log is held against what the
// programs counted and against `klaunch explain`.
//
// Owns only these checks; the escapes each layer stops one call at a time
// are seccomp_test.cc's and the shim tests'.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cctype>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "tests/listener.h"
#include "tests/run_process.h"
#include "tests/sandbox.h"

namespace klaunch::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr int kWorkers = 4;  // per kind
constexpr int kThreads = 32;
constexpr int kRounds = 8;
constexpr int kRunTimeoutSeconds = 90;

// The categories stress.c counts, in its order, and the audit `access`
// each one's records carry.
constexpr std::array<const char*, 5> kCategories = {"read", "write", "stat",
                                                    "connect", "exec"};

// --- One complete JSON value, strictly --------------------------------

class JsonChecker {
 public:
  explicit JsonChecker(std::string_view text) : s_(text) {}
  // True when the whole text is exactly one JSON object.
  bool IsOneObject() {
    Space();
    if (at_ >= s_.size() || s_[at_] != '{' || !Value()) return false;
    Space();
    return at_ == s_.size();
  }

 private:
  void Space() {
    while (at_ < s_.size() && (s_[at_] == ' ' || s_[at_] == '\t')) ++at_;
  }
  bool Eat(char c) {
    Space();
    if (at_ < s_.size() && s_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  bool String() {
    if (!Eat('"')) return false;
    while (at_ < s_.size()) {
      const unsigned char c = s_[at_++];
      if (c == '"') return true;
      if (c < 0x20) return false;  // a raw newline or NUL: torn or spliced
      if (c != '\\') continue;
      if (at_ >= s_.size()) return false;
      const char e = s_[at_++];
      if (e == 'u') {
        for (int i = 0; i < 4; ++i) {
          if (at_ >= s_.size() ||
              !isxdigit(static_cast<unsigned char>(s_[at_++]))) {
            return false;
          }
        }
      } else if (std::string_view("\"\\/bfnrt").find(e) ==
                 std::string_view::npos) {
        return false;
      }
    }
    return false;
  }
  bool Number() {
    const size_t start = at_;
    if (at_ < s_.size() && s_[at_] == '-') ++at_;
    while (at_ < s_.size() && (isdigit(static_cast<unsigned char>(s_[at_])) ||
                               std::string_view(".eE+-").find(s_[at_]) !=
                                   std::string_view::npos)) {
      ++at_;
    }
    return at_ > start && isdigit(static_cast<unsigned char>(s_[at_ - 1]));
  }
  bool Literal(std::string_view word) {
    if (s_.substr(at_, word.size()) != word) return false;
    at_ += word.size();
    return true;
  }
  bool Value() {
    Space();
    if (at_ >= s_.size() || ++depth_ > 32) return false;
    bool ok;
    switch (s_[at_]) {
      case '{':
        ok = Members('}', true);
        break;
      case '[':
        ok = Members(']', false);
        break;
      case '"':
        ok = String();
        break;
      case 't':
        ok = Literal("true");
        break;
      case 'f':
        ok = Literal("false");
        break;
      case 'n':
        ok = Literal("null");
        break;
      default:
        ok = Number();
    }
    --depth_;
    return ok;
  }
  bool Members(char close, bool object) {
    ++at_;
    if (Eat(close)) return true;
    do {
      if (object && (!String() || !Eat(':'))) return false;
      if (!Value()) return false;
    } while (Eat(','));
    return Eat(close);
  }

  std::string_view s_;
  size_t at_ = 0;
  int depth_ = 0;
};

TEST(JsonChecker, AcceptsAnAuditLineAndRejectsTornOrSplicedOnes) {
  const std::string line =
      R"({"time":"t","pid":42,"op":"open","target":"/a \"b\"","n":-1.5e3,"x":[true,null]})";
  EXPECT_TRUE(JsonChecker(line).IsOneObject());
  EXPECT_FALSE(JsonChecker(line.substr(0, line.size() - 1)).IsOneObject());
  EXPECT_FALSE(JsonChecker(line.substr(0, 30)).IsOneObject());
  EXPECT_FALSE(JsonChecker(line + line).IsOneObject());
  EXPECT_FALSE(JsonChecker(line.substr(0, 30) + line).IsOneObject());
  EXPECT_FALSE(JsonChecker("").IsOneObject());
}

// --- The world the runs share ---------------------------------------

// What one kind of program counted: per category, calls on denied targets,
// those refused, and admitted calls that failed.
struct Counts {
  int workers = 0;
  std::map<std::string, std::array<int, 3>> by_category;
  int attempts(const std::string& c) const { return Get(c)[0]; }
  int refused(const std::string& c) const { return Get(c)[1]; }
  int bad(const std::string& c) const { return Get(c)[2]; }

 private:
  std::array<int, 3> Get(const std::string& c) const {
    auto it = by_category.find(c);
    return it == by_category.end() ? std::array<int, 3>{0, 0, 0} : it->second;
  }
};

struct StressRun {
  ProcessResult result;
  std::string log_text;
  std::vector<std::string> records;      // the decisions: every line but "info"
  std::map<std::string, Counts> counts;  // by kind: "dynamic", "static"
  int accepted_ok = 0;
  int accepted_denied = 0;
  bool timed_out() const {
    return result.err.find("[run_process: killed after timeout]") !=
           std::string::npos;
  }
};

// The layer that judges each kind's calls.
std::string LayerOf(const std::string& kind) {
  return kind == "dynamic" ? "shim" : "seccomp";
}

class World {
 public:
  World() {
    RunProcess({"/bin/mkdir", "-p", ws() + "/allow", ws() + "/deny",
                ws() + "/out", dir_.Path("state"), dir_.Path("bin")});
    for (int i = 0; i < 4; ++i) {
      dir_.Write("ws/allow/a" + std::to_string(i), "admitted\n");
      dir_.Write("ws/deny/r" + std::to_string(i), "denied\n");
      dir_.Write("ws/deny/w" + std::to_string(i), "denied\n");
    }
    const std::string src = RequiredEnv("KLAUNCH_TEST_PROGRAMS") + "/stress.c";
    dynamic_ = dir_.Path("bin/stress");
    static_ = dir_.Path("bin/stress-static");
    ProcessResult d =
        RunProcess({"/usr/bin/gcc", "-O1", "-pthread", "-o", dynamic_, src});
    ProcessResult s = RunProcess({"/usr/bin/gcc", "-O1", "-static", "-no-pie",
                                  "-pthread", "-o", static_, src});
    if (d.exit_code != 0 || s.exit_code != 0) setup_error_ = d.err + s.err;
    policy_ = dir_.Write("policy.toml",
                         "extends = \"workspace-write\"\n"
                         "[filesystem]\nworkspace = \"" +
                             ws() +
                             "\"\n"
                             "deny = [\"" +
                             ws() +
                             "/deny\"]\n"
                             "[commands]\ndeny = [\"false *\"]\n"
                             "[network]\nallow = [\"127.0.0.1:" +
                             std::to_string(ok_.port()) + "\"]\n");
    char real[4096];
    denied_exe_ = realpath("/bin/false", real) ? real : "/bin/false";
    admitted_exe_ = realpath("/bin/true", real) ? real : "/bin/true";
  }

  const std::string& setup_error() const { return setup_error_; }
  std::string ws() const { return dir_.Path("ws"); }
  const std::string& policy() const { return policy_; }
  const std::string& denied_exe() const { return denied_exe_; }
  const std::string& admitted_exe() const { return admitted_exe_; }
  std::string DeniedConnect() const {
    return "127.0.0.1:" + std::to_string(denied_.port());
  }
  std::string AdmittedConnect() const {
    return "127.0.0.1:" + std::to_string(ok_.port());
  }

  // The run of `mode` ("enforce" or "audit"), made on first use.
  const StressRun& RunOf(const std::string& mode) {
    auto it = runs_.find(mode);
    if (it == runs_.end()) it = runs_.emplace(mode, Make(mode)).first;
    return it->second;
  }

  ProcessResult Explain(const std::string& flag, const std::string& what) {
    return RunProcess({RequiredEnv("KLAUNCH_BIN"), "explain", "--policy",
                       policy_, flag, what},
                      Options());
  }

 private:
  ProcessOptions Options() const {
    ProcessOptions o;
    o.cwd = ws();
    o.env = std::vector<std::string>{"PATH=/usr/bin:/bin", "LANG=C.UTF-8",
                                     "HOME=" + dir_.path(),
                                     "XDG_STATE_HOME=" + dir_.Path("state")};
    return o;
  }

  StressRun Make(const std::string& mode) {
    StressRun run;
    const std::string log = dir_.Path(mode + ".jsonl");
    auto args = [&](const std::string& kind, const std::string& bin) {
      return bin + " " + kind + " " + ws() + " " + std::to_string(ok_.port()) +
             " " + std::to_string(denied_.port()) + " " +
             std::to_string(kWorkers) + " " + std::to_string(kThreads) + " " +
             std::to_string(kRounds);
    };
    std::vector<std::string> argv = {RequiredEnv("KLAUNCH_BIN"), "--policy",
                                     policy_, "--log", log};
    if (mode == "audit") argv.push_back("--audit");
    argv.insert(
        argv.end(),
        {"--", "/bin/sh", "-c",
         args("dynamic", dynamic_) + " & d=$!; " + args("static", static_) +
             " & s=$!; wait $d; a=$?; wait $s; b=$?; exit $((a | b))"});
    ProcessOptions o = Options();
    o.timeout_seconds = kRunTimeoutSeconds;
    ok_.Accepted();
    denied_.Accepted();
    run.result = RunProcess(argv, o);
    // The listeners' thread may still be taking the last connections.
    usleep(200 * 1000);
    run.accepted_ok = ok_.Accepted();
    run.accepted_denied = denied_.Accepted();
    run.log_text = ReadFile(log);
    std::istringstream lines(run.log_text);
    for (std::string line; std::getline(lines, line);) {
      if (Field(line, "verdict") != "info") run.records.push_back(line);
    }
    std::istringstream out(run.result.out);
    for (std::string line; std::getline(out, line);) {
      std::istringstream words(line);
      std::string tag, kind;
      words >> tag >> kind;
      if (tag != "counts") continue;
      Counts& c = run.counts[kind];
      ++c.workers;
      std::string category;
      std::array<int, 3> n;
      while (words >> category >> n[0] >> n[1] >> n[2]) {
        for (int i = 0; i < 3; ++i) c.by_category[category][i] += n[i];
      }
    }
    return run;
  }

  TempDir dir_;
  Listener ok_, denied_;
  std::string dynamic_, static_, policy_, denied_exe_, admitted_exe_,
      setup_error_;
  std::map<std::string, StressRun> runs_;
};

class Stress : public ::testing::TestWithParam<const char*> {
 protected:
  static void SetUpTestSuite() { world_ = new World; }
  static void TearDownTestSuite() {
    delete world_;
    world_ = nullptr;
  }
  void SetUp() override { ASSERT_EQ(world_->setup_error(), ""); }

  bool audit() const { return std::string(GetParam()) == "audit"; }
  const StressRun& run() const { return world_->RunOf(GetParam()); }
  // The records of `layer` with access `access`.
  int Records(const std::string& layer, const std::string& access) const {
    int n = 0;
    for (const std::string& r : run().records) {
      n += Field(r, "layer") == layer && Field(r, "access") == access;
    }
    return n;
  }

  static World* world_;
};

World* Stress::world_ = nullptr;

TEST_P(Stress, TheRunEndsWithinItsBoundAndEveryWorkerReports) {
  const StressRun& r = run();
  ASSERT_FALSE(r.timed_out())
      << "klaunch and its programs did not finish in " << kRunTimeoutSeconds
      << " s: a deadlock (the process tree was killed)\n"
      << Show(r.result);
  EXPECT_EQ(r.result.exit_code, 0) << Show(r.result);
  for (const char* kind : {"dynamic", "static"}) {
    SCOPED_TRACE(kind);
    const Counts& c = r.counts.count(kind) ? r.counts.at(kind) : Counts();
    EXPECT_EQ(c.workers, kWorkers) << Show(r.result);
    for (const char* category : kCategories) {
      EXPECT_EQ(c.bad(category), 0)
          << "admitted " << category << " calls failed\n"
          << Show(r.result);
    }
    // Every thread made both exec attempts: 2 children each, 512 in all.
    EXPECT_EQ(c.attempts("exec"), kWorkers * kThreads);
  }
  EXPECT_EQ(r.accepted_ok, 2 * kWorkers * kThreads * kRounds);
}

TEST_P(Stress, EveryAuditLineIsOneCompleteJsonObject) {
  const StressRun& r = run();
  ASSERT_FALSE(r.log_text.empty());
  EXPECT_EQ(r.log_text.back(), '\n') << "the last line is torn";
  std::istringstream lines(r.log_text);
  int n = 0, bad = 0;
  for (std::string line; std::getline(lines, line); ++n) {
    if (JsonChecker(line).IsOneObject()) continue;
    if (++bad <= 5)
      ADD_FAILURE() << "line " << n + 1 << " is not one JSON object: " << line;
  }
  EXPECT_EQ(bad, 0) << "of " << n << " lines";
  const std::string verdict = audit() ? "would_deny" : "deny";
  for (const std::string& rec : r.records) {
    ASSERT_EQ(Field(rec, "verdict"), verdict) << rec;
    ASSERT_NE(Field(rec, "target"), "") << rec;
    ASSERT_NE(Field(rec, "message"), "") << rec;
  }
}

// Enforce: each refusal a program saw is one record of the layer that
// judged its calls. Audit: each call on a denied target is one would_deny
// record and nothing is refused.
TEST_P(Stress, EveryDeniedCallIsRecordedOnceByTheLayerThatJudgedIt) {
  const StressRun& r = run();
  int expected_total = 0;
  for (const char* kind : {"dynamic", "static"}) {
    const Counts& c = r.counts.count(kind) ? r.counts.at(kind) : Counts();
    for (const std::string category : kCategories) {
      SCOPED_TRACE(std::string(kind) + " " + category);
      ASSERT_GT(c.attempts(category), 0);
      if (audit()) {
        EXPECT_EQ(c.refused(category), 0) << "audit mode refused a call";
        EXPECT_EQ(Records(LayerOf(kind), category), c.attempts(category));
      } else {
        EXPECT_EQ(c.refused(category), c.attempts(category))
            << "a call the policy denies was not refused";
        EXPECT_EQ(Records(LayerOf(kind), category), c.refused(category));
      }
      expected_total += c.attempts(category);
    }
  }
  // No record beyond those: nothing admitted was recorded as refused.
  EXPECT_EQ(static_cast<int>(r.records.size()), expected_total);
  EXPECT_EQ(r.accepted_denied, audit() ? 2 * kWorkers * kThreads * kRounds : 0)
      << "connects to the denied port that reached the listener";
}

// The engine refuses stat of a denied file (policy.md: "deny ... stat
// included"), and the shim does; a static binary's stat reaches the
// supervisor only because the filter sends the stat family there (it once
// did not, and this test found it).
TEST_P(Stress, AStaticBinarysStatOfADeniedFileIsJudgedLikeADynamicOnes) {
  const StressRun& r = run();
  const Counts& c = r.counts.count("static") ? r.counts.at("static") : Counts();
  ASSERT_EQ(c.attempts("stat"), kWorkers * kThreads * kRounds);
  if (!audit()) {
    EXPECT_EQ(c.refused("stat"), c.attempts("stat"));
  }
  EXPECT_EQ(Records("seccomp", "stat"), c.attempts("stat"));
}

TEST_P(Stress, EveryRecordedDecisionIsTheEnginesAnswerForItsTarget) {
  const StressRun& r = run();
  ASSERT_FALSE(r.records.empty());
  // Each distinct decision once: what the policy defines as denied, and
  // what `klaunch explain` answers for the same target.
  std::set<std::string> seen;
  const std::string deny_dir = world_->ws() + "/deny/";
  for (const std::string& rec : r.records) {
    const std::string access = Field(rec, "access");
    const std::string target = Field(rec, "target");
    const std::string message = Field(rec, "message");
    if (!seen.insert(access + " " + target + " " + message).second) continue;
    SCOPED_TRACE(rec);
    std::string flag = "--" + access;
    std::string what = target;
    if (access == "read" || access == "write" || access == "stat") {
      EXPECT_EQ(target.rfind(deny_dir, 0), 0u) << "not a denied file";
      EXPECT_EQ(Field(rec, "rule"), "filesystem.deny[0]");
      // explain has no --stat; a deny entry refuses reads and stats alike.
      if (access == "stat") flag = "--read";
    } else if (access == "connect") {
      EXPECT_EQ(target, world_->DeniedConnect());
    } else if (access == "exec") {
      EXPECT_EQ(target, world_->denied_exe());
      what = Field(rec, "command");
    } else {
      ADD_FAILURE() << "an unexpected access";
      continue;
    }
    ProcessResult e = world_->Explain(flag, what);
    EXPECT_EQ(e.exit_code, 1) << Show(e);
    if (access == "stat") {
      EXPECT_THAT(e.out, HasSubstr(Field(rec, "rule"))) << Show(e);
    } else {
      EXPECT_EQ(e.out, "deny: " + message + "\n");
    }
  }
  // At least one of each denied kind of target was seen and checked.
  EXPECT_GE(seen.size(), 4u * 2 + 2);
  // And the targets admitted: explain allows them, no record names them.
  struct Admitted {
    const char* flag;
    std::string what, target;
  };
  const std::vector<Admitted> admitted = {
      {"--read", world_->ws() + "/allow/a0", world_->ws() + "/allow/a0"},
      {"--write", world_->ws() + "/allow/a1", world_->ws() + "/allow/a1"},
      {"--connect", world_->AdmittedConnect(), world_->AdmittedConnect()},
      {"--exec", "true", world_->admitted_exe()}};
  for (const Admitted& a : admitted) {
    EXPECT_EQ(world_->Explain(a.flag, a.what).exit_code, 0)
        << a.flag << " " << a.what;
    for (const std::string& rec : r.records) {
      ASSERT_NE(Field(rec, "target"), a.target) << rec;
      ASSERT_THAT(Field(rec, "target"), Not(HasSubstr(world_->ws() + "/out/")))
          << rec;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, Stress, ::testing::Values("enforce", "audit"),
                         [](const auto& info) {
                           return std::string(info.param);
                         });

}  // namespace
}  // namespace klaunch::testing
