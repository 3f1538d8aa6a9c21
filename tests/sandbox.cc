#include "tests/sandbox.h"

#include <gtest/gtest.h>

#include <sstream>

namespace klaunch::testing {
namespace {

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
}

std::vector<std::string> Sandbox::ShimEnv() const {
  const std::string shim = RequiredEnv("KLAUNCH_SHIM");
  return {"LD_PRELOAD=" + shim, "KLAUNCH_SHIM=" + shim,
          "KLAUNCH_POLICY_FILE=" + effective_, "KLAUNCH_AUDIT_LOG=" + log_};
}

ProcessResult Sandbox::Run(const std::vector<std::string>& argv,
                           ProcessOptions options) const {
  if (options.cwd.empty()) options.cwd = ws();
  if (!options.env) {
    options.env = std::vector<std::string>{
        "PATH=/usr/bin:/bin", "HOME=" + root(), "LANG=C.UTF-8"};
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
    const std::string key = "\"target\":\"";
    size_t at = line.find(key);
    if (at == std::string::npos) continue;
    at += key.size();
    out.push_back(line.substr(at, line.find('"', at) - at));
  }
  return out;
}

std::string Sandbox::CompileC(const std::string& name,
                              const std::string& source,
                              const std::vector<std::string>& flags) const {
  const std::string src = dir_.Write(name + ".c", source);
  const std::string out = dir_.Path(name);
  std::vector<std::string> argv = {"/usr/bin/cc", "-O1", "-o", out, src};
  for (const std::string& f : flags) argv.push_back(f);
  ProcessResult r = RunProcess(argv);
  EXPECT_EQ(r.exit_code, 0) << "compile of " << name << " failed:\n" << r.err;
  return out;
}

}  // namespace klaunch::testing
