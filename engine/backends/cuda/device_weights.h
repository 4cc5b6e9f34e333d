// A decoder's weights on the GPU in the layout the CUDA forward reads: the q/k/v projections fused
// into one [q + 2 kv, hidden] matrix and gate/up into one [2 inter, hidden] matrix, so each is one
// GEMM whose input is read once. Dense weights are bf16 (fp32/fp16 checkpoints converted); GPTQ
// checkpoints keep their decoder projections int4 in the W4A16 tile layout.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/config/model_config.h"
#include "base/status.h"
#include "engine/backends/cuda/device_buffer.h"
#include "engine/loader/tensor_store.h"
#include "engine/loader/model_weights.h"

namespace vt {

// One Linear layer y[m, n] = x[m, k] . W^T: dense bf16 [n, k] (HF layout), or W4A16.
struct DeviceMatrix {
  const uint16_t* dense = nullptr;    // [n, k] bf16, or null when quantised
  const uint32_t* packed = nullptr;   // W4A16 tile layout (kernels/w4a16/gptq_layout.h)
  const uint16_t* scales = nullptr;   // [k / group_size, n] bf16
  int k = 0, n = 0, group_size = 0;
};

struct DeviceLayer {
  DeviceMatrix qkv;                      // n = q + 2 kv
  const uint16_t* qkv_bias = nullptr;    // [q + 2 kv] or null
  DeviceMatrix o_proj;
  DeviceMatrix gate_up;                  // n = 2 inter: gate columns, then up
  DeviceMatrix down_proj;
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

// Converts, fuses and uploads `weights`. For a GPTQ config the decoder projections come from
// `store`'s int4 tensors (a projection group with any part stored dense stays dense), or, with no
// store (dummy weights of a -gptq preset), from seeded random int4 weights. An out-of-memory error
// names the model's size and the device's free memory.
Result<DeviceWeights> UploadWeights(const ModelConfig& config, const ModelWeights& weights,
                                    const std::shared_ptr<const TensorStore>& store);

}  // namespace vt
