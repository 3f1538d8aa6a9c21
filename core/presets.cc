#include "core/presets.h"

namespace klaunch {
namespace {

// What a dynamically linked program, a shell, python3 and git read before
// they do anything of their own. Specific /etc entries rather than /etc: it
// holds /etc/shadow, sudoers and the ssh host keys.
const std::vector<std::string>& SystemReadRoots() {
  static const auto* roots = new std::vector<std::string>{
      "/usr",
      "/bin",
      "/sbin",
      "/lib",
      "/lib32",
      "/lib64",
      "/libx32",
      "/opt",
      // loader, libc, locale, time
      "/etc/ld.so.cache",
      "/etc/ld.so.conf",
      "/etc/ld.so.conf.d",
      "/etc/ld.so.preload",
      "/etc/locale.alias",
      "/etc/locale.conf",
      "/etc/localtime",
      "/etc/timezone",
      "/etc/default/locale",
      // users, names, resolver
      "/etc/passwd",
      "/etc/group",
      "/etc/nsswitch.conf",
      "/etc/hosts",
      "/etc/host.conf",
      "/etc/resolv.conf",
      "/etc/gai.conf",
      "/etc/services",
      "/etc/protocols",
      "/etc/hostname",
      "/run/systemd/resolve",
      // certificates and TLS
      "/etc/ssl",
      "/etc/ca-certificates",
      "/etc/ca-certificates.conf",
      "/etc/pki",
      "/etc/crypto-policies",
      // shells, terminals, tools' system config
      "/etc/profile",
      "/etc/profile.d",
      "/etc/bash.bashrc",
      "/etc/environment",
      "/etc/shells",
      "/etc/inputrc",
      "/etc/terminfo",
      "/etc/magic",
      "/etc/mime.types",
      "/etc/alternatives",
      "/etc/debian_version",
      "/etc/os-release",
      "/etc/lsb-release",
      "/etc/gitconfig",
      "/etc/python3",
      "/etc/python3.11",
      "/etc/pip.conf",
      "/etc/perl",
      "/etc/ssh/ssh_config",
      "/etc/ssh/ssh_config.d",
      "/etc/selinux",
      "/etc/login.defs",
      // git's own per-user config: git refuses to start if it cannot read it
      "~/.gitconfig",
      "~/.config/git",
      // the process's own view of itself and of the machine
      "/proc/self",
      "/proc/thread-self",
      "/proc/cpuinfo",
      "/proc/meminfo",
      "/proc/stat",
      "/proc/loadavg",
      "/proc/version",
      "/proc/filesystems",
      "/proc/sys/kernel/osrelease",
      "/proc/sys/kernel/ngroups_max",
      "/proc/sys/vm/overcommit_memory",
      "/sys/devices/system/cpu",
      "/dev/random",
      "/dev/urandom",
  };
  return *roots;
}

// Devices that hold nothing and reach nothing but the program's terminal.
const std::vector<std::string>& HarmlessDevices() {
  static const auto* devices = new std::vector<std::string>{
      "/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/pts",
  };
  return *devices;
}

}  // namespace

const std::vector<absl::string_view>& PresetNames() {
  static const auto* names = new std::vector<absl::string_view>{
      "read-only", "workspace-write", "full-access", "none"};
  return *names;
}

const std::vector<std::string>& DefaultEnvKeep() {
  static const auto* keep = new std::vector<std::string>{
      "PATH", "HOME", "USER",      "LOGNAME", "SHELL",  "LANG",     "LANGUAGE",
      "LC_*", "TERM", "COLORTERM", "TZ",      "TMPDIR", "NO_COLOR",
  };
  return *keep;
}

bool GetPreset(absl::string_view name, absl::string_view tmpdir,
               PresetLists* out) {
  *out = PresetLists{};
  if (name == "none") return true;
  out->env_keep = DefaultEnvKeep();
  out->commands_unlisted_allow = true;
  if (name == "full-access") {
    out->read = {"/"};
    out->write = {"/"};
    out->network = {"*"};
    out->env_keep = {"*"};
    out->unix_abstract = true;
    return true;
  }
  if (name != "read-only" && name != "workspace-write") return false;
  out->read = SystemReadRoots();
  out->write = HarmlessDevices();
  if (name == "read-only") {
    out->workspace_writable = false;
    return true;
  }
  // What runs code the next time the user, not the sandbox, starts a shell
  // or runs git here: a hook, `core.fsmonitor` or `core.pager` in a
  // config, an alias in an rc file. Writable roots would admit them.
  out->read_only = {"~/.bashrc",      "~/.bash_profile", "~/.bash_login",
                    "~/.bash_logout", "~/.profile",      "~/.zshrc",
                    "~/.zshenv",      "~/.zprofile",     "~/.zlogin",
                    "~/.zlogout",     "~/.config/fish",  "~/.gitconfig",
                    "~/.config/git"};
  out->workspace_read_only = {".git/hooks", ".git/config"};
  for (const char* dir : {"/tmp", "/var/tmp", "/dev/shm"}) {
    out->write.emplace_back(dir);
  }
  if (!tmpdir.empty() && tmpdir[0] == '/') out->write.emplace_back(tmpdir);
  return true;
}

}  // namespace klaunch
