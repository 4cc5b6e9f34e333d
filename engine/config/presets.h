// Named model shapes for `--model preset:NAME --load-format dummy`: the real
// configurations of published checkpoints, so benchmarks see real shapes
// without the weights. NAME-gptq is the same shape with its decoder projections GPTQ int4
// (group 128), as a W4A16 checkpoint of it would be.
#pragma once

#include <string>
#include <vector>

#include "engine/config/model_config.h"

namespace vt {

Result<ModelConfig> PresetConfig(const std::string& name);
std::vector<std::string> PresetNames();

}  // namespace vt
