// The CUDA runner's state, shared by the files that each do one of its jobs:
// cuda_model_runner.cpp (creation, the step entry points), memory_plan.cpp (arena, workspaces, KV
// pool), decoder.cpp (the layer plan: GEMM and attention dispatch), decode_graphs.cpp (captured
// decode steps), device_logits_adjust.cpp (penalties and biases on the device), device_sampling.cpp
// (tokens drawn on the device), copy_bandwidth.cpp and matmul_peak.cpp (the probes).
// Private to engine/backends/cuda: the rest of vt sees only cuda_model_runner.h.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/backends/cuda/cuda_model_runner.h"
#include "engine/backends/cuda/device_arena.h"
#include "engine/backends/cuda/device_buffer.h"
#include "engine/backends/cuda/device_weights.h"
#include "engine/backends/cuda/pinned_buffer.h"
#include "engine/exec/step_inputs.h"
#include "kernels/cuda/attention/decode_plan.h"
#include "kernels/cuda/ops/dense_gemm.h"
#include "kernels/cuda/ops/logits_adjust.h"
#include "kernels/cuda/ops/prefill_attention.h"
#include "kernels/cuda/ops/sampling.h"
#include "kernels/cuda/w4a16/w4a16_gemm.h"

namespace vt::cuda_backend {

namespace kc = kernels::cuda;

class CudaModelRunner final : public ModelRunner {
 public:
  CudaModelRunner(ModelConfig config, CudaRunnerOptions options) : config_(std::move(config)), options_(options) {}
  ~CudaModelRunner() override;

  Status Init(const ModelWeights& weights, const std::shared_ptr<const TensorStore>& store);
  Status CaptureDeferredGraphs();  // see CudaRunnerOptions::defer_graphs

  const ModelConfig& config() const override { return config_; }
  std::string backend() const override { return "cuda"; }
  uint64_t weight_bytes() const override { return weights_.bytes; }
  int32_t kv_element_bytes() const override { return 2; }  // bf16
  int32_t num_kv_blocks() const override { return num_blocks_; }
  int32_t kv_block_size() const override { return options_.block_size; }
  int32_t max_num_seqs() const override { return max_seqs_; }
  int64_t max_num_batched_tokens() const override { return max_tokens_; }
  int64_t max_model_len() const override { return options_.max_model_len; }
  Status Forward(const std::vector<ForwardSeq>& batch, std::vector<float>* logits) override;
  Status ForwardSample(const std::vector<ForwardSeq>& batch, const std::vector<RowDraw>& draws,
                       const PrepareDraws& prepare_draws, std::vector<int32_t>* tokens) override;
  Result<double> MeasureCopyBandwidth() override;
  Result<double> MeasureMatmulPeak() override;

 private:
  Status CheckSupported() const;
  Status AllocateWorkspaces();
  Status AllocateKvPool();
  Status CaptureDecodeGraphs();
  Status CopyInputs(int table_rows);
  // Writes every sampling row of the step to adjusted_logits_ as float32, with the draws'
  // adjustments applied; false (and nothing launched) when no draw adjusts its row.
  Result<bool> AdjustRows(const std::vector<RowDraw>& draws);
  Status Run(const std::vector<ForwardSeq>& batch, StagedStep* staged);
  Status Enqueue(const std::vector<ForwardSeq>& batch, const StagedStep& staged);
  Status EnqueueForward(const std::vector<ForwardSeq>* batch, const StagedStep& step);
  Status Layer(int layer, const StagedStep& step);
  // The decode arms' plan for the step's decode-way rows: made once per step, used by every layer.
  Status PlanAttention(const StagedStep& step);
  // `o_proj_loads_early`: the o_proj after this attention issues its weights before its wait (see
  // PagedDecodeParams::successor_loads_early).
  Status Attention(int layer, const StagedStep& step, bool o_proj_loads_early);
  Status DecodeQueryAttention(int layer, const StagedStep& step, bool o_proj_loads_early);
  kc::PrefillAttentionParams AttentionParams(int layer, const StagedStep& step, int first) const;
  // Whether the first kernel of Linear(x, w, m, y, kBeforeWait) issues weight loads before its
  // dependent-launch wait.
  bool LoadsWeightsBeforeWait(const uint16_t* x, const DeviceMatrix& w, int m, const uint16_t* y) const;
  // `weights`: where a dense weight's skinny product issues its loads (kernels/cuda/ops/skinny_gemm.h).
  Status Linear(const uint16_t* x, const DeviceMatrix& w, int m, uint16_t* y,
                kc::SkinnyWeights weights = kc::SkinnyWeights::kAfterWait);
  // The MLP of a layer from normed_ into delta_: one fused kernel where VT_DECODE_MLP=fused and the
  // step's shape lets it give the kernel-per-op bits, otherwise gate/up, SiLU·mul and down.
  Status Mlp(const DeviceLayer& w, int tokens);
  // Tensor parallelism (options_.tp_group set): this rank's device made current on the calling
  // thread; the sum over the ranks of a row-parallel output; the head's vocabulary slices of `rows`
  // rows gathered whole into logits_dev_. Each is nothing for a runner on its own.
  bool sharded() const { return options_.tp_group != nullptr; }
  Status UseRankDevice() const;
  Status SumOverRanks(uint16_t* data, size_t count);
  Status HeadLogits(const uint16_t* x, int rows);
  std::set<std::pair<int, int>> W4A16Shapes() const;
  size_t W4A16WorkspaceBytes() const;
  // The int4 GEMM's form and K split for m rows of a [k, n] weight (VT_W4A16_FORM).
  kernels::cuda::W4A16Split W4A16SplitFor(int m, int k, int n) const;
  // Whether an int4 layer of m rows runs as the bf16 GEMM on its dequantised weights (VT_W4A16_LARGE).
  bool DequantisesW4A16(int m) const;
  // The bf16 scratch those layers dequantise into: the largest int4 weight, or 0 when no step can.
  size_t W4A16DequantisedBytes() const;
  int GraphBucket(int tokens) const;

