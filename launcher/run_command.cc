#include "launcher/run_command.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <poll.h>
#include <sha2.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/apply.h"
#include "core/ask.h"
#include "core/audit.h"
#include "core/effective.h"
#include "core/engine.h"
#include "core/environment.h"
#include "core/landlock.h"
#include "core/loader.h"
#include "core/path.h"
#include "core/programs.h"
#include "core/run_policy.h"
#include "core/shim_env.h"
#include "launcher/journal.h"
#include "launcher/program.h"
#include "launcher/prune_runs.h"
#include "launcher/reaper.h"
#include "launcher/shim_locator.h"
#include "launcher/summary.h"
#include "supervisor/ask_server.h"
#include "supervisor/chain_cgroups.h"
#include "supervisor/name_cache.h"
#include "supervisor/request_socket.h"
#include "supervisor/run_cgroup.h"
#include "supervisor/run_members.h"
#include "supervisor/seccomp_filter.h"
#include "supervisor/shim_records.h"
#include "supervisor/supervisor.h"

extern char** environ;

namespace klaunch {
namespace {

volatile sig_atomic_t g_child = 0;

void Say(const std::string& line) {
  std::fprintf(stderr, "klaunch: %s\n", line.c_str());
}

// Signals sent to klaunch by a process are passed on to the program. Those
// the terminal sends reach the program directly (it is in klaunch's process
// group), so klaunch only survives them.
void Forward(int sig, siginfo_t* info, void*) {
  if (info->si_code <= 0 && g_child > 0) kill(g_child, sig);
}

void InstallForwarding() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = Forward;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT})
    sigaction(sig, &sa, nullptr);
}

bool MakeDirs(const std::string& path, mode_t mode) {
  std::string sofar;
  for (absl::string_view part : absl::StrSplit(path, '/', absl::SkipEmpty())) {
    absl::StrAppend(&sofar, "/", part);
    if (mkdir(sofar.c_str(), mode) != 0 && errno != EEXIST) return false;
  }
  return true;
}

// $XDG_STATE_HOME/klaunch, or ~/.local/state/klaunch.
std::string StateBase() {
  const char* xdg = getenv("XDG_STATE_HOME");
  if (xdg != nullptr && xdg[0] == '/') return absl::StrCat(xdg, "/klaunch");
  const char* home = getenv("HOME");
  return absl::StrCat(home && *home ? home : "/tmp", "/.local/state/klaunch");
}

// A directory no other run shares: time, pid and a random suffix.
absl::StatusOr<std::string> MakeRunDir(const std::string& base) {
  if (!MakeDirs(base + "/runs", 0700)) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create the state directory ", base,
                     "/runs: ", strerror(errno)));
  }
  char when[32];
  time_t now = time(nullptr);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(when, sizeof(when), "%Y%m%dT%H%M%SZ", &tm);
  std::string tmpl =
      absl::StrCat(base, "/runs/", when, "-", getpid(), "-XXXXXX");
  if (mkdtemp(tmpl.data()) == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot create a run directory in ", base, "/runs: ", strerror(errno)));
  }
  return tmpl;
}

absl::Status WriteFile(const std::string& path, const std::string& text) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot write ", path, ": ", strerror(errno)));
  }
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      close(fd);
      return absl::FailedPreconditionError(
          absl::StrCat("cannot write ", path, ": ", strerror(err)));
    }
    done += n;
  }
  if (close(fd) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot write ", path, ": ", strerror(errno)));
  }
  return absl::OkStatus();
}

// `message` said of the policy `source`, which it names once: an entry's
// error already starts with its file:line:column.
std::string NamingSource(const std::string& source, absl::string_view message) {
  if (absl::StartsWith(message, absl::StrCat(source, ":"))) {
    return std::string(message);
  }
  return absl::StrCat(source, ": ", message);
}

// The run directory's own name, unique among runs: names its cgroup too.
std::string RunTag(const std::string& run_dir) {
  return run_dir.substr(run_dir.rfind('/') + 1);
}

std::string GetVar(const std::vector<std::string>& env,
                   absl::string_view name) {
  const std::string prefix = absl::StrCat(name, "=");
  for (const std::string& e : env) {
    if (e.compare(0, prefix.size(), prefix) == 0)
      return e.substr(prefix.size());
  }
  return "";
}

// Below this much free space a run would lose records as it went.
constexpr uint64_t kLogRoom = 1 << 20;

// Why the audit log cannot hold a run's records, or "".
std::string LogRoomProblem(int fd, const std::string& log) {
  struct stat st;
  struct statvfs fs;
  // A log that is no file (--log /dev/null, a pipe) takes no room.
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return "";
  if (fstatvfs(fd, &fs) != 0) return "";
  const uint64_t free_bytes = static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
  if (free_bytes >= kLogRoom) return "";
  return absl::StrCat("no room for the audit log ", log,
                      ": its filesystem has ", free_bytes,
                      " bytes free, and klaunch needs ", kLogRoom,
                      " so that no record of the run is lost");
}

// The audit log opened for the run, with room for its records. Held open
// for the whole run: a file open for writing takes no lease, so no process
// of the program can make a write to the log wait.
absl::StatusOr<int> OpenLog(const std::string& log) {
  const int fd =
      open(log.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot write the audit log ", log, ": ", strerror(errno)));
  }
  const std::string problem = LogRoomProblem(fd, log);
  if (!problem.empty()) {
    close(fd);
    return absl::FailedPreconditionError(problem);
  }
  return fd;
}

