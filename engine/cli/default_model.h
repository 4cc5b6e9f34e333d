// The model `vt generate` and `vt serve` use when --model is not given: $VT_DEFAULT_MODEL,
// else the embedded fortune-qwen3-7m of the source tree this binary was built from.
#pragma once

#include <cstdlib>
#include <string>

namespace vt::cli {

inline std::string DefaultModelDir() {
  if (const char* env = std::getenv("VT_DEFAULT_MODEL"); env != nullptr && *env != '\0') return env;
  return VT_DEFAULT_MODEL_DIR;
}

}  // namespace vt::cli
