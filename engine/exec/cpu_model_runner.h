// The CPU reference backend: the float32 DecoderModel over a float32 paged KV pool.
#pragma once

#include <memory>

#include "engine/exec/model_runner.h"
#include "engine/kv/kv_cache_storage.h"

namespace vt {

class CpuModelRunner final : public ModelRunner {
 public:
  CpuModelRunner(std::unique_ptr<DecoderModel> model, int32_t num_kv_blocks, int32_t block_size);

  const ModelConfig& config() const override { return model_->config(); }
  std::string backend() const override { return "cpu"; }
  uint64_t weight_bytes() const override { return model_->weights().weight_bytes; }
  int32_t kv_element_bytes() const override { return sizeof(float); }
  int32_t num_kv_blocks() const override { return num_kv_blocks_; }
  int32_t kv_block_size() const override { return block_size_; }
  Status Forward(const std::vector<ForwardSeq>& batch, std::vector<float>* logits) override;
  Result<double> MeasureCopyBandwidth() override;

 private:
  std::unique_ptr<DecoderModel> model_;
  int32_t num_kv_blocks_, block_size_;
  KvCacheStorage storage_;
};

}  // namespace vt
