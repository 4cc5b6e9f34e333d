// The persistent decode arms' swizzled tiles (swizzled_tile.h), on the CPU: a lane's ldmatrix steps
// computed from its first step's offset land where Swizzle puts them, and the tile's rows of eight
// read by one ldmatrix phase fall in distinct banks.
#include "kernels/cuda/attention/swizzled_tile.h"

#include <gtest/gtest.h>

#include <set>

namespace vt::kernels::cuda::attention {
namespace {

template <int D>
void ExpectStepsWhereSwizzlePutsThem() {
  for (int row = 0; row < 16; ++row) {
    for (int half = 0; half < 2; ++half) {
      const SwizzledRow<D> lane(row, half);
      for (int s = 0; s < D / 16; ++s) {
        EXPECT_EQ(lane.Step(s), uint32_t(Swizzle<D>(row, 2 * s + half)) * 2)
            << "D " << D << ", row " << row << ", half " << half << ", step " << s;
      }
    }
  }
}

TEST(SwizzledTile, StepsLandWhereSwizzlePutsThem) {
  ExpectStepsWhereSwizzlePutsThem<128>();
  ExpectStepsWhereSwizzlePutsThem<256>();
}

// An ldmatrix phase reads one 16-byte chunk of each of eight consecutive rows: with the swizzle the
// eight chunks cover all 32 banks (eight distinct 16-byte bank groups of a 128-byte line).
template <int D>
void ExpectPhasesFreeOfBankConflicts() {
  for (int row0 = 0; row0 < 16; row0 += 8) {
    for (int chunk = 0; chunk < D / 8; ++chunk) {
      std::set<int> groups;
      for (int r = row0; r < row0 + 8; ++r) groups.insert((Swizzle<D>(r, chunk) * 2 / 16) % 8);
      EXPECT_EQ(groups.size(), 8u) << "D " << D << ", rows from " << row0 << ", chunk " << chunk;
    }
  }
}

TEST(SwizzledTile, PhasesFreeOfBankConflicts) {
  ExpectPhasesFreeOfBankConflicts<128>();
  ExpectPhasesFreeOfBankConflicts<256>();
}

}  // namespace
}  // namespace vt::kernels::cuda::attention
