// vt-gate-record-bench: generates a repository whose roadmap record has
// --rows rows (default 1,000) across 6 row files, each row with a code anchor
// (a `#Lx-Ly` link), a test anchor (`path:line`), a spec with the required
// sections, an intake line and prose links, then measures
//   1. the record gate in process (tables, anchors, specs, claims, closing
//      commits, every relative link, summary counts);
//   2. `vt-gate record` and `vt-gate intake` as processes (start-up included);
//   3. with --preflight-repo DIR, `vt-gate --repo DIR preflight --fail-on-skip`
//      (every configured gate of that repository, e.g. a fresh clone of vt).
// Prints a Markdown table of medians of 5 runs.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "governance/config.h"
#include "governance/record_gate.h"

namespace {

using namespace vt::gate;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int kRowFiles = 6;
constexpr int kSourceFiles = 200;
constexpr int kTestFiles = 100;
constexpr int kLinesPerFile = 300;

constexpr const char* kConfig = R"(base: main
record:
  files: ["roadmap/*.md"]
  columns:
    closing: [closed by]
  id_pattern: '^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$'
  states:
    READY: { spec: true }
    ACTIVE: { spec: true, anchors: true, owner: true, live: true }
    PARTIAL: { spec: true, anchors: true }
    DONE: { spec: true, anchors: true, closing: true }
  anchor_prefixes: [src/, tests/]
  spec_sections: [Goal, Acceptance]
intake: {}
)";

int Sh(const std::string& command) {
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

void Write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string Id(int i) { return "AREA" + std::to_string(i % kRowFiles) + "-ROW" + std::to_string(i); }

const char* StateOf(int i) {
  static const char* kStates[] = {"READY", "ACTIVE", "PARTIAL", "DONE"};
  return kStates[i % 4];
}

bool Generate(const std::string& dir, int rows) {
  if (Sh("git init -q -b main " + Quote(dir)) != 0) return false;
  std::string body;
  for (int line = 1; line <= kLinesPerFile; ++line) body += "// line " + std::to_string(line) + "\n";
  for (int i = 0; i < kSourceFiles; ++i) Write(dir + "/src/unit" + std::to_string(i) + ".cpp", body);
  for (int i = 0; i < kTestFiles; ++i) Write(dir + "/tests/unit" + std::to_string(i) + "_test.cpp", body);
  Write(dir + "/.vt-gate.yaml", kConfig);
  std::string git = "git -C " + Quote(dir) + " -c user.name=Bench -c user.email=bench@example.org ";
  if (Sh(git + "add -A && " + git + "commit -q -m 'sources' -m 'Row: none'") != 0) return false;
  std::string closing = "HEAD";
  {
    FILE* pipe = popen((git + "rev-parse --short=12 HEAD").c_str(), "r");
    char buf[64] = {0};
    if (!pipe || !std::fgets(buf, sizeof(buf), pipe)) return false;
    pclose(pipe);
    closing = std::string(buf, std::strlen(buf) - 1);
  }
  std::vector<std::string> tables(kRowFiles,
                                  "| id | item | code | tests | spec | state | owner | closed by |\n"
                                  "|---|---|---|---|---|---|---|---|\n");
  std::string intake = "# Intake\n\n| issue | row |\n|---|---|\n";
  int counts[4] = {0, 0, 0, 0};
  for (int i = 0; i < rows; ++i) {
    std::string id = Id(i);
    int first = 1 + i % 250;
    std::string row = "| `" + id + "` | item " + std::to_string(i) + " | [unit](../src/unit" +
                      std::to_string(i % kSourceFiles) + ".cpp#L" + std::to_string(first) + "-L" +
                      std::to_string(first + 20) + ") | `tests/unit" + std::to_string(i % kTestFiles) +
                      "_test.cpp:" + std::to_string(first + 5) + "` | [spec](specs/" + id + ".md) | " +
                      StateOf(i) + " | " + (i % 4 == 1 ? "`bench`" : "-") + " | " +
                      (i % 4 == 3 ? "`" + closing + "`" : "-") + " |\n";
    tables[i % kRowFiles] += row;
    ++counts[i % 4];
    intake += "| #" + std::to_string(i + 1) + " | `" + id + "` |\n";
    Write(dir + "/roadmap/specs/" + id + ".md",
          "# " + id + "\n\nIssue #" + std::to_string(i + 1) + "; see [the rows](../area" +
              std::to_string(i % kRowFiles) + ".md).\n\n## Goal\n\nMake " + id +
              " real.\n\n## Acceptance\n\n- It works.\n");
  }
  for (int f = 0; f < kRowFiles; ++f) {
    Write(dir + "/roadmap/area" + std::to_string(f) + ".md",
          "# Area " + std::to_string(f) +
              "\n\nSee [the summary](README.md) and [the intake](intake.md).\n\n" + tables[f]);
  }
  Write(dir + "/roadmap/intake.md", intake);
  Write(dir + "/roadmap/claims.md", "| owner | scope |\n|---|---|\n| `bench` | all |\n");
  Write(dir + "/roadmap/README.md",
        "# Roadmap\n\n[intake](intake.md), [claims](claims.md).\n\n| state | count |\n|---|---|\n| READY | " +
            std::to_string(counts[0]) + " |\n| ACTIVE | " + std::to_string(counts[1]) + " |\n| PARTIAL | " +
            std::to_string(counts[2]) + " |\n| DONE | " + std::to_string(counts[3]) + " |\n| total | " +
            std::to_string(rows) + " |\n");
  return Sh(git + "add -A && " + git + "commit -q -m 'record' -m 'Row: none'") == 0;
}

double MedianMs(int runs, const std::function<void()>& body) {
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    Clock::time_point start = Clock::now();
    body();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

std::string Fmt(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), ms < 10 ? "%.2f ms" : "%.1f ms", ms);
  return buf;
}

