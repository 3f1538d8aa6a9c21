// The calls that reach another process by pid, made where Landlock does not
// keep signals inside the run (ABI < 6, --no-landlock) or where no Landlock
// right covers them at all (limits, priorities, CPU and memory placement):
// the process named must belong to the run (run_members.h), whatever the
// layers below offer, so that no program signals klaunch, takes its
// descriptors or changes its limits, nor reaches any process outside the
// run.
//
// A call naming one process by a number in a register is let go on once
// that process is judged (the kernel reads the same number); one naming it
// in memory, or through a descriptor the program could swap, is made by the
// supervisor with what it judged. A signal to a process group or to every
// process (kill(0), kill(-pgrp), kill(-1)) reaches the members of the run
// only: the supervisor sends it to each, and records that the others were
// not reached. Known differences: a signal the supervisor sends carries
// klaunch's pid as its sender; a pid may be reused by another process
// between the judgement and a call let go on (the kernel offers no way to
// pin a pid a register names).

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "supervisor/run_members.h"
#include "supervisor/supervise.h"

namespace klaunch::supervise {
namespace {

// The ioprio_set "which" values (linux/ioprio.h).
constexpr int kIoprioWhoProcess = 1;
constexpr int kIoprioWhoPgrp = 2;

// The process group of `pid`; 0 when it is gone.
pid_t GroupOf(pid_t pid) {
  const long g = syscall(SYS_getpgid, pid);
  return g < 0 ? 0 : static_cast<pid_t>(g);
}

class Reach {
 public:
  explicit Reach(Call& c) : c_(c), members_(c.settings().members) {}

  // True when process (or thread) `pid` belongs to the run; refuses and
  // records it otherwise.
  bool Process(const char* op, pid_t pid) {
    const pid_t tgid = pid > 0 ? RunMembers::ThreadGroupOf(pid) : 0;
    if (tgid > 0 && members_ != nullptr && members_->Contains(tgid)) {
      return true;
    }
    return c_.Refuse(
        op, absl::StrCat("process ", pid),
        tgid == 0 ? "no such process" : "it is not a process of this run");
  }

  // True when every process of group `pgrp` belongs to the run.
  bool Group(const char* op, pid_t pgrp) {
    bool outsiders = true;
    if (members_ != nullptr && pgrp > 0) {
      members_->GroupMembers(pgrp, &outsiders);
    }
    if (!outsiders) return true;
    return c_.Refuse(op, absl::StrCat("process group ", pgrp),
                     "it holds processes outside this run");
  }

  // Sends `sig` to the members of the run among `targets` (a group, or
  // every process), recording that the others were not reached. The
  // answer kill(2) would give.
  Answer SignalMembers(const char* op, const std::string& what, int sig,
                       const std::vector<pid_t>& targets, bool outsiders) {
    if (outsiders) {
      c_.Refuse(op, what,
                "only the processes of this run were signalled; the others "
                "are outside it");
    }
    int sent = 0, last_error = ESRCH;
    for (pid_t p : targets) {
      if (kill(p, sig) == 0) {
        ++sent;
      } else {
        last_error = errno;
      }
    }
    return sent > 0 ? Answer::Value(0) : Answer::Error(last_error);
  }

  const RunMembers* members() const { return members_; }

