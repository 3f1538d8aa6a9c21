// The errno a refused call answers, as a table against the kernel's own
// answers: each call is made natively in one copy of a tree and under
// klaunch in another that the policy lets the program read but not write.
// Where the kernel fails the call before it checks a permission (mkdir of
// an existing name: EEXIST; unlink of a missing one: ENOENT; a directory
// opened for writing: EISDIR), klaunch must answer the same; only where
// the native call would have succeeded may it answer EACCES. Where a deny
// entry covers the name, EACCES whatever the kernel would say, so that
// nothing tells a denied name that exists from one that does not.
//
// tests/programs/toucher.c makes the calls, built static (the supervisor
// answers) and dynamic (the shim answers).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/attack_support.h"

namespace klaunch::testing {
namespace {

// Each call acts on names no other call touches, so that what one call
// did natively changes no other's answer.
const char* const kCalls[] = {
    "mkdir:d",
    "mkdir:f_keep",
    "mkdir:new_dir",
    "mkdir:missing/sub",
    "unlink:missing",
    "unlink:f_unlink",
    "rmdir:missing",
    "rmdir:e",
    "rename:missing:y",
    "rename:f_rename:y",
    "link:missing:z",
    "link:f_link:f_keep",
    "create:d",
    "append:d",
    "rdwr:d",
    "append:missing",
    "create:new_file",
    "mkdir:secret",
    "unlink:secret/missing",
    "mkdir:secret/x",
};

// Makes the tree in `dir`.
void MakeTree(const std::string& dir) {
  RunProcess({"/bin/mkdir", "-p", dir + "/d", dir + "/e", dir + "/secret/x"});
  for (const char* f : {"f_keep", "f_unlink", "f_rename", "f_link", "d/x"}) {
    RunProcess({"/bin/sh", "-c", "echo > \"$0\"", dir + "/" + f});
  }
}

// "OP ARG" -> "ok" or the error's text, from the toucher's output, with
// `dir` taken out of the names.
std::map<std::string, std::string> Answers(const std::string& out,
                                           const std::string& dir) {
  std::map<std::string, std::string> answers;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    const size_t colon = line.rfind(": ");
    if (colon == std::string::npos) continue;
    std::string call = line.substr(0, colon);
    for (size_t at; (at = call.find(dir + "/")) != std::string::npos;) {
      call.erase(at, dir.size() + 1);
    }
    std::string answer = line.substr(colon + 2);
    if (answer.rfind("error ", 0) == 0) answer = answer.substr(6);
    answers[call] = answer;
  }
  return answers;
}

std::vector<std::string> Args(const std::string& dir) {
  std::vector<std::string> args;
  for (std::string call : kCalls) {
    // OP:A[:B] with A and B under `dir`.
    std::string op = call.substr(0, call.find(':'));
    std::string rest = call.substr(call.find(':') + 1);
    std::string out = op + ":" + dir + "/";
    for (char c : rest) {
      out += c;
      if (c == ':') out += dir + "/";
    }
    args.push_back(out);
  }
  return args;
}

TEST(Errno, ARefusedCallAnswersWhatTheKernelWouldWhereItFailsNatively) {
  KlaunchRun k;
  BuildProgram("toucher.c", k.Path("ws/toucher-static"), true);
  BuildProgram("toucher.c", k.Path("ws/toucher"), false);
  const std::string native_dir = k.Path("native");
  MakeTree(native_dir);
  std::vector<std::string> argv = {k.Path("ws/toucher")};
  for (const std::string& a : Args(native_dir)) argv.push_back(a);
  ProcessResult native = RunProcess(argv);
  ASSERT_EQ(native.exit_code, 0) << Show(native);
  const auto kernel = Answers(native.out, native_dir);
  ASSERT_EQ(kernel.size(), std::size(kCalls)) << native.out;
  // The table is only a test if the kernel both fails and admits calls.
  ASSERT_EQ(kernel.at("mkdir d"), strerror(EEXIST));
  ASSERT_EQ(kernel.at("unlink missing"), strerror(ENOENT));
  ASSERT_EQ(kernel.at("create d"), strerror(EISDIR));
  ASSERT_EQ(kernel.at("mkdir new_dir"), "ok");

  for (const char* binary : {"toucher-static", "toucher"}) {
    const std::string dir = k.Path(std::string("sandboxed-") + binary);
    MakeTree(dir);
    // read-only: /tmp, where the tree is, is no write root there.
    k.SetPolicy("extends = \"read-only\"\n[filesystem]\nread = [\"" + dir +
                "\"]\ndeny = [\"" + dir + "/secret\"]\n");
    std::vector<std::string> cmd = {k.Path(std::string("ws/") + binary)};
    for (const std::string& a : Args(dir)) cmd.push_back(a);
    ProcessResult r = k.Run(cmd);
    ASSERT_EQ(r.exit_code, 0) << binary << Show(r);
    const auto got = Answers(r.out, dir);
    for (const auto& [call, native_answer] : kernel) {
      std::string want =
          native_answer == "ok" ? strerror(EACCES) : native_answer;
      if (call.find("secret") != std::string::npos) want = strerror(EACCES);
      EXPECT_EQ(got.count(call) ? got.at(call) : "(no answer)", want)
          << binary << ": " << call << " (natively: " << native_answer << ")";
    }
  }
}

}  // namespace
}  // namespace klaunch::testing
