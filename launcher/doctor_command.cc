#include "launcher/doctor_command.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "core/json.h"
#include "core/landlock.h"
#include "launcher/run_command.h"
#include "launcher/shim_locator.h"
#include "launcher/what_holds.h"
#include "supervisor/run_cgroup.h"
#include "supervisor/seccomp_filter.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

namespace klaunch {
namespace {

constexpr char kDoctorUsage[] =
    "usage: klaunch doctor [--json]\n"
    "       klaunch doctor --settings   what each layer holds in every setting "
    "(SECURITY.md's table)\n";

struct Probe {
  bool ok = false;
  std::string note;  // what it is for when ok, why not otherwise
};

struct Layer {
  bool used = false;
  std::string why;
};

struct Report {
  std::string kernel;
  std::string machine;
  Probe seccomp_filter;
  Probe user_notif;
  Probe addfd;
  Probe pidfd_open;
  Probe pidfd_getfd;
  int landlock_abi = 0;
  std::string shim_path;  // empty when not found
  bool shim_found = false;
  bool shim_loads = false;
  std::string shim_error;
  Probe no_new_privs;
  Probe wait_killable;  // the exec check's filter flag
  Probe ptrace_attach;  // the exec check itself
  Probe run_cgroup;
  bool root = false;
  unsigned euid = 0;
  Layer shim_layer;
  Layer seccomp_layer;
  Layer landlock_layer;
};

// "EINVAL (Invalid argument)": the name is what a person looks up, the text
// what they read.
std::string ErrnoText(int e) {
  const char* name = strerrorname_np(e);
  return absl::StrCat(name != nullptr ? name : absl::StrCat("errno ", e), " (",
                      strerror(e), ")");
}

void Tell(int fd, absl::string_view text) {
  while (!text.empty()) {
    const ssize_t n = write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    text.remove_prefix(static_cast<size_t>(n));
  }
}

struct ChildResult {
  int code = -1;  // the child's exit status; -1 when it did not exit
  std::string text;
};

// The probes that change the process (no_new_privs, a seccomp listener, a
// library's constructors) run in a child, so klaunch stays as it was; the
// child answers with its exit status and a line on `out`. doctor has one
// thread, so the child may allocate. The alarm ends a child that hangs, so
// doctor always answers.
template <typename Body>
ChildResult InChild(Body body) {
  ChildResult result;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    result.text = "cannot make a pipe: " + ErrnoText(errno);
    return result;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    result.text = "cannot fork: " + ErrnoText(errno);
    close(fds[0]);
    close(fds[1]);
    return result;
  }
  if (pid == 0) {
    close(fds[0]);
    signal(SIGALRM, SIG_DFL);
    sigset_t alarm_only;
    sigemptyset(&alarm_only);
    sigaddset(&alarm_only, SIGALRM);
    sigprocmask(SIG_UNBLOCK, &alarm_only, nullptr);
    alarm(10);
    _exit(body(fds[1]));
  }
  close(fds[1]);
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    result.text.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      result.text = "cannot wait for the probe: " + ErrnoText(errno);
      return result;
    }
  }
  if (WIFEXITED(status)) {
    result.code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    const char* name = sigabbrev_np(WTERMSIG(status));
    result.text =
        absl::StrCat("the probe was killed by SIG",
                     name != nullptr ? name : absl::StrCat(WTERMSIG(status)),
                     WTERMSIG(status) == SIGALRM ? " (it hung)" : "",
                     result.text.empty() ? "" : ": ", result.text);
  }
  return result;
}

Probe ProbeSeccompFilter() {
  const int mode = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
  if (mode < 0) {
    return {false, absl::StrCat("prctl(PR_GET_SECCOMP): ", ErrnoText(errno),
                                "; a kernel without CONFIG_SECCOMP?")};
  }
  unsigned action = SECCOMP_RET_ERRNO;
  if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) != 0) {
    return {false, absl::StrCat("SECCOMP_GET_ACTION_AVAIL(SECCOMP_RET_ERRNO): ",
                                ErrnoText(errno))};
  }
  // A filter on doctor itself (inside klaunch, a container) may refuse the
  // listener the probes below need, which says nothing about the kernel.
  return {true, mode == SECCOMP_MODE_FILTER
                    ? "filters load; doctor itself already runs under one"
                    : "filters load, SECCOMP_RET_ERRNO available"};
}

Probe ProbeUserNotif() {
  std::string why;
  if (!SeccompAvailable(&why)) return {false, why};
  return {true, "SECCOMP_RET_USER_NOTIF available"};
}