  uint16_t* KCache(int layer) const { return kv_.as<uint16_t>() + size_t(2 * layer) * layer_kv_elems_; }
  uint16_t* VCache(int layer) const { return kv_.as<uint16_t>() + size_t(2 * layer + 1) * layer_kv_elems_; }

  ModelConfig config_;
  CudaRunnerOptions options_;
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<kc::DenseGemm> gemm_;
  kc::DecodeOverrides attention_overrides_;
  // Prefill attention on the tensor-core kernel (the default since it passed the model-level,
  // batch-invariance and graph gates); VT_ATTN_PREFILL=decode sends prefill tokens the decode way.
  bool tensor_core_prefill_ = true;
  kc::DecodePlan step_plan_;  // this step's, from PlanAttention
  DeviceWeights weights_;

  // Capacities the buffers are sized for.
  int max_tokens_ = 0, max_seqs_ = 0, max_blocks_per_seq_ = 0;

  // Activations, per-step inputs and the attention workspace: one allocation.
  DeviceBuffer work_;
  // Tensor parallelism: this rank's [max_seqs, vocab slice] head rows, and every rank's after the gather.
  uint16_t *shard_logits_ = nullptr, *gathered_logits_ = nullptr;
  uint16_t *residual_ = nullptr, *normed_ = nullptr, *qkv_ = nullptr, *q_ = nullptr, *attn_ = nullptr,
           *delta_ = nullptr, *gate_up_ = nullptr, *act_ = nullptr, *last_rows_ = nullptr, *logits_dev_ = nullptr;
  float* inv_freq_ = nullptr;
  unsigned* mlp_barrier_ = nullptr;  // the fused decode MLP's grid barrier (kc::kDecodeMlpBarrierBytes)
  void* attention_ws_ = nullptr;
  size_t attention_ws_bytes_ = 0;
  float* w4a16_ws_ = nullptr;  // split-K partial sums of the int4 GEMMs
  size_t w4a16_ws_bytes_ = 0;
  uint16_t* w4a16_dequantised_ = nullptr;  // [n, k] bf16 of the int4 layer running on cuBLAS
  size_t w4a16_dequantised_bytes_ = 0;
  int num_sms_ = 0;
  // Step inputs, laid out identically on the host (pinned) and the device: one copy per step.
  std::optional<StepInputs> inputs_;
  unsigned char* inputs_dev_ = nullptr;
  int64_t* slots_ = nullptr;
  int32_t *token_ids_ = nullptr, *positions_ = nullptr, *seq_of_token_ = nullptr, *context_lens_ = nullptr;
  int32_t* block_tables_ = nullptr;
  PinnedBuffer inputs_host_;
  PinnedBuffer logits_host_;
  int32_t* argmax_dev_ = nullptr;  // [max_seqs]: the greedy tokens, or the drawn ones
  void* argmax_ws_ = nullptr;      // the greedy argmax's slices (kc::ArgmaxWorkspaceBytes), zeroed
  PinnedBuffer argmax_host_;
  kc::RowSampling* sampling_dev_ = nullptr;  // [max_seqs]
  PinnedBuffer sampling_host_;
  // The grammar masks of a step's constrained rows: [max_seqs] mask indices by row, then [max_seqs]
  // masks of ceil(vocab / 32) words.
  size_t GrammarMaskBytes() const { return size_t(max_seqs_) * 4 * (1 + size_t((config_.vocab_size + 31) / 32)); }
  unsigned char* masks_dev_ = nullptr;
  PinnedBuffer masks_host_;
  // The masks go up on a stream of their own, beside the forward (a step of 64 rows on a 151k
  // vocabulary is 1.2 MB); the forward's stream waits for the event before masking.
  cudaStream_t masks_stream_ = nullptr;
  cudaEvent_t masks_copied_ = nullptr;
  // Steps with adjusted rows draw from float32 rows [max_seqs, vocab]; the adjustments come as
  // [max_seqs] kc::RowAdjust, then a pool of adjust_entries_ kc::AdjustEntry, staged on the host.
  float* adjusted_logits_ = nullptr;
  size_t adjust_entries_ = 0;
  size_t AdjustStagingBytes() const {
    return size_t(max_seqs_) * sizeof(kc::RowAdjust) + adjust_entries_ * sizeof(kc::AdjustEntry);
  }
  unsigned char* adjust_dev_ = nullptr;
  PinnedBuffer adjust_host_;

  // Decode steps replay a graph captured per batch-size bucket (powers of two up to max_seqs);
  // without graphs (VT_CUDA_GRAPHS=0) every step runs eagerly, for A/B and for debugging.
  std::vector<int> graph_buckets_;
  std::vector<cudaGraphExec_t> graphs_;

  DeviceBuffer kv_;
  size_t layer_kv_elems_ = 0;  // elements of one layer's K (or V) pool
  int32_t num_blocks_ = 0;
};

}  // namespace vt::cuda_backend