// The question server of a run whose policy may ask (a program section may
// ask about commands where the policy does not). Asking needs a terminal;
// without one the server does not start, "ask" refuses and the shim says
// why. Null when it did not start, which is said unless --quiet.
std::unique_ptr<AskServer> StartQuestionServer(const RunOptions& o,
                                               const Policy& policy,
                                               const std::string& run_dir,
                                               AskServer::Options ask,
                                               std::vector<std::string>* env) {
  // With the seccomp layer the shim's questions come through the
  // supervisor, which names the asker as the kernel does.
  if (o.no_seccomp) ask.socket_path = run_dir + "/ask.sock";
  for (const ProgramSection& section : policy.programs) {
    ask.programs.push_back(section.name);
  }
  absl::StatusOr<std::unique_ptr<AskServer>> s =
      AskServer::Start(std::move(ask));
  if (!s.ok()) {
    if (!o.quiet) {
      const bool writes = policy.filesystem.unlisted_writes == Unlisted::kAsk;
      Say(absl::StrCat(writes ? "commands and writes" : "commands",
                       " will not be asked about (they are refused): ",
                       s.status().message()));
    }
    return nullptr;
  }
  env->push_back(ShimVarEntry(ShimVar::kAskSocket, run_dir + "/ask.sock"));
  return *std::move(s);
}

// Judges the program klaunch itself is asked to run, as the shim would.
bool AllowProgram(const Engine& engine, const std::string& program,
                  const std::vector<std::string>& command, const AuditLog& log,
                  AskServer* server,
                  std::pair<std::string, std::string>* approved) {
  const ExecutableName name = NameExecutable(program);
  const std::string& named = name.named;
  std::vector<absl::string_view> argv(command.begin(), command.end());
  Decision d = engine.CheckCommand(named, argv, name.target);
  if (d.allowed()) return true;
  // klaunch as a layer that judges (core/apply.h): it asks in its own name
  // and records with layer "launcher". Not under --trace: the supervisor
  // judges and records CMD's exec too.
  class Layer final : public JudgingLayer, private Asker {
   public:
    Layer(const Engine& engine, const AuditLog& log, AskServer* server)
        : engine_(engine), log_(log), server_(server) {}
    bool audit() const override { return engine_.audit(); }
    bool tracing() const override { return false; }
    Asker* asker() override { return server_ != nullptr ? this : nullptr; }
    void Identify(std::string* exe, std::string* chain) override {
      *exe = "klaunch";
      *chain = ChainText(engine_.chain());
    }
    void Record(const JudgedCall& call, const Decision& d) override {
      char when[64];
      FormatAuditTime(when, sizeof(when));
      AppendAuditEvent(
          log_, AuditEvent{when, getpid(), "klaunch", std::string(call.op),
                           std::string(call.target), std::string(call.access),
                           d.allowed() ? "allow"
                           : audit()   ? "would_deny"
                                       : "deny",
                           std::string(d.rule), d.message, "launcher",
                           std::string(call.command),
                           std::string(engine_.program())});
    }
    bool said_yes = false;

   private:
    AskAnswer Put(const AskQuestion& q) override {
      said_yes = server_->Ask(0, q, "launcher");
      return said_yes ? AskAnswer::kYes : AskAnswer::kNo;
    }
    const Engine& engine_;
    const AuditLog& log_;
    AskServer* server_;
  } layer(engine, log, server);
  const std::string line = CommandLineText(named, argv);
  if (ApplyDecision({"execve", named, "exec", line}, &d, layer)) {
    // The supervisor judges CMD's exec too, and must not ask again.
    if (layer.said_yes) *approved = {named, line};
    return true;
  }
  Say(d.message);  // the reason for exit 126, so printed even with --quiet
  return false;
}

// What the child writes to klaunch when it could not become the program.
struct ChildReport {
  enum Stage : int { kExec, kLandlock, kSeccomp, kCgroup };
  int stage = kExec;
  int error = 0;
};

// Says why CMD's child failed before its exec, where it failed setting up a
// layer or joining the run's cgroup (klaunch's failure); true when it
// failed at the exec itself (the program's), which the caller says.
bool SaySetupFailure(const ChildReport& r, const std::string& cgroup_procs) {
  switch (r.stage) {
    case ChildReport::kSeccomp:
      Say(absl::StrCat("cannot install the seccomp filter: ", strerror(r.error),
                       " (--no-seccomp runs without that layer)"));
      return false;
    case ChildReport::kCgroup:
      Say(absl::StrCat("cannot join the run's cgroup ", cgroup_procs, ": ",
                       strerror(r.error)));
      return false;
    case ChildReport::kLandlock:
      Say(absl::StrCat("cannot apply the Landlock ruleset: ", strerror(r.error),
                       " (--no-landlock runs without that layer)"));
      return false;
    case ChildReport::kExec:
      break;
  }
  return true;
}

// The child's half of installing the filter: load `program` (built before
// the fork: nothing is allocated here), tell klaunch the listener's number
// and wait until klaunch has taken its own copy (pidfd_getfd), then keep
// none (a program holding it could answer for itself). Only read and write
// follow the load: every call that passes a descriptor is the supervisor's
// to judge, and there is none yet. Returns 0 or an errno.
int InstallInChild(absl::Span<const sock_filter> program, int channel) {
  // klaunch is not dumpable, nor is its fork until it execs: pidfd_getfd
  // needs this process to be.
  prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
  const int listener = LoadFilter(program, /*wait_killable=*/true);
  if (listener < 0) return -listener;
  char taken = 0;
  int err = 0;
  if (write(channel, &listener, sizeof(listener)) != sizeof(listener) ||
      read(channel, &taken, 1) != 1 || taken != 'k') {
    err = EPROTO;
  }
  close(listener);
  close(channel);
  return err;
}

