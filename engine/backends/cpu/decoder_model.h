// The layer plan shared by Llama, Mistral, Qwen2 and Qwen3: embedding → N ×
// (RMSNorm → GQA attention with RoPE over the paged cache → residual →
// RMSNorm → SiLU-gated MLP → residual) → RMSNorm → lm_head. The architecture
// differences are data (biases, q/k norms, rope schedule, tied head).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/config/model_config.h"
#include "base/status.h"
#include "engine/backends/cpu/kv_cache_storage.h"
#include "engine/exec/forward_batch.h"
#include "engine/loader/model_weights.h"
#include "engine/parallel/collective.h"
#include "engine/parallel/tensor_parallel.h"
#include "kernels/cpu/thread_pool.h"

namespace vt {

// One rank of a tensor-parallel forward: its slices (engine/parallel/tensor_parallel.h) and the
// collective that joins the ranks after the row-parallel layers and the vocabulary-parallel ones.
struct TensorParallelRank {
  Collective* collective = nullptr;
  TensorParallelShard shard;
};

class DecoderModel {
 public:
  // With `tp`, `config` and `weights` are one rank's (ShardModel) and every rank runs the same
  // forwards in step; logits come back whole on every rank.
  DecoderModel(ModelConfig config, ModelWeights weights, kernels::cpu::ThreadPool* pool,
               std::optional<TensorParallelRank> tp = std::nullopt);

  const ModelConfig& config() const { return config_; }
  const ModelWeights& weights() const { return weights_; }

  // Computes the batch, writing its K/V into `cache`; `logits` receives one
  // [vocab] row per sequence with want_logits, in batch order.
  Status Forward(const std::vector<ForwardSeq>& batch, KvCacheStorage* cache, std::vector<float>* logits);

 private:
  void Attention(const LayerWeights& l, int64_t layer, const std::vector<ForwardSeq>& batch, KvCacheStorage* cache);
  void Mlp(const LayerWeights& l);
  // The sum over the ranks of a row-parallel layer's partial output (nothing without tp_).
  void AllReduce(std::vector<float>* partial);

  ModelConfig config_;
  ModelWeights weights_;
  kernels::cpu::ThreadPool* pool_;
  std::optional<TensorParallelRank> tp_;
  std::vector<float> inv_freq_;

  // Scratch, resized per forward to the batch's token count.
  int64_t rows_ = 0;
  std::vector<int32_t> positions_;
  std::vector<int64_t> slots_;
  std::vector<float> hidden_, normed_, q_, k_, v_, attn_, proj_, gate_, up_, cos_, sin_;
};

}  // namespace vt