// ENOENT for a notification id nobody has is the answer of a kernel that
// knows the ioctl (5.9+); an older one has no such request.
int ProbeAddfdInChild(int out) {
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    Tell(out, "cannot set no_new_privs to load a filter: " + ErrnoText(errno));
    return 2;
  }
  sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  sock_fprog program = {1, &allow};
  const long listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                                SECCOMP_FILTER_FLAG_NEW_LISTENER, &program);
  if (listener < 0) {
    Tell(out, "cannot load a filter with a listener: " + ErrnoText(errno));
    return 2;
  }
  seccomp_notif_addfd addfd = {};
  addfd.id = 0;  // the filter allows everything, so no notification exists
  // The kernel looks the source descriptor up before the id: it must be open.
  addfd.srcfd = static_cast<__u32>(listener);
  if (ioctl(static_cast<int>(listener), SECCOMP_IOCTL_NOTIF_ADDFD, &addfd) ==
      0) {
    return 0;
  }
  const int e = errno;
  if (e == ENOENT) return 0;
  if (e == EINVAL || e == ENOTTY) {
    Tell(out, absl::StrCat("the kernel does not know "
                           "SECCOMP_IOCTL_NOTIF_ADDFD (Linux 5.9+): ",
                           ErrnoText(e)));
    return 1;
  }
  Tell(out,
       "SECCOMP_IOCTL_NOTIF_ADDFD answered " + ErrnoText(e) + ", not ENOENT");
  return 1;
}

Probe ProbeAddfd() {
  ChildResult r = InChild(ProbeAddfdInChild);
  if (r.code == 0) {
    return {true, "the supervisor can hand the files it opens to the program"};
  }
  return {false, r.text.empty() ? "the probe failed" : r.text};
}

// A bad argument costs nothing and tells the kernel's answer apart from a
// missing call: EINVAL or EBADF means the call is there, ENOSYS it is not.
Probe ProbeSyscall(long number, const char* name, const char* since,
                   const char* use, long a, long b, long c) {
  errno = 0;
  const long r = syscall(number, a, b, c);
  const int e = errno;
  if (r >= 0) {
    close(static_cast<int>(r));
    return {true, use};
  }
  if (e == EINVAL || e == EBADF) return {true, use};
  if (e == ENOSYS) {
    return {false,
            absl::StrCat("the kernel has no ", name, " (Linux ", since, "+)")};
  }
  return {false, absl::StrCat(name, " answered ", ErrnoText(e),
                              ", not EINVAL or EBADF: something refuses it")};
}

Probe ProbeNoNewPrivs() {
  ChildResult r = InChild([](int out) {
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0) return 0;
    Tell(out, "prctl(PR_SET_NO_NEW_PRIVS): " + ErrnoText(errno));
    return 1;
  });
  if (r.code == 0) {
    return {true, prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1
                      ? "already set on doctor itself"
                      : "needed to load the filter and the ruleset"};
  }
  return {false, r.text.empty() ? "the probe failed" : r.text};
}

// The exec check traces the thread that execs (supervise_exec.cc): a
// child of doctor's is seized the way the supervisor seizes a process of
// the run. Yama's ptrace_scope 3, or a filter refusing ptrace, leaves
// klaunch unable to check an exec, and it then refuses every exec.
Probe ProbePtraceAttach() {
  const pid_t child = fork();
  if (child < 0) return {false, "cannot fork: " + ErrnoText(errno)};
  if (child == 0) {
    alarm(10);
    pause();
    _exit(0);
  }
  const long seized =
      ptrace(PTRACE_SEIZE, child, 0, PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL);
  const int e = errno;
  kill(child, SIGKILL);
  while (waitpid(child, nullptr, __WALL) < 0 && errno == EINTR) {
  }
  if (seized == 0) {
    return {true, "the supervisor checks each exec at its exec stop"};
  }
  return {false, absl::StrCat("PTRACE_SEIZE: ", ErrnoText(e),
                              " (Yama's kernel.yama.ptrace_scope, or a filter "
                              "refusing ptrace): klaunch will refuse every "
                              "exec it cannot check")};
}

Probe ProbeRunCgroup() {
  absl::StatusOr<std::unique_ptr<RunCgroup>> made =
      RunCgroup::Create(absl::StrCat(time(nullptr), "-", getpid(), "-doctor"));
  if (made.ok()) {
    return {true,
            "the run's processes live in a cgroup klaunch empties "
            "with cgroup.kill; a cgroup per chain of program sections"};
  }
  return {false, absl::StrCat(made.status().message(),
                              ": the reaper ends the run by its process "
                              "tree, and the supervisor knows CMD's program "
                              "sections only")};
}

