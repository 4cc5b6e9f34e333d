// Report formatters: `text` (short, for people), `json` (one object per gate,
// for machines) and `github` (workflow-command annotations).
#pragma once

#include <string>
#include <vector>

#include "governance/report.h"

namespace vt::gate {

enum class OutputFormat { kText, kJson, kGithub };

// Parses "text", "json" or "github".
bool ParseOutputFormat(const std::string& name, OutputFormat* out);

// One gate, as printed by a single-gate command.
std::string FormatReport(const GateReport& report, OutputFormat format);

struct PreflightSummary {
  std::string base_spec;  // e.g. "origin/main"
  std::string base;       // pinned id, empty when unresolved
  std::vector<GateReport> gates;
  double elapsed_ms = 0;
  bool fail_on_skip = false;
  std::string base_note{};  // --explain-base: where the change forks and how far behind
};

GateStatus OverallStatus(const PreflightSummary& summary);

// The whole preflight: one line per gate, the pinned base, then a summary;
// the all-green banner only when nothing failed and nothing was skipped.
std::string FormatPreflight(const PreflightSummary& summary, OutputFormat format);

}  // namespace vt::gate
