// A decoder's weights on the GPU in the layout the CUDA forward reads: bf16 throughout, the q/k/v
// projections fused into one [q + 2 kv, hidden] matrix and gate/up into one [2 inter, hidden]
// matrix, so each is one GEMM whose input is read once.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/config/model_config.h"
#include "engine/core/status.h"
#include "engine/exec/cuda/device_buffer.h"
#include "engine/model/model_weights.h"

namespace vt {

struct DeviceLayer {
  const uint16_t* qkv = nullptr;         // [q + 2 kv, hidden]
  const uint16_t* qkv_bias = nullptr;    // [q + 2 kv] or null
  const uint16_t* o_proj = nullptr;      // [hidden, q]
  const uint16_t* gate_up = nullptr;     // [2 inter, hidden]: gate rows, then up rows
  const uint16_t* down_proj = nullptr;   // [hidden, inter]
  const uint16_t* q_norm = nullptr;      // [head_dim] or null
  const uint16_t* k_norm = nullptr;
  const uint16_t* input_norm = nullptr;  // [hidden]
  const uint16_t* post_attention_norm = nullptr;
};

struct DeviceWeights {
  const uint16_t* embed_tokens = nullptr;  // [vocab, hidden]
  const uint16_t* lm_head = nullptr;       // [vocab, hidden]; the embedding itself when tied
  const uint16_t* final_norm = nullptr;    // [hidden]
  std::vector<DeviceLayer> layers;
  uint64_t bytes = 0;
  DeviceBuffer storage;  // one allocation behind every pointer above
};

// Converts (f32/f16 → bf16 where needed), fuses and uploads `weights`. An out-of-memory error
// names the model's size and the device's free memory.
Result<DeviceWeights> UploadWeights(const ModelConfig& config, const ModelWeights& weights);

}  // namespace vt
