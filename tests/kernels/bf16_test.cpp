#include "kernels/bf16.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace vt {
namespace {

TEST(Bf16, ExactValuesRoundTrip) {
  for (float f : {0.0f, 1.0f, -2.0f, 0.5f, 128.0f, -3.25f}) {
    EXPECT_EQ(Bf16ToFloat(FloatToBf16(f)), f);
  }
}

TEST(Bf16, RoundsToNearestEven) {
  // 1 + 2^-8 lies halfway between bf16 neighbours 1 and 1 + 2^-7: ties go to the even mantissa (1).
  EXPECT_EQ(RoundToBf16(1.0f + std::ldexp(1.0f, -8)), 1.0f);
  // 1 + 3 * 2^-8 lies halfway between 1 + 2^-7 and 1 + 2^-6: ties go to 1 + 2^-6.
  EXPECT_EQ(RoundToBf16(1.0f + 3 * std::ldexp(1.0f, -8)), 1.0f + std::ldexp(1.0f, -6));
  // Just above the halfway point rounds up.
  EXPECT_EQ(RoundToBf16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)), 1.0f + std::ldexp(1.0f, -7));
}

TEST(Bf16, NanStaysNanAndInfinityStaysInfinity) {
  EXPECT_TRUE(std::isnan(RoundToBf16(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_EQ(RoundToBf16(std::numeric_limits<float>::infinity()), std::numeric_limits<float>::infinity());
}

}  // namespace
}  // namespace vt
