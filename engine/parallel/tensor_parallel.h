// Megatron-style tensor parallelism: how a model's weights split over `size` ranks. Column-parallel
// (each rank a slice of the output features): q/k/v by attention head, gate/up by intermediate
// feature, the LM head and the embedding by vocabulary row. Row-parallel (each rank a slice of the
// input features, partial outputs summed by an all-reduce): o_proj and down_proj. Each rank keeps
// its own heads' K/V, so the KV cache shards by KV head. Backend-neutral: the CPU reference
// (engine/backends/cpu/decoder_model.cpp with a Collective) computes exactly this split.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "base/status.h"
#include "engine/config/model_config.h"
#include "engine/loader/model_weights.h"

namespace vt {

// One rank's slices, as [begin, begin + count) ranges of the full model's dimensions.
struct TensorParallelShard {
  int rank = 0;
  int size = 1;
  int64_t heads_begin = 0, kv_heads_begin = 0, intermediate_begin = 0;
  int64_t vocab_begin = 0, vocab_count = 0;  // the rows of the embedding and the LM head it holds
};

// A rank's model: its config (heads, KV heads and intermediate size divided by the size; the
// vocabulary and hidden size whole, the vocabulary's slice in `shard`) and its weights, which view
// the full model's memory where a slice is contiguous and own copies where it is not.
struct ShardedModel {
  ModelConfig config;
  ModelWeights weights;
  TensorParallelShard shard;
};

// Errors name the dimension that `size` does not divide (or the size itself).
Status CheckTensorParallel(const ModelConfig& config, int size);

// Rank `rank` of `size`. The full weights must outlive the result only through the shared storage
// the result keeps (ModelWeights::storage).
Result<ShardedModel> ShardModel(const ModelConfig& config, const ModelWeights& weights, int rank, int size);

}  // namespace vt
