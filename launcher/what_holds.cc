#include "launcher/what_holds.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"

namespace klaunch {
namespace {

// The words of the cells. "supervisor" is the seccomp filter sending the
// call to klaunch, which judges it and, where the kernel would read the
// program's memory again, performs it itself; "filter" is the filter
// refusing the call outright.
constexpr char kNotHeld[] = "NOT HELD";

std::string Either(bool landlock, const std::string& with,
                   const std::string& without) {
  return landlock ? with : without;
}

}  // namespace

std::vector<Setting> MatrixSettings() {
  return {
      {"ABI 0", 0, true, true},      {"ABI 3", 3, true, true},
      {"ABI 5", 5, true, true},      {"ABI 6+", 6, true, true},
      {"not root", 6, false, false}, {"container", 6, true, false},
  };
}

std::vector<Holding> WhatHolds(const Setting& s) {
  const bool landlock = s.landlock_abi >= 1;
  const bool scopes = s.landlock_abi >= 6;
  std::vector<Holding> rows;

  rows.push_back({"read a file outside every root",
                  Either(landlock, "Landlock", "supervisor"),
                  {"AttackTag.AForgedTagCannotReadAFileOutsideEveryRoot",
                   "Seccomp.AStaticBinaryCannotReadADeniedFile",
                   "Seccomp."
                   "AReadNameRewrittenAfterTheVerdictReachesNoFileOutsideTheRo"
                   "ots",
                   "Seccomp."
                   "WithoutLandlockAForgedTagStillMeetsTheSupervisorForReadsWri"
                   "tesAndConnects"}});
  rows.push_back(
      {"read a literal deny entry inside a read-only root (`~/.ssh` under a "
       "readable home)",
       Either(landlock, "Landlock (the root granted entry by entry)",
              "supervisor"),
       {"AttackTag.AForgedTagCannotReadAFileDeniedInsideAReadOnlyReadRoot",
        "ShimWindow."
        "ADeniedFileIsNeverReadThroughTheShimsMomentaryDescriptor"}});
  rows.push_back(
      {"read what Landlock grants wider than the policy: a deny entry it "
       "cannot express (a pattern such as `**/.env`, an entry inside a "
       "write root, one missing at start), a pattern root, what any user "
       "may read in /proc of another process (cmdline, status)",
       Either(landlock,
              absl::StrCat(kNotHeld,
                           " against a forged tag (a tagged read skips the "
                           "supervisor over a Landlock floor) nor against a "
                           "name rewritten after the supervisor's verdict (a "
                           "judged read goes on to the kernel over the same "
                           "floor); supervisor for every other read"),
              "supervisor"),
       {"Seccomp."
        "WithoutLandlockAForgedTagStillMeetsTheSupervisorForReadsWritesAndConne"
        "cts",
        "Seccomp.AStaticBinaryCannotReadADeniedFile",
        "Seccomp."
        "WithoutLandlockAReadNameRewrittenAfterTheVerdictIsNeverRead"}});
  rows.push_back(
      {"read the environment, memory or descriptors of a process outside "
       "the run through /proc",
       Either(landlock,
              "Landlock (its ptrace rule: no process outside the run's "
              "domain), supervisor",
              "supervisor"),
       {"AttackTag.AForgedTagCannotReadTheEnvironmentOfAProcessOutsideTheRun",
        "Reach."
        "AProgramCannotReadKlaunchsEnvironmentMemoryOrDescriptorsThroughPro"
        "c"}});
  rows.push_back(
      {"look at a denied file (stat, access, readlink): its metadata, never "
       "its bytes",
       absl::StrCat(kNotHeld,
                    " against a forged tag (looks skip the supervisor when "
                    "tagged: Landlock has no right for them); supervisor "
                    "for every other look"),
       {"Seccomp.AStaticBinaryCannotLookAtADeniedFileByAnyName"}});
  rows.push_back(
      {"write, create, delete or rename outside the write roots",
       Either(landlock,
              "Landlock where it is exact for the policy's writes, the "
              "supervisor for every write where it is not",
              "supervisor"),
       {"Seccomp.ALandlockFloorHoldsWhenTheShimsTagIsForged",
        "Seccomp."
        "WithoutLandlockAForgedTagStillMeetsTheSupervisorForReadsWritesAndConne"
        "cts",
        "Seccomp.AStaticBinaryCannotWriteOutsideTheWorkspace"}});
  rows.push_back(
      {"write a file a deny entry names inside a write root",
       "supervisor (writes are then not exact in Landlock)",
       {"AttackTag."
        "AForgedTagCannotWriteAFileDeniedInsideTheWritableWorkspace"}});
  rows.push_back(
      {"write, create, delete, hard-link, rename over or move away what a "
       "read_only entry keeps inside a write root (workspace-write's "
       "`.git/hooks`, `.git/config` and shell start-up files, the policy "
       "file)",
       "supervisor (writes are then not exact in Landlock), and the shim",
       {"AttackProtected."
        "NoWayOfWritingGitHooksConfigRcFilesOrThePolicyGetsThrough",
        "AttackProtected.AShellRedirectionOrGitConfigCannotChangeThem",
        "AttackProtected."
        "AUsersReadOnlyEntryKeepsAWorkspaceFileFromEveryWriter"}});
  rows.push_back(
      {"change a file's mode, owner, times or extended attributes",
       "supervisor",
       {"AttackTag.AForgedTagCannotChangeTheModeOfAFileOutsideEveryRoot",
        "AttackTag.AForgedTagCannotChangeTheOwnerOfAFileOutsideEveryRoot",
        "AttackTag.AForgedTagCannotChangeTheTimesOfAFileOutsideEveryRoot",
        "AttackTag."
        "AForgedTagCannotSetAnExtendedAttributeOnAFileOutsideTheWriteRoots"}});
  rows.push_back(
      {"swap a symlink between the verdict and the use",
       Either(landlock,
              "supervisor for writes (it opens by the resolved object); for "
              "reads Landlock, and NOT HELD beyond it: a judged read goes on "
              "to the kernel, which resolves the name again, so a link "
              "swapped after the verdict reaches what a forged tag reaches",
              "supervisor (opens by the resolved object)"),
       {"Seccomp.ASymlinkSwappedDuringAStaticOpenLoopNeverReadsTheSecret",
        "Seccomp."
        "WithoutLandlockASymlinkSwappedDuringAStaticOpenLoopNeverReadsTheSecre"
        "t"}});
  rows.push_back(
      {"be handed klaunch's own /proc entries for the program's (a name "
       "through /proc/self, thread-self, /dev/fd or a link to them, which "
       "the supervisor resolves in its own process)",
       "supervisor (/proc/self and thread-self followed as the target's; a "
       "name's directories resolved in one call only where no magic link "
       "is on the way and the end is not on /proc)",
       {"Seccomp.AStaticBinarysProcSelfIsItsOwnByEveryName"}});
  rows.push_back(
      {"run a program or command line the policy refuses, or rewrite the "
       "path, an argument or the file after the verdict",
       absl::StrCat("supervisor, and the exec check (ptrace at the exec "
                    "stop)",
                    landlock ? "; Landlock limits which files execute" : ""),
       {"AttackRace."
        "AnExecPathRewrittenAfterTheSupervisorsVerdictNeverRunsTheDeniedProgra"
        "m",
        "AttackRace."
        "AnExecArgumentRewrittenAfterTheSupervisorsVerdictNeverRunsTheDeniedCom"
        "mandLine",
        "AttackRace."
        "AProgramSymlinkSwappedAfterTheSupervisorsVerdictNeverRunsTheDeniedProg"
        "ram",
        "AttackRace."
        "AProgramFileRenamedOverAfterTheSupervisorsVerdictNeverRunsTheDeniedScr"
        "ipt",
        "AttackRace."
        "AnExecPathRewrittenAfterTheShimsVerdictNeverRunsTheDeniedProgram",
        "Seccomp.AStaticBinaryCannotRunADeniedCommand",
        "Seccomp.ExecveatOfADeniedCommandIsRefused"}});
  rows.push_back(
      {"read or run what the policy refuses from the child of a vfork, where "
       "no shim judges",
       "supervisor (the child's calls go to it untagged; with program "
       "sections vfork becomes fork and the shim judges the child)",
       {"Vfork.AVforkChildCannotReadADeniedFileLandlockWouldAdmit",
        "Vfork.AnExecRefusedInAVforkChildFailsAndIsRecorded",
        "Vfork.ASignalHandledInAVforkChildNeitherHangsNorBreaksTheParent",
        "Vfork.ThousandsOfSpawnsBesideAllocatingThreadsAllSucceed"}});
  rows.push_back(
      {"connect over TCP to a refused address or port, or rewrite the "
       "address after the verdict",
       absl::StrCat("supervisor (it connects a copy of the socket itself)",
                    s.landlock_abi >= 4 ? "; Landlock by port" : ""),
       {"AttackRace."
        "AConnectAddressRewrittenAfterTheSupervisorsVerdictNeverReachesAForbidd"
        "enAddress",
        "AttackRace."
        "AConnectAddressRewrittenAfterTheShimsVerdictNeverReachesAForbiddenAddr"
        "ess",
        "AttackRace."
        "AFastOpenSendmsgWhoseNameAppearsAfterTheSupervisorsVerdictNeverConnect"
        "s",
        "AttackTag.AForgedTagCannotConnectToAForbiddenAddressOnAnAdmittedPort",
        "Seccomp.AStaticBinaryCannotConnectToADeniedPort"}});
  rows.push_back(
      {"send a datagram to a refused address or port (any address family, "
       "AF_UNSPEC included)",
       "supervisor (it sends on a copy of the socket itself)",
       {"AttackAddress.AUdpSendToAnAfUnspecAddressNeverReachesAForbiddenPort",
        "AttackRace."
        "ADatagramAddressRewrittenAfterTheSupervisorsVerdictNeverReachesAForbid"
        "denPort",
        "AttackTag.AForgedTagCannotSendADatagramToAForbiddenPort",
        "Seccomp.AStaticBinaryCannotSendADatagramToADeniedPort"}});
  rows.push_back(
      {"make a raw, packet or other socket the judge cannot read",
       "filter (unless `system.allow` names \"raw-sockets\")",
       {"AttackAddress.ARawSocketsHandMadeUdpPacketNeverReachesAForbiddenPort",
        "AttackAddress.AnAfPacketFrameNeverReachesAForbiddenPort",
        "Filter.OnlySocketsTheJudgeUnderstandsAreMade"}});
  rows.push_back(
      {"connect to a named Unix socket outside the roots",
       "supervisor",
       {"AttackTag.AForgedTagCannotConnectToAUnixSocketOutsideEveryRoot"}});
  rows.push_back(
      {"connect to an abstract Unix socket outside the run",
       Either(scopes, "Landlock (scope), supervisor", "supervisor"),
       {"AttackTag.AForgedTagCannotConnectToAnAbstractUnixSocketOutsideTheRun",
        "Seccomp."
        "LandlockAloneKeepsAbstractSocketsAndSignalsInsideTheSandbox"}});
  rows.push_back(
      {"signal, renice, limit, pin or take the descriptors of klaunch or of "
       "a process outside the run",
       Either(scopes,
              "Landlock (signal scope), and the filter and the supervisor "
              "(the run's members only) for the rest",
              "filter and supervisor (the run's members only)"),
       {"Reach.WithoutLandlockAProgramCannotTakeKlaunchsDescriptors",
        "Reach.WithoutLandlockAProgramCannotSignalKlaunch",
        "Reach."
        "WithEveryLayerAProgramCannotSignalKlaunchOrAProcessOutsideTheRun",
        "Reach.AProgramCannotLowerKlaunchsLimits",
        "Reach.AProgramCannotReniceAProcessOutsideTheRun",
        "Reach.AProgramCannotPinAProcessOutsideTheRunToOneCpu",
        "GroupSignals.ASignalToEveryProcessOrToTheGroupReachesOnlyTheRun"}});
  rows.push_back(
      {"read klaunch's memory, environment or descriptors, or trace it",
       "klaunch is not dumpable; the supervisor refuses its /proc entries; "
       "the filter refuses ptrace",
       {"Reach."
        "AProgramCannotReadKlaunchsEnvironmentMemoryOrDescriptorsThroughProc",
        "Reach.AProgramCannotReadKlaunchsMemoryOrTraceIt",
        "Seccomp.PtraceMemoryWritesAndABIChangesAreRefused"}});
  rows.push_back(
      {"outlive the run (a daemon, a main thread that exited, klaunch "
       "killed, --timeout)",
       Either(s.cgroup, "reaper and the run's cgroup (cgroup.kill)",
              "reaper (it walks the process tree it is subreaper of)"),
       {"Outlive.ADoubleForkedDaemonStopsWhenKlaunchIsKilled",
        "Outlive.AProcessWhoseMainThreadExitedIsEndedWhenCmdExits",
        "Outlive.ATimeoutEndsEveryProcessOfTheRunWhateverTheTreeDoes",
        "Outlive.EveryProcessOfTheRunStopsWhenKlaunchIsKilled"}});
  rows.push_back(
      {"rewrite, truncate or forge the audit log",
       "klaunch alone writes it (the shim sends records through the "
       "supervisor)",
       {"ShimWindow.AProgramCannotRewriteTheAuditLogThroughTheShimsDescriptor",
        "Launcher.TheProgramCannotReadOrForgeItsOwnAuditLog"}});
  rows.push_back(
      {"stall the supervisor (a FIFO, a lease, a full socket, a listener "
       "that never accepts)",
       "supervisor (it never blocks: non-blocking opens and sends, a waiter "
       "thread)",
       {"SupervisorStall.AFifoSwappedIntoACreateCannotStallTheSupervisor",
        "SupervisorStall.AListenerThatNeverAcceptsCannotHoldUpOtherConnects",
        "SupervisorStall.ADatagramSocketWithAFullQueueCannotHoldUpOtherCalls",
        "SupervisorStall.AReadLeaseCannotStallTheSupervisorsOpenForWriting",
        "SupervisorStall.AWriteLeaseOnAScriptCannotStallTheSupervisorsExec"}});
  rows.push_back({"go on running unjudged when the supervisor dies",
                  "filter (every judged call then fails)",
                  {"Seccomp.WhenTheSupervisorDiesTheProgramFailsClosed"}});
  rows.push_back(
      {"mount, chroot, make namespaces or device nodes, load kernel code",
       Either(s.root,
              "filter, and the capabilities behind them dropped (unless "
              "`system.allow` names them)",
              "the kernel (no privilege), and the filter"),
       {"Seccomp.ARootProgramCannotMountChrootMakeNamespacesOrLoadCode",
        "Seccomp.ARootProgramCannotMakeADeviceNodeInAWritableRoot",
        "Filter.ARootPowerIsLetThroughOnlyWhereSystemAllowNamesItsGroup"}});
  rows.push_back(
      {"use a call the filter does not know, another ABI (int 0x80, x32), "
       "io_uring",
       "filter",
       {"Seccomp.ForeignSyscallABIsCannotOpenFiles",
        "Seccomp.IoUringIsRefusedWhateverThePolicy",
        "Filter.ANumberTheTableDoesNotNameIsRefusedAsUnknown"}});
  rows.push_back(
      {"type into the terminal (TIOCSTI, TIOCLINUX) to answer a question",
       "filter",
       {"AskedWrites.AProgramCannotAnswerItsOwnQuestion",
        "Filter.IoctlsThatChangeAFileOrTypeAsTheUserAreNotLetThrough"}});
  rows.push_back(
      {"leave a program section's rules (a static program, a dropped "
       "environment, an orphan)",
       Either(s.cgroup,
              absl::StrCat("supervisor (a cgroup per chain of sections)",
                           landlock ? ", Landlock" : ""),
              absl::StrCat(
                  kNotHeld,
                  " below CMD (the supervisor knows CMD's sections only): the "
                  "shim holds a dynamic program's libc calls; a static "
                  "program, a direct call or a forged tag gets CMD's rights "
                  "for every call the supervisor makes for it")),
       {"Sections.AStaticProgramBelowCmdIsHeldToItsSectionEvenOnceOrphaned",
        "Sections.AProgramCannotMoveItselfOutOfItsSectionsCgroup",
        "Sections.AProgramThatDropsItsSectionFromTheEnvironmentIsStillHeld"}});
  return rows;
}

std::string WhatHoldsMarkdown() {
  const std::vector<Setting> settings = MatrixSettings();
  std::vector<std::vector<Holding>> columns;
  for (const Setting& s : settings) columns.push_back(WhatHolds(s));
  auto cell = [](const std::string& text) {
    return absl::StrReplaceAll(text, {{"|", "\\|"}});
  };
  std::string out =
      "| the program tries to | stopped by | tried by |\n| --- | --- | --- |\n";
  for (size_t r = 0; r < columns[0].size(); ++r) {
    // The settings that share an answer, in the matrix's order; one answer
    // for all is written without them.
    std::vector<std::pair<std::string, std::vector<std::string>>> answers;
    for (size_t c = 0; c < settings.size(); ++c) {
      const std::string& held = columns[c][r].held_by;
      auto same = std::find_if(answers.begin(), answers.end(),
                               [&](const auto& a) { return a.first == held; });
      if (same == answers.end()) {
        answers.push_back({held, {settings[c].name}});
      } else {
        same->second.push_back(settings[c].name);
      }
    }
    std::string held;
    if (answers.size() == 1) {
      held = answers[0].first;
    } else {
      std::vector<std::string> parts;
      for (const auto& [text, names] : answers) {
        parts.push_back(
            absl::StrCat("**", absl::StrJoin(names, ", "), "**: ", text));
      }
      held = absl::StrJoin(parts, "; ");
    }
    std::vector<std::string> tests;
    for (const std::string& t : columns[0][r].tests) {
      tests.push_back(absl::StrCat("`", t, "`"));
    }
    absl::StrAppend(&out, "| ", cell(columns[0][r].attack), " | ", cell(held),
                    " | ", absl::StrJoin(tests, ", "), " |\n");
  }
  return out;
}

}  // namespace klaunch
