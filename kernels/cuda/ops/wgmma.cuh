// Hopper warpgroup MMAs (wgmma, sm_90a) on bf16 with fp32 accumulators in registers (PTX ISA,
// "Asynchronous Warpgroup Level Matrix Multiply-Accumulate Instructions"). Shared-memory operands sit
// in the 128-byte swizzle: rows of 64 bf16, 16-byte chunk c of row r stored at chunk c ^ (r % 8), each
// eight-row group 1024-byte aligned; the tensor cores read them themselves, with no ldmatrix. A may
// instead come from registers, and B may be N-major (see below).
#pragma once

#include <cstdint>

namespace vt::kernels::cuda {

// Where the swizzle's eight-row groups start (and how far apart they are): 1024-byte boundaries.
inline constexpr int kSwizzleAlign = 1024;

// A shared-memory matrix descriptor in that layout: start address, leading byte offset, stride byte
// offset kSwizzleAlign (one eight-row group to the next), 128-byte swizzle.
__device__ __forceinline__ uint64_t SwizzledDescriptor(const void* tile, uint32_t leading_bytes) {
  const uint32_t address = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
  return uint64_t((address & 0x3ffff) >> 4) | (uint64_t((leading_bytes >> 4) & 0x3fff) << 16) |
         (uint64_t(kSwizzleAlign >> 4) << 32) | (uint64_t(1) << 62);
}

// A K-major operand: the leading byte offset is unused when swizzled (16). The k16 step kk of a
// 64-wide row starts at `tile + 32 * kk` bytes.
__device__ __forceinline__ uint64_t SwizzledTileDescriptor(const void* tile) { return SwizzledDescriptor(tile, 16); }

// The first kSwizzleAlign-aligned address at or past `raw` (dynamic shared memory, allocated
// kSwizzleAlign bytes larger): where the swizzle's eight-row groups may start.
__device__ __forceinline__ uint16_t* SwizzleAlignedShared(unsigned char* raw) {
  const uint32_t address = static_cast<uint32_t>(__cvta_generic_to_shared(raw));
  return reinterpret_cast<uint16_t*>(raw + (kSwizzleAlign - address % kSwizzleAlign) % kSwizzleAlign);
}

// Orders this thread's earlier accumulator register writes before the next wgmma.
__device__ __forceinline__ void WgmmaFence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void WgmmaCommit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int kPending>
__device__ __forceinline__ void WgmmaWait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}
// Ties the registers to this point of the program: after a WgmmaWait, the compiler may not move
// reads of the accumulator or A registers above it; before a WgmmaFence, writes to them stay above it.
template <int N>
__device__ __forceinline__ void WgmmaFenceOperands(float (&d)[N][4]) {
#pragma unroll
  for (int i = 0; i < N; ++i) {
#pragma unroll
    for (int j = 0; j < 4; ++j) asm volatile("" : "+f"(d[i][j])::"memory");
  }
}

template <int N, int M>
__device__ __forceinline__ void WgmmaFenceOperands(uint32_t (&r)[N][M]) {
#pragma unroll
  for (int i = 0; i < N; ++i) {
#pragma unroll
    for (int j = 0; j < M; ++j) asm volatile("" : "+r"(r[i][j])::"memory");
  }
}

// A descriptor moved `bytes` further into shared memory (the start address field counts 16 bytes).
__device__ __forceinline__ uint64_t DescriptorAdvance(uint64_t descriptor, uint32_t bytes) {
  return descriptor + (bytes >> 4);
}

// Shared memory written through the generic proxy (stores, cp.async) made visible to wgmma's reads.
__device__ __forceinline__ void FenceProxyAsyncShared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// d[64 x N] += A[64 x 16] . B[16 x N], A and B K-major; a thread holds N / 2 accumulators, laid out
// per warp as the m16n8 MMA's C fragments of n8 tile j in d[4j .. 4j + 3].
template <int N>
__device__ void WgmmaBf16(float (&d)[N / 2], uint64_t a, uint64_t b);

template <>
__device__ __forceinline__ void WgmmaBf16<16>(float (&d)[8], uint64_t a, uint64_t b) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, 1, "
      "1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
      : "l"(a), "l"(b), "r"(1)
      : "memory");
}

template <>
__device__ __forceinline__ void WgmmaBf16<32>(float (&d)[16], uint64_t a, uint64_t b) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, "
      "%11, %12, %13, %14, %15}, %16, %17, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
      : "l"(a), "l"(b), "r"(1)
      : "memory");
}

