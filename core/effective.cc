#include "core/effective.h"

#include <set>

#include "absl/strings/str_cat.h"

namespace klaunch {
namespace {

void AppendList(std::string* out, absl::string_view name,
                const std::vector<Entry>& entries) {
  if (entries.empty()) {
    absl::StrAppend(out, name, " = []\n");
    return;
  }
  absl::StrAppend(out, name, " = [\n");
  for (const Entry& entry : entries) {
    absl::StrAppend(out, "  ", TomlQuote(entry.value), ",");
    if (!entry.preset.empty())
      absl::StrAppend(out, "  # preset ", entry.preset);
    absl::StrAppend(out, "\n");
  }
  absl::StrAppend(out, "]\n");
}

}  // namespace

std::string TomlQuote(absl::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          // By hand: the shim links this file, and str_format is not PIC in
          // Debian's Abseil.
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\u00";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 15]);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out += "\"";
  return out;
}

void AppendProgramSections(std::string* out, const Policy& p) {
  for (const ProgramSection& ps : p.programs) {
    const std::string head = absl::StrCat("\n[", ps.key);
    absl::StrAppend(out, head, ".filesystem]\n");
    if (ps.read) AppendList(out, "read", *ps.read);
    if (ps.write) AppendList(out, "write", *ps.write);
    AppendList(out, "deny", ps.deny);
    if (ps.workspace_writable) {
      absl::StrAppend(out, "workspace_writable = ",
                      *ps.workspace_writable ? "true" : "false", "\n");
    }
    if (ps.unlisted_writes) {
      absl::StrAppend(out, "unlisted_writes = ",
                      TomlQuote(UnlistedName(*ps.unlisted_writes)), "\n");
    }
    absl::StrAppend(out, head, ".commands]\n");
    if (ps.allow_prefixes)
      AppendList(out, "allow_prefixes", *ps.allow_prefixes);
    if (ps.allow) AppendList(out, "allow", *ps.allow);
    if (ps.allow_patterns)
      AppendList(out, "allow_patterns", *ps.allow_patterns);
    AppendList(out, "deny", ps.command_deny);
    if (ps.unlisted) {
      absl::StrAppend(out, "unlisted = ", TomlQuote(UnlistedName(*ps.unlisted)),
                      "\n");
    }
    absl::StrAppend(out, head, ".network]\n");
    if (ps.network_allow) AppendList(out, "allow", *ps.network_allow);
    if (ps.unix_abstract) {
      absl::StrAppend(
          out, "unix_abstract = ", *ps.unix_abstract ? "true" : "false", "\n");
    }
    absl::StrAppend(out, head, ".env]\n");
    if (ps.env_keep) AppendList(out, "keep", *ps.env_keep);
  }
}

std::string EffectiveToml(const Policy& p) {
  std::string out = absl::StrCat(
      "# Effective policy: preset \"", p.base,
      "\" expanded, paths absolute.\nversion = 1\nextends = \"none\"\nmode = ",
      TomlQuote(ModeName(p.mode)),
      "\n\n[filesystem]\nworkspace = ", TomlQuote(p.filesystem.workspace.value),
      "\nworkspace_writable = ",
      p.filesystem.workspace_writable ? "true" : "false", "\n");
  AppendList(&out, "read", p.filesystem.read);
  AppendList(&out, "write", p.filesystem.write);
  AppendList(&out, "deny", p.filesystem.deny);
  AppendList(&out, "read_only", p.filesystem.read_only);
  absl::StrAppend(&out, "unlisted_writes = ",
                  TomlQuote(UnlistedName(p.filesystem.unlisted_writes)),
                  "\n\n[commands]\n");
  AppendList(&out, "allow_prefixes", p.commands.allow_prefixes);
  AppendList(&out, "allow", p.commands.allow);
  AppendList(&out, "allow_patterns", p.commands.allow_patterns);
  AppendList(&out, "deny", p.commands.deny);
  absl::StrAppend(&out,
                  "unlisted = ", TomlQuote(UnlistedName(p.commands.unlisted)),
                  "\n\n[network]\n");
  AppendList(&out, "allow", p.network.allow);
  absl::StrAppend(&out, "unix_abstract = ",
                  p.network.unix_abstract ? "true" : "false", "\n\n[env]\n");
  AppendList(&out, "keep", p.env.keep);
  absl::StrAppend(&out, "set = {");
  for (size_t i = 0; i < p.env.set.size(); ++i) {
    absl::StrAppend(&out, i ? ", " : " ", TomlQuote(p.env.set[i].first), " = ",
                    TomlQuote(p.env.set[i].second));
  }
  absl::StrAppend(&out, p.env.set.empty() ? "}\n" : " }\n");
  absl::StrAppend(&out, "\n[system]\n");
  AppendList(&out, "allow", p.system.allow);
  AppendProgramSections(&out, p);
  if (!p.klaunch.read_only.empty()) {
    absl::StrAppend(&out, "\n[klaunch]\n");
    AppendList(&out, "read_only", p.klaunch.read_only);
  }
  // How the paths resolved through symlinks when the policy was loaded, so
  // that loading this form again looks nothing up.
  absl::StrAppend(&out, "\n[resolved]\n");
  std::vector<const Entry*> paths = {&p.filesystem.workspace};
  for (const auto* list :
       {&p.filesystem.read, &p.filesystem.write, &p.filesystem.deny,
        &p.filesystem.read_only, &p.klaunch.read_only}) {
    for (const Entry& e : *list) paths.push_back(&e);
  }
  for (const ProgramSection& ps : p.programs) {
    for (const auto* list : {ps.read ? &*ps.read : nullptr,
                             ps.write ? &*ps.write : nullptr, &ps.deny}) {
      if (list == nullptr) continue;
      for (const Entry& e : *list) paths.push_back(&e);
    }
  }
  // Once per path: a path listed twice (by the file and its preset, say)
  // would be a key written twice, which TOML refuses.
  std::set<absl::string_view> written;
  for (const Entry* e : paths) {
    if (!e->resolved.empty() && e->resolved != e->value &&
        written.insert(e->value).second) {
      absl::StrAppend(&out, TomlQuote(e->value), " = ", TomlQuote(e->resolved),
                      "\n");
    }
  }
  return out;
}

}  // namespace klaunch
