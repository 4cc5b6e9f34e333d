// vt-gate-bench: generates a repository of N commits (default 10,000) with
// `git fast-import`, then measures
//   1. the trailers gate over the whole range, in process (libgit2 revwalk);
//   2. `vt-gate trailers --range` as a process (start-up included);
//   3. the installed commit-msg hook end to end (sh shim + vt-gate, and the direct hook), beside
//      the same shim running an empty program;
// and, with --compare, the same check done the usual ways on the newest
// --compare-commits commits: a `git log` + `grep` loop per commit, and gitlint.
// Prints a Markdown table. Generation and comparisons use the git CLI; the
// measured vt-gate path does not.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "governance/config.h"
#include "governance/git_range.h"
#include "governance/hooks_installer.h"
#include "governance/trailer_gate.h"

namespace {

using namespace vt::gate;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kConfig = R"(base: main
trailers:
  merges: skip
  required:
    - key: Row
      pattern: '^([A-Z][A-Z0-9]*(-[A-Z0-9]+)+|none)$'
    - key: AI-Assisted
      values: ["true", "false"]
    - key: Assisted-by
      count: ">=1"
      when: { AI-Assisted: "true" }
      pattern: '^[^\s:]+:\S+( \[[^\]]+\])*$'
  identity:
    tokens: [Claude, GPT, Copilot]
)";

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

