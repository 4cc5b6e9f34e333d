// The sampler's random numbers: uniform in [0, 1) with 53 bits, a pure function of (seed, index),
// so a seeded request draws the same stream whatever else shares its batch, and the CPU sampler
// (engine/sample/sampler.cpp) and the device sampler (kernels/cuda/ops/sampling.cu) draw the same u.
#pragma once

#include <cstdint>

#include "kernels/host_device.h"

namespace vt::kernels {

// splitmix64's finaliser.
VT_HOST_DEVICE inline uint64_t MixBits(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

VT_HOST_DEVICE inline double SeededUniform(uint64_t seed, int64_t index) {
  const uint64_t z = MixBits(MixBits(seed + 0x9e3779b97f4a7c15ull) ^ static_cast<uint64_t>(index));
  return static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0);
}

}  // namespace vt::kernels