// klaunch's half: takes its copy of the child's listener. The descriptor,
// or -1.
int ReceiveListener(int channel, pid_t child) {
  int number = -1;
  ssize_t n;
  do {
    n = read(channel, &number, sizeof(number));
  } while (n < 0 && errno == EINTR);
  if (n != sizeof(number)) return -1;
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, child, 0));
  if (pidfd < 0) return -1;
  const int fd = static_cast<int>(syscall(SYS_pidfd_getfd, pidfd, number, 0));
  close(pidfd);
  if (fd < 0) return -1;
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  const char taken = 'k';
  if (write(channel, &taken, 1) != 1) {
    close(fd);
    return -1;
  }
  return fd;
}

// Root's capabilities that give the program what the policy cannot name,
// each kept only where system.allow names its group: the bounding set loses
// them (so no exec regains them) and the process its own. Another uid's
// process, klaunch's memory and /proc entries (CAP_SYS_PTRACE), the
// network's configuration and raw packets, device nodes, the clock, kernel
// code and audit: none is the program's business unless the policy says so.
std::vector<int> PowersToDrop(const Policy& policy) {
  struct Power {
    int cap;
    const char* group;  // "" for none: always dropped
  };
  static constexpr Power kPowers[] = {
      {CAP_SYS_PTRACE, "ptrace"},   {CAP_SYS_MODULE, "modules"},
      {CAP_SYS_BOOT, "reboot"},     {CAP_NET_RAW, "raw-sockets"},
      {CAP_MKNOD, "devices"},       {CAP_BPF, "bpf"},
      {CAP_PERFMON, "bpf"},         {CAP_KILL, "signals"},
      {CAP_IPC_OWNER, "ipc"},       {CAP_SYS_RAWIO, ""},
      {CAP_SYS_TIME, ""},           {CAP_NET_ADMIN, ""},
      {CAP_AUDIT_CONTROL, ""},      {CAP_MAC_ADMIN, ""},
      {CAP_MAC_OVERRIDE, ""},       {CAP_SYSLOG, ""},
      {CAP_WAKE_ALARM, ""},         {CAP_BLOCK_SUSPEND, ""},
      {CAP_LINUX_IMMUTABLE, ""},    {CAP_SYS_PACCT, ""},
      {CAP_SYS_TTY_CONFIG, ""},     {CAP_SETFCAP, ""},
      {CAP_CHECKPOINT_RESTORE, ""}, {CAP_AUDIT_READ, ""},
  };
  std::vector<int> out;
  for (const Power& p : kPowers) {
    if (p.group[0] == '\0' || !SystemAllows(policy, p.group)) {
      out.push_back(p.cap);
    }
  }
  // Mounts and namespaces need CAP_SYS_ADMIN, which much else needs too.
  if (!SystemAllows(policy, "mount") && !SystemAllows(policy, "namespaces")) {
    out.push_back(CAP_SYS_ADMIN);
  }
  return out;
}

// In CMD's child: drops `caps` (PowersToDrop). A process without
// CAP_SETPCAP (not root) has none of them to drop. Async-signal-safe.
void DropPowers(const std::vector<int>& caps) {
  for (int cap : caps) prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capget, &header, data) != 0) return;
  for (int cap : caps) {
    const uint32_t bit = 1u << (cap % 32);
    data[cap / 32].effective &= ~bit;
    data[cap / 32].permitted &= ~bit;
    data[cap / 32].inheritable &= ~bit;
  }
  syscall(SYS_capset, &header, data);
}

// True when a Landlock approximation (which begins with the policy key of
// the entry it is about, "filesystem.read[6] ...") is about an entry the
// preset or klaunch added, not one of the file's own.
bool IsAboutAPresetEntry(const Policy& policy, absl::string_view note) {
  const std::pair<absl::string_view, const std::vector<Entry>*> lists[] = {
      {"filesystem.read[", &policy.filesystem.read},
      {"filesystem.write[", &policy.filesystem.write},
      {"filesystem.deny[", &policy.filesystem.deny}};
  for (const auto& [prefix, entries] : lists) {
    if (!absl::StartsWith(note, prefix)) continue;
    const absl::string_view rest = note.substr(prefix.size());
    size_t index = 0;
    if (!absl::SimpleAtoi(rest.substr(0, rest.find(']')), &index)) return false;
    return index < entries->size() && !(*entries)[index].preset.empty();
  }
  return false;
}

// The program's environment: what the policy keeps and sets, then the
// shim's configuration, with the shim first in LD_PRELOAD. The variables
// that depend on what the run sets up later (the question server, program
// sections, Landlock) are added as each is.
std::vector<std::string> ProgramEnvironment(const Policy& policy,
                                            const std::string& shim,
                                            const std::string& effective,
                                            const RunOptions& o) {
  std::vector<std::string> current;
  for (char** e = environ; *e != nullptr; ++e) current.emplace_back(*e);
  std::vector<std::string> env;
  std::string kept_preload;
  for (std::string& var : BuildEnvironment(policy, current)) {
    if (var.rfind("LD_PRELOAD=", 0) == 0) {
      kept_preload = var.substr(11);
    } else if (!var.starts_with(kShimVarPrefix)) {
      env.push_back(std::move(var));
    }
  }
  env.push_back("LD_PRELOAD=" + shim +
                (kept_preload.empty() ? "" : ":" + kept_preload));
  env.push_back(ShimVarEntry(ShimVar::kShim, shim));
  env.push_back(ShimVarEntry(ShimVar::kPolicyFile, effective));
  if (o.verbose) env.push_back(ShimVarEntry(ShimVar::kVerbose, "1"));
  if (o.trace) env.push_back(ShimVarEntry(ShimVar::kTrace, "1"));
  return env;
}

