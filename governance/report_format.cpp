#include "governance/report_format.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace vt::gate {
namespace {

std::string Millis(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), ms < 10 ? "%.1f ms" : "%.0f ms", ms);
  return buf;
}

std::string ShortId(const std::string& id) { return id.substr(0, 12); }

nlohmann::json ToJson(const GateReport& r) {
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& f : r.findings) {
    nlohmann::json finding = {
        {"rule", f.rule}, {"commit", f.commit}, {"file", f.file}, {"line", f.line}, {"message", f.message}};
    if (!f.origin.empty()) finding["origin"] = f.origin;
    findings.push_back(std::move(finding));
  }
  nlohmann::json debt = nlohmann::json::array();
  for (const Debt& d : r.debt) debt.push_back({{"rule", d.rule}, {"commit", d.commit}, {"reason", d.reason}});
  return {{"gate", r.gate},       {"status", StatusName(r.status)}, {"reason", r.reason},   {"base", r.base},
          {"checked", r.checked}, {"elapsed_ms", r.elapsed_ms},     {"findings", findings}, {"debt", debt},
          {"notes", r.notes}};
}

// Invalid UTF-8 from a message must not abort the dump: replace it.
std::string Dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string FindingLine(const Finding& f) {
  std::string where;
  if (!f.commit.empty()) where = ShortId(f.commit);
  if (!f.file.empty()) where += (where.empty() ? "" : " ") + f.file;
  if (f.line) where += (f.file.empty() ? " line " : ":") + std::to_string(f.line);
  std::string origin = f.origin.empty() ? "" : "[" + f.origin + "] ";
  return "  " + origin + where + (where.empty() ? "" : "  ") + f.rule + ": " + f.message + "\n";
}

std::string TextBody(const GateReport& r) {
  std::string out;
  for (const Finding& f : r.findings) out += FindingLine(f);
  for (const std::string& note : r.notes) out += "  note: " + note + "\n";
  for (const Debt& d : r.debt) {
    out += "  debt: " + ShortId(d.commit) + " " + d.rule + (d.reason.empty() ? "" : " (" + d.reason + ")") +
           "\n";
  }
  return out;
}

// GitHub workflow commands: %, CR and LF must be escaped in the message, and
// also ',' and ':' in properties.
std::string EscapeData(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else
      out += c;
  }
  return out;
}

std::string EscapeProperty(const std::string& s) {
  std::string out;
  for (char c : EscapeData(s)) {
    if (c == ',')
      out += "%2C";
    else if (c == ':')
      out += "%3A";
    else
      out += c;
  }
  return out;
}

std::string Github(const GateReport& r) {
  std::string out;
  for (const Finding& f : r.findings) {
    std::string props = "title=" + EscapeProperty("vt-gate " + r.gate + " " + f.rule);
    if (!f.file.empty())
      props =
          "file=" + EscapeProperty(f.file) + (f.line ? ",line=" + std::to_string(f.line) : "") + "," + props;
    std::string text = (f.commit.empty() ? ""
                                         : "commit " + ShortId(f.commit) +
                                               (f.line ? " line " + std::to_string(f.line) : "") + ": ") +
                       f.message + (f.origin.empty() ? "" : " (" + f.origin + ")");
    out += "::error " + props + "::" + EscapeData(text) + "\n";
  }
  if (r.status == GateStatus::kSkip)
    out += "::warning title=vt-gate " + r.gate + " skipped::" + EscapeData(r.reason) + "\n";
  if (r.status == GateStatus::kFail && r.findings.empty()) {
    out += "::error title=vt-gate " + r.gate + "::" + EscapeData(r.reason) + "\n";
  }
  for (const Debt& d : r.debt) {
    out += "::notice title=vt-gate debt::" + EscapeData(ShortId(d.commit) + " " + d.rule + " " + d.reason) +
           "\n";
  }
  return out;
}

const char* Upper(GateStatus s) {
  switch (s) {
    case GateStatus::kOk:
      return "ok";
    case GateStatus::kFail:
      return "FAIL";
    case GateStatus::kSkip:
      return "SKIP";
  }
  return "?";
}

}  // namespace

bool ParseOutputFormat(const std::string& name, OutputFormat* out) {
  if (name == "text")
    *out = OutputFormat::kText;
  else if (name == "json")
    *out = OutputFormat::kJson;
  else if (name == "github")
    *out = OutputFormat::kGithub;
  else
    return false;
  return true;
}

std::string FormatReport(const GateReport& r, OutputFormat format) {
  switch (format) {
    case OutputFormat::kJson:
      return Dump(ToJson(r)) + "\n";
    case OutputFormat::kGithub:
      return Github(r) + (r.base.empty() ? "" : "base " + r.base + "\n") + r.gate + ": " +
             StatusName(r.status) + " — " + r.reason + "\n";
    case OutputFormat::kText:
      break;
  }
  std::string out;
  if (!r.base.empty()) out += "base " + r.base + "\n";
  out += r.gate + ": " + Upper(r.status) + " — " + r.reason + " [" + Millis(r.elapsed_ms) + "]\n";
  return out + TextBody(r);
}

GateStatus OverallStatus(const PreflightSummary& s) {
  bool skipped = false;
  for (const GateReport& r : s.gates) {
    if (r.status == GateStatus::kFail) return GateStatus::kFail;
    skipped |= r.status == GateStatus::kSkip;
  }
  return skipped ? GateStatus::kSkip : GateStatus::kOk;
}

std::string FormatPreflight(const PreflightSummary& s, OutputFormat format) {
  GateStatus overall = OverallStatus(s);
  if (format == OutputFormat::kJson) {
    nlohmann::json gates = nlohmann::json::array();
    for (const GateReport& r : s.gates) gates.push_back(ToJson(r));
    nlohmann::json out = {{"status", StatusName(overall)}, {"base", s.base}, {"gates", gates}};
    if (!s.base_note.empty()) out["explain_base"] = s.base_note;
    return Dump(out) + "\n";
  }
  std::string out;
  int failed = 0;
  int skipped = 0;
  for (const GateReport& r : s.gates) {
    failed += r.status == GateStatus::kFail;
    skipped += r.status == GateStatus::kSkip;
    if (format == OutputFormat::kGithub) out += Github(r);
    char line[64];
    std::snprintf(line, sizeof(line), "%-12s %-5s %9s  ", r.gate.c_str(), Upper(r.status),
                  Millis(r.elapsed_ms).c_str());
    out += line + r.reason + "\n";
    if (format == OutputFormat::kText) out += TextBody(r);
  }
  out += "base: " + s.base_spec + " = " + (s.base.empty() ? "(unresolved)" : s.base) + "\n";
  if (!s.base_note.empty()) out += "explain-base: " + s.base_note + "\n";
  std::string summary = std::to_string(s.gates.size()) + " gates, " + std::to_string(failed) + " failed, " +
                        std::to_string(skipped) + " skipped in " + Millis(s.elapsed_ms);
  if (overall == GateStatus::kOk) {
    out += "ALL GREEN: " + summary + "\n";
  } else if (overall == GateStatus::kFail) {
    out += "FAILED: " + summary + "\n";
  } else {
    out += "NOT VERIFIED: " + summary + " — a skipped gate is not a pass" +
           (s.fail_on_skip ? "" : " (use --fail-on-skip to fail on it)") + "\n";
  }
  return out;
}

}  // namespace vt::gate
