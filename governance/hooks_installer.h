// `vt-gate hooks install|uninstall`: POSIX sh shims for commit-msg,
// pre-commit and pre-push in the repository's hooks directory
// (core.hooksPath or .git/hooks). A hook the user already had is kept as
// `<hook>.vt-gate-chained` and runs first; uninstall puts it back.
#pragma once

#include <string>
#include <vector>

#include "governance/git_repository.h"

namespace vt::gate {

// The hooks vt-gate manages.
const std::vector<std::string>& ManagedHooks();

// The shim text for `hook`; `vt_gate` is the command it runs when VT_GATE is
// not set. hooks/ in this repository holds the shims for `vt_gate` = "vt-gate".
std::string HookShim(const std::string& hook, const std::string& vt_gate);

// The directory git runs hooks from.
std::string HooksDirectory(const Repository& repo);

// Each action taken is appended to `log`, one line each.
Status InstallHooks(const Repository& repo, const std::string& vt_gate, std::vector<std::string>* log);
Status UninstallHooks(const Repository& repo, std::vector<std::string>* log);

}  // namespace vt::gate