// The Landlock layer: best effort unless required, never in a dry run.
// CMD's program sections stack one ruleset each on the policy's.
struct LandlockSetup {
  int ruleset = -1;  // the policy's, or -1 without the layer
  LandlockPlan plan;
  std::vector<int> sections;  // CMD's program sections', in order
  std::string description;    // what the layer is, or why there is none
};

// Plans and creates the rulesets; says in `env` what CMD's shim must know.
LandlockSetup SetUpLandlock(const RunOptions& o, const Policy& policy,
                            bool audit, const std::string& effective,
                            const std::string& shim,
                            const std::vector<int>& cmd_chain,
                            std::vector<std::string>* env) {
  LandlockSetup out;
  if (o.no_landlock) {
    out.description = "no landlock (--no-landlock)";
  } else if (audit) {
    out.description = "no landlock (audit mode must refuse nothing)";
  } else if (SystemAllows(policy, "mount")) {
    out.description =
        "no landlock (system.allow has \"mount\", which Landlock always "
        "refuses)";
  } else if (const int abi = LandlockAbi(); abi == 0) {
    out.description = "no landlock (this kernel has none)";
  } else {
    // The shim stacks a section's ruleset at its exec with the same extras.
    const LandlockExtras extras{{effective, shim}};
    out.plan = PlanLandlock(policy, abi, extras);
    absl::StatusOr<int> fd = CreateRuleset(&out.plan);
    absl::StatusOr<std::vector<int>> sections =
        CreateSectionRulesets(policy, cmd_chain, abi, extras);
    if (fd.ok() && !sections.ok()) {
      close(*fd);
      fd = sections.status();
    }
    if (fd.ok()) {
      out.ruleset = *fd;
      out.sections = *std::move(sections);
      env->push_back(ShimVarEntry(ShimVar::kLandlock, absl::StrCat(abi)));
      // CMD holds its sections' rulesets: its shim stacks none again.
      if (!cmd_chain.empty()) {
        env->push_back(
            ShimVarEntry(ShimVar::kLandlocked, ChainText(cmd_chain)));
      }
      out.description = DescribeLandlock(out.plan);
      if (o.verbose) {
        // What Landlock makes of the preset's own entries (system paths
        // this machine lacks, /proc/self) is the same on every run and
        // documented (docs/policy.md); only the file's entries are said.
        for (const std::string& a : out.plan.approximations) {
          if (!IsAboutAPresetEntry(policy, a)) {
            Say(absl::StrCat("landlock: ", a));
          }
        }
      }
    } else {
      out.description =
          absl::StrCat("no landlock (", fd.status().message(), ")");
    }
  }
  return out;
}

// What the end record of a run says (see RunProgram below).
struct RunStory {
  AuditLog log;  // empty until the start record is written
  std::string program;
  std::chrono::steady_clock::time_point started;
  uint64_t log_from = 0;          // the log's size before the start record
  std::optional<int> cmd_status;  // CMD's wait status, once it ran
  int refusals = -1;
};

std::string Sha256Hex(absl::string_view bytes) {
  char hex[SHA256_DIGEST_STRING_LENGTH];
  SHA256Data(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), hex);
  return hex;
}

