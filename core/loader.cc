#include "core/loader.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <optional>

// toml++ 3.3.0 (Debian 12) asserts on some malformed documents ("[=]",
// "a = [}", a byte-order mark before a table header): with assertions on
// the process aborts, under NDEBUG each becomes __builtin_assume, undefined
// behaviour. Its code after each assertion reports the error, so here its
// assertions are off and never assumptions.
#pragma push_macro("NDEBUG")
#undef NDEBUG
#define TOML_ASSERT(expr) static_assert(true)
#include <toml++/toml.h>
#pragma pop_macro("NDEBUG")

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/effective.h"
#include "core/path.h"
#include "core/presets.h"
#include "core/static_names.h"
#include "core/toml_guard.h"

namespace klaunch {
namespace {

// Every process under klaunch loads the effective policy at its start, so a
// policy is bounded in entries as well as bytes: 750k entries fit in 4 MB
// and cost each process half a gigabyte.
constexpr size_t kMaxPolicyEntries = 100000;

// toml++ speaks std::string_view; Debian's Abseil has its own string_view.
absl::string_view Sv(std::string_view s) { return {s.data(), s.size()}; }
std::string_view StdSv(absl::string_view s) { return {s.data(), s.size()}; }

absl::string_view TypeName(toml::node_type type) {
  switch (type) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
    case toml::node_type::time:
    case toml::node_type::date_time:
      return "a date or time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

// Walks one parsed file, turning it into a Policy or the first error.
class Reader {
 public:
  Reader(absl::string_view source, const LoadContext& ctx)
      : source_(source), ctx_(ctx) {}

  absl::StatusOr<Policy> Read(const toml::table& root);

 private:
  SourceLocation Where(const toml::source_region& region) const {
    return SourceLocation{std::string(source_),
                          static_cast<int>(region.begin.line),
                          static_cast<int>(region.begin.column)};
  }
  absl::Status Error(const toml::source_region& region,
                     absl::string_view message) const {
    return absl::InvalidArgumentError(
        absl::StrCat(LocationPrefix(Where(region)), message));
  }
  absl::Status WrongType(const toml::node& node, absl::string_view key,
                         absl::string_view expected) const {
    return Error(node.source(), absl::StrCat(key, ": expected ", expected,
                                             ", got ", TypeName(node.type())));
  }

  using Handler =
      std::function<absl::Status(const toml::node&, const std::string&)>;
  using Handlers = std::map<absl::string_view, Handler>;

  // Calls `handle` for each key of `table`; an unknown key is an error at
  // the key itself.
  absl::Status ForEachKey(const toml::table& table, absl::string_view prefix,
                          const Handlers& handlers) const;
  // Handlers for the shapes every table uses: a sub-table walked with
  // `handlers`, an array of strings stored into `out` (a vector or an
  // optional one), a boolean stored into `out`.
  Handler TableOf(Handlers handlers) const;
  template <typename Out>
  Handler StringsInto(Out* out) const;
  Handler BoolInto(std::optional<bool>* out) const;

  absl::StatusOr<std::string> String(const toml::node& node,
                                     const std::string& key) const;
  absl::StatusOr<bool> Bool(const toml::node& node,
                            const std::string& key) const;
  // `commands.unlisted`: one of deny, ask, allow.
  absl::StatusOr<Unlisted> UnlistedValue(const toml::node& node,
                                         const std::string& key) const;
  // `filesystem.unlisted_writes`: deny or ask, stored into `out` (an
  // Unlisted or an optional one).
  template <typename Out>
  Handler UnlistedWritesInto(Out* out) const;
  // An array of strings as entries named key[i], each with its place.
  absl::StatusOr<std::vector<Entry>> Strings(const toml::node& node,
                                             const std::string& key) const;
  absl::Status ResolvePaths(std::vector<Entry>* entries) const;
  // One `[programs."NAME"]` table.
  absl::StatusOr<ProgramSection> ReadProgram(absl::string_view name,
                                             const toml::source_region& where,
                                             const toml::node& node) const;
  absl::Status ResolveOne(Entry* entry) const;

  absl::string_view source_;
  const LoadContext& ctx_;
  // Set by a `[resolved]` table (written into the effective form): the
  // symlinks were resolved when the policy was first loaded, and are not
  // looked up again.
  std::optional<std::map<std::string, std::string>> resolved_;
};

absl::Status Reader::ForEachKey(const toml::table& table,
                                absl::string_view prefix,
                                const Handlers& handlers) const {
  for (auto&& [k, v] : table) {
    const std::string key = prefix.empty()
                                ? std::string(k.str())
                                : absl::StrCat(prefix, ".", Sv(k.str()));
    auto it = handlers.find(Sv(k.str()));
    if (it == handlers.end()) {
      std::vector<absl::string_view> known;
      for (const auto& [name, unused] : handlers) known.push_back(name);
      return Error(k.source(),
                   absl::StrCat("unknown key '", key, "' (known here: ",
                                absl::StrJoin(known, ", "), ")"));
    }
    if (absl::Status s = it->second(v, key); !s.ok()) return s;
  }
  return absl::OkStatus();
}

Reader::Handler Reader::TableOf(Handlers handlers) const {
  return [this, handlers = std::move(handlers)](const toml::node& node,
                                                const std::string& key) {
    const toml::table* t = node.as_table();
    if (t == nullptr) return WrongType(node, key, "a table");
    return ForEachKey(*t, key, handlers);
  };
}

template <typename Out>
Reader::Handler Reader::StringsInto(Out* out) const {
  return [this, out](const toml::node& node, const std::string& key) {
    absl::StatusOr<std::vector<Entry>> v = Strings(node, key);
    if (!v.ok()) return v.status();
    *out = *std::move(v);
    return absl::OkStatus();
  };
}

template <typename Out>
Reader::Handler Reader::UnlistedWritesInto(Out* out) const {
  return [this, out](const toml::node& node, const std::string& key) {
    absl::StatusOr<std::string> v = String(node, key);
    if (!v.ok()) return v.status();
    if (*v == "deny") {
      *out = Unlisted::kDeny;
    } else if (*v == "ask") {
      *out = Unlisted::kAsk;
    } else {
      return Error(node.source(),
                   absl::StrCat(key, ": '", *v,
                                "' is not one of deny, ask (a write no rule "
                                "admits is never allowed unasked)"));
    }
    return absl::OkStatus();
  };
}

Reader::Handler Reader::BoolInto(std::optional<bool>* out) const {
  return [this, out](const toml::node& node, const std::string& key) {
    absl::StatusOr<bool> v = Bool(node, key);
    if (!v.ok()) return v.status();
    *out = *v;
    return absl::OkStatus();
  };
}

absl::StatusOr<std::string> Reader::String(const toml::node& node,
                                           const std::string& key) const {
  const toml::value<std::string>* s = node.as_string();
  if (s == nullptr) return WrongType(node, key, "a string");
  return s->get();
}

absl::StatusOr<Unlisted> Reader::UnlistedValue(const toml::node& node,
                                               const std::string& key) const {
  absl::StatusOr<std::string> v = String(node, key);
  if (!v.ok()) return v.status();
  if (*v == "deny") return Unlisted::kDeny;
  if (*v == "ask") return Unlisted::kAsk;
  if (*v == "allow") return Unlisted::kAllow;
  return Error(node.source(), absl::StrCat(key, ": '", *v,
                                           "' is not one of deny, ask, allow"));
}

absl::StatusOr<bool> Reader::Bool(const toml::node& node,
                                  const std::string& key) const {
  const toml::value<bool>* b = node.as_boolean();
  if (b == nullptr) return WrongType(node, key, "true or false");
  return b->get();
}

absl::StatusOr<std::vector<Entry>> Reader::Strings(
    const toml::node& node, const std::string& key) const {
  const toml::array* array = node.as_array();
  if (array == nullptr) return WrongType(node, key, "an array of strings");
  std::vector<Entry> out;
  for (size_t i = 0; i < array->size(); ++i) {
    const toml::node& item = (*array)[i];
    const std::string item_key = absl::StrCat(key, "[", i, "]");
    absl::StatusOr<std::string> value = String(item, item_key);
    if (!value.ok()) return value.status();
    if (value->find('\0') != std::string::npos) {
      return Error(item.source(), absl::StrCat(item_key, ": holds a NUL byte"));
    }
    out.push_back(
        Entry{*std::move(value), "", item_key, "", Where(item.source())});
  }
  return out;
}

absl::Status Reader::ResolveOne(Entry* entry) const {
  absl::StatusOr<std::string> value =
      ResolvePolicyPath(entry->value, ctx_.base_dir, ctx_.home);
  if (!value.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(LocationPrefix(entry->where),
                                                   entry->key, ": ",
                                                   value.status().message()));
  }
  entry->value = *std::move(value);
  entry->resolved = entry->value;
  if (resolved_) {
    if (auto it = resolved_->find(entry->value); it != resolved_->end()) {
      entry->resolved = it->second;
    }
    return absl::OkStatus();
  }
  // /proc/self and friends are magic: resolving them here would name this
  // process, not the one judged later.
  if (entry->value[0] != '/' || PathIsWithin(entry->value, "/proc")) {
    return absl::OkStatus();
  }
  // Resolve the longest existing literal prefix (up to the first wildcard).
  std::string literal = LiteralRoot(entry->value);
  std::string tail =
      literal == entry->value
          ? ""
          : entry->value.substr(literal == "/" ? 0 : literal.size());
  while (true) {
    char buf[PATH_MAX];
    if (realpath(literal.c_str(), buf) != nullptr) {
      std::string resolved = buf;
      if (!tail.empty()) {
        resolved = resolved == "/" ? tail : absl::StrCat(resolved, tail);
      }
      entry->resolved = resolved;
      return absl::OkStatus();
    }
    if (errno == ELOOP) {
      return absl::InvalidArgumentError(
          absl::StrCat(LocationPrefix(entry->where), entry->key, ": ", literal,
                       " is a symlink loop"));
    }
    if (errno != ENOENT && errno != ENOTDIR) return absl::OkStatus();
    if (literal == "/") return absl::OkStatus();
    size_t slash = literal.rfind('/');
    tail = absl::StrCat(literal.substr(slash), tail);
    literal = slash == 0 ? "/" : literal.substr(0, slash);
  }
}

// For each host rule naming a name bound without a lookup (localhost, a
// name in `hosts`), an entry for each of its addresses, on the same port:
// the program may connect there without the shim seeing a lookup.
void AddStaticAddresses(std::vector<Entry>* list, absl::string_view hosts) {
  const size_t written = list->size();
  for (size_t i = 0; i < written; ++i) {
    absl::StatusOr<NetworkRule> rule = NetworkRule::Parse((*list)[i].value);
    if (!rule.ok() || !rule->names_host()) continue;  // the engine says why
    const std::string name = rule->literal_host();
    for (const IpAddress& a : StaticAddresses(name, hosts)) {
      std::string value = a.ToString();
      if (rule->port() != 0) {
        value = a.v6 ? absl::StrCat("[", value, "]:", rule->port())
                     : absl::StrCat(value, ":", rule->port());
      }
      const Entry& from = (*list)[i];
      const std::string base = from.key.substr(0, from.key.rfind('['));
      Entry e{value, "", absl::StrCat(base, "[", list->size(), "]"),
              absl::StrCat(name, " of ", from.key), from.where};
      list->push_back(std::move(e));
    }
  }
}

absl::Status Reader::ResolvePaths(std::vector<Entry>* entries) const {
  for (Entry& entry : *entries) {
    if (absl::Status s = ResolveOne(&entry); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<Policy> Reader::Read(const toml::table& root) {
  Policy policy;
  std::string base = "workspace-write";
  std::optional<Entry> workspace;
  std::optional<bool> workspace_writable;
  std::optional<bool> preset_read_only;
  std::optional<Unlisted> unlisted;
  std::optional<bool> unix_abstract;
  std::optional<std::vector<Entry>> keep;
  Handlers filesystem = {
      {"workspace",
       [&](const toml::node& node, const std::string& key) {
         absl::StatusOr<std::string> v = String(node, key);
         if (!v.ok()) return v.status();
         workspace = Entry{*v, "", key, "", Where(node.source())};
         return absl::OkStatus();
       }},
      {"workspace_writable", BoolInto(&workspace_writable)},
      {"read", StringsInto(&policy.filesystem.read)},
      {"write", StringsInto(&policy.filesystem.write)},
      {"deny", StringsInto(&policy.filesystem.deny)},
      {"read_only", StringsInto(&policy.filesystem.read_only)},
      {"preset_read_only", BoolInto(&preset_read_only)},
      {"unlisted_writes",
       UnlistedWritesInto(&policy.filesystem.unlisted_writes)},
  };
  Handlers commands = {
      {"allow_prefixes", StringsInto(&policy.commands.allow_prefixes)},
      {"allow", StringsInto(&policy.commands.allow)},
      {"allow_patterns", StringsInto(&policy.commands.allow_patterns)},
      {"deny", StringsInto(&policy.commands.deny)},
      {"unlisted",
       [&](const toml::node& node, const std::string& key) {
         absl::StatusOr<Unlisted> v = UnlistedValue(node, key);
         if (!v.ok()) return v.status();
         unlisted = *v;
         return absl::OkStatus();
       }},
  };
  Handlers network = {
      {"allow", StringsInto(&policy.network.allow)},
      {"unix_abstract", BoolInto(&unix_abstract)},
  };
  Handlers system = {
      {"allow",
       [&](const toml::node& node, const std::string& key) {
         absl::StatusOr<std::vector<Entry>> v = Strings(node, key);
         if (!v.ok()) return v.status();
         for (const Entry& e : *v) {
           if (std::find(std::begin(kSystemGroups), std::end(kSystemGroups),
                         e.value) == std::end(kSystemGroups)) {
             return absl::InvalidArgumentError(absl::StrCat(
                 LocationPrefix(e.where), e.key, ": '", e.value,
                 "' is not one of ", absl::StrJoin(kSystemGroups, ", ")));
           }
         }
         policy.system.allow = *std::move(v);
         return absl::OkStatus();
       }},
  };
  Handlers env = {
      {"keep", StringsInto(&keep)},
      {"set",
       [&](const toml::node& node, const std::string& key) {
         const toml::table* t = node.as_table();
         if (t == nullptr) return WrongType(node, key, "a table of strings");
         for (auto&& [k, v] : *t) {
           const std::string name(k.str());
           const std::string item_key = absl::StrCat(key, ".", name);
           if (name.empty() || name.find('=') != std::string::npos ||
               name.find('\0') != std::string::npos) {
             return Error(k.source(),
                          absl::StrCat(item_key, ": not a variable name"));
           }
           absl::StatusOr<std::string> value = String(v, item_key);
           if (!value.ok()) return value.status();
           policy.env.set.emplace_back(name, *std::move(value));
         }
         return absl::OkStatus();
       }},
  };
  Handlers klaunch = {
      {"read_only", StringsInto(&policy.klaunch.read_only)},
  };
  Handlers top = {
      {"version",
       [&](const toml::node& node, const std::string& key) {
         const toml::value<int64_t>* v = node.as_integer();
         if (v == nullptr) return WrongType(node, key, "an integer");
         if (v->get() != 1) {
           return Error(node.source(),
                        absl::StrCat(key, ": version ", v->get(),
                                     " is not supported (this klaunch reads "
                                     "version 1)"));
         }
         return absl::OkStatus();
       }},
      {"extends",
       [&](const toml::node& node, const std::string& key) {
         absl::StatusOr<std::string> v = String(node, key);
         if (!v.ok()) return v.status();
         PresetLists unused;
         if (!GetPreset(*v, "", &unused)) {
           return Error(
               node.source(),
               absl::StrCat(key, ": unknown preset '", *v, "' (known: ",
                            absl::StrJoin(PresetNames(), ", "), ")"));
         }
         base = *v;
         return absl::OkStatus();
       }},
      {"mode",
       [&](const toml::node& node, const std::string& key) {
         absl::StatusOr<std::string> v = String(node, key);
         if (!v.ok()) return v.status();
         if (*v == "enforce")
           policy.mode = Mode::kEnforce;
         else if (*v == "audit")
           policy.mode = Mode::kAudit;
         else {
           return Error(node.source(), absl::StrCat(key, ": '", *v,
                                                    "' is not one of enforce, "
                                                    "audit"));
         }
         return absl::OkStatus();
       }},
      {"filesystem", TableOf(filesystem)},
      {"commands", TableOf(commands)},
      {"network", TableOf(network)},
      {"env", TableOf(env)},
      {"system", TableOf(system)},
      {"klaunch", TableOf(klaunch)},
      {"programs",
       [&](const toml::node& node, const std::string& key) {
         const toml::table* t = node.as_table();
         if (t == nullptr) return WrongType(node, key, "a table of programs");
         for (auto&& [k, v] : *t) {
           absl::StatusOr<ProgramSection> section =
               ReadProgram(Sv(k.str()), k.source(), v);
           if (!section.ok()) return section.status();
           policy.programs.push_back(*std::move(section));
         }
         return absl::OkStatus();
       }},
      {"resolved",
       [&](const toml::node& node, const std::string& key) {
         const toml::table* t = node.as_table();
         if (t == nullptr) return WrongType(node, key, "a table of strings");
         resolved_.emplace();
         for (auto&& [k, v] : *t) {
           absl::StatusOr<std::string> to =
               String(v, absl::StrCat(key, ".", Sv(k.str())));
           if (!to.ok()) return to.status();
           // What klaunch writes here is a path it resolved: absolute and
           // clean. Anything else would slip past the entries' own checks.
           if (!IsNormalizedPath(*to)) {
             return Error(v.source(),
                          absl::StrCat(key, ".", Sv(k.str()), ": '", *to,
                                       "' is not an absolute, clean path"));
           }
           (*resolved_)[std::string(k.str())] = *std::move(to);
         }
         return absl::OkStatus();
       }},
  };
  if (absl::Status s = ForEachKey(root, "", top); !s.ok()) return s;
  if (ctx_.effective_only && !resolved_) {
    return absl::InvalidArgumentError(absl::StrCat(
        source_,
        ": not an effective policy (no [resolved] table): the shim "
        "enforces only what klaunch wrote"));
  }

  // The preset's entries follow the user's, so the user's keep their index.
  PresetLists preset;
  GetPreset(base, ctx_.tmpdir, &preset);
  policy.base = base;
  auto append = [&](std::vector<Entry>* list, absl::string_view name,
                    const std::vector<std::string>& values) {
    for (const std::string& value : values) {
      list->push_back(Entry{
          value, "", absl::StrCat(name, "[", list->size(), "]"), base, {}});
    }
  };
  append(&policy.filesystem.read, "filesystem.read", preset.read);
  append(&policy.filesystem.write, "filesystem.write", preset.write);
  append(&policy.filesystem.deny, "filesystem.deny", preset.deny);
  append(&policy.network.allow, "network.allow", preset.network);
  if (keep) {
    policy.env.keep = *std::move(keep);
    append(&policy.env.keep, "env.keep", preset.env_keep);
  } else {
    append(&policy.env.keep, "env.keep",
           base == "none" ? DefaultEnvKeep() : preset.env_keep);
  }

  policy.filesystem.workspace =
      workspace ? *workspace
                : Entry{ctx_.base_dir, "", "filesystem.workspace", "", {}};
  policy.filesystem.workspace_writable =
      workspace_writable.value_or(preset.workspace_writable);
  if (absl::Status s = ResolveOne(&policy.filesystem.workspace); !s.ok()) {
    return s;
  }
  if (preset_read_only.value_or(true)) {
    append(&policy.filesystem.read_only, "filesystem.read_only",
           preset.read_only);
    // Only in a repository the workspace already holds: one the program
    // makes (`git init`) is its own, and git could not make it with its
    // config and hooks kept from being written.
    std::vector<std::string> in_workspace;
    const std::string& ws = policy.filesystem.workspace.value;
    struct stat st;
    if (stat(absl::StrCat(ws, "/.git").c_str(), &st) == 0 &&
        S_ISDIR(st.st_mode)) {
      for (const std::string& relative : preset.workspace_read_only) {
        in_workspace.push_back(absl::StrCat(ws, "/", relative));
      }
    }
    append(&policy.filesystem.read_only, "filesystem.read_only", in_workspace);
  }
  for (auto* list : {&policy.filesystem.read, &policy.filesystem.write,
                     &policy.filesystem.deny, &policy.filesystem.read_only,
                     &policy.klaunch.read_only}) {
    if (absl::Status s = ResolvePaths(list); !s.ok()) return s;
  }
  const bool lists_commands = !policy.commands.allow_prefixes.empty() ||
                              !policy.commands.allow.empty() ||
                              !policy.commands.allow_patterns.empty();
  // A file that lists the commands it allows means the others are refused,
  // even on a preset that would otherwise let every command through.
  policy.commands.unlisted = unlisted.value_or(
      preset.commands_unlisted_allow && !lists_commands ? Unlisted::kAllow
                                                        : Unlisted::kDeny);
  policy.network.unix_abstract = unix_abstract.value_or(preset.unix_abstract);
  // An effective form has its names' addresses written out already.
  if (!resolved_) {
    // Read with plain calls: the shim links the loader, and no stream.
    std::string hosts;
    const int fd =
        ctx_.hosts_file.empty()
            ? -1
            : open(ctx_.hosts_file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    char buf[4096];
    for (ssize_t n; fd >= 0 && hosts.size() < kMaxPolicyBytes &&
                    (n = read(fd, buf, sizeof(buf))) > 0;) {
      hosts.append(buf, n);
    }
    if (fd >= 0) close(fd);
    AddStaticAddresses(&policy.network.allow, hosts);
    for (ProgramSection& section : policy.programs) {
      if (section.network_allow) {
        AddStaticAddresses(&*section.network_allow, hosts);
      }
    }
  }
  for (ProgramSection& section : policy.programs) {
    for (std::vector<Entry>* list :
         {section.read ? &*section.read : nullptr,
          section.write ? &*section.write : nullptr, &section.deny}) {
      if (list == nullptr) continue;
      if (absl::Status s = ResolvePaths(list); !s.ok()) return s;
    }
  }
  return policy;
}

absl::StatusOr<ProgramSection> Reader::ReadProgram(
    absl::string_view name, const toml::source_region& where,
    const toml::node& node) const {
  ProgramSection section;
  section.name = std::string(name);
  section.key = absl::StrCat("programs.", TomlQuote(name));
  section.where = Where(where);
  // A program is named as command rules name one: a bare name or a path.
  const bool bare = !name.empty() && name.find('/') == absl::string_view::npos;
  if (!bare && !(IsNormalizedPath(name) && name != "/")) {
    return Error(where, absl::StrCat(section.key,
                                     ": a program section is named by a bare "
                                     "program name (curl) or an absolute, "
                                     "clean path (/usr/bin/curl)"));
  }
  if (name.find_first_of("*?[") != absl::string_view::npos ||
      name.find('\0') != absl::string_view::npos || name == "." ||
      name == "..") {
    return Error(
        where,
        absl::StrCat(section.key, ": a program's name is literal (no glob)"));
  }
  const toml::table* t = node.as_table();
  if (t == nullptr) return WrongType(node, section.key, "a table");
  Handlers filesystem = {
      {"read", StringsInto(&section.read)},
      {"write", StringsInto(&section.write)},
      {"deny", StringsInto(&section.deny)},
      {"workspace_writable", BoolInto(&section.workspace_writable)},
      {"unlisted_writes", UnlistedWritesInto(&section.unlisted_writes)},
  };
  Handlers commands = {
      {"allow_prefixes", StringsInto(&section.allow_prefixes)},
      {"allow", StringsInto(&section.allow)},
      {"allow_patterns", StringsInto(&section.allow_patterns)},
      {"deny", StringsInto(&section.command_deny)},
      {"unlisted",
       [&](const toml::node& n, const std::string& key) {
         absl::StatusOr<Unlisted> v = UnlistedValue(n, key);
         if (!v.ok()) return v.status();
         section.unlisted = *v;
         return absl::OkStatus();
       }},
  };
  Handlers network = {
      {"allow", StringsInto(&section.network_allow)},
      {"unix_abstract", BoolInto(&section.unix_abstract)},
  };
  Handlers env = {
      {"keep", StringsInto(&section.env_keep)},
      {"set",
       [&](const toml::node& n, const std::string& key) {
         return Error(n.source(),
                      absl::StrCat(key,
                                   ": a program section can only narrow "
                                   "the environment (env.keep); setting "
                                   "variables belongs to the policy's "
                                   "[env]"));
       }},
  };
  Handlers top = {
      {"filesystem", TableOf(filesystem)},
      {"commands", TableOf(commands)},
      {"network", TableOf(network)},
      {"env", TableOf(env)},
  };
  if (absl::Status s = ForEachKey(*t, section.key, top); !s.ok()) return s;
  return section;
}

}  // namespace

LoadContext CurrentLoadContext() {
  LoadContext ctx;
  char buf[PATH_MAX];
  if (getcwd(buf, sizeof(buf)) != nullptr) ctx.base_dir = buf;
  if (const char* home = getenv("HOME")) ctx.home = home;
  if (const char* tmp = getenv("TMPDIR")) ctx.tmpdir = tmp;
  ctx.hosts_file = "/etc/hosts";
  return ctx;
}

namespace {

// The array with the most entries under `table`, and the entries in all.
struct EntryCount {
  size_t total = 0;
  size_t largest = 0;
  std::string largest_key;
  toml::source_position where;
};

void CountEntries(const toml::table& table, const std::string& prefix,
                  EntryCount* count) {
  for (const auto& [key, node] : table) {
    const std::string name = prefix.empty()
                                 ? std::string(key.str())
                                 : absl::StrCat(prefix, ".", Sv(key.str()));
    if (const toml::table* sub = node.as_table()) {
      CountEntries(*sub, name, count);
      count->total += 1;
    } else if (const toml::array* array = node.as_array()) {
      count->total += array->size();
      if (array->size() > count->largest) {
        count->largest = array->size();
        count->largest_key = name;
        count->where = node.source().begin;
      }
    } else {
      count->total += 1;
    }
  }
}

absl::Status ParseError(const toml::parse_error& error,
                        absl::string_view source_name) {
  return absl::InvalidArgumentError(
      absl::StrCat(source_name, ":", error.source().begin.line, ":",
                   error.source().begin.column, ": ", Sv(error.description())));
}

absl::Status HazardError(const TomlHazard& hazard,
                         absl::string_view source_name) {
  return absl::InvalidArgumentError(absl::StrCat(
      source_name, ":", hazard.line, ":", hazard.column, ": ", hazard.message));
}

absl::StatusOr<Policy> LoadParsed(absl::string_view text,
                                  absl::string_view source_name,
                                  const LoadContext& ctx, bool from_file) {
  if (ctx.base_dir.empty() || ctx.base_dir[0] != '/') {
    return absl::FailedPreconditionError(
        "the start directory is unknown or not absolute");
  }
  // toml++ must not read a non-ASCII code point where it asks whether that
  // is whitespace (core/toml_guard.h). The text before it is safe to give
  // toml++, and an error it finds there is the one the user should see
  // first, as it would be without the guard.
  if (std::optional<TomlHazard> hazard = FindTomlHazard(text)) {
    toml::parse_result before =
        toml::parse(StdSv(text.substr(0, hazard->offset)), StdSv(source_name));
    if (before) return HazardError(*hazard, source_name);
    const toml::source_position at = before.error().source().begin;
    if (at.line > hazard->line ||
        (at.line == hazard->line && at.column >= hazard->column)) {
      return HazardError(*hazard, source_name);
    }
    return ParseError(before.error(), source_name);
  }
  toml::parse_result parsed = toml::parse(StdSv(text), StdSv(source_name));
  if (!parsed) return ParseError(parsed.error(), source_name);
  // Every key is optional, but a file that declares nothing is more likely
  // truncated or the wrong file than a wish for the default preset.
  if (from_file && parsed.table().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        source_name,
        ": the policy is empty: it declares nothing (write 'extends = "
        "\"workspace-write\"' to run under the default preset)"));
  }
  EntryCount count;
  CountEntries(parsed.table(), "", &count);
  if (count.total > kMaxPolicyEntries) {
    return absl::InvalidArgumentError(absl::StrCat(
        source_name, ":", count.where.line, ":", count.where.column, ": ",
        count.largest_key, " has ", count.largest, " entries and the policy ",
        count.total, " in all, over the limit of ", kMaxPolicyEntries,
        " (name a directory or a glob rather than each file)"));
  }
  return Reader(source_name, ctx).Read(parsed.table());
}

}  // namespace

absl::StatusOr<Policy> LoadPolicyText(absl::string_view text,
                                      absl::string_view source_name,
                                      const LoadContext& ctx) {
  return LoadParsed(text, source_name, ctx, /*from_file=*/false);
}

absl::StatusOr<Policy> LoadPolicyFile(const std::string& path,
                                      const LoadContext& ctx,
                                      std::string* text_read) {
  // O_NONBLOCK: a FIFO named as the policy is refused below, not waited on.
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    std::string message =
        absl::StrCat(path, ": cannot open the policy: ", strerror(err));
    if (err == ENOENT) return absl::NotFoundError(message);
    if (err == EACCES) return absl::PermissionDeniedError(message);
    return absl::InvalidArgumentError(message);
  }
  struct stat st;
  std::string text;
  absl::Status status;
  if (fstat(fd, &st) != 0) {
    status = absl::InvalidArgumentError(
        absl::StrCat(path, ": cannot stat the policy: ", strerror(errno)));
  } else if (S_ISDIR(st.st_mode)) {
    status = absl::InvalidArgumentError(
        absl::StrCat(path, ": is a directory, not a policy file"));
  } else if (!S_ISREG(st.st_mode)) {
    status = absl::InvalidArgumentError(
        absl::StrCat(path, ": is not a regular file"));
  } else if (static_cast<size_t>(st.st_size) > kMaxPolicyBytes) {
    status = absl::InvalidArgumentError(
        absl::StrCat(path, ": the policy is ", st.st_size,
                     " bytes, over the limit of ", kMaxPolicyBytes));
  } else {
    text.resize(st.st_size);
    size_t done = 0;
    while (done < text.size()) {
      ssize_t n = read(fd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += n;
    }
    text.resize(done);
  }
  close(fd);
  if (!status.ok()) return status;
  if (text_read != nullptr) *text_read = text;
  return LoadParsed(text, path, ctx, /*from_file=*/true);
}

absl::StatusOr<Policy> PresetPolicy(absl::string_view name,
                                    const LoadContext& ctx) {
  PresetLists unused;
  if (!GetPreset(name, "", &unused)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown preset '", name,
                     "' (known: ", absl::StrJoin(PresetNames(), ", "), ")"));
  }
  return LoadPolicyText(absl::StrCat("extends = \"", name, "\"\n"),
                        absl::StrCat("preset ", name), ctx);
}

absl::StatusOr<Engine> LoadEngine(const std::string& path,
                                  const LoadContext& ctx) {
  absl::StatusOr<Policy> policy = LoadPolicyFile(path, ctx);
  if (!policy.ok()) return policy.status();
  return Engine::Create(*policy);
}

}  // namespace klaunch
