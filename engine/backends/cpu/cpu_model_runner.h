// The CPU reference backend: the float32 DecoderModel over a float32 paged KV pool, on a thread
// pool the runner owns (or the process-wide one).
#pragma once

#include <memory>

#include "engine/backends/cpu/decoder_model.h"
#include "engine/backends/cpu/kv_cache_storage.h"
#include "engine/exec/model_runner.h"
#include "engine/loader/model_source.h"
#include "kernels/cpu/thread_pool.h"

namespace vt {

class CpuModelRunner final : public ModelRunner {
 public:
  // `model` computes on a pool its caller keeps alive.
  CpuModelRunner(std::unique_ptr<DecoderModel> model, int32_t num_kv_blocks, int32_t block_size);
  // As above, with the pool `model` computes on owned by the runner.
  CpuModelRunner(std::unique_ptr<kernels::cpu::ThreadPool> pool, std::unique_ptr<DecoderModel> model,
                 int32_t num_kv_blocks, int32_t block_size);

  const ModelConfig& config() const override { return model_->config(); }
  std::string backend() const override { return "cpu"; }
  uint64_t weight_bytes() const override { return model_->weights().weight_bytes; }
  int32_t kv_element_bytes() const override { return sizeof(float); }
  int32_t num_kv_blocks() const override { return num_kv_blocks_; }
  int32_t kv_block_size() const override { return block_size_; }
  Status Forward(const std::vector<ForwardSeq>& batch, std::vector<float>* logits) override;
  Result<double> MeasureCopyBandwidth() override;
  Result<double> MeasureMatmulPeak() override;

 private:
  std::unique_ptr<kernels::cpu::ThreadPool> pool_;  // null when the caller owns the pool
  std::unique_ptr<DecoderModel> model_;
  int32_t num_kv_blocks_, block_size_;
  KvCacheStorage storage_;
};

// The runner for `loaded` on num_threads threads (0: the process-wide pool, one per hardware
// thread), with a pool of num_kv_blocks blocks.
Result<std::unique_ptr<ModelRunner>> CreateCpuModelRunner(LoadedModel loaded, int num_threads, int32_t num_kv_blocks,
                                                          int32_t block_size);

}  // namespace vt