int RunAndWait(const RunOptions& o, RunStory* story) {
  // Not dumpable: no process of the user's (the program's among them) may
  // read klaunch's memory, take its descriptors or open its /proc entries.
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  // The supervisor names the program's processes by pid in /proc: a /proc
  // of another pid namespace (a container that did not mount its own)
  // would name other processes.
  {
    char self[32];
    const ssize_t n = readlink("/proc/self", self, sizeof(self) - 1);
    if (n <= 0 || std::string(self, n) != std::to_string(getpid())) {
      Say("/proc is not this pid namespace's (/proc/self is not klaunch's "
          "pid): mount a /proc of its own where klaunch runs");
      return kExitKlaunchFailed;
    }
  }
  const auto started = std::chrono::steady_clock::now();
  const LoadContext ctx = CurrentLoadContext();
  std::string policy_text;
  absl::StatusOr<Policy> policy =
      o.policy_file.empty()
          ? PresetPolicy(o.preset.empty() ? "workspace-write" : o.preset, ctx)
          : LoadPolicyFile(o.policy_file, ctx, &policy_text);
  if (!policy.ok()) {
    Say(std::string(policy.status().message()));
    return kExitKlaunchFailed;
  }

  const std::string base = StateBase();
  absl::StatusOr<std::string> run_dir = MakeRunDir(base);
  if (!run_dir.ok()) {
    Say(std::string(run_dir.status().message()));
    return kExitKlaunchFailed;
  }
  // Held until klaunch exits (the descriptor is not inherited). The oldest
  // directories beyond the limit go while the program runs, or as klaunch
  // returns when it never started.
  HoldRunDir(*run_dir);
  PruneLater prune(base + "/runs", RunsToKeep());
  const std::string log =
      o.log_file.empty() ? *run_dir + "/audit.jsonl" : AbsolutePath(o.log_file);
  // Every record of this run carries its id, so that runs appended to one
  // --log file can be told apart (and the summary counts this run's).
  if (o.journal) {
    // Asked for: a run that cannot do it does not start without it.
    if (const std::string why = OpenJournal(); !why.empty()) {
      Say(absl::StrCat("--journal: ", why));
      return kExitKlaunchFailed;
    }
  }
  const AuditLog audit_log{log, RunTag(*run_dir),
                           o.journal ? &SendToJournal : nullptr};
  struct HeldFd {
    int fd = -1;
    void reset(int f) { fd = f; }
    ~HeldFd() {
      if (fd >= 0) close(fd);
    }
  } log_held;
  if (absl::StatusOr<int> fd = OpenLog(log); fd.ok()) {
    log_held.reset(*fd);
  } else {
    Say(std::string(fd.status().message()));
    return kExitKlaunchFailed;
  }
  absl::StatusOr<std::string> shim = FindShim();
  if (!shim.ok()) {
    Say(std::string(shim.status().message()));
    return kExitKlaunchFailed;
  }
  // Records the shim or the supervisor could not write (a full disk).
  std::atomic<uint64_t> lost_records{0};
  std::atomic<int> lost_errno{0};
  // Compiling is where a policy can still fail (RE2's memory): say which.
  const std::string source =
      o.policy_file.empty() ? "the preset" : o.policy_file;
  // The run's cgroup, which every process of the run lives in (or below):
  // the run ends at once through it, and the program cannot leave it.
  std::vector<std::string> own = {base, log, absl::StrCat("/proc/", getpid())};
  std::unique_ptr<RunCgroup> run_cgroup;
  std::string cgroup_why;
  {
    absl::StatusOr<std::unique_ptr<RunCgroup>> made =
        RunCgroup::Create(RunTag(*run_dir));
    if (made.ok()) {
      run_cgroup = *std::move(made);
      for (std::string& e : run_cgroup->OwnEntries())
        own.push_back(std::move(e));
    } else {
      cgroup_why = std::string(made.status().message());
    }
  }
  // Program sections entered below CMD, for the supervisor: a cgroup per
  // chain, below the run's.
  std::unique_ptr<ChainCgroups> chains;
  std::string chains_why = cgroup_why;
  if (!policy->programs.empty() && !o.no_seccomp && run_cgroup != nullptr) {
    absl::StatusOr<std::unique_ptr<ChainCgroups>> made =
        ChainCgroups::Create(*run_cgroup);
    if (made.ok()) {
      chains = *std::move(made);
    } else {
      chains_why = std::string(made.status().message());
    }
  }
  char self[PATH_MAX];
  const ssize_t self_size = readlink("/proc/self/exe", self, sizeof(self));
  const std::string binary =
      self_size > 0 ? std::string(self, self_size) : std::string();
  RunAdditions additions;
  additions.policy_file = o.policy_file;
  additions.audit = o.audit;
  additions.ask = o.ask;
  additions.shim = *shim;
  additions.binary = binary;
  additions.own = std::move(own);
  if (absl::Status s = MakeRunPolicy(&*policy, additions, ctx); !s.ok()) {
    Say(NamingSource(source, s.message()));
    return kExitKlaunchFailed;
  }
  absl::StatusOr<Engine> engine = Engine::Create(*policy);
  if (!engine.ok()) {
    Say(NamingSource(source, engine.status().message()));
    return kExitKlaunchFailed;
  }
  const std::string effective = *run_dir + "/policy.toml";
  const std::string effective_text = EffectiveToml(*policy);
  if (absl::Status s = WriteFile(effective, effective_text); !s.ok()) {
    Say(std::string(s.message()));
    return kExitKlaunchFailed;
  }

  std::vector<std::string> env =
      ProgramEnvironment(*policy, *shim, effective, o);

  const bool ask_writes = policy->filesystem.unlisted_writes == Unlisted::kAsk;
  std::unique_ptr<AskServer> asker;
  if (PolicyMayAsk(*policy) && !engine->audit()) {
    AskServer::Options ask;
    ask.log = audit_log;
    ask.lost_records = &lost_records;
    ask.lost_errno = &lost_errno;
    ask.chains = chains.get();
    asker = StartQuestionServer(o, *policy, *run_dir, std::move(ask), &env);
  }

  const std::string program = FindInPath(o.command[0], GetVar(env, "PATH"));
  if (program.empty()) {
    const int err = errno;
    Say(absl::StrCat(o.command[0], ": ",
                     err == ENOENT ? "command not found" : strerror(err)));
    return err == ENOENT ? kExitNotFound : kExitCannotRun;
  }
  // A path that names nothing is "not found" (127, as a shell says), not a
  // refusal with advice to admit it.
  if (struct stat st; stat(program.c_str(), &st) != 0 && errno == ENOENT) {
    Say(absl::StrCat(o.command[0], ": command not found (no such file)"));
    return kExitNotFound;
  }
  // The program sections CMD itself enters (core/programs.h): its
  // environment is narrowed now, the shim narrows its judgements.
  const ExecutableName cmd_name = NameExecutable(program);
  const std::vector<int> cmd_chain =
      EnterSections(*policy, {}, cmd_name.named, cmd_name.target);
  if (!cmd_chain.empty()) {
    std::vector<std::string> narrowed;
    for (std::string& var : env) {
      if (ChainKeepsVariable(*policy, cmd_chain,
                             absl::string_view(var).substr(0, var.find('=')))) {
        narrowed.push_back(std::move(var));
      }
    }
    env = std::move(narrowed);
    env.push_back(ShimVarEntry(ShimVar::kPrograms, ChainText(cmd_chain)));
  }
  // The shim adds the chain of its process's cgroup to its own (a process
  // the supervisor moved into a section's may not say so in its
  // environment).
  if (chains != nullptr)
    env.push_back(ShimVarEntry(ShimVar::kCgroup, chains->Relative()));
  absl::StatusOr<Engine> cmd_engine = engine->Narrow(cmd_chain);
  std::pair<std::string, std::string> approved;  // (file, command) said yes
  if (!cmd_engine.ok() || !AllowProgram(*cmd_engine, program, o.command,
                                        audit_log, asker.get(), &approved)) {
    return kExitCannotRun;
  }
  // Only klaunch writes the log. The shim's records come through the
  // supervisor; without the seccomp layer, through a socket of klaunch's,
  // which names the sender by SO_PEERCRED.
  std::unique_ptr<RequestSocket> records;
  if (o.no_seccomp) {
    const ShimRecordSettings rs{audit_log, &*cmd_engine, false, o.trace};
    const std::string path = *run_dir + "/record.sock";
    absl::StatusOr<std::unique_ptr<RequestSocket>> started =
        RequestSocket::Start(
            path, kRecordRequestMax,
            [rs, &lost_records, &lost_errno](pid_t pid,
                                             absl::string_view request) {
              char link[64], exe[PATH_MAX];
              std::snprintf(link, sizeof(link), "/proc/%d/exe", pid);
              const ssize_t n = readlink(link, exe, sizeof(exe));
              const int e = WriteShimRecord(
                  rs, pid, n > 0 ? std::string(exe, n) : std::string(),
                  request);
              if (e != 0 && e != EINVAL) {
                lost_records.fetch_add(1);
                lost_errno.store(e);
              }
              return e == 0 ? '0' : 'e';
            });
    if (!started.ok()) {
      Say(std::string(started.status().message()));
      return kExitKlaunchFailed;
    }
    records = *std::move(started);
    env.push_back(ShimVarEntry(ShimVar::kRecordSocket, path));
  }

  // The seccomp layer: built here, loaded by the child before its exec.
  const bool seccomp = !o.no_seccomp;
  uint64_t cookie = 0;
  supervise::Settings settings;
  // The policy's host names, resolved by klaunch, for programs that resolve
  // names where the shim cannot see it (static binaries, Go).
  std::unique_ptr<NameCache> names;
  std::unique_ptr<RunMembers> members;
  supervise::ShimEchoes echoes;
  if (seccomp) {
    std::string why;
    if (!SeccompAvailable(&why)) {
      Say(absl::StrCat(why,
                       "; run with --no-seccomp to go on without the "
                       "seccomp layer (static binaries and direct system "
                       "calls would not be judged)"));
      return kExitKlaunchFailed;
    }
    cookie = MakeCookie();
    if (!FilterCanWaitKillable(&why)) {
      Say(absl::StrCat(why,
                       "; klaunch needs it to check an exec after the "
                       "fact. Run with --no-seccomp to go on without the "
                       "seccomp layer"));
      return kExitKlaunchFailed;
    }
    struct stat st;
    if (stat(shim->c_str(), &st) != 0) {
      Say(absl::StrCat("cannot stat the shim ", *shim, ": ", strerror(errno)));
      return kExitKlaunchFailed;
    }
    // CMD's own sections hold for the whole tree, whatever it runs; those
    // entered below it, for the processes in their cgroups.
    settings.engine = &*cmd_engine;
    if (chains != nullptr) {
      chains->Attach(*engine, cmd_chain);
      settings.chains = chains.get();
    }
    settings.log = audit_log;
    settings.effective_policy = effective_text;
    settings.verbose = o.verbose;
    settings.trace = o.trace;
    settings.asker = asker.get();
    settings.ask_writes = ask_writes;
    settings.cookie = cookie;
    settings.shim_dev = st.st_dev;
    settings.shim_ino = st.st_ino;
    settings.lost_records = &lost_records;
    settings.lost_errno = &lost_errno;
    names = std::make_unique<NameCache>(*engine);
    settings.names = names.get();
    // Every process of the run lives in its cgroup, or descends from its
    // reaper (set once it runs).
    members = std::make_unique<RunMembers>(run_cgroup.get());
    settings.members = members.get();
    // The shim's records just before a call, so that the supervisor does
    // not record the same call again (a dry run's refusals, --trace).
    if (engine->audit() || o.trace) settings.echoes = &echoes;
  }
  const LandlockSetup landlock_setup = SetUpLandlock(
      o, *policy, engine->audit(), effective, *shim, cmd_chain, &env);
  const int ruleset = landlock_setup.ruleset;
  const LandlockPlan& plan = landlock_setup.plan;
  const std::vector<int>& section_rulesets = landlock_setup.sections;
  const std::string& landlock = landlock_setup.description;
  if (o.require_landlock && ruleset < 0) {
    Say(absl::StrCat("--require landlock: ", landlock));
    return kExitKlaunchFailed;
  }
  // Built before CMD's child exists, which loads it from its copy of
  // klaunch's memory: emitting it takes microseconds (filter_emit.h).
  std::vector<sock_filter> filter;
  if (seccomp) {
    // The tag buys a skip of the supervisor only where Landlock enforces
    // the policy's answer anyway (seccomp_filter.h).
    FilterSettings fs;
    fs.cookie = cookie;
    fs.reads_floor = ruleset >= 0 || policy->mode == Mode::kAudit;
    settings.reads_floor = fs.reads_floor;
    fs.writes_exact = ruleset >= 0 && LandlockEnforcesWrites(plan, *policy);
    fs.truncate_right = ruleset >= 0 && plan.abi >= 3;
    fs.signals_scoped = ruleset >= 0 && LandlockScopesSignals(plan);
    absl::StatusOr<std::vector<sock_filter>> built = BuildFilter(fs, *policy);
    if (!built.ok()) {
      Say(std::string(built.status().message()));
      return kExitKlaunchFailed;
    }
    filter = *std::move(built);
  }
  std::string layers =
      absl::StrCat("shim, ", seccomp ? "seccomp" : "no seccomp (--no-seccomp)",
                   ", ", landlock);
  if (!policy->programs.empty()) {
    // The layers that hold a section entered below CMD, as they are in force.
    std::vector<std::string> below = {"shim"};
    if (ruleset >= 0) below.push_back("landlock");
    if (chains != nullptr) below.push_back("seccomp (a cgroup per chain)");
    absl::StrAppend(
        &layers, "; program sections below CMD: ", absl::StrJoin(below, ", "));
    if (seccomp && chains == nullptr) {
      absl::StrAppend(&layers,
                      " (the supervisor knows CMD's only: ", chains_why, ")");
    }
  }
  {
    char when[64];
    FormatAuditTime(when, sizeof(when));
    const std::vector<absl::string_view> words(o.command.begin(),
                                               o.command.end());
    AuditEvent start{when,
                     getpid(),
                     "klaunch",
                     "start",
                     program,
                     "",
                     "info",
                     "",
                     "layers: " + layers,
                     "launcher",
                     CommandLineText(program, words)};
    start.argv = o.command;
    start.cwd = ctx.base_dir;
    start.policy = o.policy_file.empty() ? "" : AbsolutePath(o.policy_file);
    if (!o.policy_file.empty()) start.policy_sha256 = Sha256Hex(policy_text);
    start.mode = engine->audit() ? "audit" : "enforce";
    struct stat log_st;
    if (fstat(log_held.fd, &log_st) == 0) story->log_from = log_st.st_size;
    if (int e = AppendAuditEvent(audit_log, std::move(start)); e != 0) {
      Say(absl::StrCat("cannot write the audit log ", log, ": ", strerror(e)));
      return kExitKlaunchFailed;
    }
    story->log = audit_log;
    story->program = program;
    story->started = started;
  }

  int channel[2] = {-1, -1};
  if (seccomp &&
      socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, channel) != 0) {
    Say(absl::StrCat("socketpair: ", strerror(errno)));
    return kExitKlaunchFailed;
  }

  InstallForwarding();
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) {
    Say(absl::StrCat("pipe: ", strerror(errno)));
    return kExitKlaunchFailed;
  }
  std::vector<char*> argv, envp;
  for (const std::string& a : o.command)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const std::string cgroup_procs =
      run_cgroup != nullptr ? run_cgroup->procs() : "";
  const std::vector<int> drop = PowersToDrop(*policy);

  // CMD's child, forked by the reaper: only what is async-signal-safe.
  const auto child = [&] {
    close(report[0]);
    ChildReport r;
    if (!cgroup_procs.empty()) {
      // Into the run's cgroup before anything of the program runs.
      const int fd = open(cgroup_procs.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0 || write(fd, "0", 1) != 1) {
        r.error = errno != 0 ? errno : EIO;
        r.stage = ChildReport::kCgroup;
      }
      if (fd >= 0) close(fd);
    }
    if (r.error == 0) DropPowers(drop);
    if (r.error == 0 && ruleset >= 0 &&
        (r.error = -RestrictSelf(ruleset)) != 0) {
      r.stage = ChildReport::kLandlock;
    }
    for (int fd : section_rulesets) {
      if (r.error == 0 && (r.error = -RestrictSelf(fd)) != 0) {
        r.stage = ChildReport::kLandlock;
      }
    }
    if (r.error == 0 && seccomp) {
      close(channel[0]);
      if ((r.error = InstallInChild(filter, channel[1])) != 0) {
        r.stage = ChildReport::kSeccomp;
      }
    }
    if (r.error == 0) {
      // The supervisor judges it too, and checks it after the fact.
      execve(program.c_str(), argv.data(), envp.data());
      r.error = errno;
    }
    ssize_t ignored = write(report[1], &r, sizeof(r));
    (void)ignored;
    _exit(kExitCannotRun);
  };
  Reaper::Options reaper_options;
  reaper_options.cgroup = run_cgroup.get();
  reaper_options.keep_orphans = o.keep_orphans;
  absl::StatusOr<std::unique_ptr<Reaper>> started_reaper =
      Reaper::Start(reaper_options, child);
  if (!started_reaper.ok()) {
    Say(std::string(started_reaper.status().message()));
    return kExitKlaunchFailed;
  }
  std::unique_ptr<Reaper> reaper = *std::move(started_reaper);
  prune.Start();  // klaunch forks no more (the reaper forks CMD's child)
  const pid_t cmd_pid = reaper->cmd();
  g_child = cmd_pid;
  if (members != nullptr) members->SetRoot(reaper->pid());
  settings.protected_pids = {getpid(), reaper->pid()};
  if (asker != nullptr && !approved.first.empty()) {
    asker->RememberApproval(cmd_pid, approved.first, approved.second);
  }
  close(report[1]);
  if (ruleset >= 0) close(ruleset);
  for (int fd : section_rulesets) close(fd);
  std::unique_ptr<Supervisor> supervisor;
  if (seccomp) {
    close(channel[1]);
    const int listener = ReceiveListener(channel[0], cmd_pid);
    close(channel[0]);
    if (listener >= 0) {
      absl::StatusOr<std::unique_ptr<Supervisor>> started =
          Supervisor::Start(listener, settings);
      if (started.ok()) {
        supervisor = *std::move(started);
      } else {
        // Without answers the program's judged calls fail closed (ENOSYS);
        // it must not run like that.
        kill(cmd_pid, SIGKILL);
        Say(std::string(started.status().message()));
      }
    }
  }
  ChildReport report_of_child;
  ssize_t got;
  do {
    got = read(report[0], &report_of_child, sizeof(report_of_child));
  } while (got < 0 && errno == EINTR);
  const bool failed_before_running = got == sizeof(report_of_child);
  close(report[0]);

  bool timed_out = false;
  int needed_kill = 0;
  std::optional<int> cmd_status =
      reaper->WaitCmd(o.timeout_ms > 0 ? o.timeout_ms : -1);
  if (!cmd_status) {
    // --timeout: the whole run, whatever its tree looks like.
    timed_out = true;
    needed_kill = reaper->EndRun(o.kill_after_ms);
    cmd_status = reaper->WaitCmd(-1);
  } else if (!o.keep_orphans) {
    // What outlived CMD ends with the run.
    reaper->EndRun(2000);
  }
  const int status = cmd_status.value_or(0);
  g_child = 0;
  reaper.reset();
  if (supervisor != nullptr) supervisor->Stop();

  if (failed_before_running &&
      !SaySetupFailure(report_of_child, cgroup_procs)) {
    return kExitKlaunchFailed;
  }
  if (seccomp && supervisor == nullptr) return kExitKlaunchFailed;
  if (failed_before_running) {
    const int exec_errno = report_of_child.error;
    Say(absl::StrCat(o.command[0], ": ", strerror(exec_errno)));
    return exec_errno == ENOENT ? kExitNotFound : kExitCannotRun;
  }
  LogCounts counts;
  const std::string summary = Summarize(log, audit_log.run, story->log_from,
                                        engine->audit(), o.verbose, &counts);
  story->cmd_status = status;
  story->refusals = counts.refusals;
  const int torn = counts.unreadable;
  const uint64_t lost = lost_records.load();
  if (!o.quiet) {
    std::fputs(summary.c_str(), stderr);
    // A layer the user did not turn off but the machine could not give is
    // said every time: best effort must not be silent.
    const bool degraded =
        (ruleset < 0 && !o.no_landlock && !engine->audit()) ||
        (seccomp && !policy->programs.empty() && chains == nullptr);
    if (!summary.empty() || o.verbose || degraded) {
      Say(absl::StrCat("layers: ", layers));
    }
    if (!seccomp) {
      Say("the seccomp layer was off (--no-seccomp): only calls made through "
          "libc were judged; static binaries and direct system calls were "
          "not");
    }
  }
  // A gap in the record is klaunch's failure, said even with --quiet; it
  // never hides CMD's own failure, only replaces a success.
  if (lost > 0 || torn > 0) {
    const int why = lost_errno.load();
    Say(absl::StrCat("the audit log ", log, " is incomplete: ",
                     lost > 0 ? absl::StrCat(lost,
                                             " record(s) could not be "
                                             "written (",
                                             strerror(why ? why : ENOSPC), ")")
                              : absl::StrCat(torn, " line(s) are torn"),
                     " (CMD's own output does not pass through klaunch and "
                     "is whole)"));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
      return kExitKlaunchFailed;
  }
  if (timed_out) {
    Say(absl::StrCat(
        "--timeout: ", o.timeout_ms / 1000.0,
        " s passed; the whole tree got SIGTERM",
        needed_kill > 0
            ? absl::StrCat(", and ", needed_kill, " process(es) still running ",
                           o.kill_after_ms / 1000.0, " s later got SIGKILL")
            : "",
        "; exiting 124"));
    return kExitTimedOut;
  }
  // A program that swallowed its refusals must not look like a success to
  // the CI job or harness that runs it; its own failure is kept.
  if (o.fail_on_refusal && counts.refusals > 0 && WIFEXITED(status) &&
      WEXITSTATUS(status) == 0) {
    const bool one = counts.refusals == 1;
    Say(absl::StrCat("--fail-on-refusal: CMD exited 0, but ", counts.refusals,
                     one ? " call" : " calls",
                     engine->audit() ? " would have been refused (audit mode)"
                     : one           ? " was refused"
                                     : " were refused",
                     "; exiting 1 (audit log: ", log, ")"));
    return 1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return kExitKlaunchFailed;
}

}  // namespace

