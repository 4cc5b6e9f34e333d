#include "engine/backends/cpu/cpu_model_runner.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>

namespace vt {

CpuModelRunner::CpuModelRunner(std::unique_ptr<DecoderModel> model, int32_t num_kv_blocks, int32_t block_size)
    : CpuModelRunner(nullptr, std::move(model), num_kv_blocks, block_size) {}

CpuModelRunner::CpuModelRunner(std::unique_ptr<kernels::cpu::ThreadPool> pool, std::unique_ptr<DecoderModel> model,
                               int32_t num_kv_blocks, int32_t block_size)
    : pool_(std::move(pool)),
      model_(std::move(model)),
      num_kv_blocks_(num_kv_blocks),
      block_size_(block_size),
      storage_(model_->config(), num_kv_blocks, block_size) {}

Status CpuModelRunner::Forward(const std::vector<ForwardSeq>& batch, std::vector<float>* logits) {
  return model_->Forward(batch, &storage_, logits);
}

Result<double> CpuModelRunner::MeasureCopyBandwidth() {
  // 256 MiB is far beyond any last-level cache, so this times DRAM; the best of five copies
  // after a warm-up one (which also faults the pages in) is the sustained rate.
  constexpr size_t kBytes = 256u << 20;
  std::unique_ptr<char[]> src(new char[kBytes]), dst(new char[kBytes]);
  std::memset(src.get(), 1, kBytes);
  std::memset(dst.get(), 0, kBytes);
  double best = 0.0;
  for (int i = 0; i < 6; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    std::memcpy(dst.get(), src.get(), kBytes);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // Read and write both count, as in the anchors' copy bandwidth (../shared/anchors): a
    // weights-bound step reads every weight once, and streaming reads run at about this rate.
    if (i > 0 && s > 0) best = std::max(best, 2.0 * kBytes / s);
  }
  if (dst[kBytes - 1] != 1) return Internal("memcpy bandwidth probe: the copy did not land");
  return best;
}

Result<double> CpuModelRunner::MeasureMatmulPeak() {
  return Unimplemented("the CPU backend has no bf16 matrix product to time; prefill MFU is a CUDA measure");
}

Result<std::unique_ptr<ModelRunner>> CreateCpuModelRunner(LoadedModel loaded, int num_threads, int32_t num_kv_blocks,
                                                          int32_t block_size) {
  std::unique_ptr<kernels::cpu::ThreadPool> owned;
  if (num_threads > 0) owned = std::make_unique<kernels::cpu::ThreadPool>(num_threads);
  kernels::cpu::ThreadPool* pool = owned ? owned.get() : &kernels::cpu::DefaultThreadPool();
  auto model = std::make_unique<DecoderModel>(std::move(loaded.config), std::move(loaded.weights), pool);
  return std::unique_ptr<ModelRunner>(
      std::make_unique<CpuModelRunner>(std::move(owned), std::move(model), num_kv_blocks, block_size));
}

}  // namespace vt
