// A preflight gate that is an external command: run with a timeout, in the
// repository root, its exit status mapped to a gate status (0 ok, 3 skip,
// anything else fail). A command or required tool that is not installed is a
// failure, never a skip: a gate that cannot run has not passed.
#pragma once

#include <string>

#include "governance/config.h"
#include "governance/report.h"

namespace vt::gate {

// The directories commands are looked up in when the caller gives none (the CLI passes PATH).
inline constexpr const char* kDefaultSearchPath = "/usr/local/bin:/usr/bin:/bin";

// `search_path`: colon-separated directories to find the command and required tools in.
GateReport RunExternalGate(const GateSpec& spec, const std::string& cwd, const std::string& search_path);

// The path of `tool` found in `search_path` (or `tool` itself when it contains a slash and is
// executable); empty when not found.
std::string FindExecutable(const std::string& tool, const std::string& search_path);

}  // namespace vt::gate
