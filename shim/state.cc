#include "shim/state.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdint>
#include <cstring>

#include "core/loader.h"
#include "core/programs.h"
#include "core/seccomp_tag.h"
#include "core/shim_env.h"
#include "shim/known.h"
#include "shim/layers.h"
#include "shim/sys.h"

namespace klaunch::shim {

unsigned long g_cookie = 0;
__thread bool t_vfork_pending __attribute__((tls_model("initial-exec"))) =
    false;
pid_t g_pid = 0;

namespace {

__thread bool t_in_shim __attribute__((tls_model("initial-exec"))) = false;

pthread_once_t g_once = PTHREAD_ONCE_INIT;
std::atomic<Config*> g_config{nullptr};

std::string ReadLink(const char* path) {
  char buf[4096];
  long n = sys_readlinkat(AT_FDCWD, path, buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, n) : std::string();
}

// The effective policy from klaunch through the supervisor
// (core/seccomp_tag.h, kPolicyRequest): no descriptor of klaunch's files is
// ever in this process, where another thread could read through it. False
// when there is no supervisor (ENOSYS): the policy is read from its file.
bool PolicyFromKlaunch(std::string* text, std::string* error) {
  const long size = sys(kCookieQuerySyscall, kPolicyRequest, 0, 0);
  if (size == -ENOSYS) return false;
  if (size < 0 || static_cast<size_t>(size) > kMaxPolicyBytes) {
    *error = std::string("klaunch gave no policy: ") +
             strerror(size < 0 ? static_cast<int>(-size) : EFBIG);
    return true;
  }
  text->resize(static_cast<size_t>(size));
  const long again =
      sys(kCookieQuerySyscall, kPolicyRequest, text->data(), text->size());
  if (again != size) {
    text->clear();
    *error = "klaunch gave no policy";
  }
  return true;
}

// Reads the policy with raw calls: nothing here may be judged.
bool ReadPolicy(const char* path, std::string* text, std::string* error) {
  if (PolicyFromKlaunch(text, error)) return error->empty();
  if (*path == '\0') {
    *error = "KLAUNCH_POLICY_FILE is not set";
    return false;
  }
  long fd = sys_openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) {
    *error = std::string("cannot open the policy ") + path + ": " +
             strerror(static_cast<int>(-fd));
    return false;
  }
  struct stat st;
  if (sys(SYS_fstat, fd, &st) < 0 || !S_ISREG(st.st_mode) ||
      static_cast<size_t>(st.st_size) > kMaxPolicyBytes) {
    sys_close(fd);
    *error = std::string("the policy ") + path + " is not a readable file";
    return false;
  }
  text->resize(st.st_size);
  size_t done = 0;
  while (done < text->size()) {
    long n = sys(SYS_read, fd, text->data() + done, text->size() - done);
    if (n == -EINTR) continue;
    if (n <= 0) break;
    done += n;
  }
  text->resize(done);
  sys_close(fd);
  return true;
}

// The shim's variables as the process started with them, captured before
// main by a constructor that only copies bytes (no allocation, no lock;
// the one exception is a process missing its sections' Landlock rulesets),
// so a program that edits its environment before its first judged call
// cannot change what the shim enforces or hands to its children.
constexpr int kNumVariables = kShimVarCount;
constexpr int kPrograms = static_cast<int>(ShimVar::kPrograms);
constexpr int kLandlock = static_cast<int>(ShimVar::kLandlock);
constexpr int kCgroup = static_cast<int>(ShimVar::kCgroup);
constexpr int kLandlocked = static_cast<int>(ShimVar::kLandlocked);
char g_captured[kNumVariables][4096];
bool g_present[kNumVariables];
bool g_capture_done = false;
// Set when the process lacks its sections' Landlock rulesets and already
// runs a thread besides this one (CaptureEnvironment).
bool g_early_threads = false;

// Asks the seccomp supervisor for the cookie (core/seccomp_tag.h), naming
// the chain of program sections this shim will judge under, which the
// supervisor checks against the one the kernel keeps; `final`: a refusal
// is recorded. The answer goes straight from rax to memory and rax is
// cleared, so no register keeps it. 0, or -errno: without the seccomp
// layer the kernel answers ENOSYS and the cookie stays 0.
long FetchCookie(const char* chain, long length, bool final) {
  long nr = kCookieQuerySyscall;
  register long r10 __asm__("r10") = final ? 1 : 0;
  __asm__ volatile(
      "xorl %%r9d, %%r9d\n\t"
      "syscall\n\t"
      "cmpq $-4095, %%rax\n\t"
      "jae 1f\n\t"
      "movq %%rax, %[cookie]\n\t"
      "xorl %%eax, %%eax\n"
      "1:"
      : "+a"(nr), [cookie] "+m"(g_cookie)
      : "D"(kCookieRequest), "S"(chain), "d"(length), "r"(r10)
      : "rcx", "r11", "r9", "memory");
  return nr;
}

// True when `list` ("0,2") holds the number `n` (digits, `len` of them).
bool ListHolds(const char* list, const char* n, size_t len) {
  for (const char* p = list; *p != '\0';) {
    const char* end = std::strchr(p, ',');
    const size_t l = end ? static_cast<size_t>(end - p) : std::strlen(p);
    if (l == len && std::strncmp(p, n, len) == 0) return true;
    if (end == nullptr) break;
    p = end + 1;
  }
  return false;
}

// A process the supervisor moved into a chain's cgroup (an exec into a
// section the shim did not make, by a static parent or a direct call) may
// have an environment that does not say so: the chain its cgroup names
// (below KLAUNCH_CGROUP, "/s-0_2") is added to KLAUNCH_PROGRAMS. Raw calls
// and static buffers: this runs in the constructor. Should the variable be
// missing, the supervisor refuses the cookie (the kernel's chain is not in
// the one named) and judges every call itself.
void AddCgroupChain() {
  if (!g_present[kCgroup]) return;
  static char buf[8192];
  const long fd =
      sys_openat(AT_FDCWD, "/proc/self/cgroup", O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return;
  size_t used = 0;
  while (used < sizeof(buf) - 1) {
    const long n = sys(SYS_read, fd, buf + used, sizeof(buf) - 1 - used);
    if (n == -EINTR) continue;
    if (n <= 0) break;
    used += static_cast<size_t>(n);
  }
  sys_close(fd);
  buf[used] = '\0';
  const char* line = buf;
  while (std::strncmp(line, "0::", 3) != 0) {
    line = std::strchr(line, '\n');
    if (line == nullptr) return;
    ++line;
  }
  line += 3;
  const char* run = g_captured[kCgroup];
  const size_t run_len = std::strlen(run);
  if (std::strncmp(line, run, run_len) != 0 ||
      std::strncmp(line + run_len, "/s-", 3) != 0) {
    return;
  }
  char* programs = g_captured[kPrograms];
  if (!g_present[kPrograms]) programs[0] = '\0';
  for (const char* p = line + run_len + 3; *p >= '0' && *p <= '9';) {
    size_t len = 0;
    while (p[len] >= '0' && p[len] <= '9') ++len;
    if (!ListHolds(programs, p, len)) {
      const size_t have = std::strlen(programs);
      if (have + len + 2 >= sizeof(g_captured[kPrograms])) return;
      if (have > 0) programs[have] = ',';
      std::memcpy(programs + have + (have > 0), p, len);
      programs[have + (have > 0) + len] = '\0';
      g_present[kPrograms] = true;
    }
    p += len;
    if (*p != '_') break;
    ++p;
  }
}

// True when the captured variables say this process lacks Landlock rulesets
// of its sections (KLAUNCH_PROGRAMS names more than KLAUNCH_LANDLOCKED):
// only then does the shim load its policy in the constructor.
bool LacksLayers() {
  const char* chain = g_present[kPrograms] ? g_captured[kPrograms] : "";
  const char* held = g_present[kLandlocked] ? g_captured[kLandlocked] : "";
  return g_present[kLandlock] && std::atoi(g_captured[kLandlock]) > 0 &&
         std::strcmp(chain, held) != 0;
}

// False only when this process is known to run one thread: the entries of
// /proc/self/task. Raw calls and a static buffer, as in the constructor.
bool MayHaveOtherThreads() {
  const long fd = sys_openat(AT_FDCWD, "/proc/self/task",
                             O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  if (fd < 0) return true;
  struct Dirent64 {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[1];
  };
  alignas(8) static char buf[4096];
  int tasks = 0;
  while (true) {
    const long n = sys(SYS_getdents64, fd, buf, sizeof(buf));
    if (n < 0) tasks = 2;  // unknown: as though many
    if (n <= 0) break;
    for (long at = 0; at < n;) {
      const auto* d = reinterpret_cast<const Dirent64*>(buf + at);
      if (d->name[0] != '.') ++tasks;
      at += d->reclen;
    }
  }
  sys_close(fd);
  return tasks != 1;
}

// Also called by Initialise: another library's constructor may make the
// first judged call before the shim's constructor has run.
void CaptureEnvironment() {
  if (g_capture_done) return;
  g_capture_done = true;
  for (int i = 0; i < kNumVariables; ++i) {
    const char* v = getenv(kShimVarNames[i]);
    if (v == nullptr || std::strlen(v) >= sizeof(g_captured[i])) continue;
    std::memcpy(g_captured[i], v, std::strlen(v) + 1);
    g_present[i] = true;
  }
  // The environment's chain first: it is the whole chain but where the
  // supervisor moved this process into a section's cgroup at an exec the
  // shim did not make (a static parent's), or the chain was taken out.
  // Only then is the cgroup read, before the cookie, so as one supervised
  // call.
  const auto chain = [] {
    return g_present[kPrograms] ? g_captured[kPrograms] : "";
  };
  const bool more = g_present[kCgroup];
  // The Landlock rulesets a process lacks (StackMissingLayers) bind only
  // the thread that stacks them. A thread an earlier library constructor
  // started would have neither them nor a shim that may trust it: such a
  // process gets no cookie (the supervisor judges each of its calls) and
  // the shim refuses its every call. Checked before the cookie is in
  // memory, where that thread could read it.
  const auto early = [] { return LacksLayers() && MayHaveOtherThreads(); };
  if (early()) {
    g_early_threads = true;
    return;
  }
  if (FetchCookie(chain(), static_cast<long>(std::strlen(chain())), !more) ==
          -EPERM &&
      more) {
    AddCgroupChain();
    if (early()) {
      g_early_threads = true;
      return;
    }
    FetchCookie(chain(), static_cast<long>(std::strlen(chain())), true);
  }
}

__attribute__((constructor)) void StartShim() {
  g_pid = static_cast<pid_t>(sys_call6(SYS_getpid, 0, 0, 0, 0, 0, 0));
  CaptureEnvironment();
  // Sections whose Landlock rulesets no one stacked (shim/layers.h): the
  // policy is loaded now, before main, while this is the only thread
  // (CaptureEnvironment made sure), so that the rulesets hold the whole
  // process. Otherwise loading stays lazy.
  if (LacksLayers()) GetConfig();
}

const char* Captured(ShimVar v) {
  const int i = static_cast<int>(v);
  return g_present[i] ? g_captured[i] : nullptr;
}

// The Landlock rulesets of the sections in `chain` this process does not
// hold yet, stacked now; empty, or why they could not be (then the shim
// refuses every call: the section promised the kernel's floor).
std::string StackMissingLayers(const Config& c, const Engine& engine) {
  const std::vector<int>& chain = engine.chain();
  if (c.landlock_abi <= 0 || chain.empty()) return "";
  const Policy& policy = engine.policy();
  const char* held = Captured(ShimVar::kLandlocked);
  const std::vector<int> missing =
      SectionsNotHeld(policy, chain, held != nullptr ? held : "");
  const std::string why = StackSectionLayers(c, policy, missing);
  if (why.empty()) return "";
  return "the Landlock rulesets of this program's sections could not be "
         "stacked: " +
         why;
}

void Initialise() {
  // Loading the policy is the one place the shim calls code that could reach
  // its own wrappers; those calls pass straight through. GetConfig blocks
  // signals meanwhile, so no handler of the program's runs in that window.
  const bool outer = t_in_shim;
  t_in_shim = true;
  CaptureEnvironment();
  auto* c = new Config;
  c->exe = ReadLink("/proc/self/exe");
  const char* policy = Captured(ShimVar::kPolicyFile);
  const char* records = Captured(ShimVar::kRecordSocket);
  const char* shim = Captured(ShimVar::kShim);
  const char* verbose = Captured(ShimVar::kVerbose);
  const char* ask = Captured(ShimVar::kAskSocket);
  if (ask != nullptr && *ask == '/') c->ask_socket = ask;
  if (records != nullptr && *records == '/') c->record_socket = records;
  c->verbose = verbose != nullptr && std::strcmp(verbose, "1") == 0;
  const char* trace = Captured(ShimVar::kTrace);
  c->trace = trace != nullptr && std::strcmp(trace, "1") == 0;
  if (shim != nullptr && *shim == '/') c->shim_path = shim;
  if (policy != nullptr) c->policy_file = policy;
  if (const char* abi = Captured(ShimVar::kLandlock)) {
    c->landlock_abi = std::atoi(abi);
  }
  for (int i = 0; i < kNumVariables; ++i) {
    // The chains are each child's own (shim/exec.cc).
    if (i == kPrograms || i == kLandlocked) continue;
    if (const char* v = Captured(static_cast<ShimVar>(i))) {
      c->inject.push_back(ShimVarEntry(static_cast<ShimVar>(i), v));
    }
  }
  std::string text;
  // Set where the shim refuses every call for want of Landlock rulesets.
  bool no_cookie = g_early_threads;
  if (g_early_threads) {
    c->error =
        "this program started a thread before the shim could stack its "
        "program sections' Landlock rulesets, which would not hold that "
        "thread";
  } else if (ReadPolicy(policy != nullptr ? policy : "", &text, &c->error)) {
    if (policy == nullptr) policy = "the effective policy";
    // The effective form is absolute throughout; the context is unused.
    absl::StatusOr<Policy> p =
        LoadPolicyText(text, policy, LoadContext{"/", "/", "", true});
    if (!p.ok()) {
      c->error = std::string(p.status().message());
    } else {
      absl::StatusOr<Engine> e = Engine::Create(*p);
      if (!e.ok()) {
        c->error = std::string(e.status().message());
      } else {
        // The program sections this process entered (core/programs.h).
        const char* programs = Captured(ShimVar::kPrograms);
        std::optional<std::vector<int>> chain =
            ParseChain(e->policy(), programs != nullptr ? programs : "");
        absl::StatusOr<Engine> narrowed =
            chain ? e->Narrow(*chain)
                  : absl::InvalidArgumentError(
                        std::string("KLAUNCH_PROGRAMS names no program "
                                    "sections of the policy: ") +
                        programs);
        const std::string why = narrowed.ok()
                                    ? StackMissingLayers(*c, *narrowed)
                                    : std::string(narrowed.status().message());
        if (!why.empty()) {
          // Past the shim, the cookie would skip the supervisor too.
          g_cookie = 0;
          no_cookie = true;
          c->error = why;
        } else {
          c->engine = new Engine(*std::move(narrowed));
          c->chain = ChainText(c->engine->chain());
          InitKnown(c->engine->audit());
        }
      }
    }
  }
  if (no_cookie) {
    // Without the cookie its records cannot reach the audit log (which is
    // denied to the program): the reason goes to stderr too, once.
    const std::string line = "klaunch shim: " + c->exe + ": " + c->error +
                             "; every call is refused\n";
    sys(SYS_write, 2, line.data(), line.size());
  }
  t_in_shim = outer;
  g_config.store(c, std::memory_order_release);
}

}  // namespace

const Config& GetConfig() {
  if (Config* c = g_config.load(std::memory_order_acquire)) return *c;
  // Signals stay blocked until initialisation is over: a handler calling
  // back into the shim on this thread would wait on itself.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  pthread_once(&g_once, Initialise);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return *g_config.load(std::memory_order_acquire);
}

bool Scope::Active() { return t_in_shim; }

InsideShim::InsideShim() : outer_(t_in_shim) {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old_);
  t_in_shim = true;
}

InsideShim::~InsideShim() {
  t_in_shim = outer_;
  pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

void* RealSymbol(const char* name) {
  void* p = dlsym(RTLD_NEXT, name);
  if (p == nullptr) {
    static constexpr char kMsg[] = "klaunch shim: a libc function is missing\n";
    sys(SYS_write, 2, kMsg, sizeof(kMsg) - 1);
    sys(SYS_exit_group, 127);
  }
  return p;
}

// A Scope does not mark the thread as inside the shim: a signal handler that
// interrupts a judgement and calls open must be judged like any other call.
bool Scope::InVforkChild() {
  if (__builtin_expect(!t_vfork_pending, true)) return false;
  // The parent is back once its child has exec'd or exited: itself again.
  if (sys_call6(SYS_getpid, 0, 0, 0, 0, 0, 0) == g_pid) {
    t_vfork_pending = false;
    return false;
  }
  return true;
}

Scope::Scope() : saved_errno_(errno), nested_(t_in_shim) {
  if (__builtin_expect(t_vfork_pending, false) && InVforkChild()) {
    nested_ = true;
    vfork_child_ = true;
  }
}

}  // namespace klaunch::shim
