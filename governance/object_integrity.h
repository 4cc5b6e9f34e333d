// Object reads that cannot hang, and unreadable objects named by id.
//
// libgit2 1.5 inflates a loose object in a loop that never ends when the zlib
// stream is truncated (zstream.c treats Z_BUF_ERROR with no input left as
// progress), so one damaged file in .git/objects turned a hook or a CI job
// into a process spinning forever. Repository::Open installs a guard ahead of
// the loose-object backends that inflates the file itself first and turns a
// truncated or corrupt stream into an error naming the object.
#pragma once

#include <git2.h>

#include <string>
#include <vector>

#include "base/status.h"

namespace vt::gate {

class Repository;

// Adds the guard backend to `repo`'s object database (and its alternates').
Status InstallObjectGuard(git_repository* repo);

// After libgit2 failed while reading the history of `tips` (`what` says
// where): the first commit of that history that cannot be read, as
// kUnavailable "corrupt object <id>: ..." (or "missing object"); kInternal
// with libgit2's message when every commit reads.
Status HistoryReadFailure(const Repository& repo, const std::vector<git_oid>& tips, const std::string& what);

}  // namespace vt::gate
