// bf16 linear layers: y[M, N] = x[M, K] . W[N, K]^T with W in Hugging Face's nn.Linear layout,
// fp32 accumulation. Calls of M <= 8 rows run vt's weight-streaming skinny kernel (skinny_gemm.h),
// the rest cuBLAS; VT_DENSE_GEMM=cublas sends the skinny calls to cuBLAS too, and
// VT_DENSE_GEMM_MID=batch sends 9 <= M <= 64 on sm_90 to batch_decode_gemm.h (for A/B runs).
// One handle per stream user; workspace set once, so the call is safe inside CUDA graph capture.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "base/status.h"
#include "kernels/cuda/ops/skinny_gemm.h"

namespace vt::kernels::cuda {

// The kernel a product runs on.
enum class DenseKernel { kSkinny, kBatch, kCublas };
const char* DenseKernelName(DenseKernel kernel);

class DenseGemm {
 public:
  // Creates the cuBLAS handle and its fixed workspace. `skinny` / `batch`: M <= 8 / 9 <= M <= 64
  // products take vt's kernel for them where it applies (else cuBLAS).
  static Result<DenseGemm*> Create(bool skinny = true, bool batch = true, size_t workspace_bytes = 32u << 20);
  ~DenseGemm();
  DenseGemm(const DenseGemm&) = delete;
  DenseGemm& operator=(const DenseGemm&) = delete;

  // `weights`: where the skinny kernel, if it runs the product, issues its weight loads (skinny_gemm.h).
  Status Linear(const uint16_t* x, const uint16_t* weight, int m, int n, int k, uint16_t* y, cudaStream_t stream,
                SkinnyWeights weights = SkinnyWeights::kAfterWait);

  // The kernel Linear runs this product on.
  DenseKernel KernelFor(const uint16_t* x, const uint16_t* weight, int m, int n, int k, const uint16_t* y) const;

  // Whether Linear, asked for SkinnyWeights::kBeforeWait, issues this product's weights before its wait
  // on the calling thread's dependent-launch switch.
  bool LoadsWeightsBeforeWait(const uint16_t* x, const uint16_t* weight, int m, int n, int k,
                              const uint16_t* y) const;

 private:
  DenseGemm() = default;
  cublasHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
  size_t workspace_bytes_ = 0;
  bool skinny_ = true;  // M <= 8 calls take the skinny weight-streaming kernel
  bool batch_ = true;   // 9 <= M <= 64 calls take the batch-decode kernel
};

}  // namespace vt::kernels::cuda
