// The shim's configuration, read once per process from the environment the
// launcher (or a test) sets, and the reentrancy guard every wrapper takes.
//
// The variables, what each holds and who sets it, are core/shim_env.h's.
//
// The values are captured at initialisation and handed to every exec from
// that copy, so a program that edits its own environment cannot loosen what
// its children run under. Without a usable policy the shim fails closed:
// every judged call is refused, naming the reason.
//
// The variables are copied by a constructor that does nothing else (no
// allocation, no lock) but in a process whose sections' Landlock rulesets
// are missing: it loads the policy and stacks them before main. Otherwise
// loading the policy is lazy (the first judged call, or fork), runs once,
// and is the only place the shim allocates outside a judgement.

#ifndef KLAUNCH_SHIM_STATE_H_
#define KLAUNCH_SHIM_STATE_H_

#include <errno.h>
#include <signal.h>

#include <string>
#include <vector>

#include "core/engine.h"

#define KL_EXPORT extern "C" __attribute__((visibility("default")))

namespace klaunch::shim {

// This process's pid as the shim last learned it (its start, a fork): a
// vfork child's differs.
extern pid_t g_pid;

struct Config {
  const Engine* engine = nullptr;  // null: no usable policy, refuse all
  std::string error;               // why there is no engine
  std::string record_socket;       // without seccomp: where records go
  bool verbose = false;
  bool trace = false;       // KLAUNCH_TRACE
  std::string exe;          // this process's executable
  std::string shim_path;    // for the children's LD_PRELOAD
  std::string ask_socket;   // empty: "ask" refuses
  std::string chain;        // the program sections entered ("0,2")
  std::string policy_file;  // the effective policy it loaded
  // The Landlock ABI klaunch restricted the program with; 0 when it did not
  // (--no-landlock, audit mode, no Landlock): then sections stack none.
  int landlock_abi = 0;
  // "NAME=value" strings every child must get back, KLAUNCH_* only.
  std::vector<std::string> inject;
};

// Initialises on first use. Never null.
const Config& GetConfig();

// The errno keeper of one interposed call, and its reentrancy check: a call
// made while the shim loads its policy on this thread (the only time the
// shim runs code that may call back into its wrappers) is passed straight to
// the kernel. Judging itself does not mark the thread, so a signal handler
// interrupting a judgement is judged too.
class Scope {
 public:
  Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

  // True when this call arrived from inside the shim itself, or in the
  // child of a vfork (where the shim judges nothing: shim/exec.cc).
  bool nested() const { return nested_; }
  bool vfork_child() const { return vfork_child_; }
  // True in the child of a vfork the shim kept (t_vfork_pending); in its
  // parent, back, clears the mark.
  static bool InVforkChild();
  // True while the shim loads its policy on this thread.
  static bool Active();
  // errno as the program left it, for calls that succeed.
  void RestoreErrno() const { errno = saved_errno_; }

 private:
  int saved_errno_;
  bool nested_;
  bool vfork_child_ = false;
};

// Marks this thread as inside the shim for its lifetime, with every signal
// blocked (no handler of the program's may run unjudged meanwhile): for the
// shim's own use of libc functions it interposes (opening the paths of a
// Landlock ruleset), which then pass straight to the kernel.
class InsideShim {
 public:
  InsideShim();
  ~InsideShim();
  InsideShim(const InsideShim&) = delete;
  InsideShim& operator=(const InsideShim&) = delete;

 private:
  bool outer_;
  sigset_t old_;
};

// The next definition of a libc function (dlsym RTLD_NEXT), looked up once.
void* RealSymbol(const char* name);
#define KL_REAL(name)                                     \
  ([] {                                                   \
    static auto* p = reinterpret_cast<decltype(&::name)>( \
        ::klaunch::shim::RealSymbol(#name));              \
    return p;                                             \
  }())

}  // namespace klaunch::shim

#endif  // KLAUNCH_SHIM_STATE_H_
