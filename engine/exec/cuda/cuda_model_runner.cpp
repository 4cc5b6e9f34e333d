#include "engine/exec/cuda/cuda_model_runner.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/exec/cuda/device_buffer.h"
#include "engine/exec/cuda/device_weights.h"
#include "engine/exec/step_inputs.h"
#include "kernels/bf16.h"
#include "kernels/device_alignment.h"
#include "kernels/cpu/rope.h"
#include "kernels/cuda/attention/decode_plan.h"
#include "kernels/cuda/attention/paged_decode.h"
#include "kernels/cuda/device_probe.h"
#include "kernels/cuda/ops/dense_gemm.h"
#include "kernels/cuda/ops/forward_ops.h"
#include "kernels/cuda/ops/prefill_attention.h"
#include "kernels/cuda/ops/prefill_tc.h"
#include "kernels/cuda/ops/qkv_prepare.h"
#include "kernels/cuda/ops/sampling.h"
#include "kernels/cuda/w4a16/w4a16_gemm.h"

namespace vt {
namespace {

namespace kc = kernels::cuda;

// Carves one allocation into aligned pieces: sizes are added first, pointers taken after.
class Arena {
 public:
  size_t Reserve(size_t bytes) {
    const size_t at = size_;
    size_ += kernels::AlignToDevice(bytes);
    return at;
  }
  size_t size() const { return size_; }

 private:
  size_t size_ = 0;
};

// Pinned host memory for the per-step inputs and the logits, so copies are truly asynchronous.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer() {
    if (ptr_ != nullptr) cudaFreeHost(ptr_);
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  Status Allocate(size_t bytes) { return CudaCheck(cudaMallocHost(&ptr_, bytes), "allocating pinned host memory"); }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }

 private:
  void* ptr_ = nullptr;
};

class CudaModelRunner final : public ModelRunner {
 public:
  CudaModelRunner(ModelConfig config, CudaRunnerOptions options) : config_(std::move(config)), options_(options) {}
  ~CudaModelRunner() override {
    if (stream_ != nullptr) cudaStreamSynchronize(stream_);
    for (cudaGraphExec_t g : graphs_) cudaGraphExecDestroy(g);
    gemm_.reset();  // its cuBLAS handle is bound to the stream
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }

  Status Init(const ModelWeights& weights, const std::shared_ptr<const TensorStore>& store);

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
                       std::vector<int32_t>* tokens) override;
  Result<double> MeasureCopyBandwidth() override;

 private:
  Status CheckSupported() const;
  Status AllocateWorkspaces();
  Status AllocateKvPool();
  Status CaptureDecodeGraphs();
  Status CopyInputs(int table_rows);
  Status Run(const std::vector<ForwardSeq>& batch, StagedStep* staged);
  Status Enqueue(const std::vector<ForwardSeq>& batch, const StagedStep& staged);
  Status EnqueueForward(const std::vector<ForwardSeq>* batch, const StagedStep& step);
  Status Layer(int layer, const StagedStep& step);
  Status Attention(int layer, const StagedStep& step);
  Status DecodeQueryAttention(int layer, const StagedStep& step);
  kc::PrefillAttentionParams AttentionParams(int layer, const StagedStep& step, int first) const;
  Status Linear(const uint16_t* x, const DeviceMatrix& w, int m, uint16_t* y);
  size_t W4A16WorkspaceBytes() const;
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
  DeviceWeights weights_;

  // Capacities the buffers are sized for.
  int max_tokens_ = 0, max_seqs_ = 0, max_blocks_per_seq_ = 0;

  // Activations, per-step inputs and the attention workspace: one allocation.
  DeviceBuffer work_;
  uint16_t *residual_ = nullptr, *normed_ = nullptr, *qkv_ = nullptr, *q_ = nullptr, *attn_ = nullptr,
           *delta_ = nullptr, *gate_up_ = nullptr, *act_ = nullptr, *last_rows_ = nullptr, *logits_dev_ = nullptr;
  float* inv_freq_ = nullptr;
  void* attention_ws_ = nullptr;
  size_t attention_ws_bytes_ = 0;
  float* w4a16_ws_ = nullptr;  // split-K partial sums of the int4 GEMMs
  size_t w4a16_ws_bytes_ = 0;
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
  PinnedBuffer argmax_host_;
  kc::RowSampling* sampling_dev_ = nullptr;  // [max_seqs]
  PinnedBuffer sampling_host_;

  // Decode steps replay a graph captured per batch-size bucket (powers of two up to max_seqs);
  // VT_CUDA_GRAPHS=0 runs every step eagerly, for A/B and for debugging.
  std::vector<int> graph_buckets_;
  std::vector<cudaGraphExec_t> graphs_;

  DeviceBuffer kv_;
  size_t layer_kv_elems_ = 0;  // elements of one layer's K (or V) pool
  int32_t num_blocks_ = 0;
};

