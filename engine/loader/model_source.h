// Resolves `--model DIR|preset:NAME` and `--load-format auto|dummy` into a
// config and bound weights.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/config/model_config.h"
#include "base/status.h"
#include "engine/loader/tensor_store.h"
#include "engine/loader/model_weights.h"
#include "kernels/cpu/thread_pool.h"

namespace vt {

enum class LoadFormat { kAuto, kDummy };

// Where the weights will be computed on. The host (the CPU backend) gets every matrix resident
// and GPTQ projections dequantised; a device backend copies each matrix once, so its load holds
// no dequantised copies, generates dummy matrices one at a time and lets each go after its copy
// (ModelWeights::residency), keeping host memory near one tensor rather than the model.
enum class LoadTarget { kHost, kDevice };

struct LoadedModel {
  ModelConfig config;
  ModelWeights weights;
  std::string dir;  // the model directory; empty for a preset
  // The checkpoint's tensors, GPTQ's raw int4 ones included (the CUDA backend reads those instead
  // of the dequantised copies); null for dummy weights.
  std::shared_ptr<const TensorStore> store;
  double load_seconds = 0.0;
};

Result<LoadFormat> ParseLoadFormat(const std::string& s);

// The config alone (a preset's or the checkpoint's config.json): what a caller checks before
// paying for the weights.
Result<ModelConfig> LoadModelConfig(const std::string& spec);

// dummy_seed only matters for --load-format dummy.
Result<LoadedModel> LoadModel(const std::string& spec, LoadFormat format, kernels::cpu::ThreadPool& pool,
                              uint64_t dummy_seed = 0, LoadTarget target = LoadTarget::kHost);

}  // namespace vt
