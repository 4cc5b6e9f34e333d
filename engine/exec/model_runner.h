// What the engine's step loop runs a batch on. The scheduler, the KV block bookkeeping and the
// sampler are backend-agnostic; a runner owns the weights as its backend stores them and the
// memory behind the KV block ids, and turns one scheduled batch into logits rows.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "engine/config/model_config.h"
#include "base/status.h"
#include "engine/exec/forward_batch.h"
#include "engine/sample/sampler.h"

namespace vt {

class ModelRunner {
 public:
  virtual ~ModelRunner() = default;

  virtual const ModelConfig& config() const = 0;
  virtual std::string backend() const = 0;  // "cpu" or "cuda"
  virtual uint64_t weight_bytes() const = 0;
  // Bytes of one K or V element in the pool (a decode step reads 2 x layers x kv_size of them
  // per context token).
  virtual int32_t kv_element_bytes() const = 0;

  // The KV pool the runner holds: block ids the engine hands out index into it.
  virtual int32_t num_kv_blocks() const = 0;
  virtual int32_t kv_block_size() const = 0;

  // The largest step a runner with fixed-size buffers was built for; the engine keeps its
  // scheduler within them.
  virtual int32_t max_num_seqs() const { return std::numeric_limits<int32_t>::max(); }
  virtual int64_t max_num_batched_tokens() const { return std::numeric_limits<int64_t>::max(); }
  virtual int64_t max_model_len() const { return std::numeric_limits<int64_t>::max(); }

  // Computes the batch, writing its K/V into the pool; `logits` receives one [vocab] row per
  // sequence with want_logits, in batch order.
  virtual Status Forward(const std::vector<ForwardSeq>& batch, std::vector<float>* logits) = 0;

  // The token each of those rows draws instead of the rows: for steps that want no logprobs (a
  // row's adjustment, RowDraw::adjust, and then its grammar mask, RowDraw::allowed, both filled by
  // `prepare_draws`, are applied here). A device backend adjusts and samples where the logits are
  // and sends only token ids to the host. The default runs the host sampler on Forward's rows.
  virtual Status ForwardSample(const std::vector<ForwardSeq>& batch, const std::vector<RowDraw>& draws,
                               const PrepareDraws& prepare_draws, std::vector<int32_t>* tokens) {
    std::vector<float> logits;
    VT_RETURN_IF_ERROR(Forward(batch, &logits));
    if (prepare_draws) prepare_draws();
    const int64_t vocab = config().vocab_size;
    if (logits.size() != draws.size() * static_cast<size_t>(vocab)) {
      return Internal("forward returned " + std::to_string(logits.size() / vocab) + " logits rows for " +
                      std::to_string(draws.size()) + " draws");
    }
    tokens->clear();
    for (size_t row = 0; row < draws.size(); ++row) {
      const RowDraw& d = draws[row];
      float* logits_row = logits.data() + row * vocab;
      if (d.adjust != nullptr) ApplyAdjustment(logits_row, *d.adjust);
      if (d.allowed != nullptr) MaskRow(logits_row, vocab, *d.allowed);
      tokens->push_back(Sample(logits_row, vocab, *d.params, d.seed, d.token_index).token);
    }
    return Status::Ok();
  }

  // Bytes per second the backend's memory copies at, read and write both counted (a
  // device-to-device copy on a GPU, one core's memcpy on the CPU): the ceiling a weights-bound
  // decode step is compared to, as in ../shared/anchors.
  virtual Result<double> MeasureCopyBandwidth() = 0;

  // Dense bf16 matrix-multiply FLOP/s the backend reaches on a large square product (cuBLAS on a
  // GPU): the denominator of a prefill's model FLOP utilisation. Unimplemented where the backend
  // has no such product to time (the CPU backend computes in fp32).
  virtual Result<double> MeasureMatmulPeak() = 0;
};

}  // namespace vt
