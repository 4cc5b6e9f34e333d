#include "engine/backends/backend_factory.h"

#include <utility>

#include "engine/backends/cpu/cpu_model_runner.h"
#include "engine/backends/cpu/cpu_tensor_parallel.h"
#include "engine/backends/cpu/kv_cache_storage.h"
#ifdef VT_HAVE_CUDA_RUNNER
#include "engine/backends/cuda/cuda_model_runner.h"
#include "engine/backends/cuda/cuda_tensor_parallel.h"
#endif

namespace vt {

Status ValidateBackendOptions(const BackendOptions& o) {
  if (o.backend != "cpu" && o.backend != "cuda") {
    return InvalidArgument("--backend " + o.backend + ": expected cpu or cuda");
  }
  if (!(o.gpu_memory_utilization > 0.0 && o.gpu_memory_utilization <= 1.0)) {
    return InvalidArgument("--gpu-memory-utilization " + std::to_string(o.gpu_memory_utilization) +
                           ": expected a fraction in (0, 1]");
  }
  if (o.tensor_parallel_size < 1 || o.tensor_parallel_size > 64) {
    return InvalidArgument("--tensor-parallel-size " + std::to_string(o.tensor_parallel_size) +
                           ": expected 1 to 64 ranks");
  }
#ifndef VT_HAVE_CUDA_RUNNER
  if (o.backend == "cuda") {
    return Unimplemented("--backend cuda: this vt was built without CUDA (VT_CUDA=OFF or no nvcc at build time)");
  }
#endif
  return Status::Ok();
}

Result<std::unique_ptr<LlmEngine>> CreateEngine(LoadedModel loaded, const BackendOptions& options,
                                                EngineConfig config, const KvDemand& demand) {
  VT_RETURN_IF_ERROR(ValidateBackendOptions(options));
  const int tp = options.tensor_parallel_size;
#ifdef VT_HAVE_CUDA_RUNNER
  if (options.backend == "cuda") {
    const SchedulerConfig& s = config.scheduler;
    CudaRunnerOptions cuda;
    cuda.gpu_memory_utilization = options.gpu_memory_utilization;
    cuda.block_size = config.block_size;
    cuda.max_num_seqs = s.max_num_seqs;
    cuda.max_model_len = ResolveMaxModelLen(s.max_model_len, loaded.config);
    cuda.max_num_batched_tokens = s.max_num_batched_tokens;
    cuda.tuning = options.tuning;
    Result<std::unique_ptr<ModelRunner>> runner =
        tp > 1 ? CreateCudaTensorParallelRunner(loaded, tp, cuda)
               : CreateCudaModelRunner(loaded.config, loaded.weights, loaded.store, cuda);
    if (!runner.ok()) return runner.status();
    return std::make_unique<LlmEngine>(std::move(*runner), std::move(config));
  }
#endif
  const uint64_t block_bytes = KvCacheStorage::BytesPerToken(loaded.config) * uint64_t(config.block_size);
  Result<int32_t> blocks = KvPoolBlocks(demand, block_bytes, options.host_kv_bytes);
  if (!blocks.ok()) return blocks.status();
  // A rank's block holds its share of the KV heads, so the whole model's block count fits the same memory.
  Result<std::unique_ptr<ModelRunner>> runner =
      tp > 1 ? CreateCpuTensorParallelRunner(std::move(loaded), tp, options.tuning.num_threads, *blocks,
                                             config.block_size)
             : CreateCpuModelRunner(std::move(loaded), options.tuning.num_threads, *blocks, config.block_size);
  if (!runner.ok()) return runner.status();
  return std::make_unique<LlmEngine>(std::move(*runner), std::move(config));
}

}  // namespace vt