Status CudaModelRunner::CheckSupported() const {
  const ModelConfig& c = config_;
  if (c.head_dim != 64 && c.head_dim != 128 && c.head_dim != 256) {
    return Unimplemented("--backend cuda: head_dim " + std::to_string(c.head_dim) + " (the kernels cover 64, 128, 256)");
  }
  kc::DecodeShape shape{1, int(c.num_heads), int(c.num_kv_heads), int(c.head_dim), options_.block_size, 1};
  VT_RETURN_IF_ERROR(kc::CheckArmSupports(kc::DecodeArm::kBlock, shape));
  if (options_.block_size != 16 && options_.block_size != 32) {
    return Unimplemented("--backend cuda: KV block size " + std::to_string(options_.block_size) + " (16 or 32)");
  }
  return Status::Ok();
}

Status CudaModelRunner::Init(const ModelWeights& weights, const std::shared_ptr<const TensorStore>& store) {
  const kc::DeviceProbe probe = kc::ProbeDevice();
  if (!probe.available) return Unavailable("--backend cuda: " + probe.reason);
  VT_RETURN_IF_ERROR(CheckSupported());
  Result<kc::DecodeOverrides> overrides = kc::DecodeOverridesFromEnvironment();
  if (!overrides.ok()) return overrides.status();
  attention_overrides_ = *overrides;
  const char* prefill = std::getenv("VT_ATTN_PREFILL");
  const std::string prefill_arm = prefill != nullptr ? prefill : "";
  if (prefill_arm != "" && prefill_arm != "decode" && prefill_arm != "tc") {
    return InvalidArgument("VT_ATTN_PREFILL=" + prefill_arm + ": expected decode or tc");
  }
  tensor_core_prefill_ = prefill_arm != "decode";
  VT_RETURN_IF_ERROR(CudaCheck(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "creating a stream"));
  Result<kc::DenseGemm*> gemm = kc::DenseGemm::Create();
  if (!gemm.ok()) return gemm.status();
  gemm_.reset(*gemm);
  num_sms_ = probe.multiprocessors;
  Result<DeviceWeights> uploaded = UploadWeights(config_, weights, store);
  if (!uploaded.ok()) return uploaded.status();
  weights_ = std::move(*uploaded);
  VT_RETURN_IF_ERROR(AllocateWorkspaces());
  VT_RETURN_IF_ERROR(AllocateKvPool());  // after the workspaces: it takes what they leave
  return CaptureDecodeGraphs();
}

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
               sampling_at = a.Reserve(size_t(max_seqs_) * sizeof(kc::RowSampling));
  w4a16_ws_bytes_ = W4A16WorkspaceBytes();
  const size_t w4a16_at = a.Reserve(w4a16_ws_bytes_);
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
  inv_freq_ = reinterpret_cast<float*>(base + freq_at);
  attention_ws_ = base + attention_at;
  argmax_dev_ = reinterpret_cast<int32_t*>(base + argmax_at);
  sampling_dev_ = reinterpret_cast<kc::RowSampling*>(base + sampling_at);
  w4a16_ws_ = reinterpret_cast<float*>(base + w4a16_at);
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
  const int64_t needed = max_blocks_per_seq_;  // one sequence of max_model_len
  const int64_t blocks = budget > 0 ? std::min<int64_t>(int64_t(budget / double(block_bytes)), INT32_MAX) : 0;
  auto mib = [](double b) { return std::to_string(int64_t(b / (1 << 20))); };
  if (blocks < needed) {
    return ResourceExhausted("--backend cuda: the KV cache gets " + mib(std::max(budget, 0.0)) + " MiB of the " +
                             mib(allowed) + " MiB that --gpu-memory-utilization " +
                             std::to_string(options_.gpu_memory_utilization) + " allows (weights " +
                             mib(double(weights_.bytes)) + " MiB, device total " + mib(double(total_bytes)) +
                             " MiB); one sequence of " + std::to_string(options_.max_model_len) + " tokens needs " +
                             mib(double(needed) * double(block_bytes)) +
                             " MiB: raise --gpu-memory-utilization or lower --max-model-len");
  }
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

