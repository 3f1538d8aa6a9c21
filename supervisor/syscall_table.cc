#include "supervisor/syscall_table.h"

#include <errno.h>
#include <string.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <iterator>

namespace klaunch {
namespace {

using F = SyscallFamily;

constexpr SyscallEntry Allow(int nr, const char* name, const char* why) {
  return {nr, name, SyscallHandling::kAllow, F::kNone, 0, "", why};
}
constexpr SyscallEntry Judged(int nr, const char* name, SyscallFamily family,
                              const char* why) {
  return {nr, name, SyscallHandling::kJudged, family, 0, "", why};
}
constexpr SyscallEntry Filtered(int nr, const char* name, const char* group,
                                const char* why) {
  return {nr, name, SyscallHandling::kFiltered, F::kNone, 0, group, why};
}
constexpr SyscallEntry Refused(int nr, const char* name, int error,
                               const char* why) {
  return {nr, name, SyscallHandling::kRefused, F::kNone, error, "", why};
}
constexpr SyscallEntry RootPower(int nr, const char* name, const char* group,
                                 const char* why) {
  return {nr, name, SyscallHandling::kRootPower, F::kNone, 0, group, why};
}

// Reasons several entries share word for word.
constexpr char kNotInKernel[] = "not in the x86_64 kernel: ENOSYS, as natively";
constexpr char kSetId[] = "the filter and Landlock hold whatever the uid";
constexpr char kSetGid[] = "the filter and Landlock hold whatever the gid";
constexpr char kReceive[] =
    "receiving is not judged; the policy judges where a program sends";
constexpr char kWaitOnHeld[] = "waits on descriptors the program already holds";
constexpr char kIoUring[] =
    "io_uring opens files and connects without a call the filter sees; "
    "libraries fall back to plain calls";
constexpr char kOwnMlock[] = "locks or unlocks the program's own memory in RAM";

// Numbers from the kernel's arch/x86/entry/syscalls/syscall_64.tbl ("common"
// and "64" rows; the x32 rows from 512 are not here). 337 to 423 are unused
// on x86_64.
constexpr SyscallEntry kTable[] = {
    Allow(0, "read",
          "acts on a descriptor the program already holds, whose open was "
          "judged"),
    Allow(1, "write",
          "acts on a descriptor the program already holds, whose open or "
          "connect was judged"),
    Judged(2, "open", F::kOpen, "opens a file by name"),
    Allow(3, "close", "closes one of the program's own descriptors"),
    Judged(4, "stat", F::kLook, "reads a file's metadata by name"),
    Allow(5, "fstat", "metadata of a file the program already holds open"),
    Judged(6, "lstat", F::kLook,
           "reads a file's or symlink's metadata by name"),
    Allow(7, "poll", kWaitOnHeld),
    Allow(8, "lseek", "moves the offset of a descriptor the program holds"),
    Allow(9, "mmap",
          "the program's own memory; a file is mapped through a descriptor "
          "whose open was judged"),
    Allow(10, "mprotect", "the program's own memory"),
    Allow(11, "munmap", "the program's own memory"),
    Allow(12, "brk", "grows or shrinks the program's own heap"),
    Allow(13, "rt_sigaction", "the program's own signal handlers"),
    Allow(14, "rt_sigprocmask", "the program's own signal mask"),
    Allow(15, "rt_sigreturn", "returns from the program's own signal handler"),
    Judged(16, "ioctl", F::kIoctl,
           "requests on a descriptor: those that change a file are judged, "
           "TIOCSTI and TIOCLINUX refused, the rest pass"),
    Allow(17, "pread64",
          "acts on a descriptor the program already holds, whose open was "
          "judged"),
    Allow(18, "pwrite64",
          "acts on a descriptor the program already holds, whose open was "
          "judged"),
    Allow(19, "readv",
          "acts on a descriptor the program already holds, whose open was "
          "judged"),
    Allow(20, "writev",
          "acts on a descriptor the program already holds, whose open or "
          "connect was judged"),
    Judged(21, "access", F::kLook, "tests a file's permissions by name"),
    Allow(22, "pipe", "a new pipe, held only by the program"),
    Allow(23, "select", kWaitOnHeld),
    Allow(24, "sched_yield", "gives up the CPU for a moment"),
    Allow(25, "mremap", "moves or resizes the program's own memory"),
    Allow(26, "msync",
          "writes the program's own mapped memory back to the file it mapped"),
    Allow(27, "mincore", "which pages of the program's own memory are in RAM"),
    Allow(28, "madvise", "advice on the program's own memory"),
    RootPower(29, "shmget", "ipc",
              "System V shared memory, named by a key any process on the "
              "host may use"),
    RootPower(30, "shmat", "ipc",
              "attaches System V shared memory, which processes outside the "
              "run may share"),
    RootPower(31, "shmctl", "ipc",
              "controls or removes System V shared memory, which processes "
              "outside the run may share"),
    Allow(32, "dup", "copies one of the program's own descriptors"),
    Allow(33, "dup2", "copies one of the program's own descriptors"),
    Allow(34, "pause", "waits for a signal"),
    Allow(35, "nanosleep", "sleeps"),
    Allow(36, "getitimer", "reads the program's own interval timer"),
    Allow(37, "alarm", "sets the program's own alarm signal"),
    Allow(38, "setitimer", "sets the program's own interval timer"),
    Allow(39, "getpid", "the program's own pid"),
    Allow(40, "sendfile",
          "copies between descriptors the program already holds"),
    Judged(41, "socket", F::kSocket,
           "creates a socket; families, types and protocols the judge does "
           "not understand are refused"),
    Judged(42, "connect", F::kNetwork,
           "connects a socket to an address or a Unix path"),
    Allow(43, "accept",
          "takes a connection waiting on a socket the program holds; "
          "receiving is not judged"),
    Judged(44, "sendto", F::kNetwork,
           "judged when it names an address or carries MSG_FASTOPEN; without "
           "one it goes to a peer already judged"),
    Allow(45, "recvfrom", kReceive),
    Judged(46, "sendmsg", F::kNetwork,
           "sends to the address it names, or hands descriptors to a Unix "
           "peer"),
    Allow(47, "recvmsg", kReceive),
    Allow(48, "shutdown", "shuts down a connection the program already holds"),
    Judged(49, "bind", F::kNetwork,
           "names a socket: a port, or a Unix path made in the filesystem"),
    Allow(50, "listen",
          "waits for connections on a socket the program holds; binding it "
          "was judged"),
    Allow(51, "getsockname", "the local address of a socket the program holds"),
    Allow(52, "getpeername",
          "the peer's address of a socket the program holds"),
    Judged(53, "socketpair", F::kSocket,
           "a connected pair of sockets; kinds the judge does not understand "
           "are refused"),
    Allow(54, "setsockopt",
          "options of a socket the program holds; where it sends is judged "
          "at connect and send"),
    Allow(55, "getsockopt", "reads the options of a socket the program holds"),
    Filtered(56, "clone", "namespaces",
             "a new thread or process passes; a new namespace (any CLONE_NEW* "
             "flag) is refused unless system.allow names namespaces"),
    Allow(57, "fork",
          "a copy of the program, under the same filter and Landlock ruleset"),
    Allow(58, "vfork",
          "a copy of the program, under the same filter and Landlock ruleset"),
    Judged(59, "execve", F::kExec, "runs a program by name"),
    Allow(60, "exit", "ends the calling thread"),
    Allow(61, "wait4", "waits for one of the program's own children"),
    Judged(62, "kill", F::kProcess,
           "signals a process or process group by pid"),
    Allow(63, "uname", "the kernel's name and version and the host's name"),
    RootPower(64, "semget", "ipc",
              "System V semaphores, named by a key any process on the host "
              "may use"),
    RootPower(65, "semop", "ipc",
              "operates on System V semaphores, which processes outside the "
              "run may share"),
    RootPower(66, "semctl", "ipc",
              "controls or removes System V semaphores, which processes "
              "outside the run may share"),
    Allow(67, "shmdt",
          "detaches System V shared memory from the program's own memory"),
    RootPower(68, "msgget", "ipc",
              "System V message queues, named by a key any process on the "
              "host may use"),
    RootPower(69, "msgsnd", "ipc",
              "sends on a System V message queue, which processes outside the "
              "run may read"),
    RootPower(70, "msgrcv", "ipc",
              "receives from a System V message queue, which processes "
              "outside the run may share"),
    RootPower(71, "msgctl", "ipc",
              "controls or removes a System V message queue, which processes "
              "outside the run may share"),
    Filtered(72, "fcntl", "",
             "F_SETOWN and F_SETOWN_EX, which choose a process to signal, are "
             "refused unless Landlock's signal scope holds; the rest act on a "
             "descriptor the program holds"),
    Allow(73, "flock", "locks a file the program already holds open"),
    Allow(74, "fsync", "flushes a file the program already holds open"),
    Allow(75, "fdatasync", "flushes a file the program already holds open"),
    Judged(76, "truncate", F::kMutate, "changes a file's length by name"),
    Allow(77, "ftruncate",
          "changes the length of a file the program holds open for writing, "
          "whose open was judged"),
    Allow(78, "getdents",
          "lists a directory the program already holds open, whose open was "
          "judged"),
    Allow(79, "getcwd", "the program's own working directory, as a name"),
    Allow(80, "chdir",
          "changes where relative names start; every name is judged where it "
          "resolves"),
    Allow(81, "fchdir",
          "changes where relative names start, to a directory the program "
          "holds; every name is judged where it resolves"),
    Judged(82, "rename", F::kMutate, "moves a name"),
    Judged(83, "mkdir", F::kMutate, "makes a directory"),
    Judged(84, "rmdir", F::kMutate, "removes a directory"),
    Judged(85, "creat", F::kOpen, "creates or truncates a file by name"),
    Judged(86, "link", F::kMutate, "makes a second name for a file"),
    Judged(87, "unlink", F::kMutate, "removes a name"),
    Judged(88, "symlink", F::kMutate, "makes a symlink"),
    Judged(89, "readlink", F::kLook, "reads a symlink's target by name"),
    Judged(90, "chmod", F::kAttributes, "changes a file's mode by name"),
    Judged(91, "fchmod", F::kAttributes,
           "changes a file's mode through a descriptor, even one opened only "
           "to read"),
    Judged(92, "chown", F::kAttributes, "changes a file's owner by name"),
    Judged(93, "fchown", F::kAttributes,
           "changes a file's owner through a descriptor, even one opened only "
           "to read"),
    Judged(94, "lchown", F::kAttributes,
           "changes a file's or symlink's owner by name"),
    Allow(95, "umask", "the program's own file-creation mask"),
    Allow(96, "gettimeofday", "reads the clock"),
    Allow(97, "getrlimit", "the program's own resource limits"),
    Allow(98, "getrusage", "resource use of the program or its children"),
    Allow(99, "sysinfo", "the host's memory, load and uptime totals"),
    Allow(100, "times", "CPU time of the program and its children"),
    RootPower(101, "ptrace", "ptrace",
              "another process's registers and memory: a call could be "
              "changed after it was judged, and the cookie read"),
    Allow(102, "getuid", "the program's own uid"),
    Filtered(103, "syslog", "",
             "clearing the kernel log and changing the console are refused; "
             "reading the log passes"),
    Allow(104, "getgid", "the program's own gid"),
    Allow(105, "setuid", kSetId),
    Allow(106, "setgid", kSetGid),
    Allow(107, "geteuid", "the program's own effective uid"),
    Allow(108, "getegid", "the program's own effective gid"),
    Allow(109, "setpgid",
          "moves the program or one of its children between process groups "
          "of its session"),
    Allow(110, "getppid", "the pid of the program's parent"),
    Allow(111, "getpgrp", "the program's own process group"),
    Allow(112, "setsid", "starts a new session, leaving the terminal"),
    Allow(113, "setreuid", kSetId),
    Allow(114, "setregid", kSetGid),
    Allow(115, "getgroups", "the program's own supplementary groups"),
    Allow(116, "setgroups", kSetGid),
    Allow(117, "setresuid", kSetId),
    Allow(118, "getresuid", "the program's own uids"),
    Allow(119, "setresgid", kSetGid),
    Allow(120, "getresgid", "the program's own gids"),
    Allow(121, "getpgid", "a process's group, read only"),
    Allow(122, "setfsuid", kSetId),
    Allow(123, "setfsgid", kSetGid),
    Allow(124, "getsid", "a process's session, read only"),
    Allow(125, "capget", "the capabilities of a process, read only"),
    Allow(126, "capset",
          "the program's own capabilities, within those it already holds"),
    Allow(127, "rt_sigpending", "the program's own pending signals"),
    Allow(128, "rt_sigtimedwait", "waits for a signal sent to the program"),
    Judged(129, "rt_sigqueueinfo", F::kProcess,
           "signals a process by pid, with data"),
    Allow(130, "rt_sigsuspend", "waits for a signal"),
    Allow(131, "sigaltstack", "the program's own signal stack"),
    Judged(132, "utime", F::kAttributes, "changes a file's times by name"),
    Judged(133, "mknod", F::kMutate,
           "makes a FIFO, a socket or a device node by name"),
    Refused(134, "uselib", ENOSYS, kNotInKernel),
    Filtered(135, "personality", "",
             "an ABI change (PER_LINUX32 and the others in the low byte) is "
             "refused; flags such as ADDR_NO_RANDOMIZE and the query pass"),
    Allow(136, "ustat", "a filesystem's free space, by device number"),
    Allow(137, "statfs",
          "the filesystem's totals, not a file's contents or metadata"),
    Allow(138, "fstatfs",
          "the totals of the filesystem a descriptor's file lies on"),
    Allow(139, "sysfs", "the names of the filesystem types the kernel knows"),
    Allow(140, "getpriority", "a nice value, read only"),
    Judged(141, "setpriority", F::kProcess,
           "changes the nice value of a process, a process group or a user's "
           "processes"),
    Judged(142, "sched_setparam", F::kProcess,
           "changes a process's scheduling priority, by pid"),
    Allow(143, "sched_getparam", "a process's scheduling priority, read only"),
    Judged(144, "sched_setscheduler", F::kProcess,
           "changes a process's scheduling policy, by pid"),
    Allow(145, "sched_getscheduler",
          "a process's scheduling policy, read only"),
    Allow(146, "sched_get_priority_max",
          "the highest priority a scheduling policy allows"),
    Allow(147, "sched_get_priority_min",
          "the lowest priority a scheduling policy allows"),
    Allow(148, "sched_rr_get_interval",
          "a process's round-robin time slice, read only"),
    Allow(149, "mlock", kOwnMlock),
    Allow(150, "munlock", kOwnMlock),
    Allow(151, "mlockall", kOwnMlock),
    Allow(152, "munlockall", kOwnMlock),
    Refused(153, "vhangup", EPERM,
            "hangs up the terminal the program shares with klaunch and the "
            "user's shell"),
    Allow(154, "modify_ldt",
          "the program's own segment table; calls made from a 32-bit segment "
          "are a foreign ABI, refused"),
    RootPower(155, "pivot_root", "mount",
              "changes the root of the mount namespace"),
    Refused(156, "_sysctl", ENOSYS, kNotInKernel),
    Filtered(157, "prctl", "",
             "PR_SET_MM is refused: a root program could point /proc/PID/exe, "
             "which records and questions name, at another file; the other "
             "options concern the program itself"),
    Allow(158, "arch_prctl",
          "the program's own FS and GS bases and CPU feature state"),
    Refused(159, "adjtimex", EPERM,
            "tunes or sets the host's clock (its read-only use is refused as "
            "well)"),
    Allow(160, "setrlimit", "the program's own resource limits"),
    RootPower(161, "chroot", "mount", "changes what / names for the program"),
    Allow(162, "sync", "flushes every filesystem's cached writes"),
    Refused(163, "acct", EPERM,
            "has the kernel append a record of every process's exit to a "
            "file it names, unjudged"),
    Refused(164, "settimeofday", EPERM, "sets the host's clock"),
    RootPower(165, "mount", "mount",
              "attaches a filesystem: changes what paths name"),
    RootPower(166, "umount2", "mount",
              "detaches a filesystem: changes what paths name"),
    Refused(167, "swapon", EPERM,
            "hands a file or a device to the kernel as swap"),
    Refused(168, "swapoff", EPERM, "takes swap space away from the kernel"),
    RootPower(169, "reboot", "reboot",
              "restarts, halts or powers off the machine"),
    Refused(170, "sethostname", EPERM, "renames the host"),
    Refused(171, "setdomainname", EPERM, "renames the host's NIS domain"),
    Refused(172, "iopl", EPERM, "direct access to every I/O port"),
    Refused(173, "ioperm", EPERM, "direct access to I/O ports"),
    Refused(174, "create_module", ENOSYS, kNotInKernel),
    RootPower(175, "init_module", "modules",
              "loads code into the kernel from memory"),
    RootPower(176, "delete_module", "modules", "unloads code from the kernel"),
    Refused(177, "get_kernel_syms", ENOSYS, kNotInKernel),
    Refused(178, "query_module", ENOSYS, kNotInKernel),
    Refused(179, "quotactl", EPERM, "changes a filesystem's quotas"),
    Refused(180, "nfsservctl", ENOSYS, kNotInKernel),
    Refused(181, "getpmsg", ENOSYS, kNotInKernel),
    Refused(182, "putpmsg", ENOSYS, kNotInKernel),
    Refused(183, "afs_syscall", ENOSYS, kNotInKernel),
    Judged(184, "tuxcall", F::kCookie,
           "not in the x86_64 kernel: the shim's query for the cookie, "
           "answered by the supervisor"),
    Refused(185, "security", ENOSYS, kNotInKernel),
    Allow(186, "gettid", "the calling thread's own id"),
    Allow(187, "readahead",
          "loads part of a file the program holds open into the page cache"),
    Judged(188, "setxattr", F::kAttributes,
           "sets a file's extended attribute by name"),
    Judged(189, "lsetxattr", F::kAttributes,
           "sets a file's or symlink's extended attribute by name"),
    Judged(190, "fsetxattr", F::kAttributes,
           "sets an extended attribute through a descriptor, even one opened "
           "only to read"),
    Judged(191, "getxattr", F::kLook,
           "reads a file's extended attribute by name"),
    Judged(192, "lgetxattr", F::kLook,
           "reads a file's or symlink's extended attribute by name"),
    Allow(193, "fgetxattr",
          "reads an extended attribute of a file the program holds open, "
          "whose open was judged"),
    Judged(194, "listxattr", F::kLook,
           "lists a file's extended attributes by name"),
    Judged(195, "llistxattr", F::kLook,
           "lists a file's or symlink's extended attributes by name"),
    Allow(196, "flistxattr",
          "lists the extended attributes of a file the program holds open, "
          "whose open was judged"),
    Judged(197, "removexattr", F::kAttributes,
           "removes a file's extended attribute by name"),
    Judged(198, "lremovexattr", F::kAttributes,
           "removes a file's or symlink's extended attribute by name"),
    Judged(199, "fremovexattr", F::kAttributes,
           "removes an extended attribute through a descriptor, even one "
           "opened only to read"),
    Judged(200, "tkill", F::kProcess, "signals a thread by id"),
    Allow(201, "time", "reads the clock"),
    Allow(202, "futex",
          "waits and wakes on a word in the program's own memory, or memory "
          "it shares"),
    Judged(203, "sched_setaffinity", F::kProcess,
           "changes which CPUs a process may run on, by pid"),
    Allow(204, "sched_getaffinity",
          "which CPUs a process may run on, read only"),
    Refused(205, "set_thread_area", ENOSYS, kNotInKernel),
    Allow(206, "io_setup",
          "a Linux AIO context: AIO reads and writes descriptors the program "
          "holds, and opens nothing"),
    Allow(207, "io_destroy", "destroys one of the program's own AIO contexts"),
    Allow(208, "io_getevents", "collects the program's own AIO completions"),
    Allow(209, "io_submit",
          "reads and writes descriptors the program already holds; AIO opens "
          "nothing"),
    Allow(210, "io_cancel", "cancels one of the program's own AIO requests"),
    Refused(211, "get_thread_area", ENOSYS, kNotInKernel),
    Refused(212, "lookup_dcookie", ENOSYS, kNotInKernel),
    Allow(213, "epoll_create", "a new epoll set, held only by the program"),
    Refused(214, "epoll_ctl_old", ENOSYS, kNotInKernel),
    Refused(215, "epoll_wait_old", ENOSYS, kNotInKernel),
    Allow(216, "remap_file_pages",
          "rearranges the pages of the program's own file mapping"),
    Allow(217, "getdents64",
          "lists a directory the program already holds open, whose open was "
          "judged"),
    Allow(218, "set_tid_address",
          "where the kernel marks the calling thread's exit, in its own "
          "memory"),
    Allow(219, "restart_syscall", "resumes a call a signal interrupted"),
    RootPower(220, "semtimedop", "ipc",
              "operates on System V semaphores, which processes outside the "
              "run may share"),
    Allow(221, "fadvise64",
          "page-cache advice for a file the program already holds open"),
    Allow(222, "timer_create",
          "a POSIX timer whose signals go to the program itself"),
    Allow(223, "timer_settime", "arms one of the program's own timers"),
    Allow(224, "timer_gettime", "reads one of the program's own timers"),
    Allow(225, "timer_getoverrun", "reads one of the program's own timers"),
    Allow(226, "timer_delete", "deletes one of the program's own timers"),
    Refused(227, "clock_settime", EPERM, "sets a clock of the host"),
    Allow(228, "clock_gettime", "reads a clock"),
    Allow(229, "clock_getres", "a clock's resolution"),
    Allow(230, "clock_nanosleep", "sleeps"),
    Allow(231, "exit_group", "ends the program"),
    Allow(232, "epoll_wait", kWaitOnHeld),
    Allow(233, "epoll_ctl",
          "adds or removes descriptors the program already holds in its epoll "
          "set"),
    Judged(234, "tgkill", F::kProcess, "signals a thread of a process, by ids"),
    Judged(235, "utimes", F::kAttributes, "changes a file's times by name"),
    Refused(236, "vserver", ENOSYS, kNotInKernel),
    Allow(237, "mbind", "NUMA placement of the program's own memory"),
    Allow(238, "set_mempolicy", "the program's own NUMA memory policy"),
    Allow(239, "get_mempolicy", "reads the program's own NUMA memory policy"),
    RootPower(240, "mq_open", "ipc",
              "opens a POSIX message queue by a name every process on the "
              "host shares"),
    RootPower(241, "mq_unlink", "ipc",
              "removes a POSIX message queue by a name every process on the "
              "host shares"),
    Allow(242, "mq_timedsend",
          "sends on a queue descriptor the program holds; opening a queue is "
          "refused unless ipc is allowed"),
    Allow(243, "mq_timedreceive",
          "receives on a queue descriptor the program holds; opening a queue "
          "is refused unless ipc is allowed"),
    Allow(244, "mq_notify",
          "asks to be told of a message on a queue descriptor the program "
          "holds"),
    Allow(245, "mq_getsetattr",
          "the attributes of a queue descriptor the program holds"),
    RootPower(246, "kexec_load", "kexec",
              "loads a new kernel to replace the running one"),
    Allow(247, "waitid", "waits for one of the program's own children"),
    RootPower(248, "add_key", "keyring",
              "adds a key to the kernel's keyrings, shared with the user's "
              "other processes"),
    RootPower(249, "request_key", "keyring",
              "finds a key in the kernel's keyrings, or has the kernel run a "
              "helper program to make one"),
    RootPower(250, "keyctl", "keyring",
              "reads, changes and links keys in keyrings shared with the "
              "user's other processes"),
    Judged(251, "ioprio_set", F::kProcess,
           "changes the I/O priority of a process, a process group or a "
           "user's processes"),
    Allow(252, "ioprio_get", "an I/O priority, read only"),
    Allow(253, "inotify_init",
          "an empty watch list; adding a watch by name is judged"),
    Judged(254, "inotify_add_watch", F::kLook,
           "watches a file or a directory by name"),
    Allow(255, "inotify_rm_watch",
          "removes a watch from the program's own list"),
    Judged(256, "migrate_pages", F::kProcess,
           "moves a process's memory between NUMA nodes, by pid"),
    Judged(257, "openat", F::kOpen, "opens a file by name"),
    Judged(258, "mkdirat", F::kMutate, "makes a directory"),
    Judged(259, "mknodat", F::kMutate,
           "makes a FIFO, a socket or a device node by name"),
    Judged(260, "fchownat", F::kAttributes, "changes a file's owner by name"),
    Judged(261, "futimesat", F::kAttributes, "changes a file's times by name"),
    Judged(262, "newfstatat", F::kLook, "reads a file's metadata by name"),
    Judged(263, "unlinkat", F::kMutate, "removes a name or a directory"),
    Judged(264, "renameat", F::kMutate, "moves a name"),
    Judged(265, "linkat", F::kMutate, "makes a second name for a file"),
    Judged(266, "symlinkat", F::kMutate, "makes a symlink"),
    Judged(267, "readlinkat", F::kLook, "reads a symlink's target by name"),
    Judged(268, "fchmodat", F::kAttributes, "changes a file's mode by name"),
    Judged(269, "faccessat", F::kLook, "tests a file's permissions by name"),
    Allow(270, "pselect6", kWaitOnHeld),
    Allow(271, "ppoll", kWaitOnHeld),
    Filtered(272, "unshare", "namespaces",
             "a new namespace (any CLONE_NEW* flag) is refused unless "
             "system.allow names namespaces; unsharing descriptors or fs state "
             "passes"),
    Allow(273, "set_robust_list", "the program's own robust futex list"),
    RootPower(274, "get_robust_list", "ptrace",
              "reads where another thread keeps its robust futex list, an "
              "address in its memory"),
    Allow(275, "splice",
          "moves data between descriptors the program already holds"),
    Allow(276, "tee", "copies data between pipes the program already holds"),
    Allow(277, "sync_file_range",
          "flushes part of a file the program already holds open"),
    Allow(278, "vmsplice",
          "moves the program's own memory into or out of a pipe it holds"),
    Judged(279, "move_pages", F::kProcess,
           "moves a process's pages between NUMA nodes, by pid"),
    Judged(280, "utimensat", F::kAttributes,
           "changes a file's times by name or through a descriptor"),
    Allow(281, "epoll_pwait", kWaitOnHeld),
    Allow(282, "signalfd",
          "reads the program's own signals through a descriptor"),
    Allow(283, "timerfd_create", "a timer the program holds as a descriptor"),
    Allow(284, "eventfd", "a counter the program holds as a descriptor"),
    Allow(285, "fallocate",
          "allocates space in a file the program holds open for writing, "
          "whose open was judged"),
    Allow(286, "timerfd_settime", "arms a timer descriptor the program holds"),
    Allow(287, "timerfd_gettime", "reads a timer descriptor the program holds"),
    Allow(288, "accept4",
          "takes a connection waiting on a socket the program holds; "
          "receiving is not judged"),
    Allow(289, "signalfd4",
          "reads the program's own signals through a descriptor"),
    Allow(290, "eventfd2", "a counter the program holds as a descriptor"),
    Allow(291, "epoll_create1", "a new epoll set, held only by the program"),
    Allow(292, "dup3", "copies one of the program's own descriptors"),
    Allow(293, "pipe2", "a new pipe, held only by the program"),
    Allow(294, "inotify_init1",
          "an empty watch list; adding a watch by name is judged"),
    Allow(295, "preadv",
          "acts on a descriptor the program already holds, whose open was "
          "judged"),
    Allow(296, "pwritev",
          "acts on a descriptor the program already holds, whose open was "
          "judged"),
    Judged(297, "rt_tgsigqueueinfo", F::kProcess,
           "signals a thread of a process, with data"),
    Refused(298, "perf_event_open", EPERM,
            "observes other processes and the kernel, through descriptors "
            "that reach kernel internals"),
    Allow(299, "recvmmsg", kReceive),
    Refused(300, "fanotify_init", EPERM,
            "hands out descriptors of files nobody judged"),
    Refused(301, "fanotify_mark", EPERM,
            "hands out descriptors of files nobody judged"),
    Judged(302, "prlimit64", F::kProcess,
           "reads or changes a process's resource limits, by pid"),
    Refused(303, "name_to_handle_at", EPERM,
            "turns a name into a file handle, which names an object with no "
            "path to judge"),
    Refused(304, "open_by_handle_at", EPERM,
            "a file handle names an object with no path to judge"),
    Refused(305, "clock_adjtime", EPERM,
            "tunes or sets a clock of the host (its read-only use is refused "
            "as well)"),
    Allow(306, "syncfs", "flushes the filesystem a descriptor's file lies on"),
    Judged(307, "sendmmsg", F::kNetwork,
           "sends several messages, each to the address it names"),
    RootPower(308, "setns", "namespaces",
              "joins another namespace: other mounts, network or processes "
              "than the run's"),
    Allow(309, "getcpu", "the CPU and NUMA node the calling thread runs on"),
    RootPower(310, "process_vm_readv", "ptrace",
              "reads another process's memory: a judged argument, the cookie"),
    RootPower(311, "process_vm_writev", "ptrace",
              "writes another process's memory: a call could be changed after "
              "it was judged"),
    RootPower(312, "kcmp", "ptrace",
              "compares the kernel objects of two processes: probes another "
              "process's descriptors and memory"),
    RootPower(313, "finit_module", "modules",
              "loads code into the kernel from a file"),
    Judged(314, "sched_setattr", F::kProcess,
           "changes a process's scheduling policy and attributes, by pid"),
    Allow(315, "sched_getattr", "a process's scheduling attributes, read only"),
    Judged(316, "renameat2", F::kMutate, "moves or exchanges names"),
    Filtered(317, "seccomp", "",
             "the program's own filters can only refuse more; one with a "
             "listener is refused, since it would be asked before klaunch and "
             "could answer CONTINUE"),
    Allow(318, "getrandom", "random bytes"),
    Allow(319, "memfd_create",
          "a file in memory with no name on disk; running it is an execveat, "
          "judged"),
    RootPower(320, "kexec_file_load", "kexec",
              "loads a new kernel from files to replace the running one"),
    RootPower(321, "bpf", "bpf",
              "loads programs into the kernel, and opens objects pinned in the "
              "BPF filesystem by path"),
    Judged(322, "execveat", F::kExec, "runs a program by name or descriptor"),
    Refused(323, "userfaultfd", EPERM,
            "stalls the kernel mid-copy, widening every window between a "
            "judgement and its use"),
    Allow(324, "membarrier", "orders memory among the program's own threads"),
    Allow(325, "mlock2", kOwnMlock),
    Allow(326, "copy_file_range",
          "copies between files the program already holds open"),
    Allow(327, "preadv2",
          "acts on a descriptor the program already holds, whose open was "
          "judged"),
    Allow(328, "pwritev2",
          "acts on a descriptor the program already holds, whose open was "
          "judged"),
    Allow(329, "pkey_mprotect", "protection keys on the program's own memory"),
    Allow(330, "pkey_alloc", "protection keys on the program's own memory"),
    Allow(331, "pkey_free", "protection keys on the program's own memory"),
    Judged(332, "statx", F::kLook, "reads a file's metadata by name"),
    Allow(333, "io_pgetevents", "collects the program's own AIO completions"),
    Allow(334, "rseq", "the program's own restartable sequences"),
    Allow(335, "uretprobe",
          "returns from a uprobe the kernel placed; called from anywhere "
          "else it raises SIGILL"),
    Allow(336, "uprobe",
          "enters a uprobe the kernel placed; called from anywhere else it "
          "fails with ENXIO"),
    Judged(424, "pidfd_send_signal", F::kProcess,
           "signals the process a pidfd names"),
    Refused(425, "io_uring_setup", ENOSYS, kIoUring),
    Refused(426, "io_uring_enter", ENOSYS, kIoUring),
    Refused(427, "io_uring_register", ENOSYS, kIoUring),
    RootPower(428, "open_tree", "mount",
              "copies a mount tree to attach elsewhere, or opens a path "
              "unjudged"),
    RootPower(429, "move_mount", "mount",
              "attaches or moves a mount: changes what paths name"),
    RootPower(430, "fsopen", "mount", "starts a new filesystem for mounting"),
    RootPower(431, "fsconfig", "mount",
              "configures a filesystem being set up for mounting"),
    RootPower(432, "fsmount", "mount",
              "turns a configured filesystem into a mount"),
    RootPower(433, "fspick", "mount",
              "picks a mounted filesystem to reconfigure"),
    Judged(434, "pidfd_open", F::kProcess,
           "a descriptor naming a process by pid, for signals and waits"),
    Filtered(435, "clone3", "namespaces",
             "its flags lie in memory the filter cannot read: ENOSYS, and libc "
             "falls back to clone (it passes when namespaces is allowed and "
             "the policy has no program sections)"),
    Allow(436, "close_range", "closes the program's own descriptors"),
    Judged(437, "openat2", F::kOpen,
           "opens a file by name (its flags lie in memory the filter cannot "
           "read)"),
    RootPower(438, "pidfd_getfd", "ptrace",
              "copies another process's descriptor, which nothing judged for "
              "this one"),
    Judged(439, "faccessat2", F::kLook, "tests a file's permissions by name"),
    Allow(440, "process_madvise",
          "paging advice on a process's memory (another's needs CAP_SYS_NICE "
          "and ptrace access); it reads and writes nothing"),
    Allow(441, "epoll_pwait2", kWaitOnHeld),
    RootPower(442, "mount_setattr", "mount",
              "changes a mount's attributes (read-only, idmapping, "
              "propagation)"),
    Refused(443, "quotactl_fd", EPERM, "changes a filesystem's quotas"),
    Allow(444, "landlock_create_ruleset",
          "Landlock can only narrow what the program may do"),
    Allow(445, "landlock_add_rule",
          "Landlock can only narrow what the program may do"),
    Allow(446, "landlock_restrict_self",
          "Landlock can only narrow what the program may do"),
    Allow(447, "memfd_secret",
          "the program's own memory, hidden from other processes"),
    Allow(448, "process_mrelease",
          "frees the memory of a process already dying of SIGKILL, sooner; "
          "it changes nothing else"),
    Allow(449, "futex_waitv",
          "waits on words in the program's own memory, or memory it shares"),
    Allow(450, "set_mempolicy_home_node",
          "NUMA placement of the program's own memory"),
    Allow(451, "cachestat",
          "which pages of a file the program holds open are in the page "
          "cache"),
    Judged(452, "fchmodat2", F::kAttributes, "changes a file's mode by name"),
    Allow(453, "map_shadow_stack",
          "a shadow stack in the program's own memory"),
    Allow(454, "futex_wake",
          "wakes waiters on a word in the program's own memory, or memory it "
          "shares"),
    Allow(455, "futex_wait",
          "waits on a word in the program's own memory, or memory it shares"),
    Allow(456, "futex_requeue",
          "moves waiters between words in the program's own memory, or "
          "memory it shares"),
    Allow(457, "statmount",
          "a mount's details, like /proc/self/mountinfo; no file's contents "
          "or metadata"),
    Allow(458, "listmount",
          "the mounts' ids, like /proc/self/mountinfo; no file's contents or "
          "metadata"),
    Allow(459, "lsm_get_self_attr",
          "the program's own security-module attributes"),
    Allow(460, "lsm_set_self_attr",
          "the program's own security-module attributes; each module checks "
          "the change, and no layer of klaunch relies on them"),
    Allow(461, "lsm_list_modules",
          "the names of the security modules in the kernel"),
    Allow(462, "mseal", "seals the program's own memory against changes"),
    Refused(463, "setxattrat", ENOSYS,
            "setxattr relative to a directory, newer than the judge: ENOSYS, "
            "as on a kernel without it"),
    Refused(464, "getxattrat", ENOSYS,
            "getxattr relative to a directory, newer than the judge: ENOSYS, "
            "as on a kernel without it"),
    Refused(465, "listxattrat", ENOSYS,
            "listxattr relative to a directory, newer than the judge: ENOSYS, "
            "as on a kernel without it"),
    Refused(466, "removexattrat", ENOSYS,
            "removexattr relative to a directory, newer than the judge: "
            "ENOSYS, as on a kernel without it"),
    RootPower(467, "open_tree_attr", "mount",
              "open_tree with new mount attributes: copies a mount tree to "
              "attach elsewhere"),
    Refused(468, "file_getattr", ENOSYS,
            "reads a file's inode flags by name, newer than the judge: "
            "ENOSYS, as on a kernel without it"),
    Refused(469, "file_setattr", ENOSYS,
            "changes a file's inode flags by name, newer than the judge: "
            "ENOSYS, as on a kernel without it"),
};

// Requests from <linux/fs.h>, <linux/fscrypt.h>, <linux/fsverity.h> and
// XFS's, with their x86_64 numbers (_IOC(dir, type, nr, size)).
constexpr char kActsOnJudged[] =
    "acts on descriptors whose opens were judged (the target opened for "
    "writing)";
constexpr char kReadsOnly[] = "reads what a descriptor already gives";
constexpr IoctlEntry kIoctls[] = {
    {0x00005412, "TIOCSTI", SyscallHandling::kRefused, EPERM, F::kNone,
     "pushes input into a terminal as though typed: it would answer "
     "klaunch's questions, or type into the user's shell after the run"},
    {0x0000541c, "TIOCLINUX", SyscallHandling::kRefused, EPERM, F::kNone,
     "pastes a virtual console's selection as input, as TIOCSTI does"},
    {0x00006611, "EXT4_IOC_SWAP_BOOT", SyscallHandling::kRefused, EPERM,
     F::kNone, "swaps a file with the filesystem's boot loader inode"},
    {0x00008901, "FIOSETOWN", SyscallHandling::kJudged, 0, F::kProcess,
     "names the process a socket's SIGIO goes to: judged like a signal"},
    {0x00008902, "SIOCSPGRP", SyscallHandling::kJudged, 0, F::kProcess,
     "names the process group a socket's SIGIO goes to: judged like a "
     "signal"},
    {0x40046602, "FS_IOC32_SETFLAGS", SyscallHandling::kJudged, 0,
     F::kAttributes, "changes a file's inode flags: judged as a write of it"},
    {0x40047602, "FS_IOC32_SETVERSION", SyscallHandling::kJudged, 0,
     F::kAttributes, "changes a file's generation: judged as a write of it"},
    {0x40049409, "FICLONE", SyscallHandling::kAllow, 0, F::kNone,
     kActsOnJudged},
    {0x40086602, "FS_IOC_SETFLAGS", SyscallHandling::kJudged, 0, F::kAttributes,
     "changes a file's inode flags: judged as a write of it"},
    {0x40087602, "FS_IOC_SETVERSION", SyscallHandling::kJudged, 0,
     F::kAttributes, "changes a file's generation: judged as a write of it"},
    {0x400c6615, "FS_IOC_GET_ENCRYPTION_POLICY", SyscallHandling::kAllow, 0,
     F::kNone, kReadsOnly},
    {0x40106614, "FS_IOC_GET_ENCRYPTION_PWSALT", SyscallHandling::kAllow, 0,
     F::kNone, kReadsOnly},
    {0x401c5820, "FS_IOC_FSSETXATTR", SyscallHandling::kJudged, 0,
     F::kAttributes,
     "changes a file's extended flags and project: judged as a write of it"},
    {0x4020940d, "FICLONERANGE", SyscallHandling::kAllow, 0, F::kNone,
     kActsOnJudged},
    {0x40305828, "XFS_IOC_RESVSP", SyscallHandling::kAllow, 0, F::kNone,
     "preallocates space of a file opened for writing"},
    {0x4030582a, "XFS_IOC_RESVSP64", SyscallHandling::kAllow, 0, F::kNone,
     "preallocates space of a file opened for writing"},
    {0x40806685, "FS_IOC_ENABLE_VERITY", SyscallHandling::kJudged, 0,
     F::kAttributes,
     "makes a file read-only for good: judged as a write of it"},
    {0x41009432, "FS_IOC_SETFSLABEL", SyscallHandling::kRefused, EPERM,
     F::kNone, "renames a whole filesystem"},
    {0x8004587d, "FS_IOC_SHUTDOWN", SyscallHandling::kRefused, EPERM, F::kNone,
     "shuts a whole filesystem down"},
    {0x800c6613, "FS_IOC_SET_ENCRYPTION_POLICY", SyscallHandling::kJudged, 0,
     F::kAttributes,
     "makes an empty directory encrypted: judged as a write of it"},
    {0xc0045877, "FIFREEZE", SyscallHandling::kRefused, EPERM, F::kNone,
     "stops every write to a whole filesystem"},
    {0xc0045878, "FITHAW", SyscallHandling::kRefused, EPERM, F::kNone,
     "lets a frozen filesystem be written again"},
    {0xc0046686, "FS_IOC_MEASURE_VERITY", SyscallHandling::kAllow, 0, F::kNone,
     kReadsOnly},
    {0xc0096616, "FS_IOC_GET_ENCRYPTION_POLICY_EX", SyscallHandling::kAllow, 0,
     F::kNone, kReadsOnly},
    {0xc0185879, "FITRIM", SyscallHandling::kRefused, EPERM, F::kNone,
     "discards the free blocks of a whole filesystem"},
    {0xc0189436, "FIDEDUPERANGE", SyscallHandling::kAllow, 0, F::kNone,
     "shares the storage of ranges that are already identical: no "
     "content changes"},
    {0xc020660b, "FS_IOC_FIEMAP", SyscallHandling::kAllow, 0, F::kNone,
     kReadsOnly},
    {0xc028660f, "EXT4_IOC_MOVE_EXT", SyscallHandling::kAllow, 0, F::kNone,
     kActsOnJudged},
    {0xc0286687, "FS_IOC_READ_VERITY_METADATA", SyscallHandling::kAllow, 0,
     F::kNone, kReadsOnly},
    {0xc0406618, "FS_IOC_REMOVE_ENCRYPTION_KEY", SyscallHandling::kRefused,
     EPERM, F::kNone, "changes the filesystem's keyring"},
    {0xc0406619, "FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS",
     SyscallHandling::kRefused, EPERM, F::kNone,
     "changes the filesystem's keyring"},
    {0xc0506617, "FS_IOC_ADD_ENCRYPTION_KEY", SyscallHandling::kRefused, EPERM,
     F::kNone, "changes the filesystem's keyring"},
    {0xc080661a, "FS_IOC_GET_ENCRYPTION_KEY_STATUS", SyscallHandling::kAllow, 0,
     F::kNone, kReadsOnly},
};

constexpr ShimWrapper kShimWrappers[] = {
    {"open", "openat"},
    {"open64", "openat"},
    {"openat", "openat"},
    {"openat64", "openat"},
    {"creat", "openat"},
    {"creat64", "openat"},
    {"__open_2", "openat"},
    {"__open64_2", "openat"},
    {"__openat_2", "openat"},
    {"__openat64_2", "openat"},
    {"fopen", "openat"},
    {"fopen64", "openat"},
    {"freopen", "openat"},
    {"freopen64", "openat"},
    {"opendir", "openat"},
    {"unlink", "unlinkat"},
    {"unlinkat", "unlinkat"},
    {"remove", "unlinkat"},
    {"rename", "renameat2"},
    {"renameat", "renameat2"},
    {"renameat2", "renameat2"},
    {"mkdir", "mkdirat"},
    {"mkdirat", "mkdirat"},
    {"rmdir", "unlinkat"},
    {"link", "linkat"},
    {"linkat", "linkat"},
    {"symlink", "symlinkat"},
    {"symlinkat", "symlinkat"},
    {"truncate", "truncate"},
    {"truncate64", "truncate"},
    {"chmod", "fchmodat"},
    {"fchmodat", "fchmodat"},
    {"chown", "fchownat"},
    {"lchown", "fchownat"},
    {"fchownat", "fchownat"},
    {"utime", "utimensat"},
    {"utimes", "utimensat"},
    {"lutimes", "utimensat"},
    {"utimensat", "utimensat"},
    {"futimesat", "utimensat"},
    {"mknod", "mknodat"},
    {"mknodat", "mknodat"},
    {"mkfifo", "mknodat"},
    {"mkfifoat", "mknodat"},
    {"setxattr", "setxattr"},
    {"lsetxattr", "lsetxattr"},
    {"removexattr", "removexattr"},
    {"lremovexattr", "lremovexattr"},
    {"getxattr", "getxattr"},
    {"lgetxattr", "lgetxattr"},
    {"listxattr", "listxattr"},
    {"llistxattr", "llistxattr"},
    {"stat", "newfstatat"},
    {"stat64", "newfstatat"},
    {"lstat", "newfstatat"},
    {"lstat64", "newfstatat"},
    {"fstatat", "newfstatat"},
    {"fstatat64", "newfstatat"},
    {"__xstat", "newfstatat"},
    {"__xstat64", "newfstatat"},
    {"__lxstat", "newfstatat"},
    {"__lxstat64", "newfstatat"},
    {"__fxstatat", "newfstatat"},
    {"__fxstatat64", "newfstatat"},
    {"statx", "statx"},
    {"access", "faccessat"},
    {"faccessat", "faccessat"},
    {"euidaccess", "faccessat"},
    {"eaccess", "faccessat"},
    {"readlink", "readlinkat"},
    {"readlinkat", "readlinkat"},
    {"chdir", ""},
    {"realpath", ""},
    {"canonicalize_file_name", ""},
    {"execve", "execve execveat"},
    {"execveat", "execveat"},
    {"fexecve", "execveat"},
    {"execv", "execve"},
    {"execvp", "execve"},
    {"execvpe", "execve"},
    {"execl", "execve"},
    {"execlp", "execve"},
    {"execle", "execve"},
    {"posix_spawn", "execve openat"},
    {"posix_spawnp", "execve openat"},
    {"system", "execve"},
    {"popen", "execve"},
    {"fork", ""},
    {"vfork", ""},
    {"connect", "connect"},
    {"bind", "bind"},
    {"sendto", "sendto sendmsg"},
    {"sendmsg", "sendmsg"},
    {"sendmmsg", "sendmmsg"},
    {"getaddrinfo", ""},
    {"gethostbyname", ""},
    {"gethostbyname2", ""},
    {"gethostbyname_r", ""},
    {"gethostbyname2_r", ""},
    {"__open", "openat"},
    {"__open64", "openat"},
    {"__open_nocancel", "openat"},
    {"__open64_nocancel", "openat"},
    {"_IO_fopen", "openat"},
    {"__connect", "connect"},
    {"__sendmmsg", "sendmmsg"},
    {"__fork", ""},
    {"__vfork", ""},
    {"_Fork", ""},
    {"__libc_system", "execve"},
    {"_IO_popen", "execve"},
    {"lchmod", "fchmodat"},
    {"__xmknod", "mknodat"},
    {"__xmknodat", "mknodat"},
    {"shm_open", "openat"},
    {"shm_unlink", "unlinkat"},
    {"sem_open", "openat"},
    {"sem_unlink", "unlinkat"},
    {"utmpname", ""},
    {"updwtmp", "openat"},
    {"rcmd", ""},
    {"rcmd_af", ""},
    {"rexec", ""},
    {"rexec_af", ""},
    {"mkstemp", "openat"},
    {"mkstemp64", "openat"},
    {"mkostemp", "openat"},
    {"mkostemp64", "openat"},
    {"mkstemps", "openat"},
    {"mkstemps64", "openat"},
    {"mkostemps", "openat"},
    {"mkostemps64", "openat"},
    {"mkdtemp", "mkdirat"},
    {"tmpfile", "openat"},
    {"tmpfile64", "openat"},
};

constexpr uint8_t kFilesystemIoctlTypes[] = {'X', 'f', 'v', 0x94};

constexpr bool IoctlsStrictlyIncrease() {
  for (size_t i = 1; i < std::size(kIoctls); ++i) {
    if (kIoctls[i - 1].request >= kIoctls[i].request) return false;
  }
  return true;
}
static_assert(IoctlsStrictlyIncrease(),
              "the ioctl table must be ordered by request, without repeats");

constexpr bool NumbersStrictlyIncrease() {
  for (size_t i = 1; i < std::size(kTable); ++i) {
    if (kTable[i - 1].nr >= kTable[i].nr) return false;
  }
  return true;
}
// FindSyscall(int) searches by halves.
static_assert(NumbersStrictlyIncrease(),
              "the syscall table must be ordered by number, without repeats");

}  // namespace

absl::Span<const SyscallEntry> SyscallTable() { return kTable; }

absl::Span<const IoctlEntry> IoctlTable() { return kIoctls; }

absl::Span<const ShimWrapper> ShimWrappers() { return kShimWrappers; }

const IoctlEntry* FindIoctl(uint32_t request) {
  for (const IoctlEntry& e : kIoctls) {
    if (e.request == request) return &e;
  }
  return nullptr;
}

absl::Span<const uint8_t> FilesystemIoctlTypes() {
  return kFilesystemIoctlTypes;
}

bool IsFilesystemIoctl(uint32_t request) {
  const uint8_t type = (request >> 8) & 0xff;
  const uint32_t dir = request >> 30;
  for (uint8_t t : kFilesystemIoctlTypes) {
    if (t == type) return dir != 2;  // anything but _IOR
  }
  return false;
}

const SyscallEntry* FindSyscall(absl::string_view name) {
  for (const SyscallEntry& e : kTable) {
    if (name == e.name) return &e;
  }
  return nullptr;
}

const SyscallEntry* FindSyscall(int nr) {
  const SyscallEntry* end = std::end(kTable);
  const SyscallEntry* e = std::lower_bound(
      std::begin(kTable), end, nr,
      [](const SyscallEntry& entry, int n) { return entry.nr < n; });
  return e != end && e->nr == nr ? e : nullptr;
}

namespace {

const char* FamilyRule(SyscallFamily f) {
  switch (f) {
    case SyscallFamily::kOpen:
      return "judged; tagged, an open or openat that only reads skips the "
             "supervisor where Landlock restricts reads (O_PATH always), and "
             "every open only where Landlock is exact for writes; untagged, "
             "a read the supervisor admits goes on to the kernel where a "
             "tagged one would skip it";
    case SyscallFamily::kLook:
      return "judged; tagged, skips the supervisor";
    case SyscallFamily::kMutate:
      return "judged; tagged, skips the supervisor only where Landlock is "
             "exact for writes";
    case SyscallFamily::kAttributes:
    case SyscallFamily::kExec:
    case SyscallFamily::kNetwork:
      return "judged by the supervisor, tagged or not";
    case SyscallFamily::kSocket:
      return "the families, types and protocols the judge knows pass; the "
             "rest refused";
    case SyscallFamily::kProcess:
      return "judged by the supervisor where it names another process "
             "(signals: unless Landlock scopes them)";
    case SyscallFamily::kIoctl:
      return "see the ioctl table";
    case SyscallFamily::kCookie:
      return "the shim's requests to klaunch: always the supervisor's";
    case SyscallFamily::kNone:
      break;
  }
  return "";
}

// The errno's name ("EPERM"): the table names a few only.
const char* ErrnoName(int e) {
  switch (e) {
    case EPERM:
      return "EPERM";
    case ENOSYS:
      return "ENOSYS";
    case EACCES:
      return "EACCES";
    case EAFNOSUPPORT:
      return "EAFNOSUPPORT";
    case EPROTONOSUPPORT:
      return "EPROTONOSUPPORT";
    case EINVAL:
      return "EINVAL";
    default:
      return "an errno";
  }
}

std::string Cell(absl::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else
      out.push_back(c);
  }
  return out;
}

}  // namespace

