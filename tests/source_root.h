// The source tree tests read fixtures and assets from: $VT_SOURCE_DIR when set (GPU test binaries
// run from a copy of the tree at another path), else where this build was configured.
#pragma once

#include <cstdlib>
#include <filesystem>

namespace vt::testing {

inline std::filesystem::path SourceRoot() {
  const char* env = std::getenv("VT_SOURCE_DIR");
  return env != nullptr && *env != '\0' ? std::filesystem::path(env) : std::filesystem::path(VT_SOURCE_DIR);
}

}  // namespace vt::testing
