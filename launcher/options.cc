#include "launcher/options.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

namespace klaunch {

const char kUsage[] =
    "usage: klaunch [OPTIONS] [--] CMD [ARGS...]   run CMD under a policy\n"
    "       klaunch check FILE                      validate a policy, print "
    "its effective form\n"
    "       klaunch explain [--policy FILE | --preset NAME]\n"
    "                       (--read PATH | --write PATH | --exec 'CMD LINE' "
    "| --connect HOST:PORT)\n"
    "       klaunch suggest AUDIT.jsonl [--base FILE]\n"
    "       klaunch doctor [--json]                 which layers klaunch "
    "can use here,\n"
    "                                               and what they hold\n"
    "       klaunch doctor --settings               what holds in every "
    "setting\n"
    "       klaunch syscalls                        what the filter does with "
    "each call\n"
    "       klaunch --help | help | --version\n"
    "\n"
    "options:\n"
    "  --policy FILE   the policy (default: the workspace-write preset, the\n"
    "                  current directory as workspace, no network)\n"
    "  --preset NAME   read-only | workspace-write | full-access\n"
    "  --audit         dry run: refuse nothing, record what enforcement "
    "would refuse\n"
    "  --log FILE      the JSON-lines audit log (default: a new file under\n"
    "                  $XDG_STATE_HOME/klaunch/runs/)\n"
    "  --verbose       one line on stderr per refusal as it happens\n"
    "  --trace         record what was allowed too: writes, creations,\n"
    "                  deletions, execs and connects (verdict \"allow\")\n"
    "  --journal       send every record to the system journal too\n"
    "  --quiet         nothing of klaunch's own on stderr but errors\n"
    "  --ask           put commands no rule admits to the user at the\n"
    "                  terminal (as unlisted = \"ask\"); no terminal: refused\n"
    "  --keep-orphans  leave descendants running when CMD exits (their calls\n"
    "                  the seccomp supervisor judged then fail with ENOSYS)\n"
    "  --fail-on-refusal  exit 1 when CMD exited 0 but a call was refused\n"
    "                  (with --audit: would have been)\n"
    "  --timeout D     when D (90s, 10m, 1h) passes, SIGTERM to the whole\n"
    "                  tree, SIGKILL after --kill-after D (default 5s); exit "
    "124\n"
    "  --no-seccomp    no seccomp layer: only calls through libc are judged\n"
    "                  (static binaries and raw system calls are not)\n"
    "  --no-landlock   no Landlock ruleset under the shim and the supervisor\n"
    "  --require LAYER fail (125) unless LAYER is applied: landlock (by\n"
    "                  default it is applied where the kernel has it)\n"
    "\n"
    "exit status: CMD's own; 128+N when CMD was killed by signal N; 125 when\n"
    "klaunch fails (bad policy, bad option); 126 when CMD cannot be run (or\n"
    "the policy refuses it); 127 when CMD is not found.\n";

absl::StatusOr<int64_t> ParseDuration(const std::string& option,
                                      const std::string& text) {
  auto bad = [&](const char* why) {
    return absl::InvalidArgumentError(absl::StrCat(
        option, " ", text, ": ", why,
        " (write a number with ms, s, m, h or d: 90s, 10m, 1.5h, 1h30m)"));
  };
  // Abseil reads ms, s, m and h and their sums; a bare number is seconds,
  // as timeout(1) has it, and `d` days, which Abseil does not read.
  absl::Duration d;
  double days = 0;
  if (absl::EndsWith(text, "d") &&
      absl::SimpleAtod(absl::string_view(text).substr(0, text.size() - 1),
                       &days) &&
      std::isfinite(days)) {
    d = absl::Hours(24) * days;
  } else if (!absl::ParseDuration(
                 text.find_first_not_of("0123456789.") == std::string::npos
                     ? text + "s"
                     : text,
                 &d)) {
    return bad("not a duration");
  }
  if (d < absl::Milliseconds(1)) return bad("must be at least 1ms");
  if (d > absl::Hours(24 * 365)) return bad("longer than a year");
  return absl::ToInt64Milliseconds(d);
}

absl::StatusOr<RunOptions> ParseRunOptions(
    const std::vector<std::string>& args) {
  RunOptions o;
  size_t i = 0;
  bool require_seccomp = false;
  // An option that takes a value, given twice, is refused rather than the
  // last one silently winning: `--policy a --policy b` is a mistake.
  std::set<std::string> given;
  auto value = [&](const std::string& name) -> absl::StatusOr<std::string> {
    if (i + 1 >= args.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("option ", name, " needs a value"));
    }
    return args[++i];
  };
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a.empty() || a[0] != '-') break;
    std::string name = a, inline_value;
    bool has_inline = false;
    if (size_t eq = a.find('='); eq != std::string::npos && a[1] == '-') {
      name = a.substr(0, eq);
      inline_value = a.substr(eq + 1);
      has_inline = true;
    }
    auto take = [&](std::string* out) -> absl::Status {
      if (has_inline) {
        *out = inline_value;
        return absl::OkStatus();
      }
      absl::StatusOr<std::string> v = value(name);
      if (!v.ok()) return v.status();
      *out = *v;
      return absl::OkStatus();
    };
    absl::Status s;
    if ((name == "--policy" || name == "--preset" || name == "--log" ||
         name == "--timeout" || name == "--kill-after") &&
        !given.insert(name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " is given twice: say it once"));
    }
    if (name == "--policy") {
      s = take(&o.policy_file);
    } else if (name == "--preset") {
      s = take(&o.preset);
    } else if (name == "--log") {
      s = take(&o.log_file);
    } else if (name == "--audit" && !has_inline) {
      o.audit = true;
    } else if (name == "--quiet" && !has_inline) {
      o.quiet = true;
    } else if (name == "--verbose" && !has_inline) {
      o.verbose = true;
    } else if (name == "--trace" && !has_inline) {
      o.trace = true;
    } else if (name == "--journal" && !has_inline) {
      o.journal = true;
    } else if (name == "--ask" && !has_inline) {
      o.ask = true;
    } else if (name == "--no-seccomp" && !has_inline) {
      o.no_seccomp = true;
    } else if (name == "--no-landlock" && !has_inline) {
      o.no_landlock = true;
    } else if (name == "--require") {
      std::string layer;
      s = take(&layer);
      if (s.ok() && layer == "landlock") {
        o.require_landlock = true;
      } else if (s.ok() && layer == "seccomp") {
        // Already required: without it klaunch stops unless --no-seccomp.
        require_seccomp = true;
      } else if (s.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--require ", layer, ": not a layer (landlock or seccomp)"));
      }
    } else if (name == "--keep-orphans" && !has_inline) {
      o.keep_orphans = true;
    } else if (name == "--fail-on-refusal" && !has_inline) {
      o.fail_on_refusal = true;
    } else if (name == "--timeout" || name == "--kill-after") {
      std::string text;
      s = take(&text);
      if (s.ok()) {
        absl::StatusOr<int64_t> ms = ParseDuration(name, text);
        if (!ms.ok()) return ms.status();
        (name == "--timeout" ? o.timeout_ms : o.kill_after_ms) = *ms;
      }
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown option '", a, "' (see klaunch --help)"));
    }
    if (!s.ok()) return s;
  }
  if (!o.policy_file.empty() && !o.preset.empty()) {
    return absl::InvalidArgumentError(
        "--policy and --preset exclude each other: a policy names its preset "
        "with `extends`");
  }
  if (require_seccomp && o.no_seccomp) {
    return absl::InvalidArgumentError(
        "--require seccomp and --no-seccomp exclude each other");
  }
  if (o.require_landlock && o.no_landlock) {
    return absl::InvalidArgumentError(
        "--require landlock and --no-landlock exclude each other");
  }
  if (o.require_landlock && o.audit) {
    return absl::InvalidArgumentError(
        "--require landlock and --audit exclude each other: a dry run applies "
        "no Landlock, since it must refuse nothing");
  }
  if (o.quiet && o.verbose) {
    return absl::InvalidArgumentError(
        "--quiet and --verbose exclude each other");
  }
  o.command.assign(args.begin() + i, args.end());
  if (o.command.empty()) {
    return absl::InvalidArgumentError(
        "no command to run (klaunch [OPTIONS] -- CMD [ARGS...])");
  }
  return o;
}

}  // namespace klaunch