// The block tables come last in the inputs: only the rows this step uses are copied.
Status CudaModelRunner::CopyInputs(int table_rows) {
  return CudaCheck(cudaMemcpyAsync(inputs_dev_, inputs_host_.as<void>(), inputs_->BytesThroughTableRow(table_rows),
                                   cudaMemcpyHostToDevice, stream_),
                   "copying step inputs");
}

int CudaModelRunner::GraphBucket(int tokens) const {
  for (size_t i = 0; i < graph_buckets_.size(); ++i) {
    if (graph_buckets_[i] >= tokens) return int(i);
  }
  return -1;
}

Status CudaModelRunner::Linear(const uint16_t* x, const DeviceMatrix& w, int m, uint16_t* y) {
  if (w.dense != nullptr) return gemm_->Linear(x, w.dense, m, w.n, w.k, y, stream_);
  kc::W4A16Problem p;
  p.x = x;
  p.packed = w.packed;
  p.scales = w.scales;
  p.y = y;
  p.m = m;
  p.k = w.k;
  p.n = w.n;
  p.group_size = w.group_size;
  const kc::W4A16Split split = kc::ChooseW4A16Split(m, w.k, w.n, num_sms_);
  if (kc::W4A16WorkspaceBytes(m, w.n, split) > w4a16_ws_bytes_) {
    return Internal("cuda forward: the W4A16 split needs more workspace than was sized at start-up");
  }
  return kc::RunW4A16Gemm(p, split, w4a16_ws_, stream_);
}

