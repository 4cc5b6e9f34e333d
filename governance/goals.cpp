#include "governance/goals.h"

#include <cctype>
#include <climits>

#include "governance/record.h"

namespace vt::gate {
namespace {

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// Whether `phrase` occurs in `text` as whole words ("met" is not in "metric").
bool HasPhrase(const std::string& text, const std::string& phrase) {
  for (size_t at = text.find(phrase); at != std::string::npos; at = text.find(phrase, at + 1)) {
    bool starts = at == 0 || !IsWordChar(text[at - 1]);
    size_t end = at + phrase.size();
    bool ends = end == text.size() || !IsWordChar(text[end]);
    if (starts && ends) return true;
  }
  return false;
}

Verdict RowVerdict(const MdRow& row) {
  std::string text;
  for (const MdCell& cell : row.cells) text += AsciiLower(cell.text) + " | ";
  if (HasPhrase(text, "not met")) return Verdict::kNotMet;
  if (HasPhrase(text, "met")) return Verdict::kMet;
  return Verdict::kNone;
}

}  // namespace

std::optional<std::vector<Goal>> SpecGoals(const MdDocument& spec, const std::string& section) {
  const MdSection* found = nullptr;
  int end = INT_MAX;
  for (const MdSection& s : spec.sections) {
    if (found && s.level <= found->level) {
      end = s.line;
      break;
    }
    if (!found && AsciiLower(s.title) == AsciiLower(section)) found = &s;
  }
  if (!found) return std::nullopt;
  std::vector<Goal> goals;
  for (const MdTable& table : spec.tables) {
    if (table.line <= found->line || table.line >= end) continue;
    for (const MdRow& row : table.rows) {
      if (!row.cells.empty() && !row.cells[0].code_spans.empty())
        goals.push_back({row.cells[0].code_spans[0], row.line});
    }
  }
  return goals;
}

std::map<std::string, GoalVerdict> ReadVerdicts(const MdDocument& doc) {
  std::map<std::string, GoalVerdict> verdicts;
  for (const MdTable& table : doc.tables) {
    for (const MdRow& row : table.rows) {
      Verdict verdict = RowVerdict(row);
      for (const MdCell& cell : row.cells) {
        for (const std::string& id : cell.code_spans) {
          auto [it, fresh] = verdicts.emplace(id, GoalVerdict{verdict, row.line});
          if (!fresh && verdict > it->second.verdict) it->second = {verdict, row.line};
        }
      }
    }
  }
  return verdicts;
}

}  // namespace vt::gate
