// The persistent decode arms' shared-memory tiles: unpadded rows of D bf16 whose 16-byte chunks are
// XOR-swizzled by the row, and one lane's ldmatrix addresses in them, in plain C++ so the CPU tests
// check the identities the kernels rely on.
#pragma once

#include <cstdint>

#include "kernels/host_device.h"

namespace vt::kernels::cuda::attention {

// Element offset of 16-byte chunk `chunk` of row `row` in a tile of D-element rows. The eight rows
// an ldmatrix phase reads sit at row stride D * 2 bytes (a multiple of 128), so without the XOR
// they would all hit the same banks.
template <int D>
VT_HOST_DEVICE inline int Swizzle(int row, int chunk) {
  return row * D + ((chunk ^ (row & 7)) << 3);
}

// One lane's ldmatrix row in a swizzled tile: 16-dim step s (chunks 2s and 2s + 1 of row `row`,
// `half` picking one) lies Swizzle<D>(row, 2s + half) elements from the tile's start. A row starts at
// a multiple of 128 bytes and its XOR reaches only a chunk's low three bits (bits 4-6 of the byte
// offset), so in bytes that is (step 0's offset ^ 32 * (s % 4)) + 128 * (s / 4): with s known at
// compile time an XOR and an add an ldmatrix, where Swizzle is six instructions (PTX).
template <int D>
struct SwizzledRow {
  static_assert(D % 64 == 0, "rows start at multiples of 128 bytes");
  uint32_t bytes;  // step 0's byte offset

  VT_HOST_DEVICE SwizzledRow(int row, int half) : bytes(uint32_t(Swizzle<D>(row, half)) * 2) {}
  VT_HOST_DEVICE uint32_t Step(int s) const { return (bytes ^ (32 * (s % 4))) + 128 * (s / 4); }
};

}  // namespace vt::kernels::cuda::attention
