// `--backend cpu|cuda`: the one place that knows every backend. It builds the runner a loaded
// model runs on and the engine that drives it. The CPU backend is the reference and is always
// built; the CUDA backend exists in builds with CUDA and says so by name in builds without.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"
#include "engine/backends/runner_options.h"
#include "engine/exec/kv_sizing.h"
#include "engine/exec/llm_engine.h"
#include "engine/loader/model_source.h"

namespace vt {

struct BackendOptions {
  std::string backend = "cpu";
  // cuda: the fraction of the device's memory vt may hold (weights, KV pool, workspaces); the
  // KV pool takes what the weights and workspaces leave of it.
  double gpu_memory_utilization = 0.9;
  // cpu: the most host memory the KV pool may take.
  uint64_t host_kv_bytes = kDefaultHostKvBytes;
  RunnerOptions tuning;  // the parsed VT_* settings
  // Ranks of tensor parallelism (--tensor-parallel-size): the CPU backend runs them as threads of
  // this process (the sharded reference); the CUDA backend as one GPU per rank over NCCL.
  int tensor_parallel_size = 1;
};

Status ValidateBackendOptions(const BackendOptions& options);

// `demand` sizes the CPU pool (KvPoolBlocks within host_kv_bytes); a CUDA pool takes what device
// memory leaves. config's scheduler limits size the CUDA runner's buffers.
Result<std::unique_ptr<LlmEngine>> CreateEngine(LoadedModel loaded, const BackendOptions& options,
                                                EngineConfig config, const KvDemand& demand);

}  // namespace vt
