// Maps an HF checkpoint's tensor names onto the layer plan, checking every
// shape against the config (an error names the tensor, expected and found).
#pragma once

#include <memory>

#include "engine/config/model_config.h"
#include "base/status.h"
#include "engine/loader/tensor_store.h"
#include "engine/loader/model_weights.h"

namespace vt {

Result<ModelWeights> BindWeights(const ModelConfig& config, std::shared_ptr<const TensorStore> store);

}  // namespace vt
