// Random GPTQ int4 checkpoints for tests: symmetric, desc_act false, fp16 scales.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/w4a16/gptq_layout.h"

namespace vt::testing {

struct GptqData {
  int k = 0, n = 0, group_size = 128;
  std::vector<int32_t> qweight, qzeros, g_idx;
  std::vector<uint16_t> scales;

  kernels::GptqTensors View() const {
    kernels::GptqTensors t;
    t.k = k;
    t.n = n;
    t.group_size = group_size;
    t.qweight = qweight;
    t.qzeros = qzeros;
    t.scales = scales;
    t.g_idx = g_idx;
    return t;
  }
};

// fp16 scales between 2^-7 and 2^-3 in magnitude, either sign; qzeros in the v1 format (7).
inline GptqData RandomGptq(int k, int n, int group_size, uint32_t seed) {
  std::mt19937 rng(seed);
  GptqData d;
  d.k = k;
  d.n = n;
  d.group_size = group_size;
  const int group = group_size == -1 ? k : group_size;
  d.qweight.resize(static_cast<size_t>(k / 8) * n);
  for (int32_t& w : d.qweight) w = static_cast<int32_t>(rng());
  d.qzeros.assign(static_cast<size_t>(k / group) * (n / 8), static_cast<int32_t>(0x77777777));
  d.scales.resize(static_cast<size_t>(k / group) * n);
  for (uint16_t& s : d.scales) {
    const uint16_t sign = static_cast<uint16_t>((rng() & 1u) << 15);
    const uint16_t exponent = static_cast<uint16_t>((8 + rng() % 5) << 10);
    s = static_cast<uint16_t>(sign | exponent | (rng() & 0x3ffu));
  }
  d.g_idx.resize(k);
  for (int i = 0; i < k; ++i) d.g_idx[i] = i / group;
  return d;
}

}  // namespace vt::testing
