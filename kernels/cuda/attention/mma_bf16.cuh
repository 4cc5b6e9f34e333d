// The few PTX primitives the tensor-core decode arm needs: a bf16 m16n8k16 MMA with fp32
// accumulators and 16-byte cp.async copies into shared memory.
//
// m16n8k16 fragment layout (lane = 4 * q + c, q = lane / 4, c = lane % 4):
//   A (16x16, row-major): a0 = A[q][2c..2c+1], a1 = A[q+8][2c..], a2 = A[q][2c+8..], a3 = A[q+8][2c+8..]
//   B (16x8, k-major):    b0 = B[2c..2c+1][q],  b1 = B[2c+8..2c+9][q]
//   C (16x8, fp32):       c0,c1 = C[q][2c..2c+1], c2,c3 = C[q+8][2c..2c+1]
#pragma once

#include <cstdint>

namespace vt::kernels::cuda::attention {

__device__ __forceinline__ void MmaBf16(float (&c)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                                        uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// Packs two floats into a bf16x2 register (lo in the low half), rounding to nearest even.
__device__ __forceinline__ uint32_t PackBf16x2(float lo, float hi) {
  uint32_t r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

// Splits two floats into bf16x2 hi = bf16(x) and lo = bf16(x - hi), so hi + lo carries
// ~16 significant bits.
__device__ __forceinline__ void SplitBf16x2(float x0, float x1, uint32_t& hi, uint32_t& lo) {
  hi = PackBf16x2(x0, x1);
  const float h0 = __uint_as_float(hi << 16), h1 = __uint_as_float(hi & 0xffff0000u);
  lo = PackBf16x2(x0 - h0, x1 - h1);
}

// A shared-memory pointer as the 32-bit address the shared-memory instructions take.
__device__ __forceinline__ uint32_t SharedAddress(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Loads four 8x8 bf16 matrices from shared memory; lanes 8i .. 8i + 7 give the (16-byte aligned)
// row addresses of matrix i, and r<i> receives matrix i. Lane 4q + c gets row q, columns 2c and
// 2c + 1 of each matrix: the B fragment of an MMA whose B is stored with n along the rows (K rows
// for Q.K^T). `a` is a shared-memory address (SharedAddress).
__device__ __forceinline__ void LdMatrixX4(uint32_t& r0, uint32_t& r1, uint32_t& r2, uint32_t& r3, uint32_t a) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(a)
               : "memory");
}

// The same, transposed: lane 4q + c gets rows 2c and 2c + 1 of column q, the B fragment of an MMA
// whose B is stored with k along the rows (V rows for P.V).
__device__ __forceinline__ void LdMatrixX4Trans(uint32_t& r0, uint32_t& r1, uint32_t& r2, uint32_t& r3,
                                                uint32_t a) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(a)
               : "memory");
}

// The same two, from shared-memory pointers.
__device__ __forceinline__ void LdMatrixX4(uint32_t& r0, uint32_t& r1, uint32_t& r2, uint32_t& r3, const void* row) {
  LdMatrixX4(r0, r1, r2, r3, SharedAddress(row));
}
__device__ __forceinline__ void LdMatrixX4Trans(uint32_t& r0, uint32_t& r1, uint32_t& r2, uint32_t& r3,
                                                const void* row) {
  LdMatrixX4Trans(r0, r1, r2, r3, SharedAddress(row));
}

// Copies 16 bytes global -> shared, or writes 16 zero bytes when !valid (`src` must still be
// a mapped address). Zero-fill keeps masked rows finite so 0 * row never becomes NaN.
// kWholeLine tells the L2 to fetch the whole 128-byte line on a miss, for rows read whole, 16 bytes a
// lane: on the persist arm's K/V rows 0.5-1% faster on an H200's large calls than without the hint,
// and 256-byte lines slower (docs/BENCHMARKS.md, "its loads measured alone").
template <bool kWholeLine = false>
__device__ __forceinline__ void CpAsync16(uint32_t dst, const void* src, bool valid) {
  const int src_bytes = valid ? 16 : 0;
  if constexpr (kWholeLine) {
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
  } else {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
  }
}

// The same, to a shared-memory pointer. `dst` is a shared-memory address (SharedAddress).
template <bool kWholeLine = false>
__device__ __forceinline__ void CpAsync16(void* dst_smem, const void* src, bool valid) {
  CpAsync16<kWholeLine>(SharedAddress(dst_smem), src, valid);
}

__device__ __forceinline__ void CpAsyncCommit() { asm volatile("cp.async.commit_group;\n" ::); }

template <int PENDING>
__device__ __forceinline__ void CpAsyncWait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING));
}

}  // namespace vt::kernels::cuda::attention
