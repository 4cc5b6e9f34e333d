#include "engine/exec/backend_factory.h"

#include <utility>

#ifdef VT_HAVE_CUDA_RUNNER
#include "engine/exec/cuda/cuda_model_runner.h"
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
#ifndef VT_HAVE_CUDA_RUNNER
  if (o.backend == "cuda") {
    return Unimplemented("--backend cuda: this vt was built without CUDA (VT_CUDA=OFF or no nvcc at build time)");
  }
#endif
  return Status::Ok();
}

Result<std::unique_ptr<LlmEngine>> CreateEngine(LoadedModel loaded, const BackendOptions& options,
                                                EngineConfig config, kernels::cpu::ThreadPool& pool) {
  VT_RETURN_IF_ERROR(ValidateBackendOptions(options));
  if (config.scheduler.eos_token_ids.empty()) config.scheduler.eos_token_ids = loaded.config.eos_token_ids;
#ifdef VT_HAVE_CUDA_RUNNER
  if (options.backend == "cuda") {
    const EngineConfig resolved = ResolveEngineConfig(loaded.config, config);
    CudaRunnerOptions cuda;
    cuda.gpu_memory_utilization = options.gpu_memory_utilization;
    cuda.block_size = resolved.block_size;
    cuda.max_num_seqs = resolved.scheduler.max_num_seqs;
    cuda.max_model_len = resolved.scheduler.max_model_len;
    cuda.max_num_batched_tokens = resolved.scheduler.max_num_batched_tokens;
    Result<std::unique_ptr<ModelRunner>> runner = CreateCudaModelRunner(loaded.config, loaded.weights, loaded.store, cuda);
    if (!runner.ok()) return runner.status();
    return std::make_unique<LlmEngine>(std::move(*runner), std::move(config));
  }
#endif
  auto model = std::make_unique<DecoderModel>(std::move(loaded.config), std::move(loaded.weights), &pool);
  return std::make_unique<LlmEngine>(std::move(model), std::move(config));
}

}  // namespace vt
