#include "engine/backends/cuda/cuda_model_runner.h"

#include <string>

#include "engine/backends/cuda/cuda_runner.h"
#include "kernels/cuda/device_probe.h"

namespace vt {
namespace cuda_backend {

CudaModelRunner::~CudaModelRunner() {
  // A rank's stream, graphs and handle belong to its GPU, whichever thread ends it (nothing to do if not).
  static_cast<void>(UseRankDevice());
  if (stream_ != nullptr) cudaStreamSynchronize(stream_);
  for (cudaGraphExec_t g : graphs_) cudaGraphExecDestroy(g);
  gemm_.reset();  // its cuBLAS handle is bound to the stream
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
  if (masks_stream_ != nullptr) {
    cudaStreamSynchronize(masks_stream_);
    cudaStreamDestroy(masks_stream_);
  }
  if (masks_copied_ != nullptr) cudaEventDestroy(masks_copied_);
}

Status CudaModelRunner::CheckSupported() const {
  const ModelConfig& c = config_;
  if (c.head_dim != 64 && c.head_dim != 128 && c.head_dim != 256) {
    return Unimplemented("--backend cuda: head_dim " + std::to_string(c.head_dim) + " (the kernels cover 64, 128, 256)");
  }
  kc::DecodeShape shape{1, int(c.num_heads), int(c.num_kv_heads), int(c.head_dim), options_.block_size, 1};
  VT_RETURN_IF_ERROR(kc::CheckArmSupports(kc::DecodeArm::kBlock, shape));
  if (options_.block_size != 16 && options_.block_size != 32) {
    return Unimplemented("--backend cuda: KV block size " + std::to_string(options_.block_size) + " (16 or 32)");
  }
  return Status::Ok();
}

Status CudaModelRunner::Init(const ModelWeights& weights, const std::shared_ptr<const TensorStore>& store) {
  VT_RETURN_IF_ERROR(UseRankDevice());
  const kc::DeviceProbe probe = kc::ProbeDevice();
  if (!probe.available) return Unavailable("--backend cuda: " + probe.reason);
  VT_RETURN_IF_ERROR(CheckSupported());
  attention_overrides_ = options_.tuning.attention;
  tensor_core_prefill_ = options_.tuning.tensor_core_prefill;
  VT_RETURN_IF_ERROR(CudaCheck(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "creating a stream"));
  VT_RETURN_IF_ERROR(
      CudaCheck(cudaStreamCreateWithFlags(&masks_stream_, cudaStreamNonBlocking), "creating the masks' stream"));
  VT_RETURN_IF_ERROR(CudaCheck(cudaEventCreateWithFlags(&masks_copied_, cudaEventDisableTiming), "creating an event"));
  Result<kc::DenseGemm*> gemm = kc::DenseGemm::Create(options_.tuning.skinny_dense_gemm, options_.tuning.batch_dense_gemm);
  if (!gemm.ok()) return gemm.status();
  gemm_.reset(*gemm);
  num_sms_ = probe.multiprocessors;
  Result<DeviceWeights> uploaded = UploadWeights(config_, weights, store);
  if (!uploaded.ok()) return uploaded.status();
  weights_ = std::move(*uploaded);
  VT_RETURN_IF_ERROR(AllocateWorkspaces());
  VT_RETURN_IF_ERROR(AllocateKvPool());  // after the workspaces: it takes what they leave
  return options_.defer_graphs ? Status::Ok() : CaptureDecodeGraphs();
}

Status CudaModelRunner::CaptureDeferredGraphs() {
  VT_RETURN_IF_ERROR(UseRankDevice());
  return CaptureDecodeGraphs();
}

}  // namespace cuda_backend

Status CaptureDeferredGraphs(ModelRunner& cuda_runner) {
  return static_cast<cuda_backend::CudaModelRunner&>(cuda_runner).CaptureDeferredGraphs();
}

Result<std::unique_ptr<ModelRunner>> CreateCudaModelRunner(const ModelConfig& config, const ModelWeights& weights,
                                                           const std::shared_ptr<const TensorStore>& store,
                                                           const CudaRunnerOptions& options) {
  auto runner = std::make_unique<cuda_backend::CudaModelRunner>(config, options);
  VT_RETURN_IF_ERROR(runner->Init(weights, store));
  return std::unique_ptr<ModelRunner>(std::move(runner));
}

}  // namespace vt
