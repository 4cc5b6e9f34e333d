// Named model shapes for `--model preset:NAME --load-format dummy`: the real
// configurations of published checkpoints, so benchmarks see real shapes
// without the weights.
#pragma once

#include <string>
#include <vector>

#include "engine/config/model_config.h"

namespace vt {

Result<ModelConfig> PresetConfig(const std::string& name);
std::vector<std::string> PresetNames();

}  // namespace vt
