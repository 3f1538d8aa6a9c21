#include "core/two_names.h"

#include <fcntl.h>
#include <linux/fs.h>

namespace klaunch {

NameNeed RenameTargetNeed(unsigned flags) {
  if (flags & RENAME_EXCHANGE) return NameNeed::kExisting;
  if (flags & RENAME_NOREPLACE) return NameNeed::kNew;
  return NameNeed::kAny;
}

bool JudgeRename(EndJudge& judge, const RenameEnd& from, const RenameEnd& to,
                 unsigned flags) {
  bool allowed = judge.Write(from.path);
  allowed = judge.Write(to.path) && allowed;
  // Moving a directory moves everything below it: a deny entry must not be
  // left behind (RENAME_EXCHANGE moves the other side too).
  if (from.is_directory() && !judge.Move(from.path)) allowed = false;
  if ((flags & RENAME_EXCHANGE) && to.is_directory() && !judge.Move(to.path)) {
    allowed = false;
  }
  return allowed;
}

LinkSourceForm LinkSourceOf(int flags) {
  return LinkSourceForm{
      .object = (flags & (AT_SYMLINK_FOLLOW | AT_EMPTY_PATH)) != 0,
      .follow = (flags & AT_SYMLINK_FOLLOW) != 0,
      .empty = (flags & AT_EMPTY_PATH) != 0,
  };
}

bool JudgeLink(EndJudge& judge, const char* source, const char* name) {
  const bool source_ok = judge.LinkSource(source);
  const bool name_ok = judge.Write(name);
  return source_ok && name_ok;
}

}  // namespace klaunch