 private:
  Call& c_;
  const RunMembers* members_;
};

Answer Kill(Call& c, Reach& reach) {
  const pid_t pid = static_cast<pid_t>(c.iarg(0));
  const int sig = c.iarg(1);
  if (pid > 0) {
    return reach.Process("kill", pid) ? Answer::Continue()
                                      : Answer::Error(EPERM);
  }
  if (reach.members() == nullptr) return Answer::Error(EPERM);
  const pid_t caller = c.target().tgid();
  if (pid == -1) {
    // Every process the caller may signal but itself.
    std::vector<pid_t> all;
    for (pid_t p : reach.members()->All()) {
      if (p != caller) all.push_back(p);
    }
    return reach.SignalMembers("kill", "every process", sig, all, true);
  }
  const pid_t pgrp = pid == 0 ? GroupOf(caller) : -pid;
  bool outsiders = false;
  std::vector<pid_t> group = reach.members()->GroupMembers(pgrp, &outsiders);
  if (!outsiders) return Answer::Continue();
  return reach.SignalMembers("kill", absl::StrCat("process group ", pgrp), sig,
                             group, true);
}

// pidfd_send_signal: the process a descriptor of the target's names, the
// signal then sent through klaunch's copy of that very descriptor.
Answer PidfdSendSignal(Call& c, Reach& reach) {
  const int mine = c.target().GetFd(c.iarg(0));
  if (mine < 0) return Answer::Error(-mine);
  Fd fd(mine);
  pid_t pid = 0;
  const std::string path = KernelPath(fd.get());
  if (path.rfind("/proc/", 0) == 0) {
    pid = static_cast<pid_t>(std::atol(path.c_str() + 6));
  } else {
    char info[64], buf[1024];
    std::snprintf(info, sizeof(info), "/proc/self/fdinfo/%d", fd.get());
    Fd in(open(info, O_RDONLY | O_CLOEXEC));
    const ssize_t n = in.valid() ? read(in.get(), buf, sizeof(buf) - 1) : -1;
    if (n > 0) {
      buf[n] = '\0';
      if (const char* p = std::strstr(buf, "\nPid:")) pid = std::atol(p + 5);
    }
  }
  if (pid <= 0) return Answer::Error(EBADF);
  if (!reach.Process("pidfd_send_signal", pid)) return Answer::Error(EPERM);
  siginfo_t si;
  siginfo_t* info = nullptr;
  if (c.arg(2) != 0) {
    if (!c.target().Read(c.arg(2), &si, sizeof(si))) {
      return Answer::Error(EFAULT);
    }
    info = &si;
  }
  if (!c.Live()) return Answer::Error(ENOENT);
  return Answer::Result(syscall(SYS_pidfd_send_signal, fd.get(), c.iarg(1),
                                info, static_cast<unsigned>(c.arg(3))) < 0
                            ? -errno
                            : 0);
}

// F_SETOWN_EX, FIOSETOWN, SIOCSPGRP: the owner is in the target's memory,
// so the call is made on klaunch's copy of its descriptor with the owner
// judged. 0 for the owner a positive `pid` names (a process or thread),
// a negative one (a group).
bool JudgeOwner(Reach& reach, const char* op, long owner, bool group) {
  if (owner == 0) return true;
  if (group)
    return reach.Group(op, static_cast<pid_t>(owner < 0 ? -owner : owner));
  return reach.Process(op, static_cast<pid_t>(owner));
}

Answer Fcntl(Call& c, Reach& reach) {
  const int cmd = c.iarg(1);
  if (cmd == F_SETOWN) {
    const long owner = static_cast<int>(c.arg(2));
    return JudgeOwner(reach, "fcntl", owner, owner < 0) ? Answer::Continue()
                                                        : Answer::Error(EPERM);
  }
  if (cmd != F_SETOWN_EX) return Answer::Continue();
  f_owner_ex owner;
  if (!c.target().Read(c.arg(2), &owner, sizeof(owner))) {
    return Answer::Error(EFAULT);
  }
  if (!JudgeOwner(reach, "fcntl", owner.pid, owner.type == F_OWNER_PGRP)) {
    return Answer::Error(EPERM);
  }
  const int mine = c.target().GetFd(c.iarg(0));
  if (mine < 0) return Answer::Error(-mine);
  Fd fd(mine);
  if (!c.Live()) return Answer::Error(ENOENT);
  return Answer::Result(fcntl(fd.get(), F_SETOWN_EX, &owner) < 0 ? -errno : 0);
}

}  // namespace

Answer SuperviseOwnerIoctl(Call& c) {
  Reach reach(c);
  int owner;
  if (!c.target().Read(c.arg(2), &owner, sizeof(owner))) {
    return Answer::Error(EFAULT);
  }
  // FIOSETOWN and SIOCSPGRP both take a pid, or a group as its negative.
  if (!JudgeOwner(reach, "ioctl", owner, owner < 0))
    return Answer::Error(EPERM);
  const int mine = c.target().GetFd(c.iarg(0));
  if (mine < 0) return Answer::Error(-mine);
  Fd fd(mine);
  if (!c.Live()) return Answer::Error(ENOENT);
  return Answer::Result(
      ioctl(fd.get(), static_cast<unsigned long>(c.arg(1) & 0xffffffffu),
            &owner) < 0
          ? -errno
          : 0);
}

Answer SuperviseProcess(Call& c) {
  Reach reach(c);
  const auto one = [&](const char* op, long pid) {
    return reach.Process(op, static_cast<pid_t>(pid)) ? Answer::Continue()
                                                      : Answer::Error(EPERM);
  };
  switch (c.nr()) {
    case SYS_kill:
      return Kill(c, reach);
    case SYS_tkill:
      return one("tkill", c.iarg(0));
    case SYS_tgkill:
    case SYS_rt_tgsigqueueinfo: {
      const char* op = c.nr() == SYS_tgkill ? "tgkill" : "rt_tgsigqueueinfo";
      if (RunMembers::ThreadGroupOf(c.iarg(1)) != c.iarg(0)) {
        return Answer::Error(ESRCH);
      }
      return one(op, c.iarg(0));
    }
    case SYS_rt_sigqueueinfo:
      return one("rt_sigqueueinfo", c.iarg(0));
    case SYS_pidfd_open:
      return one("pidfd_open", c.iarg(0));
    case SYS_pidfd_send_signal:
      return PidfdSendSignal(c, reach);
    case SYS_prlimit64:
      return one("prlimit64", c.iarg(0));
    case SYS_sched_setaffinity:
      return one("sched_setaffinity", c.iarg(0));
    case SYS_sched_setparam:
      return one("sched_setparam", c.iarg(0));
    case SYS_sched_setscheduler:
      return one("sched_setscheduler", c.iarg(0));
    case SYS_sched_setattr:
      return one("sched_setattr", c.iarg(0));
    case SYS_migrate_pages:
      return one("migrate_pages", c.iarg(0));
    case SYS_move_pages:
      return one("move_pages", c.iarg(0));
    case SYS_setpriority:
    case SYS_ioprio_set: {
      const bool io = c.nr() == SYS_ioprio_set;
      const char* op = io ? "ioprio_set" : "setpriority";
      const int which = c.iarg(0);
      const pid_t who = static_cast<pid_t>(c.iarg(1));
      if (which == (io ? kIoprioWhoProcess : PRIO_PROCESS)) {
        return who == 0 ? Answer::Continue() : one(op, who);
      }
      if (which == (io ? kIoprioWhoPgrp : PRIO_PGRP)) {
        return reach.Group(op, who == 0 ? GroupOf(c.target().tgid()) : who)
                   ? Answer::Continue()
                   : Answer::Error(EPERM);
      }
      // Every process of a user, klaunch's among them.
      return c.Refuse(op, absl::StrCat("every process of user ", who),
                      "it reaches processes outside this run")
                 ? Answer::Continue()
                 : Answer::Error(EPERM);
    }
    case SYS_fcntl:
      return Fcntl(c, reach);
    default:
      return Answer::Error(ENOSYS);
  }
}

}  // namespace klaunch::supervise