// The largest split-K workspace any int4 GEMM of any step size can ask for (each distinct shape once).
size_t CudaModelRunner::W4A16WorkspaceBytes() const {
  std::set<std::pair<int, int>> shapes;
  for (const DeviceLayer& l : weights_.layers) {
    for (const DeviceMatrix* w : {&l.qkv, &l.o_proj, &l.gate_up, &l.down_proj}) {
      if (w->packed != nullptr) shapes.insert({w->k, w->n});
    }
  }
  size_t most = 0;
  for (const auto& [k, n] : shapes) {
    for (int m = 1; m <= max_tokens_; ++m) {
      most = std::max(most, kc::W4A16WorkspaceBytes(m, n, kc::ChooseW4A16Split(m, k, n, num_sms_)));
    }
  }
  return most;
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

// A decode batch (row i is sequence i's one new token) calls the decode arms on the block tables
// as they are. Any other step treats every token as a query over its own sequence's pages up to
// its position, which is the same decode call over the tokens with their tables gathered; by
// default (VT_ATTN_PREFILL unset or tc) the prefill tokens go to the tensor-core kernel instead,
// after the step's leading one-token sequences (its decodes) have gone the decode way.
Status CudaModelRunner::Attention(int layer, const StagedStep& step) {
  if (step.decode_only || !tensor_core_prefill_) return DecodeQueryAttention(layer, step);
  const int decodes = step.leading_single_tokens;
  if (decodes > 0) {
    StagedStep head = step;
    head.tokens = decodes;
    VT_RETURN_IF_ERROR(DecodeQueryAttention(layer, head));
  }
  if (decodes == step.tokens) return Status::Ok();
  return kc::RunPrefillAttentionTensorCore(AttentionParams(layer, step, decodes), attention_ws_, attention_ws_bytes_,
                                           stream_);
}

// Tokens [0, step.tokens) as decode queries (see Attention).
Status CudaModelRunner::DecodeQueryAttention(int layer, const StagedStep& step) {
  const kc::PrefillAttentionParams att = AttentionParams(layer, step, 0);
  const kc::DecodeShape shape{att.tokens, att.num_q_heads, att.num_kv_heads, att.head_dim, att.block_size,
                              att.max_context};
  Result<kc::DecodePlan> plan = kc::PlanDecode(shape, attention_overrides_);
  if (!plan.ok()) return plan.status();
  const size_t needed =
      step.decode_only ? kc::DecodeWorkspaceBytes(shape, *plan) : kc::PrefillWorkspaceBytes(att, *plan);
  if (needed > attention_ws_bytes_) {
    return Internal("cuda forward: the attention plan needs more workspace than was sized at start-up");
  }
  if (step.decode_only) {
    return kc::RunPagedDecode(kc::AsDecodeParams(att, block_tables_, context_lens_), *plan, attention_ws_, stream_);
  }
  return kc::RunPrefillAttention(att, *plan, attention_ws_, stream_);
}

Status CudaModelRunner::Layer(int layer, const StagedStep& step) {
  const int tokens = step.tokens;
  const ModelConfig& c = config_;
  const DeviceLayer& w = weights_.layers[size_t(layer)];
  const int h = int(c.hidden_size), inter = int(c.intermediate_size);
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

  VT_RETURN_IF_ERROR(Attention(layer, step));

  VT_RETURN_IF_ERROR(Linear(attn_, w.o_proj, tokens, delta_));
  VT_RETURN_IF_ERROR(kc::AddRmsNorm(delta_, residual_, w.post_attention_norm, tokens, h, eps, normed_, stream_));
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
  const ModelConfig& c = config_;
  const int h = int(c.hidden_size), vocab = int(c.vocab_size);
  VT_RETURN_IF_ERROR(kc::EmbeddingLookup(token_ids_, tokens, weights_.embed_tokens, vocab, h, residual_, stream_));
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
  VT_RETURN_IF_ERROR(gemm_->Linear(head_input, weights_.lm_head, rows, vocab, h, logits_dev_, stream_));
  return kc::ArgmaxRowsBf16(logits_dev_, rows, vocab, argmax_dev_, stream_);
}

Status CudaModelRunner::CaptureDecodeGraphs() {
  const char* setting = std::getenv("VT_CUDA_GRAPHS");
  if (setting != nullptr && std::string(setting) == "0") return Status::Ok();
  if (setting != nullptr && *setting != '\0' && std::string(setting) != "1") {
    return InvalidArgument(std::string("VT_CUDA_GRAPHS=") + setting + ": expected 0 or 1");
  }
  for (int b = 1; b < max_seqs_; b *= 2) graph_buckets_.push_back(b);
  graph_buckets_.push_back(max_seqs_);
  // Captured with the longest context the runner serves: the attention plan (split chunks
  // included) is then the same for every step the graph replays.
  const int max_context = int(options_.max_model_len);
  for (int bucket : graph_buckets_) {
    VT_RETURN_IF_ERROR(inputs_->Pad(0, bucket));
    VT_RETURN_IF_ERROR(CopyInputs(bucket));
    // One eager run first: modules load and cuBLAS picks its kernels outside the capture.
    VT_RETURN_IF_ERROR(EnqueueForward(nullptr, StagedStep{bucket, bucket, max_context, /*decode_only=*/true, bucket}));
    VT_RETURN_IF_ERROR(CudaCheck(cudaStreamSynchronize(stream_), "warming up a decode graph"));
    VT_RETURN_IF_ERROR(CudaCheck(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal),
                                 "capturing a decode graph"));
    const Status enqueued = EnqueueForward(nullptr, StagedStep{bucket, bucket, max_context, /*decode_only=*/true, bucket});
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(stream_, &graph);
    if (!enqueued.ok() || ended != cudaSuccess) {
      if (graph != nullptr) cudaGraphDestroy(graph);
      VT_RETURN_IF_ERROR(enqueued);
      return CudaCheck(ended, "capturing a decode graph");
    }
    cudaGraphExec_t exec = nullptr;
    const cudaError_t instantiated = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    VT_RETURN_IF_ERROR(CudaCheck(instantiated, "instantiating a decode graph"));
    graphs_.push_back(exec);
  }
  return CudaCheck(cudaStreamSynchronize(stream_), "capturing decode graphs");
}

