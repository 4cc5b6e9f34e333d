// The architecture pairs an nvcc command line compiles for, in one spelling:
// "arch=compute_80,code=sm_80". Understands -gencode / --generate-code (with
// `=` or a separate argument, code lists in brackets or quotes) and -arch /
// --gpu-architecture with or without -code, as nvcc documents them.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace vt::gate {

struct NvccTargets {
  std::set<std::string> pairs;
  std::vector<std::string> unknown;  // -arch=native and similar: cannot be audited
};

NvccTargets ParseNvccTargets(const std::vector<std::string>& arguments);

// Splits a compile_commands.json "command" string as a POSIX shell would
// (quotes and backslashes), without expanding anything.
std::vector<std::string> SplitCommand(const std::string& command);

// "arch=compute_X,code=sm_X" for one SM number.
std::string GencodePair(const std::string& arch);

}  // namespace vt::gate
