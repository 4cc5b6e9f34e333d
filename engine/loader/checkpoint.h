// Opens the weights of an HF model directory: model.safetensors, or the shards
// listed by model.safetensors.index.json.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "engine/loader/tensor_store.h"

namespace vt {

Result<std::shared_ptr<TensorStore>> OpenCheckpoint(const std::string& model_dir);

}  // namespace vt