// A run that wrote its start record also writes its end record, however it
// ends: klaunch's exit code, the signal that ended CMD, the run's length and
// its refusals, so that the log tells each run's story whole.
int RunProgram(const RunOptions& o) {
  RunStory story;
  const int rc = RunAndWait(o, &story);
  if (!story.log.empty()) {
    char when[64];
    FormatAuditTime(when, sizeof(when));
    AuditEvent end{when, getpid(), "klaunch", "end", story.program,
                   "",   "info",   "",        "",    "launcher"};
    end.exit_code = rc;
    std::string how = absl::StrCat("klaunch exits ", rc);
    if (story.cmd_status && WIFSIGNALED(*story.cmd_status)) {
      end.signal = WTERMSIG(*story.cmd_status);
      absl::StrAppend(&how, " (CMD was killed by signal ", end.signal, ")");
    } else if (!story.cmd_status) {
      how += " (CMD did not run to its end under watch)";
    }
    end.message = how;
    end.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now() - story.started)
                          .count();
    end.refusals = story.refusals;
    if (end.refusals < 0) {
      // The run stopped before its summary: count what it recorded.
      LogCounts counts;
      Summarize(story.log.path, story.log.run, story.log_from, false, false,
                &counts);
      end.refusals = counts.refusals;
    }
    // Nothing more to say if this last line is lost: the summary was said.
    AppendAuditEvent(story.log, std::move(end));
  }
  return rc;
}

}  // namespace klaunch
