// The built-in gates preflight can run by name. Each gate gets the same
// context (the base pinned once per run) and returns the same report type;
// new gates (record, intake, rows, gencode) register here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "governance/config.h"
#include "governance/git_range.h"
#include "governance/git_repository.h"
#include "governance/report.h"

namespace vt::gate {

// Inputs a gate's command-line options can override.
struct GateInputs {
  std::string description;       // intake: a change description file, "-" for stdin
  // intake: a description given as text (a pull request's title and body, from
  // CI's event), named by description_name in reports; used when `description` is empty.
  std::string description_text;
  std::string description_name;
  std::string compile_commands;  // gencode
  std::string cuobjdump_list;    // gencode
};

struct GateContext {
  const Repository* repo =
      nullptr;  // a handle of the gate's own (libgit2 handles are not shared across threads)
  const Config* config = nullptr;
  std::optional<git_oid> base;   // pinned once per run
  std::string base_unavailable;  // why `base` is empty: range gates skip with this reason
  // The change's commits when CI knows them (vt-gate ci): trailers and intake
  // check these instead of merge-base(base, HEAD)..HEAD.
  std::optional<ChangeScope> scope;
  GateInputs inputs;
  bool staged = false;  // preflight --staged: the record gates read the index
};

struct BuiltinGate {
  const char* name;
  GateReport (*run)(const GateContext& context);
};

const std::vector<BuiltinGate>& BuiltinGates();

// Runs a built-in gate and applies the ratchets configured for it.
GateReport RunBuiltinGate(const BuiltinGate& gate, const GateContext& context);

// nullptr when no built-in gate has that name.
const BuiltinGate* FindBuiltinGate(const std::string& name);

}  // namespace vt::gate
