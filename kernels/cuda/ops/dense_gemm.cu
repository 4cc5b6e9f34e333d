#include "kernels/cuda/ops/dense_gemm.h"

#include "kernels/cuda/dependent_launch.h"
#include "kernels/cuda/ops/batch_decode_gemm.h"

namespace vt::kernels::cuda {

Result<DenseGemm*> DenseGemm::Create(bool skinny, bool batch, size_t workspace_bytes) {
  auto* g = new DenseGemm();
  g->skinny_ = skinny;
  g->batch_ = batch;
  if (cublasCreate(&g->handle_) != CUBLAS_STATUS_SUCCESS) {
    delete g;
    return Unavailable("cuBLAS could not be initialised (no GPU, or the library is missing)");
  }
  if (cudaMalloc(&g->workspace_, workspace_bytes) != cudaSuccess) {
    delete g;
    return Status(StatusCode::kResourceExhausted, "cuBLAS workspace: out of device memory");
  }
  g->workspace_bytes_ = workspace_bytes;
  return g;
}

DenseGemm::~DenseGemm() {
  if (handle_ != nullptr) cublasDestroy(handle_);
  if (workspace_ != nullptr) cudaFree(workspace_);
}

const char* DenseKernelName(DenseKernel kernel) {
  switch (kernel) {
    case DenseKernel::kSkinny: return "skinny";
    case DenseKernel::kBatch: return "batch";
    case DenseKernel::kCublas: break;
  }
  return "cublas";
}

DenseKernel DenseGemm::KernelFor(const uint16_t* x, const uint16_t* weight, int m, int n, int k,
                                 const uint16_t* y) const {
  if (skinny_ && SkinnyLinearSupports(x, weight, m, k, y)) return DenseKernel::kSkinny;
  if (batch_ && BatchLinearSupports(x, weight, m, n, k, y)) return DenseKernel::kBatch;
  return DenseKernel::kCublas;
}

bool DenseGemm::LoadsWeightsBeforeWait(const uint16_t* x, const uint16_t* weight, int m, int n, int k,
                                       const uint16_t* y) const {
  return DependentLaunchOn() && KernelFor(x, weight, m, n, k, y) == DenseKernel::kSkinny &&
         SkinnyLoadsWeightsBeforeWait(n, k);
}

Status DenseGemm::Linear(const uint16_t* x, const uint16_t* weight, int m, int n, int k, uint16_t* y,
                         cudaStream_t stream, SkinnyWeights weights) {
  switch (KernelFor(x, weight, m, n, k, y)) {
    case DenseKernel::kSkinny: return SkinnyLinear(x, weight, m, n, k, y, stream, weights);
    case DenseKernel::kBatch: return BatchLinear(x, weight, m, n, k, y, stream);
    case DenseKernel::kCublas: break;
  }
  const float alpha = 1.f, beta = 0.f;
  // Row-major y[m,n] = x[m,k] . W[n,k]^T is column-major y^T = W . x^T: W is read transposed.
  cublasStatus_t st = cublasSetStream(handle_, stream);
  if (st == CUBLAS_STATUS_SUCCESS) st = cublasSetWorkspace(handle_, workspace_, workspace_bytes_);
  if (st == CUBLAS_STATUS_SUCCESS) {
    st = cublasGemmEx(handle_, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, weight, CUDA_R_16BF, k, x, CUDA_R_16BF, k,
                      &beta, y, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  }
  if (st != CUBLAS_STATUS_SUCCESS) {
    return Internal("cuBLAS GEMM " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                    " failed with status " + std::to_string(static_cast<int>(st)));
  }
  return Status::Ok();
}

}  // namespace vt::kernels::cuda
