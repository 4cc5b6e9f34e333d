// The layer plan on the device: embedding, per layer RMSNorm → fused QKV GEMM → rope and KV
// write → attention → o_proj → RMSNorm → gate/up GEMM → SiLU·mul → down GEMM, then the head.
#include "engine/backends/cuda/cuda_runner.h"

#include <cmath>

#include "engine/backends/cuda/nccl_group.h"
#include "kernels/cuda/attention/paged_decode.h"
#include "kernels/cuda/dependent_launch.h"
#include "kernels/cuda/ops/argmax.h"
#include "kernels/cuda/ops/decode_mlp.h"
#include "kernels/cuda/ops/forward_ops.h"
#include "kernels/cuda/ops/prefill_tc.h"
#include "kernels/cuda/ops/qkv_prepare.h"
#include "kernels/cuda/w4a16/w4a16_gemm.h"

namespace vt::cuda_backend {

// The largest step (rows) launched with programmatic dependent launch (see EnqueueForward), and the
// largest whose decode attention is launched so too whether or not its call is split (see Layer).
constexpr int kDependentLaunchMaxRows = 8;
constexpr int kDependentAttentionMaxRows = 4;
// The largest step whose unsplit decode attention lets a preloading o_proj launch once it has waited
// (PagedDecodeParams::successor_loads_early). Measured on an H100 against a step that never does
// (docs/BENCHMARKS.md, "The o_proj weights loaded before the wait"): qwen3-1.7b c = 1 +1.9%, but c = 2
// -0.9%, c = 4 -2.7%, c = 8 -4.2% (the twenty-second session lost 2.7% at c = 4 with a plain o_proj
// too; the cause is not measured). An int4 o_proj preloads in every form: llama3-8b W4A16 c = 1
// +0.76% ("The int4 o_proj launched early in one-row steps"); the twenty-second session's trigger in
// every call had given it -0.4% at c = 2.
constexpr int kEarlyOProjMaxRows = 1;

namespace {

// Whether a step launches its attention dependently: steps of up to four rows always; decode steps of
// up to eight where the call is unsplit (one chunk a request, no merge kernel). Measured on an H100
// with a probe build's run-time switch, the attention dependent in every step of up to eight rows
// against four (docs/BENCHMARKS.md, "The attention launched dependently in steps of five to eight rows,
// where the call is unsplit"): qwen3-1.7b's short-prompt steps of six and eight rows +3.3% / +2.6%
// tok/s, llama3-8b's eight +0.9%, while qwen3-1.7b's 8k eight-row steps, split, ran 0.5% slower (on an
// H200, before the merge kernel's loads were issued together, 1.5%).
bool AttentionLaunchedDependently(const StagedStep& step, const kc::DecodePlan& plan) {
  return step.tokens <= kDependentAttentionMaxRows ||
         (step.decode_only && step.tokens <= kDependentLaunchMaxRows && plan.num_chunks <= 1);
}

}  // namespace

// A dense weight asks DenseGemm (the skinny GEMM's one-group form takes kBeforeWait), an int4 one its
// form. A dequantised int4 weight's first kernel is the dequantisation, a plain launch.
bool CudaModelRunner::LoadsWeightsBeforeWait(const uint16_t* x, const DeviceMatrix& w, int m,
                                             const uint16_t* y) const {
  if (w.dense != nullptr) return gemm_->LoadsWeightsBeforeWait(x, w.dense, m, w.n, w.k, y);
  return kc::DependentLaunchOn() && !DequantisesW4A16(m) &&
         kc::W4A16LoadsWeightsBeforeWait(W4A16SplitFor(m, w.k, w.n).form);
}

Status CudaModelRunner::Linear(const uint16_t* x, const DeviceMatrix& w, int m, uint16_t* y,
                               kc::SkinnyWeights weights) {
  if (w.dense != nullptr) return gemm_->Linear(x, w.dense, m, w.n, w.k, y, stream_, weights);
  // `weights` stops here: the dequantised scratch below is written by a kernel of the step.
  if (DequantisesW4A16(m)) {
    if (size_t(w.k) * w.n * 2 > w4a16_dequantised_bytes_) {
      return Internal("cuda forward: the dequantised int4 weight needs more scratch than was sized at start-up");
    }
    VT_RETURN_IF_ERROR(kc::DequantizeW4A16(w.packed, w.scales, w.k, w.n, w.group_size, w4a16_dequantised_, stream_));
    return gemm_->Linear(x, w4a16_dequantised_, m, w.n, w.k, y, stream_);
  }
  kc::W4A16Problem p;
  p.x = x;
  p.packed = w.packed;
  p.scales = w.scales;
  p.y = y;
  p.m = m;
  p.k = w.k;
  p.n = w.n;
  p.group_size = w.group_size;
  const kc::W4A16Split split = W4A16SplitFor(m, w.k, w.n);
  if (kc::W4A16WorkspaceBytes(m, w.n, split) > w4a16_ws_bytes_) {
    return Internal("cuda forward: the W4A16 split needs more workspace than was sized at start-up");
  }
  return kc::RunW4A16Gemm(p, split, w4a16_ws_, stream_);
}

// The attention parameters of the step's tokens [first, step.tokens) in layer `layer`.
kc::PrefillAttentionParams CudaModelRunner::AttentionParams(int layer, const StagedStep& step, int first) const {
  const ModelConfig& c = config_;
  const size_t row = size_t(c.num_heads) * c.head_dim;
  kc::PrefillAttentionParams att;
  att.q = q_ + size_t(first) * row;
  att.k_cache = KCache(layer);
  att.v_cache = VCache(layer);
  att.seq_of_token = seq_of_token_ + first;
  att.positions = positions_ + first;
  att.block_tables = block_tables_;
  att.out = attn_ + size_t(first) * row;
  att.tokens = step.tokens - first;
  att.num_q_heads = int(c.num_heads);
  att.num_kv_heads = int(c.num_kv_heads);
  att.head_dim = int(c.head_dim);
  att.block_size = options_.block_size;
  att.max_blocks_per_seq = max_blocks_per_seq_;
  att.max_context = step.max_context;
  att.scale = 1.0f / std::sqrt(float(c.head_dim));
  return att;
}

// The rows that go the decode way are the same in every layer: the whole step when prefill goes
// the decode way or the step is all decodes, else its leading single-token sequences.
Status CudaModelRunner::PlanAttention(const StagedStep& step) {
  const bool all_decode_way = step.decode_only || !tensor_core_prefill_;
  StagedStep rows = step;
  if (!all_decode_way) rows.tokens = step.leading_single_tokens;
  if (rows.tokens == 0) return Status::Ok();
  const kc::PrefillAttentionParams att = AttentionParams(0, rows, 0);
  const kc::DecodeShape shape{att.tokens, att.num_q_heads, att.num_kv_heads, att.head_dim, att.block_size,
                              att.max_context};
  Result<kc::DecodePlan> plan = kc::PlanDecode(shape, attention_overrides_);
  if (!plan.ok()) return plan.status();
  const size_t needed =
      step.decode_only ? kc::DecodeWorkspaceBytes(shape, *plan) : kc::PrefillWorkspaceBytes(att, *plan);
  if (needed > attention_ws_bytes_) {
    return Internal("cuda forward: the attention plan needs more workspace than was sized at start-up");
  }
  step_plan_ = *plan;
  return Status::Ok();
}

// A decode batch (row i is sequence i's one new token) calls the decode arms on the block tables
// as they are. Any other step treats every token as a query over its own sequence's pages up to
// its position, which is the same decode call over the tokens with their tables gathered; by
// default (VT_ATTN_PREFILL unset or tc) the prefill tokens go to the tensor-core kernel instead,
// after the step's leading one-token sequences (its decodes) have gone the decode way.
Status CudaModelRunner::Attention(int layer, const StagedStep& step, bool o_proj_loads_early) {
  if (step.decode_only || !tensor_core_prefill_) return DecodeQueryAttention(layer, step, o_proj_loads_early);
  const int decodes = step.leading_single_tokens;
  if (decodes > 0) {
    StagedStep head = step;
    head.tokens = decodes;
    VT_RETURN_IF_ERROR(DecodeQueryAttention(layer, head, false));  // the prefill attention comes next
  }
  if (decodes == step.tokens) return Status::Ok();
  return kc::RunPrefillAttentionTensorCore(AttentionParams(layer, step, decodes), attention_ws_, attention_ws_bytes_,
                                           options_.tuning.warpgroup_prefill ? kc::PrefillMma::kAuto
                                                                             : kc::PrefillMma::kWarp,
                                           stream_);
}

// Tokens [0, step.tokens) as decode queries (see Attention).
Status CudaModelRunner::DecodeQueryAttention(int layer, const StagedStep& step, bool o_proj_loads_early) {
  const kc::PrefillAttentionParams att = AttentionParams(layer, step, 0);
  if (step.decode_only) {
    kc::PagedDecodeParams decode = kc::AsDecodeParams(att, block_tables_, context_lens_);
    decode.history_settled = true;  // the tables were uploaded; qkv_prepare wrote only each row's last key
    decode.successor_loads_early = o_proj_loads_early;
    return kc::RunPagedDecode(decode, step_plan_, attention_ws_, stream_);
  }
  return kc::RunPrefillAttention(att, step_plan_, attention_ws_, stream_);
}

Status CudaModelRunner::Layer(int layer, const StagedStep& step) {
  const int tokens = step.tokens;
  const ModelConfig& c = config_;
  const DeviceLayer& w = weights_.layers[size_t(layer)];
  const int h = int(c.hidden_size);
  const float eps = c.rms_norm_eps;
  // The previous layer's MLP output joins the residual stream here (layer 0 starts from the embedding).
  VT_RETURN_IF_ERROR(kc::AddRmsNorm(layer == 0 ? nullptr : delta_, residual_, w.input_norm, tokens, h, eps, normed_, stream_));
  VT_RETURN_IF_ERROR(Linear(normed_, w.qkv, tokens, qkv_));

  kc::QkvPrepareParams prep;
  prep.qkv = qkv_;
  prep.bias = w.qkv_bias;
  prep.q_norm = w.q_norm;
  prep.k_norm = w.k_norm;
  prep.eps = eps;
  prep.positions = positions_;
  prep.inv_freq = inv_freq_;
  prep.slots = slots_;
  prep.q_out = q_;
  prep.k_cache = KCache(layer);
  prep.v_cache = VCache(layer);
  prep.tokens = tokens;
  prep.num_q_heads = int(c.num_heads);
  prep.num_kv_heads = int(c.num_kv_heads);
  prep.head_dim = int(c.head_dim);
  VT_RETURN_IF_ERROR(kc::PrepareQkv(prep, stream_));

  // Steps of five to eight rows launch everything but a split attention dependently: everything but
  // the attention made qwen3-1.7b's eight-row steps 1.4-1.5% faster and its 8k ones 0.7-0.8% (an H200
  // and an H100), llama3-8b's 0.2-0.5% slower; the attention too where it is unsplit, see
  // AttentionLaunchedDependently (docs/BENCHMARKS.md).
  // o_proj launches dependently wherever the step does (the switch below is the attention's alone).
  const bool o_proj_loads_early =
      tokens <= kEarlyOProjMaxRows && LoadsWeightsBeforeWait(attn_, w.o_proj, tokens, delta_);
  {
    const kc::ScopedDependentLaunch attention_launch(kc::DependentLaunchOn() &&
                                                     AttentionLaunchedDependently(step, step_plan_));
    VT_RETURN_IF_ERROR(Attention(layer, step, o_proj_loads_early));
  }

  // o_proj's weights stream before its wait (an int4 o_proj's do in every form), so that they overlap
  // the attention's end where that lets o_proj launch early (a split call's merge kernel always does;
  // an unsplit call in one-row steps, above). On an H100 against 8cbbdc1: qwen3-1.7b 8k decode c = 1
  // -0.9% ITL, short prompts c = 1 +0.2% and c = 8 +0.7% (docs/BENCHMARKS.md "The o_proj weights
  // loaded before the wait"). Asked of every GEMM the kernel takes it for (gate/up and lm_head too),
  // the step was 1.4-1.7% slower.
  VT_RETURN_IF_ERROR(Linear(attn_, w.o_proj, tokens, delta_, kc::SkinnyWeights::kBeforeWait));
  VT_RETURN_IF_ERROR(SumOverRanks(delta_, size_t(tokens) * h));
  VT_RETURN_IF_ERROR(kc::AddRmsNorm(delta_, residual_, w.post_attention_norm, tokens, h, eps, normed_, stream_));
  VT_RETURN_IF_ERROR(Mlp(w, tokens));
  return SumOverRanks(delta_, size_t(tokens) * h);
}

Status CudaModelRunner::Mlp(const DeviceLayer& w, int tokens) {
  const int h = int(config_.hidden_size), inter = int(config_.intermediate_size);
  // Tensor-parallel ranks keep the three kernels (no run has checked the fused one there).
  if (options_.tuning.fused_decode_mlp && !sharded()) {
    kc::DecodeMlpParams fused;
    fused.x = normed_;
    fused.gate_up = w.gate_up.dense;
    fused.down = w.down_proj.dense;
    fused.m = tokens;
    fused.hidden = h;
    fused.inter = inter;
    fused.act = act_;
    fused.y = delta_;
    fused.barrier = mlp_barrier_;
    // The fused kernel runs the skinny GEMM's tiles, so it stands in only where both projections
    // would run on the skinny GEMM.
    const bool skinny_both =
        fused.gate_up != nullptr && fused.down != nullptr &&
        gemm_->KernelFor(normed_, fused.gate_up, tokens, 2 * inter, h, gate_up_) == kc::DenseKernel::kSkinny &&
        gemm_->KernelFor(act_, fused.down, tokens, h, inter, delta_) == kc::DenseKernel::kSkinny;
    if (skinny_both && kc::DecodeMlpSupports(fused)) return kc::RunDecodeMlp(fused, stream_);
  }
  VT_RETURN_IF_ERROR(Linear(normed_, w.gate_up, tokens, gate_up_));
  VT_RETURN_IF_ERROR(kc::SiluMul(gate_up_, tokens, inter, act_, stream_));
  return Linear(act_, w.down_proj, tokens, delta_);
}

// The whole forward for `tokens` staged rows, ending in bf16 logits and their argmax for the
// sampled rows. With `batch` null the rows are a decode batch (row i is sequence i's only token,
// every one sampled), as graphs capture it; otherwise each sampling sequence's last row is
// gathered first.
Status CudaModelRunner::EnqueueForward(const std::vector<ForwardSeq>* batch, const StagedStep& step) {
  const int tokens = step.tokens;
  // Dependent launches where they won their A/B (docs/BENCHMARKS.md): steps of up to four rows, whose
  // kernels are short enough for launch latency to show (+0.7-4.7% tok/s on an H200), and of up to
  // eight with the attention plain (Layer); at 64 rows nothing either way. A graph keeps what its
  // capture saw.
  // Not for tensor-parallel ranks yet: their steps put NCCL kernels and copies between ours, a pairing
  // no run has checked.
  kc::SetDependentLaunch(options_.tuning.dependent_launch && tokens <= kDependentLaunchMaxRows && !sharded());
  const ModelConfig& c = config_;
  const int h = int(c.hidden_size), vocab = int(c.vocab_size);
  // A tensor-parallel rank holds a slice of the vocabulary's rows (the others' ids give zero rows,
  // summed over the ranks); a runner on its own, all of them.
  const int first_id = sharded() ? int(options_.tp_shard.vocab_begin) : 0;
  const int rows_held = sharded() ? int(options_.tp_shard.vocab_count) : vocab;
  VT_RETURN_IF_ERROR(
      kc::EmbeddingLookup(token_ids_, tokens, weights_.embed_tokens, rows_held, h, residual_, stream_, first_id));
  VT_RETURN_IF_ERROR(SumOverRanks(residual_, size_t(tokens) * h));
  VT_RETURN_IF_ERROR(PlanAttention(step));
  for (int layer = 0; layer < int(c.num_layers); ++layer) VT_RETURN_IF_ERROR(Layer(layer, step));
  VT_RETURN_IF_ERROR(kc::AddRmsNorm(delta_, residual_, weights_.final_norm, tokens, h, c.rms_norm_eps, normed_, stream_));
  const uint16_t* head_input = normed_;
  int rows = tokens;
  if (batch != nullptr) {
    rows = 0;
    int first_token = 0;
    for (const ForwardSeq& s : *batch) {
      if (s.want_logits) {
        const int last = first_token + int(s.num_tokens) - 1;
        VT_RETURN_IF_ERROR(CudaCheck(cudaMemcpyAsync(last_rows_ + size_t(rows) * h, normed_ + size_t(last) * h,
                                                     size_t(h) * 2, cudaMemcpyDeviceToDevice, stream_),
                                     "gathering the sampled rows"));
        ++rows;
      }
      first_token += int(s.num_tokens);
    }
    head_input = last_rows_;
  }
  if (rows == 0) return Status::Ok();
  VT_RETURN_IF_ERROR(HeadLogits(head_input, rows));
  return kc::ArgmaxRowsBf16(logits_dev_, rows, vocab, argmax_dev_, argmax_ws_, stream_);
}

Status CudaModelRunner::HeadLogits(const uint16_t* x, int rows) {
  const int h = int(config_.hidden_size), vocab = int(config_.vocab_size);
  if (!sharded()) return gemm_->Linear(x, weights_.lm_head, rows, vocab, h, logits_dev_, stream_);
  // Rank r's [rows, slice] block lands at gathered_logits_ + r * rows * slice; each block becomes
  // columns [r * slice, (r + 1) * slice) of the [rows, vocab] logits (CheckTensorParallel: slices are equal).
  const int slice = int(options_.tp_shard.vocab_count), ranks = options_.tp_group->size();
  VT_RETURN_IF_ERROR(gemm_->Linear(x, weights_.lm_head, rows, slice, h, shard_logits_, stream_));
  VT_RETURN_IF_ERROR(options_.tp_group->AllGather(options_.tp_rank, shard_logits_, gathered_logits_,
                                                  size_t(rows) * slice, ncclBfloat16, stream_));
  for (int r = 0; r < ranks; ++r) {
    VT_RETURN_IF_ERROR(CudaCheck(
        cudaMemcpy2DAsync(logits_dev_ + size_t(r) * slice, size_t(vocab) * 2,
                          gathered_logits_ + size_t(r) * rows * slice, size_t(slice) * 2, size_t(slice) * 2,
                          size_t(rows), cudaMemcpyDeviceToDevice, stream_),
        "placing a rank's logits"));
  }
  return Status::Ok();
}

Status CudaModelRunner::UseRankDevice() const {
  if (!sharded()) return Status::Ok();
  return CudaCheck(cudaSetDevice(options_.tp_rank), "selecting a tensor-parallel rank's GPU");
}

Status CudaModelRunner::SumOverRanks(uint16_t* data, size_t count) {
  if (!sharded()) return Status::Ok();
  return options_.tp_group->AllReduceSum(options_.tp_rank, data, count, ncclBfloat16, stream_);
}

}  // namespace vt::cuda_backend