std::string SyscallsMarkdown() {
  std::string out =
      "# System calls under klaunch\n\n"
      "Generated by `klaunch syscalls` from `supervisor/syscall_table.cc`, the "
      "one table the\nseccomp filter is built from; a test fails when this "
      "file and the table differ.\nEvery x86_64 call is listed with what the "
      "filter does with it and why. A\nnumber not listed (a call newer than "
      "the table) is refused with `ENOSYS`, and\nso is every call of another "
      "ABI (i386 `int 0x80`, x32): unknown means no.\n\n"
      "| nr | call | what the filter does | why |\n| --- | --- | --- | --- |\n";
  for (const SyscallEntry& e : SyscallTable()) {
    std::string action;
    switch (e.handling) {
      case SyscallHandling::kAllow:
        action = "let through";
        break;
      case SyscallHandling::kJudged:
        action = FamilyRule(e.family);
        break;
      case SyscallHandling::kFiltered:
        action = e.group[0] != '\0'
                     ? std::string(
                           "let through but for arguments refused "
                           "unless system.allow has \"") +
                           e.group + "\""
                     : "let through but for arguments refused";
        break;
      case SyscallHandling::kRefused:
        action = std::string("refused (") + ErrnoName(e.error) + ")";
        break;
      case SyscallHandling::kRootPower:
        action = std::string("refused (EPERM) unless system.allow has \"") +
                 e.group + "\"";
        break;
    }
    out += "| " + std::to_string(e.nr) + " | `" + e.name + "` | " +
           Cell(action) + " | " + Cell(e.why) + " |\n";
  }
  out +=
      "\n## ioctl requests\n\n"
      "Requests of a filesystem's own types ('f', 'X', 'v', 0x94) that are not "
      "pure\nreads go to the supervisor, which judges those listed here and "
      "refuses the\nrest. Requests of other types act on a descriptor whose "
      "open was judged and\npass.\n\n"
      "| request | name | what the filter does | why |\n"
      "| --- | --- | --- | --- |\n";
  for (const IoctlEntry& e : IoctlTable()) {
    char request[16];
    std::snprintf(request, sizeof(request), "0x%08x", e.request);
    std::string action;
    switch (e.handling) {
      case SyscallHandling::kAllow:
        action = "let through";
        break;
      case SyscallHandling::kJudged:
        action = e.family == SyscallFamily::kProcess
                     ? "judged like a signal (unless Landlock scopes signals)"
                     : "judged as a write of the descriptor's file";
        break;
      default:
        action = std::string("refused (") + ErrnoName(e.error) + ")";
        break;
    }
    out += std::string("| ") + request + " | `" + e.name + "` | " +
           Cell(action) + " | " + Cell(e.why) + " |\n";
  }
  return out;
}

}  // namespace klaunch
