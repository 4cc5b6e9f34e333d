// Rotary position embedding in HF's rotate-half layout (the first and second
// halves of a head form the pairs), with the default and the llama3 frequency
// schedules.
#pragma once

#include <cstdint>
#include <vector>

namespace vt::kernels::cpu {

struct RopeScaling {
  bool llama3 = false;
  float factor = 1.0f;
  float low_freq_factor = 1.0f;
  float high_freq_factor = 4.0f;
  int64_t original_max_position = 8192;
};

// The head_dim/2 inverse frequencies, float32 as transformers computes them.
std::vector<float> RopeInvFreq(int64_t head_dim, double theta, const RopeScaling& scaling);

// cos/sin tables [n, head_dim/2] for the given positions.
void RopeCosSin(const std::vector<float>& inv_freq, const int32_t* positions, int64_t n, float* cos_out,
                float* sin_out);

// Rotates x [n, heads, head_dim] in place; row i uses cos/sin row i.
void ApplyRope(float* x, int64_t n, int64_t heads, int64_t head_dim, const float* cos_tab, const float* sin_tab);

}  // namespace vt::kernels::cpu