Status CudaModelRunner::Run(const std::vector<ForwardSeq>& batch, StagedStep* staged) {
  VT_RETURN_IF_ERROR(inputs_->Stage(batch, staged));
  if (staged->tokens == 0) return Status::Ok();
  Status launched = Enqueue(batch, *staged);
  // Work already queued may still read the pinned inputs: the next step must not overwrite them.
  if (!launched.ok()) cudaStreamSynchronize(stream_);
  return launched;
}

Status CudaModelRunner::Enqueue(const std::vector<ForwardSeq>& batch, const StagedStep& staged) {
  const int bucket = staged.decode_only ? GraphBucket(staged.tokens) : -1;
  if (bucket >= 0 && size_t(bucket) < graphs_.size()) {
    const int padded = graph_buckets_[size_t(bucket)];
    VT_RETURN_IF_ERROR(inputs_->Pad(staged.tokens, padded));
    VT_RETURN_IF_ERROR(CopyInputs(padded));
    return CudaCheck(cudaGraphLaunch(graphs_[size_t(bucket)], stream_), "replaying a decode graph");
  }
  VT_RETURN_IF_ERROR(CopyInputs(int(batch.size())));
  return EnqueueForward(&batch, staged);
}

Status CudaModelRunner::Forward(const std::vector<ForwardSeq>& batch, std::vector<float>* logits) {
  StagedStep staged;
  VT_RETURN_IF_ERROR(Run(batch, &staged));
  const size_t vocab = size_t(config_.vocab_size), n = size_t(staged.rows) * vocab;
  if (n > 0) {
    VT_RETURN_IF_ERROR(CudaCheck(
        cudaMemcpyAsync(logits_host_.as<uint16_t>(), logits_dev_, n * 2, cudaMemcpyDeviceToHost, stream_),
        "copying logits"));
  }
  VT_RETURN_IF_ERROR(CudaCheck(cudaStreamSynchronize(stream_), "running the forward"));
  logits->resize(n);
  const uint16_t* bits = logits_host_.as<uint16_t>();
  for (size_t i = 0; i < n; ++i) (*logits)[i] = Bf16ToFloat(bf16{bits[i]});
  return Status::Ok();
}

