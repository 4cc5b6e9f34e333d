// The CUDA backend: the layer plan of DecoderModel on the GPU in bf16 (fp32 accumulation; int4
// decoder projections through the W4A16 GEMM for GPTQ checkpoints), with
// the paged KV pool in device memory. Everything is allocated at creation (weights, the KV pool
// sized from free memory, activations for the largest step, attention and GEMM workspaces); a
// step only launches kernels and copies its inputs in and its logits out.
#pragma once

#include <cstdint>
#include <memory>

#include "engine/config/model_config.h"
#include "base/status.h"
#include "engine/backends/runner_options.h"
#include "engine/exec/model_runner.h"
#include "engine/loader/tensor_store.h"
#include "engine/loader/model_weights.h"
#include "engine/parallel/tensor_parallel.h"

namespace vt {

namespace cuda_backend {
class NcclGroup;
}

struct CudaRunnerOptions {
  double gpu_memory_utilization = 0.9;  // of the device's total memory, counting what others hold
  int32_t block_size = 16;
  int32_t max_num_seqs = 64;
  int64_t max_model_len = 4096;
  int64_t max_num_batched_tokens = 512;  // the largest step the activations are sized for
  RunnerOptions tuning;                  // arms, split, prefill kernel, graphs, GEMM choice
  // Tensor parallelism: rank `tp_rank` of `tp_group`, on device `tp_rank`, computing ShardModel's
  // slice `tp_shard` (the config and weights given are that rank's). Null for a runner on its own.
  cuda_backend::NcclGroup* tp_group = nullptr;
  int tp_rank = 0;
  TensorParallelShard tp_shard;
  // Start without capturing the decode graphs (their warm-ups run the ranks' collectives, so every
  // rank must have started first); CaptureDeferredGraphs captures them.
  bool defer_graphs = false;
};

// Errors: Unavailable without a usable GPU, Unimplemented for shapes the kernels do not cover,
// ResourceExhausted when weights, workspaces and one full-length sequence's KV do not fit.
// `store` is the checkpoint's (for GPTQ's int4 tensors); null for dummy weights.
Result<std::unique_ptr<ModelRunner>> CreateCudaModelRunner(const ModelConfig& config, const ModelWeights& weights,
                                                           const std::shared_ptr<const TensorStore>& store,
                                                           const CudaRunnerOptions& options);

// The decode graphs of a runner CreateCudaModelRunner made with defer_graphs.
Status CaptureDeferredGraphs(ModelRunner& cuda_runner);

}  // namespace vt
