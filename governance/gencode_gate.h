// The `gencode` gate: each CUDA source in compile_commands.json must be
// compiled for exactly the architecture pairs the feature table derives for
// it (a feature built for fewer architectures than requested is a silent
// capability drop), every required source must be compiled, and, given the
// `cuobjdump --list-elf` output of the built library, the embedded SM set must
// equal the requested one. No compile database, or one without CUDA sources,
// cannot be audited: skip with the reason.
#pragma once

#include <string>

#include "governance/config.h"
#include "governance/report.h"

namespace vt::gate {

struct GencodeInput {
  std::string root;              // repository work tree, trailing slash
  std::string compile_commands;  // overrides the config when set
  std::string cuobjdump_list;    // overrides the config when set
};

GateReport CheckGencode(const GencodeConfig& config, const GencodeInput& input);

}  // namespace vt::gate
