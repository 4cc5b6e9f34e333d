// The `vt-gate` command line: parses arguments with CLI11 and calls the
// governance library. No gate logic lives here.
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "governance/base_diagnosis.h"
#include "governance/builtin_gates.h"
#include "governance/ci_scope.h"
#include "governance/config.h"
#include "governance/git_range.h"
#include "governance/hooks_installer.h"
#include "governance/preflight.h"
#include "governance/report.h"
#include "governance/report_format.h"
#include "governance/trailer_gate.h"

namespace {

using namespace vt::gate;

constexpr const char* kExitCodes =
    "Exit codes:\n"
    "  0  every gate ran and passed\n"
    "  1  a gate failed\n"
    "  2  usage or config error\n"
    "  3  could not verify (a gate was skipped: missing base, shallow clone, ...)\n";

struct Options {
  std::string repo = ".";
  std::string config;
  std::string format = "text";
  std::string range;
  std::string base;
  std::string message_file;
  std::string pre_push_remote;
  bool pre_commit_push = false;
  bool first_parent = false;
  bool staged = false;
  bool fail_on_skip = false;
  bool explain_base = false;
  bool direct_hooks = false;
  bool shim_hooks = false;
  std::vector<std::string> except;
  std::string event_path;
  std::string event_name;
  std::string remote = "origin";
  GateInputs inputs;
};

int UsageError(const std::string& message) {
  std::fprintf(stderr, "vt-gate: %s\n", message.c_str());
  return kExitUsage;
}

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

// The config named by --config, else .vt-gate.yaml at the repository root.
vt::Result<Config> LoadConfigFor(const Options& options, const Repository* repo) {
  std::string path = options.config;
  if (path.empty()) {
    if (!repo) return vt::InvalidArgument("not in a git repository; pass --config FILE");
    path = repo->root() + ".vt-gate.yaml";
    if (!std::filesystem::exists(path)) {
      return vt::NotFound("no config: " + path + " does not exist (pass --config FILE)");
    }
  }
  return LoadConfig(path);
}

int Print(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  return 0;
}

int RunTrailers(const Options& options, OutputFormat format) {
  int modes = !options.range.empty() + !options.base.empty() + !options.message_file.empty() +
              !options.pre_push_remote.empty() + options.pre_commit_push;
  if (modes > 1)
    return UsageError(
        "trailers: give at most one of --range, --base, --message-file, --pre-push, --pre-commit-push");
  vt::Result<Repository> repo = Repository::Open(options.repo);
  if (!repo.ok() && options.message_file.empty()) return UsageError(repo.status().message());
  const Repository* repo_ptr = repo.ok() ? &repo.value() : nullptr;
  vt::Result<Config> config = LoadConfigFor(options, repo_ptr);
  if (!config.ok()) return UsageError(config.status().message());
  if (!config->has_trailers) return UsageError(config->path + ": no `trailers:` section to check against");
  if (options.first_parent) config->trailers.first_parent = true;

  if (!options.message_file.empty()) {
    // git runs the commit-msg hook with GIT_EDITOR=: when no editor was used.
    const char* editor = std::getenv("GIT_EDITOR");
    bool editor_used = editor == nullptr || std::string_view(editor) != ":";
    GateReport report = CheckTrailerMessageFile(repo_ptr, config.value(), options.message_file, editor_used);
    Print(FormatReport(report, format));
    return ExitCodeFor(report);
  }
  std::string base_spec = config->base;
  std::string head_spec = "HEAD";
  if (!options.base.empty()) base_spec = options.base;
  // pre-commit's pre-push stage hides git's ref lines and passes the pushed
  // range in its environment instead: FROM_REF..TO_REF, or only the branch
  // names when the push includes a root commit (then every commit of the
  // branch not on the remote is pushed, which is what --pre-push checks).
  std::string pre_push_remote = options.pre_push_remote;
  std::istringstream pre_commit_ref_line;
  if (options.pre_commit_push) {
    std::string from = Env("PRE_COMMIT_FROM_REF"), to = Env("PRE_COMMIT_TO_REF");
    std::string local = Env("PRE_COMMIT_LOCAL_BRANCH"), remote = Env("PRE_COMMIT_REMOTE_NAME");
    if (!from.empty() && !to.empty()) {
      base_spec = from;
      head_spec = to;
    } else if (!local.empty() && !remote.empty()) {
      vt::Result<git_oid> tip = ResolveCommit(repo.value(), local);
      if (!tip.ok()) return UsageError(tip.status().message());
      pre_push_remote = remote;
      pre_commit_ref_line.str(local + " " + OidHex(tip.value()) + " " + Env("PRE_COMMIT_REMOTE_BRANCH") + " " +
                              std::string(GIT_OID_HEXSZ, '0') + "\n");
    } else {
      return UsageError(
          "--pre-commit-push needs PRE_COMMIT_FROM_REF and PRE_COMMIT_TO_REF (or PRE_COMMIT_LOCAL_BRANCH and "
          "PRE_COMMIT_REMOTE_NAME): run it from pre-commit's pre-push stage");
    }
  }
  if (!options.range.empty()) {
    size_t dots = options.range.find("..");
    if (dots == std::string::npos || options.range.find("...") != std::string::npos) {
      return UsageError("--range wants BASE..HEAD");
    }
    base_spec = options.range.substr(0, dots);
    head_spec = options.range.substr(dots + 2);
    if (head_spec.empty()) head_spec = "HEAD";
  }
  vt::Result<git_oid> base = PinBase(repo.value(), base_spec);
  if (!base.ok() && base.status().code() == vt::StatusCode::kInvalidArgument) {
    return UsageError(base.status().message());
  }
  // A head that names nothing is a typo (usage); an unborn HEAD or an
  // unreadable object is "could not verify", reported by the gate.
  if (vt::Result<git_oid> head = ResolveCommit(repo.value(), head_spec); !head.ok()) {
    bool unborn = head_spec == "HEAD" && git_repository_head_unborn(repo->raw()) == 1;
    vt::StatusCode code = head.status().code();
    if (code == vt::StatusCode::kInvalidArgument || (code == vt::StatusCode::kNotFound && !unborn)) {
      return UsageError(head.status().message());
    }
  }
  GateReport report;
  if (!pre_push_remote.empty()) {
    std::optional<git_oid> pinned;
    if (base.ok()) pinned = base.value();
    std::istream& ref_lines = options.pre_commit_push ? static_cast<std::istream&>(pre_commit_ref_line) : std::cin;
    report = CheckTrailerPush(repo.value(), config.value(), ref_lines, pre_push_remote, pinned);
  } else if (!base.ok()) {
    report = SkipReport("trailers", base.status().message());
  } else {
    report = CheckTrailerRange(repo.value(), config.value(), base.value(), head_spec);
  }
  Print(FormatReport(report, format));
  return ExitCodeFor(report);
}

int RunPreflightCommand(const Options& options, OutputFormat format) {
  vt::Result<Repository> repo = Repository::Open(options.repo);
  if (!repo.ok()) return UsageError(repo.status().message());
  vt::Result<Config> config = LoadConfigFor(options, &repo.value());
  if (!config.ok()) return UsageError(config.status().message());
  PreflightOptions preflight{options.staged, options.fail_on_skip, options.inputs, Env("PATH")};
  preflight.except = options.except;
  preflight.explain_base = options.explain_base;
  vt::Result<PreflightSummary> summary = RunPreflight(repo->root(), config.value(), preflight);
  if (!summary.ok()) return UsageError(summary.status().message());
  Print(FormatPreflight(summary.value(), format));
  return PreflightExitCode(summary.value());
}

// `ci github`: preflight over what the workflow's event brings. Unlike a plain
// preflight a skip is never exit 0: CI that could not verify is not green.
int RunCiGithub(const Options& options, OutputFormat format) {
  std::string name = options.event_name.empty() ? Env("GITHUB_EVENT_NAME") : options.event_name;
  std::string path = options.event_path.empty() ? Env("GITHUB_EVENT_PATH") : options.event_path;
  if (name.empty() || path.empty()) {
    return UsageError("ci github: no event (GITHUB_EVENT_NAME and GITHUB_EVENT_PATH are set by GitHub Actions; "
                      "elsewhere pass --event-name NAME --event FILE)");
  }
  vt::Result<GithubEvent> event = LoadGithubEvent(name, path);
  if (!event.ok()) return UsageError(event.status().message());
  vt::Result<Repository> repo = Repository::Open(options.repo);
  if (!repo.ok()) return UsageError(repo.status().message());
  vt::Result<Config> config = LoadConfigFor(options, &repo.value());
  if (!config.ok()) return UsageError(config.status().message());
  vt::Result<CiScope> scope = ScopeForGithubEvent(repo.value(), event.value(), options.remote);
  // Reports go to stdout; with --format json the one line about the event goes
  // to stderr so stdout stays one JSON document.
  FILE* about = format == OutputFormat::kJson ? stderr : stdout;
  if (!scope.ok()) {
    std::fprintf(about, "vt-gate ci github: NOT VERIFIED: %s\n", scope.status().message().c_str());
    return scope.status().code() == vt::StatusCode::kUnavailable ? kExitUnverified : kExitUsage;
  }
  std::fprintf(about, "vt-gate ci github: %s\n", scope->summary.c_str());
  std::fflush(about);
  if (scope->deletion) return kExitOk;
  PreflightOptions preflight{false, true, options.inputs, Env("PATH")};
  preflight.except = options.except;
  preflight.scope = scope->commits;
  if (preflight.inputs.description.empty()) {
    preflight.inputs.description_name = scope->description_name;
    preflight.inputs.description_text = scope->description_text;
  }
  vt::Result<PreflightSummary> summary = RunPreflight(repo->root(), config.value(), preflight);
  if (!summary.ok()) return UsageError(summary.status().message());
  Print(FormatPreflight(summary.value(), format));
  return ExitCodeFor(OverallStatus(summary.value()));
}

// record, intake, rows, gencode: one built-in gate with the pinned base, ratchets applied.
int RunSingleGate(const Options& options, OutputFormat format, const std::string& name) {
  vt::Result<Repository> repo = Repository::Open(options.repo);
  if (!repo.ok()) return UsageError(repo.status().message());
  vt::Result<Config> config = LoadConfigFor(options, &repo.value());
  if (!config.ok()) return UsageError(config.status().message());
  bool configured = name == "gencode" ? config->gencode.has_value() : config->record.has_value();
  if (name == "intake") configured = configured && config->intake.has_value();
  if (!configured) {
    return UsageError(config->path + ": no `" +
                      std::string(name == "gencode"  ? "gencode"
                                  : name == "intake" ? "record` or `intake"
                                                     : "record") +
                      ":` section for the " + name + " gate");
  }
  GateContext context;
  context.repo = &repo.value();
  context.config = &config.value();
  context.inputs = options.inputs;
  vt::Result<git_oid> base = PinBase(repo.value(), config->base);
  if (base.ok()) {
    context.base = base.value();
  } else if (base.status().code() == vt::StatusCode::kUnavailable) {
    context.base_unavailable = base.status().message();
  } else {
    return UsageError(base.status().message());
  }
  std::vector<GateReport> reports = {RunBuiltinGate(*FindBuiltinGate(name), context)};
  if (options.explain_base) {
    vt::Result<BaseDiagnosis> diagnosis = base.ok() ? ExplainBase(repo.value(), config.value(), base.value(), reports)
                                                    : vt::Result<BaseDiagnosis>(base.status());
    reports[0].notes.push_back("explain-base: " +
                               (diagnosis.ok() ? diagnosis->summary : "not explained: " + diagnosis.status().message()));
  }
  const GateReport& report = reports[0];
  Print(FormatReport(report, format));
  return ExitCodeFor(report);
}

// The binary the shims should call: this one, by absolute path.
std::string SelfPath(const char* argv0) {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) return self.string();
  return std::filesystem::absolute(argv0, ec).string();
}