// What each Landlock ABI added, in order: ABI N has the first N.
constexpr const char* kLandlockFeatures[] = {
    "files",        "refer",  "truncate",     "TCP ports",
    "device ioctl", "scopes", "audit logging"};
constexpr int kLandlockKnown =
    sizeof(kLandlockFeatures) / sizeof(kLandlockFeatures[0]);

std::string LandlockNote(int abi) {
  if (abi <= 0) {
    return "no Landlock: the kernel lacks it or it is not in the lsm= boot "
           "list";
  }
  std::vector<std::string> has;
  std::vector<std::string> lacks;
  for (int i = 0; i < kLandlockKnown; ++i) {
    if (i < abi) {
      has.push_back(kLandlockFeatures[i]);
    } else {
      lacks.push_back(absl::StrCat(kLandlockFeatures[i], " (", i + 1, ")"));
    }
  }
  std::string note = absl::StrJoin(has, ", ");
  if (abi > kLandlockKnown) absl::StrAppend(&note, ", and newer features");
  if (!lacks.empty()) {
    absl::StrAppend(&note, "; without ", absl::StrJoin(lacks, ", "));
  }
  return note;
}

Report Diagnose() {
  Report r;
  struct utsname u;
  if (uname(&u) == 0) {
    r.kernel = u.release;
    r.machine = u.machine;
  }
  r.seccomp_filter = ProbeSeccompFilter();
  r.user_notif = ProbeUserNotif();
  r.addfd = ProbeAddfd();
  r.pidfd_open = ProbeSyscall(
      SYS_pidfd_open, "pidfd_open", "5.3",
      "the supervisor holds the program's processes by descriptor", -1, 0, 0);
  r.pidfd_getfd = ProbeSyscall(
      SYS_pidfd_getfd, "pidfd_getfd", "5.6",
      "the supervisor connects and sends on a copy of the program's socket", -1,
      0, 0);
  r.landlock_abi = LandlockAbi();
  r.no_new_privs = ProbeNoNewPrivs();
  {
    std::string why;
    r.wait_killable = FilterCanWaitKillable(&why)
                          ? Probe{true, "a traced exec waits for its answer"}
                          : Probe{false, why};
  }
  r.ptrace_attach = ProbePtraceAttach();
  r.run_cgroup = ProbeRunCgroup();
  r.euid = geteuid();
  r.root = r.euid == 0;

  absl::StatusOr<std::string> shim = FindShim();
  if (shim.ok()) {
    r.shim_found = true;
    r.shim_path = *shim;
    ChildResult loaded = InChild([&](int out) {
      if (dlopen(r.shim_path.c_str(), RTLD_NOW | RTLD_LOCAL) != nullptr) {
        return 0;
      }
      const char* error = dlerror();
      Tell(out, error != nullptr ? error : "dlopen failed");
      return 1;
    });
    r.shim_loads = loaded.code == 0;
    if (!r.shim_loads) {
      r.shim_error = loaded.text.empty() ? "dlopen failed" : loaded.text;
    }
  } else {
    r.shim_error = std::string(shim.status().message());
  }

  if (!r.shim_found) {
    r.shim_layer = {false, r.shim_error};
  } else if (!r.shim_loads) {
    // dlerror's text already names the file.
    r.shim_layer = {false, absl::StrCat("it does not load: ", r.shim_error)};
  } else {
    r.shim_layer = {true,
                    absl::StrCat("found at ", r.shim_path, ", and it loads")};
  }

  // What the supervisor calls; without one of them it cannot answer.
  std::vector<std::string> missing;
  if (!r.seccomp_filter.ok) missing.push_back("seccomp filters");
  if (!r.user_notif.ok) missing.push_back("seccomp user notification");
  if (!r.addfd.ok) missing.push_back("SECCOMP_IOCTL_NOTIF_ADDFD");
  if (!r.pidfd_open.ok) missing.push_back("pidfd_open");
  if (!r.pidfd_getfd.ok) missing.push_back("pidfd_getfd");
  if (!r.no_new_privs.ok) missing.push_back("no_new_privs");
  if (!r.wait_killable.ok) {
    missing.push_back("SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV");
  }
  if (missing.empty()) {
    r.seccomp_layer = {true,
                       "the supervisor has user notification, ADDFD, "
                       "pidfd_open, pidfd_getfd, WAIT_KILLABLE_RECV and "
                       "no_new_privs"};
  } else {
    r.seccomp_layer = {
        false,
        absl::StrCat("the supervisor needs ", absl::StrJoin(missing, ", "),
                     "; run with --no-seccomp (static binaries and "
                     "direct system calls are then not judged)")};
  }

  if (r.landlock_abi < 1) {
    r.landlock_layer = {false, "the kernel has no Landlock"};
  } else if (!r.no_new_privs.ok) {
    r.landlock_layer = {false,
                        "no_new_privs cannot be set, and Landlock "
                        "needs it for an unprivileged ruleset"};
  } else {
    r.landlock_layer = {true, absl::StrCat("ABI ", r.landlock_abi)};
  }
  return r;
}

