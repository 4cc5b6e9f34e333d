// The L2 prefetch's slices (kernels/cuda/l2_prefetch.h), on the CPU: the same function the skinny
// GEMM's issuing threads run. Every issuer's slice must start 16-byte aligned, and together they
// must cover the (capped, rounded) range exactly once, whatever the length and the issuer count.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/cuda/l2_prefetch.h"

namespace vt::kernels::cuda {
namespace {

TEST(L2PrefetchSlices, TileTheRangeOnceIn16ByteAlignedPieces) {
  const size_t lengths[] = {0, 15, 16, 17, 4096, 4100, (size_t{8} << 20) + 48, size_t{12} << 20,
                            kL2PrefetchMaxBytes - 16, kL2PrefetchMaxBytes, kL2PrefetchMaxBytes + 4096,
                            size_t{5} << 30};
  for (const size_t bytes : lengths) {
    for (const int issuers : {1, 32, 63, 2048}) {
      SCOPED_TRACE("bytes " + std::to_string(bytes) + ", issuers " + std::to_string(issuers));
      const uint64_t total = (bytes < kL2PrefetchMaxBytes ? bytes : kL2PrefetchMaxBytes) & ~uint64_t{15};
      uint64_t next = 0;  // slices come in issuer order, each starting where the last ended
      for (int who = 0; who < issuers; ++who) {
        const L2PrefetchSlice s = L2PrefetchSliceOf(bytes, who, issuers);
        if (s.size == 0) continue;
        ASSERT_EQ(s.offset % 16, 0u);
        ASSERT_EQ(s.size % 16, 0u);
        ASSERT_EQ(s.offset, next) << "issuer " << who;
        next = uint64_t(s.offset) + s.size;
      }
      EXPECT_EQ(next, total);
      EXPECT_EQ(L2PrefetchSliceOf(bytes, issuers, issuers).size, 0u) << "an issuer past the last";
    }
  }
}

TEST(L2PrefetchSlices, AHeadIsTheMatrixStartCappedAndNeedsAnAlignedStart) {
  alignas(16) static const char weights[64] = {};
  const L2Prefetch head = PrefetchHead(weights, 1 << 20, 8 << 20);
  EXPECT_EQ(head.base, weights);
  EXPECT_EQ(head.bytes, size_t{1} << 20);  // a matrix smaller than the head: all of it
  EXPECT_EQ(PrefetchHead(weights, size_t{64} << 20, 8 << 20).bytes, size_t{8} << 20);
  EXPECT_TRUE(PrefetchHead(weights + 8, 1 << 20, 8 << 20).empty());
  EXPECT_TRUE(PrefetchHead(nullptr, 1 << 20, 8 << 20).empty());
  EXPECT_TRUE((L2Prefetch{weights, 15}.empty()));
}

}  // namespace
}  // namespace vt::kernels::cuda
