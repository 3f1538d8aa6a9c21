// Running a real program under the shim for an integration test: writes the
// policy, turns it into its effective form with the real `klaunch check`,
// sets the shim's environment by hand (the launcher is not involved) and
// collects the audit log.
//
//   Sandbox box(R"(extends = "workspace-write")");
//   ProcessResult r = box.Run({"/bin/cat", box.Path("ws/a.txt")});
//   EXPECT_EQ(box.Refusals().size(), 0u);

#ifndef KLAUNCH_TESTS_SANDBOX_H_
#define KLAUNCH_TESTS_SANDBOX_H_

#include <memory>
#include <string>
#include <vector>

#include "tests/run_process.h"

namespace klaunch::testing {

// Serves the shim's record requests as klaunch does (launcher/
// request_socket.h), writing them to the sandbox's audit log.
}  // namespace klaunch::testing
namespace klaunch {
class RequestSocket;
}
namespace klaunch::testing {

class Sandbox {
 public:
  // `policy` is TOML; "@WS@" and "@ROOT@" in it are replaced by the
  // workspace (ROOT/ws, created) and the test's root directory. The
  // shim's records reach the audit log through a socket this serves, as
  // they reach klaunch's without the seccomp layer.
  explicit Sandbox(const std::string& policy);
  ~Sandbox();

  const std::string& root() const { return dir_.path(); }
  std::string ws() const { return dir_.Path("ws"); }
  std::string Path(const std::string& name) const { return dir_.Path(name); }
  std::string Write(const std::string& name, const std::string& text) const {
    return dir_.Write(name, text);
  }

  // Runs argv with the shim preloaded, in the workspace unless options say
  // otherwise.
  ProcessResult Run(const std::vector<std::string>& argv,
                    ProcessOptions options = {}) const;
  // The environment Run gives a program (without its other variables).
  std::vector<std::string> ShimEnv() const;

  // The audit log's lines, and the targets of its refusals.
  std::vector<std::string> AuditLines() const;
  std::vector<std::string> RefusedTargets() const;

  // Compiles tests/programs/FILE (found through KLAUNCH_TEST_PROGRAMS) with
  // `flags` into an executable in the root named FILE without its ".c";
  // fails the test on a compile error. Returns its path.
  std::string CompileProgram(const std::string& file,
                             const std::vector<std::string>& flags = {}) const;

 private:
  TempDir dir_;
  TempDir sockets_;  // klaunch's side, outside what the program sees
  std::string effective_;
  std::string log_;
  std::string records_path_;
  std::unique_ptr<RequestSocket> records_;
};

// The value of a string field of one audit line ("" when absent), with the
// JSON escapes undone.
std::string Field(const std::string& line, const std::string& key);

// The audit lines whose target is `target`, and those whose message holds
// `text`.
std::vector<std::string> LinesFor(const Sandbox& box,
                                  const std::string& target);
std::vector<std::string> LinesMentioning(const Sandbox& box,
                                         const std::string& text);

// The audit log, and a process's result, as text for a failure message.
std::string Dump(const Sandbox& box);
std::string Show(const ProcessResult& r);

}  // namespace klaunch::testing

#endif  // KLAUNCH_TESTS_SANDBOX_H_
