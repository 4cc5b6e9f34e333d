#include "governance/hooks_installer.h"

#include <filesystem>
#include <fstream>

namespace vt::gate {
namespace {

namespace fs = std::filesystem;

constexpr const char* kShimMarker = "# vt-gate hook shim";
constexpr const char* kChainedSuffix = ".vt-gate-chained";

// The part of each shim that differs: what it runs.
std::string ShimCommand(const std::string& hook) {
  if (hook == "commit-msg") {
    return "# The message file, cleaned like git cleans it, must carry the configured trailers.\n"
           "exec \"$vt_gate\" trailers --message-file \"$1\"\n";
  }
  if (hook == "pre-commit") {
    return "# Every configured gate plus the staged-change checks (conflict markers).\n"
           "exec \"$vt_gate\" preflight --staged\n";
  }
  return "# The pushed commits, read from the object database: ref lines arrive on stdin.\n"
         "if [ -x \"$chained\" ]; then\n"
         "  refs=$(cat)\n"
         "  printf '%s\\n' \"$refs\" | \"$chained\" \"$@\" || exit $?\n"
         "  printf '%s\\n' \"$refs\" | \"$vt_gate\" trailers --pre-push \"$1\"\n"
         "  exit $?\n"
         "fi\n"
         "exec \"$vt_gate\" trailers --pre-push \"$1\"\n";
}

// The path itself, a dangling link included.
bool Present(const fs::path& path) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(path, ec));
}

// A direct hook: a symbolic link to a vt-gate binary.
bool IsOurLink(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_symlink(fs::symlink_status(path, ec))) return false;
  return fs::read_symlink(path, ec).filename().string().rfind("vt-gate", 0) == 0;
}

bool IsOurShim(const fs::path& path) {
  if (IsOurLink(path)) return true;
  std::ifstream in(path);
  std::string first, second;
  std::getline(in, first);
  std::getline(in, second);
  return second.rfind(kShimMarker, 0) == 0;
}

Status WriteExecutable(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Internal("cannot write " + path.string());
  std::error_code ec;
  fs::permissions(path,
                  fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                      fs::perms::others_read | fs::perms::others_exec,
                  ec);
  if (ec) return Internal("cannot make " + path.string() + " executable: " + ec.message());
  return Status::Ok();
}

// Shell single-quoting for the baked-in path.
std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

const std::vector<std::string>& ManagedHooks() {
  static const std::vector<std::string> kHooks = {"commit-msg", "pre-commit", "pre-push"};
  return kHooks;
}

std::string HookShim(const std::string& hook, const std::string& vt_gate) {
  std::string quoted = vt_gate == "vt-gate" ? vt_gate : ShellQuote(vt_gate);
  std::string text = "#!/bin/sh\n";
  text += std::string(kShimMarker) + " (" + hook + "): installed by `vt-gate hooks install`, removed by\n";
  text += "# `vt-gate hooks uninstall`. Bypass: git's own --no-verify. Set VT_GATE to pick the binary.\n";
  text += "vt_gate=${VT_GATE:-" + quoted + "}\n";
  text += "# A hook that was here before vt-gate runs first and can veto.\n";
  text += std::string("chained=\"$0") + kChainedSuffix + "\"\n";
  if (hook != "pre-push") text += "if [ -x \"$chained\" ]; then \"$chained\" \"$@\" || exit $?; fi\n";
  return text + ShimCommand(hook);
}

std::string HooksDirectory(const Repository& repo) {
  std::string configured = repo.ConfigString("core.hooksPath", "");
  // Git runs a linked worktree's hooks from the common dir: installing into .git/worktrees/NAME/hooks
  // would leave that worktree's commits unchecked.
  if (configured.empty()) return repo.common_dir() + "hooks";
  fs::path path(configured);
  if (path.is_relative()) path = fs::path(repo.root()) / path;
  return path.lexically_normal().string();
}

bool IsDirectHook(const std::string& hook) { return hook == "commit-msg" || hook == "pre-commit"; }

std::vector<std::string> DirectHookCommand(const std::string& hook, const std::vector<std::string>& args) {
  if (hook == "commit-msg" && !args.empty()) return {"trailers", "--message-file", args[0]};
  if (hook == "pre-commit") return {"preflight", "--staged"};
  return {};
}

