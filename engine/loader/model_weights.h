// The weights of a decoder model, bound to the layer plan: matrices stay in
// their stored type (views into mmapped files or owned buffers); the small
// vectors (norms, biases) are widened to float32 once at load.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/loader/weight_residency.h"
#include "kernels/cpu/dtype.h"

namespace vt {

using kernels::cpu::WeightMatrix;

struct LayerWeights {
  WeightMatrix q_proj, k_proj, v_proj, o_proj;
  WeightMatrix gate_proj, up_proj, down_proj;
  std::vector<float> q_bias, k_bias, v_bias;  // empty without attention_bias
  std::vector<float> q_norm, k_norm;          // empty without qk_norm
  std::vector<float> input_norm, post_attention_norm;
};

struct ModelWeights {
  WeightMatrix embed_tokens;
  WeightMatrix lm_head;  // the embedding itself when tied
  std::vector<float> final_norm;
  std::vector<LayerWeights> layers;
  uint64_t weight_bytes = 0;              // bytes of all stored tensors, counted once
  std::shared_ptr<const void> storage;    // keeps the viewed memory alive
  // Null: every matrix stays resident. Set for loads onto a device, which copy each matrix once
  // between Acquire and Release.
  std::shared_ptr<WeightResidency> residency;
};

}  // namespace vt
