// kernels/cuda/features.yaml, read as a governance/yaml_document.h tree:
// features (name -> SM architectures), source globs (relative to the sources
// root, first match wins) -> feature, and the sources every CUDA build must
// compile. CMake reads the same file (cmake/VtCudaFeatures.cmake), so the
// table is the single source of each unit's architectures.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace vt::gate {

struct FeatureTable {
  struct Feature {
    std::vector<std::string> archs;  // "80", "90a"
    int line = 0;
  };
  struct SourceGlob {
    std::string glob;
    std::string feature;
    int line = 0;
  };
  struct RequiredSource {
    std::string path;
    int line = 0;
  };
  std::map<std::string, Feature> features;
  std::vector<SourceGlob> sources;  // in file order: the first match wins
  std::vector<RequiredSource> required;
  int sources_line = 0;

  // The glob that decides `relative` (a path under the sources root), or nullptr.
  const SourceGlob* Match(const std::string& relative) const;
};

// Errors read "FILE:LINE: message": a glob naming an unknown feature, an
// architecture that is not a number, a missing section.
Result<FeatureTable> LoadFeatureTable(const std::string& path);

}  // namespace vt::gate
