// Warming the L2 with the weights of the next linear layer of a decode step. At small batches a
// step is a chain of weight streams (the GEMMs) with short kernels between them (norms, RoPE, the
// attention, SiLU·mul) during which the memory bus idles, and each GEMM starts with its loads'
// first round trip and ends with a partly filled last wave (docs/BENCHMARKS.md, "The decode step
// kernel by kernel"). Asking the copy engine to pull the head of the next weight matrix into the
// L2 as a GEMM finishes keeps the bus busy across those gaps; the next GEMM then reads that head
// from the L2. A prefetch is a hint: it changes no value, so results keep their bits.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "base/status.h"

namespace vt::kernels::cuda {

// A byte range to pull into the L2; empty (no bytes) means none. The start must be 16-byte
// aligned and the length is rounded down to 16 bytes (what the bulk prefetch takes).
struct L2Prefetch {
  const void* base = nullptr;
  size_t bytes = 0;
  __host__ __device__ bool empty() const { return base == nullptr || bytes < 16; }
};

// The first `max_bytes` of [base, base + bytes): what a GEMM streaming that matrix reads first.
L2Prefetch PrefetchHead(const void* base, size_t bytes, size_t max_bytes);

// A kernel of its own that issues `p` and exits, for products whose kernel cannot issue it (cuBLAS,
// the int4 kernels). It reads no memory a kernel of the step writes, so as a dependent launch it
// issues before waiting for the kernel before it.
Status PrefetchL2(L2Prefetch p, cudaStream_t stream);

#ifdef __CUDACC__

// Thread `who` of `issuers` asks for its slice of `p` (each slice one bulk prefetch, so a few
// dozen threads across the GPU cover tens of MiB; nothing waits for them).
__device__ __forceinline__ void IssueL2Prefetch(L2Prefetch p, int who, int issuers) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const size_t total = p.bytes & ~size_t{15};
  const size_t slice = ((total + issuers - 1) / issuers + 15) & ~size_t{15};
  const size_t offset = slice * size_t(who);
  if (p.base == nullptr || offset >= total) return;
  const size_t size = total - offset < slice ? total - offset : slice;
  const char* start = static_cast<const char*>(p.base) + offset;
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(start), "r"(static_cast<uint32_t>(size))
               : "memory");
#else
  (void)p, (void)who, (void)issuers;
#endif
}

#endif  // __CUDACC__

}  // namespace vt::kernels::cuda
