// The layer plan shared by Llama, Mistral, Qwen2 and Qwen3: embedding → N ×
// (RMSNorm → GQA attention with RoPE over the paged cache → residual →
// RMSNorm → SiLU-gated MLP → residual) → RMSNorm → lm_head. The architecture
// differences are data (biases, q/k norms, rope schedule, tied head).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/config/model_config.h"
#include "base/status.h"
#include "engine/backends/cpu/kv_cache_storage.h"
#include "engine/exec/forward_batch.h"
#include "engine/loader/model_weights.h"
#include "kernels/cpu/thread_pool.h"

namespace vt {

class DecoderModel {
 public:
  DecoderModel(ModelConfig config, ModelWeights weights, kernels::cpu::ThreadPool* pool);

  const ModelConfig& config() const { return config_; }
  const ModelWeights& weights() const { return weights_; }

  // Computes the batch, writing its K/V into `cache`; `logits` receives one
  // [vocab] row per sequence with want_logits, in batch order.
  Status Forward(const std::vector<ForwardSeq>& batch, KvCacheStorage* cache, std::vector<float>* logits);

 private:
  void Attention(const LayerWeights& l, int64_t layer, const std::vector<ForwardSeq>& batch, KvCacheStorage* cache);
  void Mlp(const LayerWeights& l);

  ModelConfig config_;
  ModelWeights weights_;
  kernels::cpu::ThreadPool* pool_;
  std::vector<float> inv_freq_;

  // Scratch, resized per forward to the batch's token count.
  int64_t rows_ = 0;
  std::vector<int32_t> positions_;
  std::vector<int64_t> slots_;
  std::vector<float> hidden_, normed_, q_, k_, v_, attn_, proj_, gate_, up_, cos_, sin_;
};

}  // namespace vt
