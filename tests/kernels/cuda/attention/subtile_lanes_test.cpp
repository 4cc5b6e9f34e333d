// The persistent decode arms' subtile copies (subtile_lanes.h), on the CPU: each lane's rows, chunks,
// source offsets and swizzled destinations, as CopySubtile issues them.
#include "kernels/cuda/attention/subtile_lanes.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace vt::kernels::cuda::attention {
namespace {

// Every 16-byte chunk of the subtile's 16 rows is copied by exactly one lane and pass, from the cache
// element that holds it (token slot, KV head, chunk), never from outside the subtile's page, to
// where Swizzle puts it.
template <int D>
void ExpectEachChunkOnceFromItsPage(int block_size, int kv_heads) {
  using Lanes = LaneRows<D>;
  PagedDecodeParams p;
  p.block_size = block_size;
  p.num_kv_heads = kv_heads;
  const int64_t page_elems = int64_t(block_size) * kv_heads * D;
  for (int page : {0, 3, 1000}) {
    for (int key_base = 0; key_base < 4 * block_size; key_base += kSubtileKeys) {
      for (int h = 0; h < kv_heads; ++h) {
        std::vector<int> copies(kSubtileKeys * Lanes::kChunksPerRow, 0);
        for (int lane = 0; lane < 32; ++lane) {
          const Lanes lanes(p, lane, page, key_base, h);
          for (int pass = 0; pass < Lanes::kPasses; ++pass) {
            const int row = lanes.Row(pass);
            ASSERT_GE(row, 0);
            ASSERT_LT(row, kSubtileKeys);
            ++copies[row * Lanes::kChunksPerRow + lanes.chunk];
            EXPECT_EQ(lanes.DstBytes(pass), uint32_t(Swizzle<D>(row, lanes.chunk)) * 2)
                << "D " << D << ", lane " << lane << ", pass " << pass << ": not where the swizzle puts the row";
            const int slot = key_base % block_size + row;
            const int64_t source = lanes.first + pass * lanes.pass_stride;
            EXPECT_EQ(source, ((int64_t(page) * block_size + slot) * kv_heads + h) * D + lanes.chunk * 8)
                << "D " << D << ", lane " << lane << ", pass " << pass << ", key " << key_base;
            EXPECT_GE(source, page * page_elems);
            EXPECT_LE(source + 8, (page + 1) * page_elems) << "past the subtile's page";
          }
        }
        for (size_t i = 0; i < copies.size(); ++i) {
          ASSERT_EQ(copies[i], 1) << "row " << i / Lanes::kChunksPerRow << " chunk " << i % Lanes::kChunksPerRow
                                  << " of D " << D << ", block size " << block_size;
        }
      }
    }
  }
}

TEST(SubtileLanes, EachChunkOnceFromItsPage) {
  for (int block_size : {16, 32}) {
    for (int kv_heads : {1, 2, 8}) {
      ExpectEachChunkOnceFromItsPage<128>(block_size, kv_heads);
      ExpectEachChunkOnceFromItsPage<256>(block_size, kv_heads);
    }
  }
}

}  // namespace
}  // namespace vt::kernels::cuda::attention