int RunHooks(const Options& options, bool install, const char* argv0) {
  vt::Result<Repository> repo = Repository::Open(options.repo);
  if (!repo.ok()) return UsageError(repo.status().message());
  std::vector<std::string> log;
  vt::Status status =
      install ? InstallHooks(repo.value(), SelfPath(argv0), &log,
                             options.direct_hooks ? HookForm::kLink
                             : options.shim_hooks ? HookForm::kShim
                                                  : HookForm::kInterpreter)
              : UninstallHooks(repo.value(), &log);
  for (const std::string& line : log) std::printf("%s\n", line.c_str());
  if (!status.ok()) {
    std::fprintf(stderr, "vt-gate hooks: %s\n", status.message().c_str());
    return kExitFail;
  }
  return kExitOk;
}

// Run as the git hook at `hook_path` with git's `args`: commit-msg and pre-commit, installed as
// scripts whose interpreter is this binary (git runs `vt-gate --hook HOOK_PATH ARGS...`, no shell)
// or as links to it (argv[0] is the hook's path). As the shim does, a chained hook runs first and can
// veto, and VT_GATE names another binary to run instead. Nothing else of the command line is parsed:
// the hook's path is a fast path.
int RunAsHook(const std::string& hook_path, char** args, int arg_count) {
  const std::string hook = std::filesystem::path(hook_path).filename().string();
  if (!IsDirectHook(hook)) return UsageError("--hook: '" + hook_path + "' is not a commit-msg or pre-commit hook");
  const std::vector<std::string> command = DirectHookCommand(hook, std::vector<std::string>(args, args + arg_count));
  if (command.empty()) return UsageError("the " + hook + " hook needs the message file");
  const std::string chained = hook_path + ".vt-gate-chained";
  if (access(chained.c_str(), X_OK) == 0) {
    const pid_t child = fork();
    if (child == 0) {
      std::vector<char*> chained_argv = {const_cast<char*>("sh"), const_cast<char*>(chained.c_str())};
      for (int i = 0; i < arg_count; ++i) chained_argv.push_back(args[i]);
      chained_argv.push_back(nullptr);
      execv(chained.c_str(), chained_argv.data() + 1);
      // A hook without a #! line is a shell script to git (and to the shim): run it so too.
      if (errno == ENOEXEC) execv("/bin/sh", chained_argv.data());
      std::fprintf(stderr, "vt-gate: cannot run %s: %s\n", chained.c_str(), std::strerror(errno));
      _exit(127);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) < 0) return UsageError("cannot run " + chained);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return WIFEXITED(status) ? WEXITSTATUS(status) : kExitFail;
  }
  if (const char* other = std::getenv("VT_GATE"); other != nullptr && *other != '\0') {
    std::vector<char*> other_argv = {const_cast<char*>(other)};
    for (const std::string& word : command) other_argv.push_back(const_cast<char*>(word.c_str()));
    other_argv.push_back(nullptr);
    execvp(other, other_argv.data());
    return UsageError(std::string("VT_GATE=") + other + ": " + std::strerror(errno));
  }
  Options options;
  if (hook == "commit-msg") {
    options.message_file = command[2];
    return RunTrailers(options, OutputFormat::kText);
  }
  options.staged = true;
  return RunPreflightCommand(options, OutputFormat::kText);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::string_view(argv[1]) == "--hook") return RunAsHook(argv[2], argv + 3, argc - 3);
  if (argc >= 1 && IsDirectHook(std::filesystem::path(argv[0]).filename().string())) {
    return RunAsHook(argv[0], argv + 1, argc - 1);
  }
  CLI::App app{"vt-gate: governance gates for repositories changed by people and agents", "vt-gate"};
  app.footer(kExitCodes);
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("vt-gate ") + VT_VERSION);
  Options options;
  app.add_option("--repo", options.repo,
                 "Repository to check (default: the one containing the current directory)");
  app.add_option("--config", options.config, "Config file (default: .vt-gate.yaml at the repository root)");
  app.add_option("--format", options.format, "Output: text, json or github")
      ->check(CLI::IsMember({"text", "json", "github"}));

  CLI::App* trailers = app.add_subcommand("trailers", "Check commit trailers over a range or a message");
  trailers->add_option("--range", options.range, "BASE..HEAD (range starts at their merge base)");
  trailers->add_option("--base", options.base, "Check BASE..HEAD (default base: `base` in the config)");
  trailers->add_option("--message-file", options.message_file,
                       "Check one message file, or - for stdin (commit-msg)");
  trailers->add_option("--pre-push", options.pre_push_remote,
                       "REMOTE: check the commits of a push; ref lines on stdin");
  trailers->add_flag("--pre-commit-push", options.pre_commit_push,
                     "Check the commits of a push from pre-commit's PRE_COMMIT_FROM_REF/TO_REF");
  trailers->add_flag("--first-parent", options.first_parent,
                     "Walk first parents only (as `first_parent: true`)");

  CLI::App* preflight = app.add_subcommand("preflight", "Run every configured gate once");
  preflight->add_flag("--staged", options.staged, "Add the staged-change checks (conflict markers)");
  preflight->add_flag("--fail-on-skip", options.fail_on_skip, "Exit 1 when any gate was skipped");

  preflight->add_flag("--explain-base", options.explain_base,
                      "Label each finding of a failed gate from-base or from-change (re-run on the fork point)");
  preflight->add_option("--except", options.except, "Leave out this configured gate (repeatable)");
  preflight->add_option("--description", options.inputs.description,
                        "intake: a change description file, - for stdin");
  preflight->add_option("--compile-commands", options.inputs.compile_commands,
                        "gencode: compile_commands.json to audit");
  preflight->add_option("--cuobjdump-list", options.inputs.cuobjdump_list,
                        "gencode: `cuobjdump --list-elf` output");

  CLI::App* record =
      app.add_subcommand("record", "Check the roadmap record: rows, states, anchors, specs, links");
  CLI::App* intake =
      app.add_subcommand("intake", "Check issue numbers in the intake table, specs and the change");
  intake->add_option(
      "--description", options.inputs.description,
      "Change description (PR body) file, - for stdin (default: commit messages of the range)");
  for (CLI::App* gate : {record, intake}) {
    gate->add_flag("--explain-base", options.explain_base,
                   "Label each finding from-base or from-change (re-run on the fork point)");
  }
  CLI::App* rows = app.add_subcommand("rows", "Audit live rows against their branches and the base");
  CLI::App* gencode =
      app.add_subcommand("gencode", "Check CUDA architectures against kernels/cuda/features.yaml");
  gencode->add_option("--compile-commands", options.inputs.compile_commands,
                      "compile_commands.json (default: gencode.compile_commands in the config)");
  gencode->add_option("--cuobjdump-list", options.inputs.cuobjdump_list,
                      "`cuobjdump --list-elf LIB` output: the embedded SM set must equal the requested one");

  CLI::App* ci = app.add_subcommand("ci", "Run preflight over what a CI event brings");
  ci->require_subcommand(1);
  CLI::App* ci_github = ci->add_subcommand(
      "github", "Preflight over a GitHub Actions event: a push's new commits, a pull request's commits and body");
  ci_github->add_option("--event", options.event_path, "Event payload (default: $GITHUB_EVENT_PATH)");
  ci_github->add_option("--event-name", options.event_name, "Event name (default: $GITHUB_EVENT_NAME)");
  ci_github->add_option("--remote", options.remote, "Remote whose tracking refs the clone has (default: origin)");
  ci_github->add_option("--except", options.except, "Leave out this configured gate (repeatable)");
  ci_github->add_option("--compile-commands", options.inputs.compile_commands,
                        "gencode: compile_commands.json to audit");
  ci_github->add_option("--cuobjdump-list", options.inputs.cuobjdump_list,
                        "gencode: `cuobjdump --list-elf` output");
  ci_github->add_option("--description", options.inputs.description,
                        "intake: a description file in place of the pull request's title and body");

  CLI::App* hooks = app.add_subcommand("hooks", "Install or uninstall the git hooks");
  hooks->require_subcommand(1);
  CLI::App* install = hooks->add_subcommand(
      "install", "Install commit-msg and pre-commit run by this binary (#! line), and a pre-push shim");
  CLI::Option* direct = install->add_flag(
      "--direct", options.direct_hooks, "Link commit-msg and pre-commit to this binary (a dangling link is skipped by git)");
  install->add_flag("--shim", options.shim_hooks, "POSIX sh shims for every hook (two processes a hook; VT_GATE honoured)")
      ->excludes(direct);
  hooks->add_subcommand("uninstall", "Remove the shims and restore hooks they chained");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  OutputFormat format = OutputFormat::kText;
  ParseOutputFormat(options.format, &format);
  if (trailers->parsed()) return RunTrailers(options, format);
  if (preflight->parsed()) return RunPreflightCommand(options, format);
  if (hooks->parsed()) return RunHooks(options, install->parsed(), argv[0]);
  if (ci_github->parsed()) return RunCiGithub(options, format);
  for (CLI::App* gate : {record, intake, rows, gencode}) {
    if (gate->parsed()) return RunSingleGate(options, format, gate->get_name());
  }
  return kExitUsage;
}