Status CudaModelRunner::ForwardSample(const std::vector<ForwardSeq>& batch, const std::vector<RowDraw>& draws,
                                      std::vector<int32_t>* tokens) {
  StagedStep staged;
  VT_RETURN_IF_ERROR(Run(batch, &staged));
  if (size_t(staged.rows) != draws.size()) {
    cudaStreamSynchronize(stream_);
    return Internal("cuda forward: " + std::to_string(draws.size()) + " draws for " + std::to_string(staged.rows) +
                    " sampled rows");
  }
  // The forward ends in the rows' argmax; rows that do not sample greedily draw over the logits.
  bool all_greedy = true;
  auto* params = sampling_host_.as<kc::RowSampling>();
  for (size_t i = 0; i < draws.size(); ++i) {
    const SamplingParams& p = *draws[i].params;
    params[i] = {p.temperature, p.top_k, p.top_p, p.min_p, draws[i].seed, draws[i].token_index};
    all_greedy = all_greedy && (p.temperature <= 0.0f || p.top_k == 1);
  }
  Status status;
  if (!all_greedy) {
    status = CudaCheck(cudaMemcpyAsync(sampling_dev_, params, draws.size() * sizeof(kc::RowSampling),
                                       cudaMemcpyHostToDevice, stream_),
                       "copying sampling parameters");
    if (status.ok()) {
      status = kc::SampleRows(logits_dev_, staged.rows, int(config_.vocab_size), sampling_dev_, argmax_dev_, stream_);
    }
  }
  if (status.ok() && staged.rows > 0) {
    status = CudaCheck(cudaMemcpyAsync(argmax_host_.as<int32_t>(), argmax_dev_, size_t(staged.rows) * 4,
                                       cudaMemcpyDeviceToHost, stream_),
                       "copying sampled tokens");
  }
  const Status synced = CudaCheck(cudaStreamSynchronize(stream_), "running the forward");
  VT_RETURN_IF_ERROR(status);
  VT_RETURN_IF_ERROR(synced);
  tokens->assign(argmax_host_.as<int32_t>(), argmax_host_.as<int32_t>() + staged.rows);
  for (int32_t t : *tokens) {
    if (t < 0 || t >= config_.vocab_size) return Internal("cuda forward: drew token " + std::to_string(t));
  }
  return Status::Ok();
}

Result<double> CudaModelRunner::MeasureCopyBandwidth() {
  // 256 MiB each way: four times the 60 MiB L2, so this is HBM, and within the headroom the KV
  // pool leaves. Best of five after a warm-up.
  constexpr size_t kBytes = 256u << 20;
  Result<DeviceBuffer> src = DeviceBuffer::Allocate(kBytes, "the bandwidth probe");
  if (!src.ok()) return src.status();
  Result<DeviceBuffer> dst = DeviceBuffer::Allocate(kBytes, "the bandwidth probe");
  if (!dst.ok()) return dst.status();
  cudaEvent_t start, stop;
  VT_RETURN_IF_ERROR(CudaCheck(cudaEventCreate(&start), "creating an event"));
  if (Status s = CudaCheck(cudaEventCreate(&stop), "creating an event"); !s.ok()) {
    cudaEventDestroy(start);
    return s;
  }
  double best = 0.0;
  Status status;
  for (int i = 0; i < 6 && status.ok(); ++i) {
    cudaEventRecord(start, stream_);
    cudaMemcpyAsync(dst->as<void>(), src->as<void>(), kBytes, cudaMemcpyDeviceToDevice, stream_);
    cudaEventRecord(stop, stream_);
    status = CudaCheck(cudaEventSynchronize(stop), "timing a device copy");
    float ms = 0.f;
    if (status.ok()) cudaEventElapsedTime(&ms, start, stop);
    // Read and write both count, as in ../shared/anchors.
    if (i > 0 && ms > 0.f) best = std::max(best, 2.0 * double(kBytes) / (ms / 1e3));
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (!status.ok()) return status;
  return best;
}

}  // namespace

Result<std::unique_ptr<ModelRunner>> CreateCudaModelRunner(const ModelConfig& config, const ModelWeights& weights,
                                                           const std::shared_ptr<const TensorStore>& store,
                                                           const CudaRunnerOptions& options) {
  auto runner = std::make_unique<CudaModelRunner>(config, options);
  VT_RETURN_IF_ERROR(runner->Init(weights, store));
  return std::unique_ptr<ModelRunner>(std::move(runner));
}

}  // namespace vt
