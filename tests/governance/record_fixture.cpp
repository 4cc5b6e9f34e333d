#include "tests/governance/record_fixture.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "governance/builtin_gates.h"
#include "governance/git_range.h"

namespace vt::gate::testing {
namespace {

std::string Numbered(const std::string& prefix, int lines) {
  std::string out;
  for (int i = 1; i <= lines; ++i) out += prefix + " line " + std::to_string(i) + "\n";
  return out;
}

std::string Spec(const std::string& id, const std::string& issue) {
  return "# " + id + "\n\nIssue: " + issue + ".\n\n## Goal\n\nMake " + id +
         " real.\n\n## Acceptance\n\n- It works on a fresh clone.\n";
}

}  // namespace

const char* RecordRepo::ConfigText() {
  return "base: main\n"
         "trailers:\n"
         "  required:\n"
         "    - key: Row\n"
         "      in_record: true\n"
         "      values: [none]\n"
         "record:\n"
         "  files: [\"roadmap/*.md\"]\n"
         "  id_pattern: '^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$'\n"
         "  states:\n"
         "    READY: {spec: true}\n"
         "    ACTIVE: {spec: true, anchors: true, owner: true, live: true}\n"
         "    DONE: {spec: true, anchors: true, closing: true, goals: met}\n"
         "    SHORT: {spec: true, anchors: true, closing: true, goals: measured}\n"
         "    BACKFILL: {counted: true}\n"
         "  anchor_prefixes: [src/, tests/]\n"
         "  spec_sections: [Goal, Acceptance]\n"
         "  goals: {section: Goals, verdicts: docs/BENCHMARKS.md}\n"
         "intake: {}\n"
         "rows: {}\n";
}

RecordRepo::RecordRepo() {
  Write("src/engine.cpp", Numbered("// engine", 20));
  Write("tests/engine_test.cpp", Numbered("// test", 20));
  repo_.Git("add -A");
  closing_ = repo_.Commit("engine\n\nRow: APP-DONE\n");
  Write("roadmap/rows.md",
        "# Rows\n"
        "\n"
        "| id | item | code | tests | spec | state | owner | closed by |\n"
        "|---|---|---|---|---|---|---|---|\n"
        "| `APP-DONE` | done thing | [engine.cpp](../src/engine.cpp#L3-L5) | `tests/engine_test.cpp:7` | "
        "[spec](specs/APP-DONE.md) | DONE | - | `" +
            closing_.substr(0, 12) +
            "` |\n"
            "| `APP-LIVE` | live thing | [engine.cpp](../src/engine.cpp#L10) | "
            "[test](../tests/engine_test.cpp) | "
            "[spec](specs/APP-LIVE.md) | ACTIVE | `ada` | - |\n"
            "| `APP-NEXT` | next thing | - | - | [spec](specs/APP-NEXT.md) | READY | - | - |\n");
  Write("roadmap/ops.md",
        "# Ops rows\n\n| row | item | spec | state |\n|---|---|---|---|\n"
        "| `OPS-CHORE` | chores | [spec](specs/OPS-CHORE.md) | `READY` |\n");
  Write("roadmap/intake.md",
        "# Intake\n\n| issue | row |\n|---|---|\n"
        "| #1 | `APP-DONE` |\n"
        "| [#2](https://example.org/acme/app/issues/2) | `APP-LIVE` |\n"
        "| #3 | `APP-NEXT`, `OPS-CHORE` |\n");
  Write("roadmap/claims.md", "# Claims\n\n| owner | scope |\n|---|---|\n| `ada` | everything |\n");
  Write("roadmap/README.md",
        "# Roadmap\n\nSee [rows](rows.md) and [ops](ops.md#ops-rows); `[not a link](missing.md)`.\n\n"
        "```\n[not a link either](missing.md)\n```\n\n"
        "| state | count |\n|---|---|\n| READY | 2 |\n| ACTIVE | 1 |\n| DONE | 1 |\n| total | 4 |\n");
  Write("roadmap/specs/APP-DONE.md", Spec("APP-DONE", "#1"));
  Write("roadmap/specs/APP-LIVE.md", Spec("APP-LIVE", "https://example.org/acme/app/issues/2"));
  Write("roadmap/specs/APP-NEXT.md", Spec("APP-NEXT", "#3"));
  Write("roadmap/specs/OPS-CHORE.md", Spec("OPS-CHORE", "#3"));
  Write(".vt-gate.yaml", ConfigText());
  repo_.Git("add -A");
  repo_.Commit("the record\n\nRow: APP-LIVE\n");
}

Config RecordRepo::LoadConfig(const std::string& extra) const {
  Result<Config> config = ParseConfig(std::string(ConfigText()) + extra, "fixture.yaml");
  EXPECT_TRUE(config.ok()) << config.status().message();
  return config.ok() ? config.value() : Config{};
}

std::string RecordRepo::Read(const std::string& file) const {
  std::ifstream in(path() + "/" + file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void RecordRepo::Replace(const std::string& file, const std::string& from, const std::string& to) const {
  std::string text = Read(file);
  size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << file << " has no `" << from << "`";
  Write(file, text.replace(at, from.size(), to));
}

int RecordRepo::LineOf(const std::string& file, const std::string& needle) const {
  std::istringstream lines(Read(file));
  std::string line;
  for (int n = 1; std::getline(lines, line); ++n) {
    if (line.find(needle) != std::string::npos) return n;
  }
  return 0;
}

GateReport RecordRepo::RunGate(const std::string& name, const std::string& extra_config) {
  Config config = LoadConfig(extra_config);
  Result<Repository> repo = Repository::Open(path());
  EXPECT_TRUE(repo.ok());
  GateContext context;
  context.repo = &repo.value();
  context.config = &config;
  Result<git_oid> base = PinBase(repo.value(), config.base);
  if (base.ok()) {
    context.base = base.value();
  } else {
    context.base_unavailable = base.status().message();
  }
  return RunBuiltinGate(*FindBuiltinGate(name), context);
}

std::vector<std::string> Where(const GateReport& report, const std::string& rule) {
  std::vector<std::string> out;
  for (const Finding& f : report.findings) {
    if (f.rule == rule) out.push_back(f.file + ":" + std::to_string(f.line));
  }
  return out;
}

}  // namespace vt::gate::testing