int Sh(const std::string& command) {
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string Message(int i) {
  std::string m = "engine: change " + std::to_string(i) + "\n\nWhy change " + std::to_string(i) +
                  " is needed, in a sentence or two\nof body text.\n\n";
  // One commit in a thousand breaks a rule, so the gate has findings to report.
  if (i % 1000 == 999) return m + "Row: ENG-CORE\n";
  bool ai = i % 3 != 0;
  m += "Row: ENG-" + std::string(i % 2 ? "CORE" : "SCHED") + "\nAI-Assisted: " + (ai ? "true" : "false") +
       "\n";
  if (ai) m += "Assisted-by: Claude:claude-opus [vt-helper]\n";
  return m;
}

bool Generate(const std::string& dir, int commits) {
  if (Sh("git init -q -b main " + Quote(dir)) != 0) return false;
  std::string command = "git -C " + Quote(dir) + " fast-import --quiet";
  FILE* pipe = popen(command.c_str(), "w");
  if (!pipe) return false;
  for (int i = 0; i < commits; ++i) {
    std::string message = Message(i);
    std::string content = std::to_string(i) + "\n";
    std::fprintf(pipe, "commit refs/heads/main\nmark :%d\n", i + 1);
    std::fprintf(pipe, "author Ada <ada@example.org> %d +0000\ncommitter Ada <ada@example.org> %d +0000\n",
                 1700000000 + i, 1700000000 + i);
    std::fprintf(pipe, "data %zu\n%s", message.size(), message.c_str());
    if (i > 0) std::fprintf(pipe, "from :%d\n", i);
    std::fprintf(pipe, "M 100644 inline src/f%d.txt\ndata %zu\n%s\n", i % 100, content.size(),
                 content.c_str());
  }
  return pclose(pipe) == 0 && Sh("git -C " + Quote(dir) + " reset -q --hard") == 0;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double TimeMs(const std::function<void()>& f) {
  Clock::time_point start = Clock::now();
  f();
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double MeanMs(int runs, const std::function<void()>& f) {
  double total = 0;
  for (int i = 0; i < runs; ++i) total += TimeMs(f);
  return total / runs;
}

// The machine's load beside the numbers: on a shared machine every time is inflated alike.
std::string LoadAverage() {
  std::string one, five, fifteen;
  std::ifstream("/proc/loadavg") >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

double MedianMs(int runs, const std::function<void()>& f) {
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) times.push_back(TimeMs(f));
  return Median(times);
}

std::string Fmt(double ms) {
  char buf[64];
  if (ms >= 1000)
    std::snprintf(buf, sizeof(buf), "%.2f s", ms / 1000);
  else
    std::snprintf(buf, sizeof(buf), "%.1f ms", ms);
  return buf;
}

std::string PerCommit(double ms, int commits) {
  char buf[64];
  double us = ms * 1000 / commits;
  if (us >= 1000)
    std::snprintf(buf, sizeof(buf), "%.2f ms", us / 1000);
  else
    std::snprintf(buf, sizeof(buf), "%.1f µs", us);
  return buf;
}

int Usage() {
  std::fprintf(
      stderr,
      "usage: vt-gate-bench [--commits N] [--dir DIR] [--vt-gate PATH] [--compare] [--compare-commits N]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int commits = 10000;
  int compare_commits = 1000;
  bool compare = false;
  std::string dir;
  std::string vt_gate;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--commits")
      commits = std::atoi(next().c_str());
    else if (arg == "--dir")
      dir = next();
    else if (arg == "--vt-gate")
      vt_gate = next();
    else if (arg == "--compare")
      compare = true;
    else if (arg == "--compare-commits")
      compare_commits = std::atoi(next().c_str());
    else
      return Usage();
  }
  if (commits < 2) return Usage();
  if (vt_gate.empty()) vt_gate = (fs::read_symlink("/proc/self/exe").parent_path() / "vt-gate").string();
  if (dir.empty()) {
    std::string tmpl = (fs::temp_directory_path() / "vt-gate-bench-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) return 1;
    dir = tmpl + "/repo";
  }
  std::printf("generating %d commits in %s ...\n", commits, dir.c_str());
  double gen_ms = TimeMs([&] {
    if (!Generate(dir, commits)) std::exit(1);
  });
  std::printf("generated in %s\n", Fmt(gen_ms).c_str());
  std::ofstream(dir + "/.vt-gate.yaml") << kConfig;

  vt::Result<Config> config = ParseConfig(kConfig, "bench.yaml");
  vt::Result<Repository> repo = Repository::Open(dir);
  if (!config.ok() || !repo.ok()) return 1;
  vt::Result<git_oid> base = PinBase(repo.value(), "main~" + std::to_string(commits - 1));
  if (!base.ok()) return 1;
  std::string root = OidHex(base.value());  // by id, so the CLI timing is not a `~9999` lookup
  int range = commits - 1;

  std::vector<std::string> log;
  if (!InstallHooks(repo.value(), vt_gate, &log, HookForm::kShim).ok()) return 1;
  std::string msg = dir + "/.git/BENCH_MSG";
  std::ofstream(msg) << Message(1) << "\n# Please enter the commit message for your changes.\n";
  std::string hook = "cd " + Quote(dir) + " && sh .git/hooks/commit-msg .git/BENCH_MSG > /dev/null";
  if (Sh(hook) != 0) {
    std::fprintf(stderr, "the commit-msg hook rejected a good message\n");
    return 1;
  }
  // First, while this process is small (std::system forks it). Mean of 40,
  // beside the same shim running an empty program (VT_GATE=true): the shell
  // and fork-and-exec part of the hook that vt-gate cannot remove.
  double hook_ms = MeanMs(40, [&] { Sh(hook); });
  double empty_hook_ms = MeanMs(40, [&] { Sh("VT_GATE=true " + hook); });
  // The hooks without the shim's shell, executed as git executes hooks (the shell std::system
  // starts is in every row alike): the default form, a script whose #! line names vt-gate, and
  // `hooks install --direct`, a link to vt-gate.
  std::string direct = "cd " + Quote(dir) + " && .git/hooks/commit-msg .git/BENCH_MSG > /dev/null";
  if (InterpreterLine(vt_gate).empty()) {
    std::fprintf(stderr, "--vt-gate '%s' cannot follow #! (an absolute path without white space)\n", vt_gate.c_str());
    return 1;
  }
  auto time_form = [&](HookForm form, double& ms) {
    if (!InstallHooks(repo.value(), vt_gate, &log, form).ok() || Sh(direct) != 0) {
      std::fprintf(stderr, "the commit-msg hook (no shell) rejected a good message\n");
      return false;
    }
    ms = MeanMs(40, [&] { Sh(direct); });
    return true;
  };
  double interpreter_hook_ms = 0, direct_hook_ms = 0;
  if (!time_form(HookForm::kInterpreter, interpreter_hook_ms) || !time_form(HookForm::kLink, direct_hook_ms)) return 1;

  GateReport report;
  // A fresh repository handle per run, so libgit2's object cache starts cold like a new process.
  double in_process = MedianMs(5, [&] {
    vt::Result<Repository> fresh = Repository::Open(dir);
    report = CheckTrailerRange(fresh.value(), config.value(), base.value());
  });
  std::printf("in-process check: %d commits, %zu findings, status %s\n", report.checked,
              report.findings.size(), StatusName(report.status));
  std::string cli =
      Quote(vt_gate) + " --repo " + Quote(dir) + " trailers --range " + root + "..HEAD > /dev/null";
  double process = MedianMs(5, [&] { Sh(cli); });

  // The obvious baseline (issue #20): one `git log --format=%(trailers)` over the same range, which
  // prints the trailers and checks nothing; all parents and first parent, beside vt-gate's walks.
  std::string git_log = "git -C " + Quote(dir) + " log --format=%\\(trailers\\) " + root + "..HEAD > /dev/null";
  double git_log_ms = MedianMs(5, [&] { Sh(git_log); });
  double git_log_fp_ms = MedianMs(5, [&] { Sh("git -C " + Quote(dir) + " log --first-parent --format=%\\(trailers\\) " +
                                             root + "..HEAD > /dev/null"); });
  double process_fp = MedianMs(5, [&] {
    Sh(Quote(vt_gate) + " --repo " + Quote(dir) + " trailers --first-parent --range " + root + "..HEAD > /dev/null");
  });


  std::printf("\n| check | commits | time | per commit | command |\n|---|---:|---:|---:|---|\n");
  std::printf("| vt-gate trailers gate, in process | %d | %s | %s | `vt-gate-bench` |\n", range,
              Fmt(in_process).c_str(), PerCommit(in_process, range).c_str());
  std::printf(
      "| `vt-gate trailers --range` (process) | %d | %s | %s | `vt-gate trailers --range ROOT..HEAD` |\n",
      range, Fmt(process).c_str(), PerCommit(process, range).c_str());
  std::printf("| `git log --format=%%(trailers)` (prints, checks nothing) | %d | %s | %s | `git log --format=%%(trailers) ROOT..HEAD` |\n",
              range, Fmt(git_log_ms).c_str(), PerCommit(git_log_ms, range).c_str());
  std::printf("| `vt-gate trailers --first-parent --range` (process) | %d | %s | %s | `vt-gate trailers --first-parent --range ROOT..HEAD` |\n",
              range, Fmt(process_fp).c_str(), PerCommit(process_fp, range).c_str());
  std::printf("| `git log --first-parent --format=%%(trailers)` | %d | %s | %s | `git log --first-parent --format=%%(trailers) ROOT..HEAD` |\n",
              range, Fmt(git_log_fp_ms).c_str(), PerCommit(git_log_fp_ms, range).c_str());
  std::printf("| commit-msg hook end to end (mean of 40) | 1 | %s | — | `sh .git/hooks/commit-msg MSG` |\n",
              Fmt(hook_ms).c_str());
  std::printf("| the same shim running an empty program (mean of 40) | 1 | %s | — | `VT_GATE=true sh .git/hooks/commit-msg MSG` |\n",
              Fmt(empty_hook_ms).c_str());
  std::printf("| commit-msg hook run by vt-gate as its #! interpreter (mean of 40) | 1 | %s | — | `hooks install`; `.git/hooks/commit-msg MSG` |\n",
              Fmt(interpreter_hook_ms).c_str());
  std::printf("| direct commit-msg hook end to end (mean of 40) | 1 | %s | — | `hooks install --direct`; `.git/hooks/commit-msg MSG` |\n",
              Fmt(direct_hook_ms).c_str());
  std::printf("\nload average (1, 5, 15 min) after the runs: %s\n", LoadAverage().c_str());

  if (compare) {
    int n = std::min(compare_commits, range);
    std::string small = "main~" + std::to_string(n) + "..main";
    std::string vt_small =
        Quote(vt_gate) + " --repo " + Quote(dir) + " trailers --range " + small + " > /dev/null";
    double vt_small_ms = MedianMs(3, [&] { Sh(vt_small); });
    // What per-commit scripts do: one `git log` per commit, grep for each required trailer.
    std::string loop =
        "cd " + Quote(dir) + " && for c in $(git rev-list " + small +
        "); do m=$(git log -1 --format=%B $c); "
        "echo \"$m\" | grep -q '^Row: ' || echo \"$c no Row\"; "
        "echo \"$m\" | grep -q '^AI-Assisted: ' || echo \"$c no AI-Assisted\"; done > /dev/null";
    double loop_ms = TimeMs([&] { Sh(loop); });
    std::string gitlint = "cd " + Quote(dir) +
                          " && gitlint --ignore T1,T3,T5,B1,B5,B6 -c B8.regex='(?m)^Row: ' --commits " +
                          small + " > /dev/null 2>&1";
    double gitlint_ms = Sh("command -v gitlint > /dev/null") == 0 ? TimeMs([&] { Sh(gitlint); }) : -1;
    std::printf("| `vt-gate trailers --range` (process) | %d | %s | %s | `vt-gate trailers --range %s` |\n",
                n, Fmt(vt_small_ms).c_str(), PerCommit(vt_small_ms, n).c_str(), small.c_str());
    std::printf("| `git log` + `grep` loop | %d | %s | %s | one `git log -1` per commit |\n", n,
                Fmt(loop_ms).c_str(), PerCommit(loop_ms, n).c_str());
    if (gitlint_ms >= 0) {
      std::printf("| gitlint | %d | %s | %s | `gitlint -c B8.regex='(?m)^Row: ' --commits %s` |\n", n,
                  Fmt(gitlint_ms).c_str(), PerCommit(gitlint_ms, n).c_str(), small.c_str());
    }
  }
  return 0;
}
