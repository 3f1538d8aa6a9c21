// Runs a real program for an integration test and collects what it did:
// exit status, stdout, stderr. No shell in between unless the test asks for
// one, so arguments arrive exactly as written.

#ifndef KLAUNCH_TESTS_RUN_PROCESS_H_
#define KLAUNCH_TESTS_RUN_PROCESS_H_

#include <optional>
#include <string>
#include <vector>

namespace klaunch::testing {

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  std::string out;
  std::string err;
};

struct ProcessOptions {
  // Replaces the environment when set (with AddLandlockCap); inherits ours
  // otherwise.
  std::optional<std::vector<std::string>> env;
  std::vector<std::string> extra_env;  // added to whichever environment
  std::string cwd;
  std::string stdin_text;
  int timeout_seconds = 60;  // the child is killed after this
};

ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const ProcessOptions& options = {});

// A directory under /tmp, removed with its contents at destruction.
class TempDir {
 public:
  TempDir();
  // Under `parent` instead of /tmp.
  explicit TempDir(const std::string& parent);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string Path(const std::string& name) const { return path_ + "/" + name; }
  // Writes `text` to `name` (directories created) and returns its path.
  std::string Write(const std::string& name, const std::string& text) const;

 private:
  std::string path_;
};

// `argv` run natively in a fresh empty directory: the kernel's own answers,
// for a test that runs the same program under klaunch to compare.
ProcessResult RunNativelyInAnEmptyDirectory(
    const std::vector<std::string>& argv);

std::string ReadFile(const std::string& path);
bool Exists(const std::string& path);

// The Landlock ABI klaunch will use in this run of the tests: the running
// kernel's, read by the test itself (0 when it has none), capped by
// KLAUNCH_TEST_LANDLOCK_ABI as klaunch caps it (scripts/attack-matrix).
int LandlockAbiOfThisKernel();

// Adds this test run's KLAUNCH_TEST_LANDLOCK_ABI to an environment made by
// hand, unless it names one: scripts/attack-matrix's cap holds for every
// klaunch a test starts. RunProcess does it for ProcessOptions::env.
void AddLandlockCap(std::vector<std::string>* env);

// An environment variable the meson test definition must set.
std::string RequiredEnv(const char* name);

}  // namespace klaunch::testing

#endif  // KLAUNCH_TESTS_RUN_PROCESS_H_
