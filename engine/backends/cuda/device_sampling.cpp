// The step entry points that end on the device: logits rows to the host (Forward), or tokens
// drawn where the logits are, with only their ids copied back (ForwardSample).
#include "engine/backends/cuda/cuda_runner.h"

#include <algorithm>

#include "kernels/bf16.h"

namespace vt::cuda_backend {

Status CudaModelRunner::Run(const std::vector<ForwardSeq>& batch, StagedStep* staged) {
  VT_RETURN_IF_ERROR(UseRankDevice());  // a tensor-parallel rank may be driven from any thread
  VT_RETURN_IF_ERROR(inputs_->Stage(batch, staged));
  if (staged->tokens == 0) return Status::Ok();
  Status launched = Enqueue(batch, *staged);
  // Work already queued may still read the pinned inputs: the next step must not overwrite them.
  if (!launched.ok()) cudaStreamSynchronize(stream_);
  return launched;
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
                                      const PrepareDraws& prepare_draws, std::vector<int32_t>* tokens) {
  StagedStep staged;
  VT_RETURN_IF_ERROR(Run(batch, &staged));
  // The forward is queued: the host plans the adjustments and computes the grammar masks while the
  // GPU runs it.
  if (prepare_draws) prepare_draws();
  if (size_t(staged.rows) != draws.size()) {
    cudaStreamSynchronize(stream_);
    return Internal("cuda forward: " + std::to_string(draws.size()) + " draws for " + std::to_string(staged.rows) +
                    " sampled rows");
  }
  // With any adjusted row the step draws from float32 rows, every row converted and the adjusted
  // ones changed (a row's token depends on its own row only); constrained rows are then masked
  // where the logits are, and all of them draw (greedy ones too: the forward's argmax saw neither).
  Status status;
  bool adjusted = false;
  if (Result<bool> a = AdjustRows(draws); a.ok()) {
    adjusted = *a;
  } else {
    status = a.status();
  }
  // The rows the mask and the draw read: the adjusted float32 copy, or the forward's bf16 logits.
  auto on_logits = [&](auto op) { return adjusted ? op(adjusted_logits_) : op(logits_dev_); };
  const size_t words = size_t((config_.vocab_size + 31) / 32);
  auto* mask_of_row = masks_host_.as<int32_t>();
  auto* masks = reinterpret_cast<uint32_t*>(mask_of_row + max_seqs_);
  int32_t masked = 0;
  for (size_t i = 0; i < draws.size(); ++i) {
    mask_of_row[i] = draws[i].allowed != nullptr ? masked++ : -1;
    if (draws[i].allowed == nullptr) continue;
    const std::vector<uint32_t>& bits = draws[i].allowed->words();
    uint32_t* to = masks + size_t(mask_of_row[i]) * words;
    const size_t n = std::min(words, bits.size());
    std::copy(bits.begin(), bits.begin() + std::ptrdiff_t(n), to);
    std::fill(to + n, to + words, 0u);
  }
  if (status.ok() && masked > 0) {
    auto* mask_of_row_dev = reinterpret_cast<int32_t*>(masks_dev_);
    // Beside the forward, which reads nothing of them; the previous step's masking ended with its
    // synchronisation, so the device buffer is free.
    status = CudaCheck(cudaMemcpyAsync(masks_dev_, mask_of_row, size_t(max_seqs_) * 4 + size_t(masked) * words * 4,
                                       cudaMemcpyHostToDevice, masks_stream_),
                       "copying grammar masks");
    if (status.ok()) status = CudaCheck(cudaEventRecord(masks_copied_, masks_stream_), "recording the masks' copy");
    if (status.ok()) status = CudaCheck(cudaStreamWaitEvent(stream_, masks_copied_, 0), "waiting for the masks");
    if (status.ok()) {
      const auto* masks_dev = reinterpret_cast<const uint32_t*>(mask_of_row_dev + max_seqs_);
      status = on_logits([&](auto* logits) {
        return kc::MaskRows(logits, staged.rows, int(config_.vocab_size), masks_dev, mask_of_row_dev, stream_);
      });
    }
  }
  // The forward ends in the rows' argmax; rows that do not sample greedily draw over the logits.
  bool all_greedy = masked == 0 && !adjusted;
  auto* params = sampling_host_.as<kc::RowSampling>();
  for (size_t i = 0; i < draws.size(); ++i) {
    const SamplingParams& p = *draws[i].params;
    params[i] = {p.temperature, p.top_k, p.top_p, p.min_p, draws[i].seed, draws[i].token_index};
    all_greedy = all_greedy && (p.temperature <= 0.0f || p.top_k == 1);
  }
  if (status.ok() && !all_greedy) {
    status = CudaCheck(cudaMemcpyAsync(sampling_dev_, params, draws.size() * sizeof(kc::RowSampling),
                                       cudaMemcpyHostToDevice, stream_),
                       "copying sampling parameters");
    if (status.ok()) {
      status = on_logits([&](const auto* logits) {
        return kc::SampleRows(logits, staged.rows, int(config_.vocab_size), sampling_dev_, argmax_dev_, stream_);
      });
    }
  }
  if (status.ok() && staged.rows > 0) {
    status = CudaCheck(cudaMemcpyAsync(argmax_host_.as<int32_t>(), argmax_dev_, size_t(staged.rows) * 4,
                                       cudaMemcpyDeviceToHost, stream_),
                       "copying sampled tokens");
  }
  const Status synced = CudaCheck(cudaStreamSynchronize(stream_), "running the forward");
  // The forward's stream may not have come to the wait: the next step must not overwrite a mask in flight.
  if (masked > 0 && (!status.ok() || !synced.ok())) cudaStreamSynchronize(masks_stream_);
  VT_RETURN_IF_ERROR(status);
  VT_RETURN_IF_ERROR(synced);
  tokens->assign(argmax_host_.as<int32_t>(), argmax_host_.as<int32_t>() + staged.rows);
  for (int32_t t : *tokens) {
    if (t < 0 || t >= config_.vocab_size) return Internal("cuda forward: drew token " + std::to_string(t));
  }
  return Status::Ok();
}

}  // namespace vt::cuda_backend
