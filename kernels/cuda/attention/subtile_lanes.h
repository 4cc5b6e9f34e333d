// Which rows and bytes one lane copies of a warp's 16-key K or V subtile in the persistent decode arms
// (warp_subtile.cuh's CopySubtile), in plain C++ so the CPU tests check it: every row and 16-byte
// chunk of the subtile exactly once, and every source inside the subtile's page.
//
// The warp's 32 lanes cover kRowsPerPass whole rows a pass (D / 8 16-byte chunks a row); a lane takes
// the same chunk of rows r0, r0 + kRowsPerPass, ..., so its source steps by a fixed stride: one 64-bit
// multiply a subtile instead of one a copy.
#pragma once

#include <cstdint>

#include "kernels/cuda/attention/decode_params.h"
#include "kernels/cuda/attention/swizzled_tile.h"
#include "kernels/cuda/attention/work_schedule.h"
#include "kernels/host_device.h"

namespace vt::kernels::cuda::attention {

template <int D>
struct LaneRows {
  static constexpr int kChunksPerRow = D / 8;  // 16-byte copies a row
  static_assert(32 % kChunksPerRow == 0, "a warp's 32 copies cover whole rows");
  static constexpr int kRowsPerPass = 32 / kChunksPerRow;
  static constexpr int kPasses = kSubtileKeys / kRowsPerPass;
  // DstBytes' identity: a pass's rows start at a multiple of kRowsPerPass, and r0 < kRowsPerPass <= 8.
  static_assert(kRowsPerPass <= 8 && (kRowsPerPass & (kRowsPerPass - 1)) == 0, "rows a pass: a power of two <= 8");

  int chunk, r0;        // the lane's chunk of every row it takes, and its first row
  int64_t first;        // the element offset of that first row's chunk in the K (or V) cache
  int64_t pass_stride;  // elements from one of its rows to the next
  uint32_t dst_bytes;   // the byte offset of that first row's chunk in a swizzled tile (Swizzle)

  // Lane `lane`'s copies of the subtile of keys from key_base (a multiple of 16) of KV head h, whose
  // page is `page` (the subtile lies in one page: 16 keys from a multiple of 16, pages of 16 or 32).
  VT_HOST_DEVICE LaneRows(const PagedDecodeParams& p, int lane, int page, int key_base, int h)
      : chunk(lane % kChunksPerRow),
        r0(lane / kChunksPerRow),
        first(((int64_t(page) * p.block_size + (key_base & (p.block_size - 1)) + r0) * p.num_kv_heads + h) * D +
              chunk * 8),
        pass_stride(kRowsPerPass * (int64_t(p.num_kv_heads) * D)),
        dst_bytes(uint32_t(Swizzle<D>(r0, chunk)) * 2) {}

  VT_HOST_DEVICE int Row(int pass) const { return pass * kRowsPerPass + r0; }
  // Swizzle<D>(Row(pass), chunk) in bytes. The row's XOR reaches the chunk's low three bits (bits 4-6
  // of the byte offset) and a pass adds rows above r0's bits, so a pass is an XOR and an add from
  // dst_bytes (pass known at compile time), where Swizzle is a multiply, an AND, an XOR and two shifts.
  VT_HOST_DEVICE uint32_t DstBytes(int pass) const {
    return (dst_bytes ^ (((pass * kRowsPerPass) & 7) << 4)) + pass * kRowsPerPass * D * 2;
  }
};

}  // namespace vt::kernels::cuda::attention
