// Warming the L2 with the weights of the next linear layer of a decode step. At small batches a
// step is a chain of weight streams (the GEMMs) with short kernels between them (norms, RoPE, the
// attention, SiLU·mul) during which the memory bus idles, and each GEMM starts with its loads'
// first round trip and ends with a partly filled last wave (docs/BENCHMARKS.md, "The decode step
// kernel by kernel"). Asking the TMA unit to pull the head of the next weight matrix into the
// L2 as a GEMM finishes keeps the bus busy across those gaps; the next GEMM then reads that head
// from the L2. A prefetch is a hint: it changes no value, so results keep their bits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/device_alignment.h"
#include "kernels/host_device.h"

namespace vt::kernels::cuda {

// The most one request pulls in: more than the L2 holds on any GPU, and small enough for the slices'
// arithmetic to stay in 32 bits (see L2PrefetchSliceOf).
inline constexpr size_t kL2PrefetchMaxBytes = size_t{1} << 30;

// A byte range to pull into the L2; empty (no bytes) means none. The start must be 16-byte
// aligned and the length is rounded down to 16 bytes (what the bulk prefetch takes).
struct L2Prefetch {
  const void* base = nullptr;
  size_t bytes = 0;
  VT_HOST_DEVICE bool empty() const { return base == nullptr || bytes < 16; }
};

// The first `max_bytes` of [base, base + bytes): what a GEMM streaming that matrix reads first.
// Empty where the start is not 16-byte aligned.
inline L2Prefetch PrefetchHead(const void* base, size_t bytes, size_t max_bytes) {
  if (base == nullptr || !VectorAligned(base)) return {};
  return L2Prefetch{base, bytes < max_bytes ? bytes : max_bytes};
}

// One issuer's part of a prefetch: bytes [offset, offset + size) of it; size 0 means none.
struct L2PrefetchSlice {
  uint32_t offset = 0, size = 0;
};

// Issuer `who` of `issuers` (>= 1): equal 16-byte-aligned slices that tile the first
// min(bytes, kL2PrefetchMaxBytes) bytes, rounded down to 16. 32-bit arithmetic: in the kernel a 64-bit
// division is a call, whose registers the caller's loop would pay for.
VT_HOST_DEVICE inline L2PrefetchSlice L2PrefetchSliceOf(size_t bytes, int who, int issuers) {
  const uint32_t total = static_cast<uint32_t>(bytes < kL2PrefetchMaxBytes ? bytes : kL2PrefetchMaxBytes) & ~15u;
  const uint32_t slice = ((total + uint32_t(issuers) - 1) / uint32_t(issuers) + 15) & ~15u;
  const uint32_t offset = slice * uint32_t(who);
  if (offset >= total) return {};
  return L2PrefetchSlice{offset, total - offset < slice ? total - offset : slice};
}

#ifdef __CUDACC__

// Thread `who` of `issuers` asks for its slice of `p` (each slice one bulk prefetch, so a few
// dozen threads across the GPU cover tens of MiB; nothing waits for them).
__device__ __forceinline__ void IssueL2Prefetch(L2Prefetch p, int who, int issuers) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const L2PrefetchSlice slice = L2PrefetchSliceOf(p.bytes, who, issuers);
  if (p.base == nullptr || slice.size == 0) return;
  const char* start = static_cast<const char*>(p.base) + slice.offset;
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(start), "r"(slice.size) : "memory");
#else
  (void)p, (void)who, (void)issuers;
#endif
}

#endif  // __CUDACC__

}  // namespace vt::kernels::cuda