std::string InterpreterLine(const std::string& vt_gate) {
  if (!fs::path(vt_gate).is_absolute()) return "";
  for (char c : vt_gate) {
    if (static_cast<unsigned char>(c) <= ' ') return "";
  }
  std::string line = "#!" + vt_gate + " --hook";
  return line.size() <= kMaxInterpreterLine ? line : "";
}

std::string InterpreterHook(const std::string& hook, const std::string& vt_gate) {
  std::string text = InterpreterLine(vt_gate) + "\n";
  text += std::string(kShimMarker) + " (" + hook + "): installed by `vt-gate hooks install`, removed by\n";
  text += "# `vt-gate hooks uninstall`. Bypass: git's own --no-verify. The kernel runs the binary named\n";
  text += "# above with this file's path (no shell); were the binary gone, git could not start the hook\n";
  text += "# and the commit stops. A " + hook + kChainedSuffix + " beside it runs first; VT_GATE reruns\n";
  text += "# the hook with another binary. Run by a shell instead (`sh HOOK`), it runs the same check:\n";
  text += "exec " + ShellQuote(vt_gate) + " --hook \"$0\" \"$@\"\n";
  return text;
}

Status InstallHooks(const Repository& repo, const std::string& vt_gate, std::vector<std::string>* log,
                    HookForm form) {
  if (form != HookForm::kShim && !fs::path(vt_gate).is_absolute()) {
    return InvalidArgument("hooks that run the binary itself name it by an absolute path, not '" + vt_gate + "'");
  }
  if (form == HookForm::kInterpreter && InterpreterLine(vt_gate).empty()) {
    log->push_back("'" + vt_gate + "' cannot follow #! (white space, or past " + std::to_string(kMaxInterpreterLine) +
                   " bytes): installing shims");
    form = HookForm::kShim;
  }
  fs::path dir = HooksDirectory(repo);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Internal("cannot create " + dir.string() + ": " + ec.message());
  for (const std::string& hook : ManagedHooks()) {
    fs::path path = dir / hook;
    fs::path chained = dir / (hook + kChainedSuffix);
    if (Present(path) && !IsOurShim(path)) {
      if (fs::exists(chained))
        return Internal(chained.string() + " already exists; refusing to overwrite it");
      fs::rename(path, chained, ec);
      if (ec) return Internal("cannot move " + path.string() + ": " + ec.message());
      log->push_back("kept your " + hook + " hook as " + chained.string() + " (it runs first)");
    }
    // Ours is replaced, never written through: a direct hook links to the binary itself.
    fs::remove(path, ec);
    if (ec) return Internal("cannot replace " + path.string() + ": " + ec.message());
    if (form == HookForm::kLink && IsDirectHook(hook)) {
      fs::create_symlink(vt_gate, path, ec);
      if (ec) return Internal("cannot link " + path.string() + " to " + vt_gate + ": " + ec.message());
      log->push_back("installed " + path.string() + " -> " + vt_gate);
      continue;
    }
    if (form == HookForm::kInterpreter && IsDirectHook(hook)) {
      VT_RETURN_IF_ERROR(WriteExecutable(path, InterpreterHook(hook, vt_gate)));
      log->push_back("installed " + path.string() + " (run by " + vt_gate + ")");
      continue;
    }
    VT_RETURN_IF_ERROR(WriteExecutable(path, HookShim(hook, vt_gate)));
    log->push_back("installed " + path.string());
  }
  return Status::Ok();
}

Status UninstallHooks(const Repository& repo, std::vector<std::string>* log) {
  fs::path dir = HooksDirectory(repo);
  std::error_code ec;
  for (const std::string& hook : ManagedHooks()) {
    fs::path path = dir / hook;
    fs::path chained = dir / (hook + kChainedSuffix);
    if (Present(path) && IsOurShim(path)) {
      fs::remove(path, ec);
      if (ec) return Internal("cannot remove " + path.string() + ": " + ec.message());
      log->push_back("removed " + path.string());
    }
    if (fs::exists(chained) && !Present(path)) {
      fs::rename(chained, path, ec);
      if (ec) return Internal("cannot restore " + path.string() + ": " + ec.message());
      log->push_back("restored your " + hook + " hook");
    }
  }
  return Status::Ok();
}

}  // namespace vt::gate
