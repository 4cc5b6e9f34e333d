#include "engine/loader/model_source.h"

#include <chrono>

#include "engine/config/presets.h"
#include "engine/loader/checkpoint.h"
#include "engine/loader/dummy_weights.h"
#include "engine/loader/gptq_weights.h"
#include "engine/loader/load_progress.h"
#include "engine/loader/weight_binding.h"

namespace vt {

namespace {

constexpr const char* kPresetPrefix = "preset:";

bool IsPreset(const std::string& spec) { return spec.rfind(kPresetPrefix, 0) == 0; }

// Reads one byte per page so loading costs its I/O up front (and shows it),
// not in the middle of the first forward.
void Prefault(const TensorStore& store) {
  LoadProgress progress(static_cast<int64_t>(store.tensors().size()), store.TotalBytes());
  volatile uint8_t sink = 0;
  for (const auto& [name, t] : store.tensors()) {
    const auto* p = static_cast<const uint8_t*>(t.data);
    for (uint64_t i = 0; i < t.nbytes; i += 4096) sink = sink + p[i];
    progress.Advance(t.nbytes);
  }
  progress.Done();
}

kernels::cpu::DType DummyDType(const ModelConfig& c) {
  if (c.torch_dtype == "float16") return kernels::cpu::DType::kF16;
  if (c.torch_dtype == "float32") return kernels::cpu::DType::kF32;
  return kernels::cpu::DType::kBF16;
}

}  // namespace

Result<LoadFormat> ParseLoadFormat(const std::string& s) {
  if (s == "auto") return LoadFormat::kAuto;
  if (s == "dummy") return LoadFormat::kDummy;
  return InvalidArgument("unknown load format '" + s + "' (auto, dummy)");
}

Result<ModelConfig> LoadModelConfig(const std::string& spec) {
  if (IsPreset(spec)) return PresetConfig(spec.substr(std::string(kPresetPrefix).size()));
  return LoadHfConfig(spec);
}

Result<LoadedModel> LoadModel(const std::string& spec, LoadFormat format, kernels::cpu::ThreadPool& pool,
                              uint64_t dummy_seed, LoadTarget target) {
  const bool device = target == LoadTarget::kDevice;
  const auto start = std::chrono::steady_clock::now();
  LoadedModel m;
  Result<ModelConfig> c = LoadModelConfig(spec);
  if (!c.ok()) return c.status();
  m.config = *c;
  if (!IsPreset(spec)) {
    m.dir = spec;
  } else if (format != LoadFormat::kDummy) {
    return InvalidArgument("a preset has shapes but no weights: use --load-format dummy");
  }
  if (format == LoadFormat::kDummy) {
    m.weights = MakeDummyWeights(m.config, DummyDType(m.config), dummy_seed, pool,
                                 device ? DummyFill::kOnAcquire : DummyFill::kNow);
  } else {
    Result<std::shared_ptr<TensorStore>> store = OpenCheckpoint(spec);
    if (!store.ok()) return store.status();
    if (m.config.gptq) {
      VT_RETURN_IF_ERROR(device ? DeclareGptqProjections(m.config, store->get())
                                : DequantizeGptqProjections(m.config, store->get(), pool));
    }
    Result<ModelWeights> w = BindWeights(m.config, *store);
    if (!w.ok()) return w.status();
    // A device backend reads each page once while copying it, and drops it after.
    if (device) {
      w->residency = MappedFileResidency();
    } else {
      Prefault(**store);
    }
    m.weights = std::move(*w);
    m.store = *store;
  }
  m.load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return m;
}

}  // namespace vt
