// bf16 linear layers: y[M, N] = x[M, K] . W[N, K]^T with W in Hugging Face's nn.Linear layout,
// fp32 accumulation. Decode-sized calls (M <= 8, see skinny_gemm.h) run vt's weight-streaming
// kernel, the rest cuBLAS; VT_DENSE_GEMM=cublas sends every call to cuBLAS (for A/B runs).
// One handle per stream user; workspace set once, so the call is safe inside CUDA graph capture.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "base/status.h"

namespace vt::kernels::cuda {

class DenseGemm {
 public:
  // Creates the cuBLAS handle and its fixed workspace. `skinny`: small-M products take vt's
  // skinny kernel where it applies (else every product goes to cuBLAS).
  static Result<DenseGemm*> Create(bool skinny = true, size_t workspace_bytes = 32u << 20);
  ~DenseGemm();
  DenseGemm(const DenseGemm&) = delete;
  DenseGemm& operator=(const DenseGemm&) = delete;

  Status Linear(const uint16_t* x, const uint16_t* weight, int m, int n, int k, uint16_t* y, cudaStream_t stream);

 private:
  DenseGemm() = default;
  cublasHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
  size_t workspace_bytes_ = 0;
  bool skinny_ = true;  // decode-sized calls take the weight-streaming kernel
};

}  // namespace vt::kernels::cuda