template <>
__device__ __forceinline__ void WgmmaBf16<48>(float (&d)[24], uint64_t a, uint64_t b) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %26, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n48k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, "
      "%11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23}, %24, %25, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23])
      : "l"(a), "l"(b), "r"(1)
      : "memory");
}

template <>
__device__ __forceinline__ void WgmmaBf16<64>(float (&d)[32], uint64_t a, uint64_t b) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, "
      "%11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, "
      "%31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]),
        "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
        "+f"(d[30]), "+f"(d[31])
      : "l"(a), "l"(b), "r"(1)
      : "memory");
}

// The A operand from registers instead of shared memory: per warp of the warpgroup (rows 16 w ..
// 16 w + 15), a[0..3] are the m16n8k16 MMA's A fragments (rows q and q + 8, columns 2c, 2c + 1 and
// 2c + 8, 2c + 9 of the k16 step), which is also the layout of two adjacent n8 accumulator tiles of
// an earlier wgmma rounded to bf16 pairs. Accumulators as d[n8 tile][4]; `accumulate` false
// overwrites d (D = A.B).

// d[64 x 64] (+)= A[64 x 16] . B[16 x 64], B K-major from shared memory.
__device__ __forceinline__ void WgmmaBf16RegA64(float (&d)[8][4], const uint32_t (&a)[4], uint64_t b,
                                                bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, "
      "%10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, "
      "%29, %30, %31}, {%32, %33, %34, %35}, %36, p, 1, 1, 0;\n}\n"
      : "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]), "+f"(d[1][1]),
        "+f"(d[1][2]), "+f"(d[1][3]), "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]), "+f"(d[2][3]),
        "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3]), "+f"(d[4][0]), "+f"(d[4][1]),
        "+f"(d[4][2]), "+f"(d[4][3]), "+f"(d[5][0]), "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]),
        "+f"(d[6][0]), "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]), "+f"(d[7][0]), "+f"(d[7][1]),
        "+f"(d[7][2]), "+f"(d[7][3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(int(accumulate))
      : "memory");
}

// d[64 x 128] (+)= A[64 x 16] . B[16 x 128], B N-major (imm-trans-b): rows of B along K, each a run
// of N contiguous elements, as SwizzledNMajorDescriptor describes.
__device__ __forceinline__ void WgmmaBf16RegA128TransB(float (&d)[16][4], const uint32_t (&a)[4], uint64_t b,
                                                       bool accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, "
      "%10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, "
      "%29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, "
      "%67}, %68, p, 1, 1, 1;\n}\n"
      : "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]), "+f"(d[1][1]),
        "+f"(d[1][2]), "+f"(d[1][3]), "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]), "+f"(d[2][3]),
        "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3]), "+f"(d[4][0]), "+f"(d[4][1]),
        "+f"(d[4][2]), "+f"(d[4][3]), "+f"(d[5][0]), "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]),
        "+f"(d[6][0]), "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]), "+f"(d[7][0]), "+f"(d[7][1]),
        "+f"(d[7][2]), "+f"(d[7][3]), "+f"(d[8][0]), "+f"(d[8][1]), "+f"(d[8][2]), "+f"(d[8][3]),
        "+f"(d[9][0]), "+f"(d[9][1]), "+f"(d[9][2]), "+f"(d[9][3]), "+f"(d[10][0]), "+f"(d[10][1]),
        "+f"(d[10][2]), "+f"(d[10][3]), "+f"(d[11][0]), "+f"(d[11][1]), "+f"(d[11][2]), "+f"(d[11][3]),
        "+f"(d[12][0]), "+f"(d[12][1]), "+f"(d[12][2]), "+f"(d[12][3]), "+f"(d[13][0]), "+f"(d[13][1]),
        "+f"(d[13][2]), "+f"(d[13][3]), "+f"(d[14][0]), "+f"(d[14][1]), "+f"(d[14][2]), "+f"(d[14][3]),
        "+f"(d[15][0]), "+f"(d[15][1]), "+f"(d[15][2]), "+f"(d[15][3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(int(accumulate))
      : "memory");
}

// An N-major B operand in the 128-byte swizzle: 64-element (128-byte) rows along K, the next 64
// elements of N `n_atom_bytes` further (the leading byte offset).
__device__ __forceinline__ uint64_t SwizzledNMajorDescriptor(const void* tile, uint32_t n_atom_bytes) {
  return SwizzledDescriptor(tile, n_atom_bytes);
}

}  // namespace vt::kernels::cuda
