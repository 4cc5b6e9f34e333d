// `vt-gate hooks install|uninstall`: POSIX sh shims for commit-msg,
// pre-commit and pre-push in the repository's hooks directory
// (core.hooksPath or .git/hooks), or with --direct links to the binary for the
// first two. A hook the user already had is kept as `<hook>.vt-gate-chained`
// and runs first; uninstall puts it back.
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

// Each action taken is appended to `log`, one line each. With `direct`, commit-msg and pre-commit
// are symbolic links to `vt_gate` itself (an absolute path), which runs as the hook its name says:
// git executes it without a shell, one process instead of two (pre-push, which tees its stdin to a
// chained hook, stays a shim).
Status InstallHooks(const Repository& repo, const std::string& vt_gate, std::vector<std::string>* log,
                    bool direct = false);

// Whether `hooks install --direct` links `hook` to the binary (commit-msg, pre-commit).
bool IsDirectHook(const std::string& hook);

// The command a direct hook runs, by the hook's name and git's arguments: {"trailers",
// "--message-file", MSG} for commit-msg, {"preflight", "--staged"} for pre-commit; empty for a name
// that is not a direct hook, or commit-msg without its message file.
std::vector<std::string> DirectHookCommand(const std::string& hook, const std::vector<std::string>& args);
Status UninstallHooks(const Repository& repo, std::vector<std::string>* log);

}  // namespace vt::gate