// The setting of this machine in WhatHolds's terms.
Setting HereSetting(const Report& r) {
  Setting s;
  s.landlock_abi = r.landlock_layer.used ? r.landlock_abi : 0;
  s.root = r.root;
  s.cgroup = r.run_cgroup.ok;
  s.name = absl::StrCat(
      s.landlock_abi > 0 ? absl::StrCat("Landlock ABI ", s.landlock_abi)
                         : "no Landlock",
      ", ", s.root ? "root" : "not root", ", ",
      s.cgroup ? "a writable cgroup v2 tree" : "no writable cgroup v2 tree");
  return s;
}

bool EveryLayerUsed(const Report& r) {
  return r.shim_layer.used && r.seccomp_layer.used && r.landlock_layer.used;
}

// ---- the table

struct Row {
  std::string check;
  std::string result;
  std::string note;
};

const char* YesNo(bool b) { return b ? "yes" : "no"; }

std::string Table(const Report& r) {
  const std::vector<Row> checks = {
      {"kernel", r.kernel, r.machine},
      {"seccomp filter", YesNo(r.seccomp_filter.ok), r.seccomp_filter.note},
      {"seccomp user notification", YesNo(r.user_notif.ok), r.user_notif.note},
      {"SECCOMP_IOCTL_NOTIF_ADDFD", YesNo(r.addfd.ok), r.addfd.note},
      {"pidfd_open", YesNo(r.pidfd_open.ok), r.pidfd_open.note},
      {"pidfd_getfd", YesNo(r.pidfd_getfd.ok), r.pidfd_getfd.note},
      {"landlock ABI", absl::StrCat(r.landlock_abi),
       LandlockNote(r.landlock_abi)},
      {"shim found", YesNo(r.shim_found),
       r.shim_found ? r.shim_path : r.shim_error},
      {"shim loads", r.shim_found ? YesNo(r.shim_loads) : "-",
       r.shim_found && !r.shim_loads ? r.shim_error : ""},
      {"no_new_privs", YesNo(r.no_new_privs.ok), r.no_new_privs.note},
      {"WAIT_KILLABLE_RECV", YesNo(r.wait_killable.ok), r.wait_killable.note},
      {"ptrace attach", YesNo(r.ptrace_attach.ok), r.ptrace_attach.note},
      {"run cgroup", YesNo(r.run_cgroup.ok), r.run_cgroup.note},
      {"root", YesNo(r.root),
       r.root ? "euid 0: the seccomp filter refuses root's mounts, "
                "namespaces and modules unless system.allow names them"
              : absl::StrCat("euid ", r.euid)},
  };
  auto used = [](const Layer& l) { return l.used ? "used" : "not used"; };
  const std::vector<Row> layers = {
      {"shim layer", used(r.shim_layer), r.shim_layer.why},
      {"seccomp layer", used(r.seccomp_layer), r.seccomp_layer.why},
      {"landlock layer", used(r.landlock_layer), r.landlock_layer.why},
  };
  const Row header = {"check", "result", "note"};

  size_t check_width = header.check.size();
  size_t result_width = header.result.size();
  for (const std::vector<Row>* rows : {&checks, &layers}) {
    for (const Row& row : *rows) {
      check_width = std::max(check_width, row.check.size());
      result_width = std::max(result_width, row.result.size());
    }
  }
  std::string out;
  auto line = [&](const Row& row) {
    absl::StrAppend(&out, row.check,
                    std::string(check_width - row.check.size() + 2, ' '),
                    row.result);
    if (!row.note.empty()) {
      absl::StrAppend(&out,
                      std::string(result_width - row.result.size() + 2, ' '),
                      row.note);
    }
    out.push_back('\n');
  };
  line(header);
  for (const Row& row : checks) line(row);
  out.push_back('\n');
  for (const Row& row : layers) line(row);
  out.push_back('\n');
  // What holds here, against a program that found the shim's cookie
  // (SECURITY.md has every setting).
  const Setting here = HereSetting(r);
  absl::StrAppend(&out, "What holds here (", here.name,
                  "), against a program that found the shim's cookie:\n");
  if (!r.seccomp_layer.used) {
    out.append(
        "  (klaunch runs here only with --no-seccomp, and then what "
        "the filter and the supervisor hold below does not hold)\n");
  }
  for (const Holding& h : WhatHolds(here)) {
    absl::StrAppend(&out, "  ", h.attack, ":\n      ", h.held_by, "\n");
  }
  out.push_back('\n');
  if (EveryLayerUsed(r)) {
    out.append("klaunch will use every layer here.\n");
  } else {
    std::vector<std::string> unused;
    if (!r.shim_layer.used) unused.push_back("shim");
    if (!r.seccomp_layer.used) unused.push_back("seccomp");
    if (!r.landlock_layer.used) unused.push_back("landlock");
    absl::StrAppend(&out, "klaunch will not use: ", absl::StrJoin(unused, ", "),
                    ".\n");
  }
  return out;
}

