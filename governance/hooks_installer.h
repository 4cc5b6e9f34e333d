// `vt-gate hooks install|uninstall`: commit-msg, pre-commit and pre-push in
// the repository's hooks directory (core.hooksPath or .git/hooks), as POSIX sh
// shims, or for the first two as scripts whose interpreter is the vt-gate
// binary or as links to it. A hook the user already had is kept as
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

// How commit-msg and pre-commit are installed (pre-push, which tees its stdin to a chained hook, is
// always a shim).
enum class HookForm {
  kShim,         // `#!/bin/sh` scripts that exec vt-gate: two processes a hook; VT_GATE picks the binary
  kInterpreter,  // scripts whose `#!` line names the vt-gate binary (`#!/abs/vt-gate --hook`): one
                 // process, and a binary gone from that path fails the hook (git cannot start it)
  kLink,         // symbolic links to the binary: one process, but git skips a dangling link silently
};

// The `#!` line of an interpreter hook, or "" when `vt_gate` cannot be one: not an absolute path, a
// path with white space (the kernel splits the line there), or a line past kMaxInterpreterLine.
inline constexpr size_t kMaxInterpreterLine = 127;  // the oldest kernels' limit; Linux reads 255 since 5.1
std::string InterpreterLine(const std::string& vt_gate);

// The text of an interpreter hook for `hook` (InterpreterLine(vt_gate) must not be empty).
std::string InterpreterHook(const std::string& hook, const std::string& vt_gate);

// Each action taken is appended to `log`, one line each. kInterpreter and kLink need `vt_gate` as an
// absolute path; the binary runs as the hook its name says. Any other path InterpreterLine refuses
// (white space, too long) gets shims under kInterpreter, and the log says why.
Status InstallHooks(const Repository& repo, const std::string& vt_gate, std::vector<std::string>* log,
                    HookForm form);

// Whether `hook` runs the binary itself under kInterpreter and kLink (commit-msg, pre-commit).
bool IsDirectHook(const std::string& hook);

// The command a direct hook runs, by the hook's name and git's arguments: {"trailers",
// "--message-file", MSG} for commit-msg, {"preflight", "--staged"} for pre-commit; empty for a name
// that is not a direct hook, or commit-msg without its message file.
std::vector<std::string> DirectHookCommand(const std::string& hook, const std::vector<std::string>& args);
Status UninstallHooks(const Repository& repo, std::vector<std::string>* log);

}  // namespace vt::gate
