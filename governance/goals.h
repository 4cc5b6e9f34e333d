// Speed goals and their measured verdicts, for the record's honest states.
// A spec lists its goals in a table under a configured section (`## Goals`):
// the first cell of each row holds the goal's id as a code span, e.g.
// `` | `w4a16/speedup` | >= 3.0x over cuBLAS bf16 at M <= 16 | ``. The
// verdicts file (docs/BENCHMARKS.md) marks each goal in any table row that
// names the id as a code span, with the words "met" or "not met". Ids, not
// goal prose, tie the two together: the prose in either file may be edited
// without breaking the link, and a renamed id fails loudly as "no verdict".
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "governance/markdown.h"

namespace vt::gate {

struct Goal {
  std::string id;
  int line = 0;  // in the spec
};

// The goals listed in section `section` of `spec`, in order; nullopt when the
// spec has no such section (a row without speed goals).
std::optional<std::vector<Goal>> SpecGoals(const MdDocument& spec, const std::string& section);

// Ordered from best to worst: a goal named in several rows gets the worst.
enum class Verdict { kMet, kNone, kNotMet };

struct GoalVerdict {
  Verdict verdict = Verdict::kNone;
  int line = 0;  // in the verdicts file
};

// Every code span in a table row of `doc`, mapped to that row's verdict:
// "not met" anywhere in the row wins over "met", so a mixed row
// ("met at c = 1; not met at c = 8") is not met.
std::map<std::string, GoalVerdict> ReadVerdicts(const MdDocument& doc);

}  // namespace vt::gate
