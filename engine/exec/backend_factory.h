// `--backend cpu|cuda`: builds the runner a loaded model runs on and the engine that drives it.
// The CPU backend is the reference and is always built; the CUDA backend exists in builds with
// CUDA and says so by name in builds without.
#pragma once

#include <memory>
#include <string>

#include "engine/core/status.h"
#include "engine/exec/llm_engine.h"
#include "engine/loader/model_source.h"
#include "kernels/cpu/thread_pool.h"

namespace vt {

struct BackendOptions {
  std::string backend = "cpu";
  // cuda: the fraction of the device's memory vt may hold (weights, KV pool, workspaces); the
  // KV pool takes what the weights and workspaces leave of it.
  double gpu_memory_utilization = 0.9;
};

Status ValidateBackendOptions(const BackendOptions& options);

// `config` sizes the CPU pool (num_kv_blocks 0: ResolveEngineConfig's default); on CUDA the pool
// is sized from free device memory.
Result<std::unique_ptr<LlmEngine>> CreateEngine(LoadedModel loaded, const BackendOptions& options,
                                                EngineConfig config, kernels::cpu::ThreadPool& pool);

}  // namespace vt
