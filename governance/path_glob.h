// Path globs as the config and features.yaml use them: `*` and `?` stay
// within one path component, `**` crosses components. The same rules as
// cmake/VtCudaFeatures.cmake, so CMake and vt-gate agree on every match.
#pragma once

#include <string>
#include <vector>

namespace vt::gate {

bool GlobMatch(const std::string& glob, const std::string& path);

// The regular files under `root` (a folder) whose path relative to it matches
// `glob`, sorted. Only the folder before the first wildcard is walked.
std::vector<std::string> ExpandGlob(const std::string& root, const std::string& glob);

}  // namespace vt::gate