// ---- the JSON

std::string JsonStringOrNull(absl::string_view s) {
  return s.empty() ? "null" : JsonString(s);
}

const char* JsonBool(bool b) { return b ? "true" : "false"; }

std::string JsonLayer(const Layer& l) {
  return absl::StrCat("{\"used\":", JsonBool(l.used),
                      ",\"why\":", JsonString(l.why), "}");
}

std::string JsonHolds(const std::vector<Holding>& holds) {
  std::vector<std::string> items;
  for (const Holding& h : holds) {
    items.push_back(absl::StrCat("{\"attack\":", JsonString(h.attack),
                                 ",\"held_by\":", JsonString(h.held_by), "}"));
  }
  return absl::StrCat("[", absl::StrJoin(items, ","), "]");
}

std::string Json(const Report& r) {
  return absl::StrCat("{\"kernel\":", JsonString(r.kernel),
                      ",\"seccomp_filter\":", JsonBool(r.seccomp_filter.ok),
                      ",\"seccomp_user_notif\":", JsonBool(r.user_notif.ok),
                      ",\"seccomp_addfd\":", JsonBool(r.addfd.ok),
                      ",\"pidfd_open\":", JsonBool(r.pidfd_open.ok),
                      ",\"pidfd_getfd\":", JsonBool(r.pidfd_getfd.ok),
                      ",\"landlock_abi\":", r.landlock_abi,
                      ",\"shim\":{\"path\":", JsonStringOrNull(r.shim_path),
                      ",\"found\":", JsonBool(r.shim_found),
                      ",\"loads\":", JsonBool(r.shim_loads),
                      ",\"error\":", JsonStringOrNull(r.shim_error), "}",
                      ",\"no_new_privs\":", JsonBool(r.no_new_privs.ok),
                      ",\"wait_killable_recv\":", JsonBool(r.wait_killable.ok),
                      ",\"ptrace_attach\":", JsonBool(r.ptrace_attach.ok),
                      ",\"run_cgroup\":", JsonBool(r.run_cgroup.ok),
                      ",\"holds\":", JsonHolds(WhatHolds(HereSetting(r))),
                      ",\"root\":", JsonBool(r.root),
                      ",\"layers\":{\"shim\":", JsonLayer(r.shim_layer),
                      ",\"seccomp\":", JsonLayer(r.seccomp_layer),
                      ",\"landlock\":", JsonLayer(r.landlock_layer), "}}\n");
}

}  // namespace

int RunDoctor(const std::vector<std::string>& args) {
  bool json = false;
  for (const std::string& a : args) {
    if (a == "--json") {
      json = true;
    } else if (a == "--settings") {
      if (args.size() != 1) {
        std::fprintf(stderr,
                     "klaunch doctor: --settings takes nothing else\n%s",
                     kDoctorUsage);
        return kExitUsage;
      }
      std::fputs(WhatHoldsMarkdown().c_str(), stdout);
      return 0;
    } else if (a == "--help" || a == "-h") {
      std::fputs(kDoctorUsage, stdout);
      return 0;
    } else {
      std::fprintf(stderr, "klaunch doctor: unknown argument '%s'\n%s",
                   a.c_str(), kDoctorUsage);
      return kExitUsage;
    }
  }
  // The probes fork: nothing buffered may be written twice.
  std::fflush(stdout);
  const Report report = Diagnose();
  const std::string text = json ? Json(report) : Table(report);
  std::fputs(text.c_str(), stdout);
  return EveryLayerUsed(report) ? 0 : 1;
}

}  // namespace klaunch
