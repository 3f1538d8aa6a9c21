#include "tests/sandbox.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <sstream>

#include "core/audit.h"
#include "supervisor/request_socket.h"
#include "supervisor/shim_records.h"

namespace klaunch::testing {
namespace {

std::string ReadLink(const std::string& path) {
  char buf[4096];
  const ssize_t n = readlink(path.c_str(), buf, sizeof(buf));
  return n > 0 ? std::string(buf, n) : std::string();
}

std::string ReplaceAll(std::string s, const std::string& from,
                       const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos;
       at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

}  // namespace

Sandbox::Sandbox(const std::string& policy) {
  RunProcess({"/bin/mkdir", "-p", dir_.Path("ws")});
  std::string text = ReplaceAll(policy, "@WS@", ws());
  text = ReplaceAll(text, "@ROOT@", root());
  if (text.find("workspace =") == std::string::npos &&
      text.find("workspace=") == std::string::npos) {
    // The default workspace is the start directory; make it explicit.
    std::string header = "[filesystem]\nworkspace = \"" + ws() + "\"\n";
    size_t fs = text.find("[filesystem]");
    if (fs == std::string::npos) {
      text += "\n" + header;
    } else {
      text.replace(fs, std::string("[filesystem]").size(), header);
    }
  }
  const std::string source = dir_.Write("policy.toml", text);
  ProcessResult r =
      RunProcess({RequiredEnv("KLAUNCH_BIN"), "check", source}, {});
  EXPECT_EQ(r.exit_code, 0) << "policy rejected: " << r.err << "\n" << text;
  effective_ = dir_.Write("effective.toml", r.out);
  log_ = dir_.Path("audit.jsonl");
  // The shim never writes the log: its records come here, as they would
  // to klaunch without the seccomp layer.
  records_path_ = sockets_.Path("record.sock");
  ShimRecordSettings settings;
  settings.log = AuditLog{log_, ""};
  absl::StatusOr<std::unique_ptr<RequestSocket>> records = RequestSocket::Start(
      records_path_, kRecordRequestMax,
      [settings](pid_t pid, absl::string_view request) {
        const std::string exe =
            ReadLink("/proc/" + std::to_string(pid) + "/exe");
        return WriteShimRecord(settings, pid, exe, request) == 0 ? '0' : 'e';
      });
  EXPECT_TRUE(records.ok()) << records.status();
  if (records.ok()) records_ = *std::move(records);
}

Sandbox::~Sandbox() = default;

std::vector<std::string> Sandbox::ShimEnv() const {
  const std::string shim = RequiredEnv("KLAUNCH_SHIM");
  return {"LD_PRELOAD=" + shim, "KLAUNCH_SHIM=" + shim,
          "KLAUNCH_POLICY_FILE=" + effective_,
          "KLAUNCH_RECORD_SOCKET=" + records_path_};
}

ProcessResult Sandbox::Run(const std::vector<std::string>& argv,
                           ProcessOptions options) const {
  if (options.cwd.empty()) options.cwd = ws();
  if (!options.env) {
    options.env = std::vector<std::string>{"PATH=/usr/bin:/bin",
                                           "HOME=" + root(), "LANG=C.UTF-8"};
  }
  for (const std::string& e : ShimEnv()) options.env->push_back(e);
  return RunProcess(argv, options);
}

std::vector<std::string> Sandbox::AuditLines() const {
  std::vector<std::string> out;
  std::istringstream in(ReadFile(log_));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

std::vector<std::string> Sandbox::RefusedTargets() const {
  std::vector<std::string> out;
  for (const std::string& line : AuditLines()) {
    out.push_back(Field(line, "target"));
  }
  return out;
}

std::string Sandbox::CompileProgram(
    const std::string& file, const std::vector<std::string>& flags) const {
  const std::string src = RequiredEnv("KLAUNCH_TEST_PROGRAMS") + "/" + file;
  std::string name = file;
  if (name.size() > 2 && name.compare(name.size() - 2, 2, ".c") == 0) {
    name.resize(name.size() - 2);
  }
  const std::string out = dir_.Path(name);
  std::vector<std::string> argv = {"/usr/bin/cc", "-O1", "-o", out, src};
  for (const std::string& f : flags) argv.push_back(f);
  ProcessResult r = RunProcess(argv);
  EXPECT_EQ(r.exit_code, 0) << "compile of " << file << " failed:\n" << r.err;
  return out;
}

std::string Field(const std::string& line, const std::string& key) {
  const std::string open = "\"" + key + "\":\"";
  size_t at = line.find(open);
  if (at == std::string::npos) return "";
  std::string out;
  for (at += open.size(); at < line.size() && line[at] != '"'; ++at) {
    if (line[at] == '\\' && at + 1 < line.size()) ++at;
    out += line[at];
  }
  return out;
}

std::vector<std::string> LinesFor(const Sandbox& box,
                                  const std::string& target) {
  std::vector<std::string> out;
  for (const std::string& line : box.AuditLines()) {
    if (Field(line, "target") == target) out.push_back(line);
  }
  return out;
}

std::vector<std::string> LinesMentioning(const Sandbox& box,
                                         const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& line : box.AuditLines()) {
    if (Field(line, "message").find(text) != std::string::npos) {
      out.push_back(line);
    }
  }
  return out;
}

std::string Dump(const Sandbox& box) {
  std::string out;
  for (const std::string& line : box.AuditLines()) out += line + "\n";
  return out.empty() ? "(audit log empty)" : out;
}

std::string Show(const ProcessResult& r) {
  return "exit " + std::to_string(r.exit_code) + " signal " +
         std::to_string(r.signal) + "\nstdout:\n" + r.out + "\nstderr:\n" +
         r.err;
}

}  // namespace klaunch::testing
