// config.json's quantization_config. GPTQ int4 checkpoints (quant_method gptq,
// bits 4, sym, desc_act false, group_size 128 or -1) are supported; other
// methods and GPTQ variants are rejected with a message naming the property.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>

#include "engine/config/model_config.h"
#include "base/status.h"

namespace vt {

// `config` is the whole config.json object; no quantization_config gives nullopt.
Result<std::optional<GptqConfig>> ParseQuantizationConfig(const nlohmann::json& config);

}  // namespace vt
