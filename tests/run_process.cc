#include "tests/run_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

extern char** environ;

namespace klaunch::testing {

ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const ProcessOptions& options) {
  ProcessResult result;
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
    result.err = "pipe failed";
    return result;
  }
  std::vector<std::string> env;
  if (options.env) {
    env = *options.env;
    AddLandlockCap(&env);
  } else {
    for (char** e = environ; *e; ++e) env.emplace_back(*e);
  }
  // An extra variable replaces one of the same name (getenv finds the
  // first).
  for (const std::string& e : options.extra_env) {
    const std::string key = e.substr(0, e.find('=') + 1);
    std::erase_if(env, [&key](const std::string& x) {
      return x.compare(0, key.size(), key) == 0;
    });
    env.push_back(e);
  }
  std::vector<char*> cargv, cenv;
  for (const std::string& a : argv)
    cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  for (const std::string& e : env) cenv.push_back(const_cast<char*>(e.c_str()));
  cenv.push_back(nullptr);

  pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    setpgid(0, 0);
    if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) _exit(121);
    execve(cargv[0], cargv.data(), cenv.data());
    dprintf(2, "exec %s: %s\n", cargv[0], strerror(errno));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  close(err[1]);
  // Feed stdin (small texts only) and close it so the child sees EOF.
  if (!options.stdin_text.empty()) {
    ssize_t ignored =
        write(in[1], options.stdin_text.data(), options.stdin_text.size());
    (void)ignored;
  }
  close(in[1]);
  struct pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  const time_t deadline = time(nullptr) + options.timeout_seconds;
  bool killed = false;
  while (open_fds > 0) {
    int n = poll(fds, 2, 1000);
    if (time(nullptr) > deadline && !killed) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      killed = true;
      result.err += "\n[run_process: killed after timeout]\n";
    }
    if (n <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
      char buf[65536];
      ssize_t r = read(fds[i].fd, buf, sizeof(buf));
      if (r > 0) {
        sinks[i]->append(buf, r);
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

TempDir::TempDir() : TempDir("/tmp") {}

TempDir::TempDir(const std::string& parent) {
  std::string tmpl = parent + "/klaunch-test-XXXXXX";
  char* made = mkdtemp(tmpl.data());
  // Canonical, so tests compare with the paths the kernel reports.
  char real[4096];
  path_ = made && realpath(made, real) ? real : "";
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  RunProcess({"/bin/rm", "-rf", path_});
}

std::string TempDir::Write(const std::string& name,
                           const std::string& text) const {
  std::string p = Path(name);
  std::string dir = p.substr(0, p.rfind('/'));
  RunProcess({"/bin/mkdir", "-p", dir});
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

ProcessResult RunNativelyInAnEmptyDirectory(
    const std::vector<std::string>& argv) {
  TempDir dir;
  ProcessOptions here;
  here.cwd = dir.path();
  return RunProcess(argv, here);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

std::string RequiredEnv(const char* name) {
  const char* v = getenv(name);
  if (v == nullptr || *v == '\0') {
    std::fprintf(stderr, "%s is not set: run this test through meson test\n",
                 name);
    abort();
  }
  return v;
}

}  // namespace klaunch::testing

namespace klaunch::testing {

void AddLandlockCap(std::vector<std::string>* env) {
  const char* cap = getenv("KLAUNCH_TEST_LANDLOCK_ABI");
  const std::string key = "KLAUNCH_TEST_LANDLOCK_ABI=";
  const bool named =
      std::any_of(env->begin(), env->end(), [&key](const std::string& e) {
        return e.compare(0, key.size(), key) == 0;
      });
  if (cap != nullptr && !named) env->push_back(key + cap);
}

int LandlockAbiOfThisKernel() {
  const long abi = syscall(444 /* landlock_create_ruleset */, nullptr, 0,
                           1 /* LANDLOCK_CREATE_RULESET_VERSION */);
  int usable = abi < 0 ? 0 : static_cast<int>(abi);
  // What klaunch will use under scripts/attack-matrix's cap (core/landlock.h).
  if (const char* cap = getenv("KLAUNCH_TEST_LANDLOCK_ABI")) {
    const int n = atoi(cap);
    if (*cap != '\0' && n >= 0 && n < usable) usable = n;
  }
  return usable;
}

}  // namespace klaunch::testing