int Usage() {
  std::fprintf(
      stderr, "usage: vt-gate-record-bench [--rows N] [--dir DIR] [--vt-gate PATH] [--preflight-repo DIR]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int rows = 1000;
  std::string dir;
  std::string vt_gate;
  std::string preflight_repo;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (arg == "--rows")
      rows = std::atoi(next().c_str());
    else if (arg == "--dir")
      dir = next();
    else if (arg == "--vt-gate")
      vt_gate = next();
    else if (arg == "--preflight-repo")
      preflight_repo = next();
    else
      return Usage();
  }
  if (rows < kRowFiles) return Usage();
  if (vt_gate.empty()) vt_gate = (fs::read_symlink("/proc/self/exe").parent_path() / "vt-gate").string();
  if (dir.empty()) {
    std::string tmpl = (fs::temp_directory_path() / "vt-gate-record-bench-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) return 1;
    dir = tmpl + "/repo";
  }
  std::printf("generating %d rows in %d files under %s ...\n", rows, kRowFiles, dir.c_str());
  if (!Generate(dir, rows)) return 1;
  vt::Result<Config> config = ParseConfig(kConfig, "bench.yaml");
  if (!config.ok()) return 1;
  GateReport report;
  double in_process = MedianMs(5, [&] {
    vt::Result<Repository> repo = Repository::Open(dir);
    report = CheckRecord(repo.value(), config.value());
  });
  std::printf("record gate: %s, %d rows, %zu findings\n", StatusName(report.status), report.checked,
              report.findings.size());
  if (report.status != GateStatus::kOk) {
    for (const Finding& f : report.findings)
      std::printf("  %s:%d %s\n", f.file.c_str(), f.line, f.message.c_str());
    return 1;
  }
  std::string cli = Quote(vt_gate) + " --repo " + Quote(dir);
  double record_process = MedianMs(5, [&] { Sh(cli + " record > /dev/null"); });
  std::string pr = dir + "/.git/BENCH_PR";
  std::ofstream(pr) << "Work.\n\nCloses #2\n\nRow: " << Id(1) << "\n";
  double intake_process =
      MedianMs(5, [&] { Sh(cli + " intake --description " + Quote(pr) + " > /dev/null"); });

  std::printf("\n| check | rows | time |\n|---|---:|---:|\n");
  std::printf("| record gate, in process (%d row files, anchors, specs, links) | %d | %s |\n", kRowFiles,
              rows, Fmt(in_process).c_str());
  std::printf("| `vt-gate record` (process start included) | %d | %s |\n", rows, Fmt(record_process).c_str());
  std::printf("| `vt-gate intake --description PR.md` (process) | %d | %s |\n", rows,
              Fmt(intake_process).c_str());
  if (!preflight_repo.empty()) {
    std::string command = Quote(vt_gate) + " --repo " + Quote(preflight_repo) + " preflight --fail-on-skip";
    int rc = Sh(command + " > /dev/null");
    double preflight = MedianMs(5, [&] { Sh(command + " > /dev/null"); });
    std::printf("| `vt-gate preflight --fail-on-skip` on %s (exit %d) | — | %s |\n", preflight_repo.c_str(),
                rc, Fmt(preflight).c_str());
  }
  return 0;
}
