#include "kernels/cpu/rope.h"

#include <cmath>
#include <numbers>

namespace vt::kernels::cpu {

std::vector<float> RopeInvFreq(int64_t head_dim, double theta, const RopeScaling& scaling) {
  const int64_t half = head_dim / 2;
  std::vector<float> inv(half);
  for (int64_t i = 0; i < half; ++i) {
    const float exponent = static_cast<float>(2 * i) / static_cast<float>(head_dim);
    inv[i] = static_cast<float>(1.0 / std::pow(theta, static_cast<double>(exponent)));
  }
  if (!scaling.llama3) return inv;
  // Llama 3.1's schedule: long wavelengths are slowed by `factor`, short ones
  // kept, and the band between is interpolated smoothly.
  const double old_len = static_cast<double>(scaling.original_max_position);
  const double low_wavelen = old_len / scaling.low_freq_factor;
  const double high_wavelen = old_len / scaling.high_freq_factor;
  for (float& f : inv) {
    const double wavelen = 2.0 * std::numbers::pi / f;
    if (wavelen < high_wavelen) continue;
    if (wavelen > low_wavelen) {
      f = static_cast<float>(f / scaling.factor);
      continue;
    }
    const double smooth =
        (old_len / wavelen - scaling.low_freq_factor) / (scaling.high_freq_factor - scaling.low_freq_factor);
    f = static_cast<float>((1.0 - smooth) * f / scaling.factor + smooth * f);
  }
  return inv;
}

void RopeCosSin(const std::vector<float>& inv_freq, const int32_t* positions, int64_t n, float* cos_out,
                float* sin_out) {
  const int64_t half = static_cast<int64_t>(inv_freq.size());
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < half; ++j) {
      // The angle is a float32 product, as in transformers, so long positions
      // carry the same rounding the reference does.
      const float angle = static_cast<float>(positions[i]) * inv_freq[j];
      cos_out[i * half + j] = static_cast<float>(std::cos(static_cast<double>(angle)));
      sin_out[i * half + j] = static_cast<float>(std::sin(static_cast<double>(angle)));
    }
  }
}

void ApplyRope(float* x, int64_t n, int64_t heads, int64_t head_dim, const float* cos_tab, const float* sin_tab) {
  const int64_t half = head_dim / 2;
  for (int64_t i = 0; i < n; ++i) {
    const float* c = cos_tab + i * half;
    const float* s = sin_tab + i * half;
    for (int64_t h = 0; h < heads; ++h) {
      float* v = x + (i * heads + h) * head_dim;
      for (int64_t j = 0; j < half; ++j) {
        const float a = v[j];
        const float b = v[j + half];
        v[j] = a * c[j] - b * s[j];
        v[j + half] = b * c[j] + a * s[j];
      }
    }
  }
}

}  // namespace vt::kernels::cpu
