// Where the runner's memory goes, all of it at creation: activations, per-step inputs and
// workspaces carved from one allocation, pinned host mirrors, and the KV pool from what is left.
#include "engine/backends/cuda/cuda_runner.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "engine/exec/kv_sizing.h"
#include "kernels/cpu/rope.h"
#include "kernels/cuda/attention/paged_decode.h"
#include "kernels/cuda/ops/argmax.h"
#include "kernels/cuda/ops/decode_mlp.h"
#include "kernels/cuda/ops/prefill_tc.h"
#include "kernels/cuda/w4a16/w4a16_gemm.h"

namespace vt::cuda_backend {

Status CudaModelRunner::AllocateWorkspaces() {
  const ModelConfig& c = config_;
  max_tokens_ = int(std::max<int64_t>(options_.max_num_batched_tokens, options_.max_num_seqs));
  max_seqs_ = options_.max_num_seqs;
  max_blocks_per_seq_ = int((options_.max_model_len + options_.block_size - 1) / options_.block_size);
  const size_t t = size_t(max_tokens_), h = size_t(c.hidden_size), qkv = size_t(c.q_size() + 2 * c.kv_size());
  const size_t inter = size_t(c.intermediate_size), vocab = size_t(c.vocab_size);

  // The decode arms see every token of a step when prefill goes the decode way, and only a mixed
  // step's leading decodes (at most one per sequence) when prefill runs on the tensor-core kernel,
  // whose workspace is none: a long-context split workspace sized for max_tokens_ could be GiBs.
  kc::PrefillAttentionParams worst;
  worst.tokens = tensor_core_prefill_ ? std::min(max_tokens_, max_seqs_) : max_tokens_;
  worst.num_q_heads = int(c.num_heads);
  worst.num_kv_heads = int(c.num_kv_heads);
  worst.head_dim = int(c.head_dim);
  worst.block_size = options_.block_size;
  worst.max_blocks_per_seq = max_blocks_per_seq_;
  worst.max_context = int(options_.max_model_len);
  const kc::DecodeShape worst_shape{worst.tokens, worst.num_q_heads, worst.num_kv_heads, worst.head_dim,
                                    worst.block_size, worst.max_context};
  Result<kc::DecodePlan> plan = kc::PlanDecode(worst_shape, attention_overrides_);
  if (!plan.ok()) return plan.status();
  attention_ws_bytes_ = kc::PrefillWorkspaceBytes(worst, *plan);
  if (tensor_core_prefill_) {
    // The decode rows' call has finished (stream order) before the tensor-core call of the same
    // layer starts, so the two share one workspace.
    kc::PrefillAttentionParams prefill = worst;
    prefill.tokens = max_tokens_;
    attention_ws_bytes_ = std::max(attention_ws_bytes_, kc::PrefillTcWorkspaceBytes(prefill));
  }

  // A row's adjustment lists hold at most min(max_model_len, vocab) tokens each for the repetition
  // and the frequency/presence penalties, plus its masked and biased tokens (each at most the
  // vocabulary as the server parses them). The pool fits a full step of rows with up to
  // kShortLists of those, and always one row at its largest; capped, as steps past it are staged in
  // groups (device_logits_adjust.cpp).
  {
    constexpr size_t kShortLists = 1024, kMaxEntries = size_t(8) << 20;  // 64 MiB of entries
    const size_t seen = size_t(std::min<int64_t>(options_.max_model_len, c.vocab_size));
    const size_t one_row = 2 * seen + 2 * vocab;
    adjust_entries_ = std::max(one_row, std::min(size_t(max_seqs_) * (2 * seen + kShortLists), kMaxEntries));
  }

  // The pool's block count is known only once the KV cache is allocated (AllocateKvPool sets it).
  inputs_.emplace(StepCapacity{max_tokens_, max_seqs_, max_blocks_per_seq_, options_.block_size, 0, c.vocab_size});
  const size_t inputs_bytes = inputs_->layout().bytes;

  Arena a;
  const size_t residual_at = a.Reserve(t * h * 2), normed_at = a.Reserve(t * h * 2), qkv_at = a.Reserve(t * qkv * 2),
               q_at = a.Reserve(t * c.q_size() * 2), attn_at = a.Reserve(t * c.q_size() * 2),
               delta_at = a.Reserve(t * h * 2), gate_up_at = a.Reserve(t * 2 * inter * 2),
               act_at = a.Reserve(t * inter * 2), last_at = a.Reserve(size_t(max_seqs_) * h * 2),
               logits_at = a.Reserve(size_t(max_seqs_) * vocab * 2), freq_at = a.Reserve(size_t(c.head_dim / 2) * 4),
               attention_at = a.Reserve(attention_ws_bytes_), inputs_at = a.Reserve(inputs_bytes),
               argmax_at = a.Reserve(size_t(max_seqs_) * 4),
               argmax_ws_at = a.Reserve(kc::ArgmaxWorkspaceBytes(max_seqs_)),
               sampling_at = a.Reserve(size_t(max_seqs_) * sizeof(kc::RowSampling)),
               masks_at = a.Reserve(GrammarMaskBytes()),
               shard_logits_at = a.Reserve(sharded() ? size_t(max_seqs_) * size_t(options_.tp_shard.vocab_count) * 2 : 0),
               gathered_at = a.Reserve(sharded() ? size_t(max_seqs_) * vocab * 2 : 0),
               adjusted_at = a.Reserve(size_t(max_seqs_) * vocab * 4), adjust_at = a.Reserve(AdjustStagingBytes()),
               mlp_barrier_at = a.Reserve(kc::kDecodeMlpBarrierBytes);
  w4a16_ws_bytes_ = W4A16WorkspaceBytes();
  const size_t w4a16_at = a.Reserve(w4a16_ws_bytes_);
  w4a16_dequantised_bytes_ = W4A16DequantisedBytes();
  const size_t dequantised_at = a.Reserve(w4a16_dequantised_bytes_);
  Result<DeviceBuffer> work = DeviceBuffer::Allocate(a.size(), "activations and workspaces");
  if (!work.ok()) return work.status();
  work_ = std::move(*work);
  auto* base = work_.as<unsigned char>();
  auto bf16_at = [&](size_t at) { return reinterpret_cast<uint16_t*>(base + at); };
  residual_ = bf16_at(residual_at);
  normed_ = bf16_at(normed_at);
  qkv_ = bf16_at(qkv_at);
  q_ = bf16_at(q_at);
  attn_ = bf16_at(attn_at);
  delta_ = bf16_at(delta_at);
  gate_up_ = bf16_at(gate_up_at);
  act_ = bf16_at(act_at);
  last_rows_ = bf16_at(last_at);
  logits_dev_ = bf16_at(logits_at);
  if (sharded()) {
    shard_logits_ = bf16_at(shard_logits_at);
    gathered_logits_ = bf16_at(gathered_at);
  }
  inv_freq_ = reinterpret_cast<float*>(base + freq_at);
  mlp_barrier_ = reinterpret_cast<unsigned*>(base + mlp_barrier_at);
  VT_RETURN_IF_ERROR(
      CudaCheck(cudaMemset(mlp_barrier_, 0, kc::kDecodeMlpBarrierBytes), "zeroing the decode MLP's barrier"));
  attention_ws_ = base + attention_at;
  argmax_dev_ = reinterpret_cast<int32_t*>(base + argmax_at);
  argmax_ws_ = base + argmax_ws_at;
  VT_RETURN_IF_ERROR(CudaCheck(cudaMemset(argmax_ws_, 0, kc::ArgmaxWorkspaceBytes(max_seqs_)),
                               "zeroing the argmax's tickets"));
  sampling_dev_ = reinterpret_cast<kc::RowSampling*>(base + sampling_at);
  masks_dev_ = base + masks_at;
  adjusted_logits_ = reinterpret_cast<float*>(base + adjusted_at);
  adjust_dev_ = base + adjust_at;
  w4a16_ws_ = reinterpret_cast<float*>(base + w4a16_at);
  if (w4a16_dequantised_bytes_ > 0) w4a16_dequantised_ = bf16_at(dequantised_at);
  inputs_dev_ = base + inputs_at;
  const StepInputs::Layout& in = inputs_->layout();
  slots_ = reinterpret_cast<int64_t*>(inputs_dev_ + in.slots);
  token_ids_ = reinterpret_cast<int32_t*>(inputs_dev_ + in.token_ids);
  positions_ = reinterpret_cast<int32_t*>(inputs_dev_ + in.positions);
  seq_of_token_ = reinterpret_cast<int32_t*>(inputs_dev_ + in.seq_of_token);
  context_lens_ = reinterpret_cast<int32_t*>(inputs_dev_ + in.context_lens);
  block_tables_ = reinterpret_cast<int32_t*>(inputs_dev_ + in.block_tables);

  VT_RETURN_IF_ERROR(inputs_host_.Allocate(inputs_bytes));
  std::memset(inputs_host_.as<void>(), 0, inputs_bytes);
  VT_RETURN_IF_ERROR(logits_host_.Allocate(size_t(max_seqs_) * vocab * 2));
  VT_RETURN_IF_ERROR(argmax_host_.Allocate(size_t(max_seqs_) * 4));
  VT_RETURN_IF_ERROR(sampling_host_.Allocate(size_t(max_seqs_) * sizeof(kc::RowSampling)));
  VT_RETURN_IF_ERROR(masks_host_.Allocate(GrammarMaskBytes()));
  VT_RETURN_IF_ERROR(adjust_host_.Allocate(AdjustStagingBytes()));
  const std::vector<float> inv_freq = kernels::cpu::RopeInvFreq(c.head_dim, c.rope_theta, c.rope_scaling);
  return CudaCheck(cudaMemcpy(inv_freq_, inv_freq.data(), inv_freq.size() * 4, cudaMemcpyHostToDevice),
                   "uploading the rope schedule");
}

Status CudaModelRunner::AllocateKvPool() {
  const ModelConfig& c = config_;
  const size_t block_bytes = size_t(2 * c.num_layers) * options_.block_size * c.kv_size() * 2;
  size_t free_bytes = 0, total_bytes = 0;
  VT_RETURN_IF_ERROR(CudaCheck(cudaMemGetInfo(&free_bytes, &total_bytes), "reading free GPU memory"));
  const double allowed = options_.gpu_memory_utilization * double(total_bytes);
  const double held = double(total_bytes - free_bytes);  // ours so far, plus every other process's
  // Left free whatever the utilisation: the decode graphs, modules cuBLAS loads lazily and the
  // bandwidth probe of `vt bench decode` are allocated after the pool.
  constexpr double kHeadroom = double(768u << 20);
  const double budget = std::min(allowed - held, double(free_bytes) - kHeadroom);
  KvDemand demand;
  demand.wanted_blocks = KvDemand::kAsManyAsFit;
  demand.required_blocks = max_blocks_per_seq_;  // one sequence of max_model_len
  Result<int32_t> sized = KvPoolBlocks(demand, block_bytes, budget > 0 ? uint64_t(budget) : 0);
  if (!sized.ok()) {
    auto mib = [](double b) { return std::to_string(int64_t(b / (1 << 20))); };
    return ResourceExhausted("--backend cuda: the KV cache gets " + mib(std::max(budget, 0.0)) + " MiB of the " +
                             mib(allowed) + " MiB that --gpu-memory-utilization " +
                             std::to_string(options_.gpu_memory_utilization) + " allows (weights " +
                             mib(double(weights_.bytes)) + " MiB, device total " + mib(double(total_bytes)) +
                             " MiB); one sequence of " + std::to_string(options_.max_model_len) + " tokens needs " +
                             mib(double(demand.required_blocks) * double(block_bytes)) +
                             " MiB: raise --gpu-memory-utilization or lower --max-model-len");
  }
  const int64_t blocks = *sized;
  Result<DeviceBuffer> kv = DeviceBuffer::Allocate(size_t(blocks) * block_bytes, "the KV cache");
  if (!kv.ok()) return kv.status();
  kv_ = std::move(*kv);
  num_blocks_ = int32_t(blocks);
  inputs_->set_num_blocks(num_blocks_);
  inputs_->Bind(inputs_host_.as<unsigned char>());
  layer_kv_elems_ = size_t(blocks) * options_.block_size * c.kv_size();
  // Zeroed once: pages are always written before they are read, but a zeroed pool keeps
  // compute-sanitizer's initcheck meaningful.
  return CudaCheck(cudaMemsetAsync(kv_.as<void>(), 0, kv_.bytes(), stream_), "clearing the KV cache");
}

// The distinct [k, n] shapes of the int4 projections.
std::set<std::pair<int, int>> CudaModelRunner::W4A16Shapes() const {
  std::set<std::pair<int, int>> shapes;
  for (const DeviceLayer& l : weights_.layers) {
    for (const DeviceMatrix* w : {&l.qkv, &l.o_proj, &l.gate_up, &l.down_proj}) {
      if (w->packed != nullptr) shapes.insert({w->k, w->n});
    }
  }
  return shapes;
}

// The largest split-K workspace any int4 GEMM of any step size can ask for (each distinct shape once).
size_t CudaModelRunner::W4A16WorkspaceBytes() const {
  size_t most = 0;
  for (const auto& [k, n] : W4A16Shapes()) {
    for (int m = 1; m <= max_tokens_ && !DequantisesW4A16(m); ++m) {
      most = std::max(most, kc::W4A16WorkspaceBytes(m, n, W4A16SplitFor(m, k, n)));
    }
  }
  return most;
}

bool CudaModelRunner::DequantisesW4A16(int m) const {
  return options_.tuning.dequantised_large_w4a16 && m >= kc::kW4A16DequantMinRows;
}

size_t CudaModelRunner::W4A16DequantisedBytes() const {
  if (!DequantisesW4A16(max_tokens_)) return 0;
  size_t most = 0;
  for (const auto& [k, n] : W4A16Shapes()) most = std::max(most, size_t(k) * n * 2);
  return most;
}

kc::W4A16Split CudaModelRunner::W4A16SplitFor(int m, int k, int n) const {
  if (!options_.tuning.chosen_w4a16_forms) return kc::ChooseW4A16Split(m, k, n, num_sms_, kc::W4A16Form::kSpread);
  return kc::ChooseW4A16Split(m, k, n, num_sms_);
}

// The block tables come last in the inputs: only the rows this step uses are copied.
Status CudaModelRunner::CopyInputs(int table_rows) {
  return CudaCheck(cudaMemcpyAsync(inputs_dev_, inputs_host_.as<void>(), inputs_->BytesThroughTableRow(table_rows),
                                   cudaMemcpyHostToDevice, stream_),
                   "copying step inputs");
}

}  // namespace vt::cuda_backend
