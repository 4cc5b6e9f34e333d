// Storage types of weights the CPU kernels read, and a view of one weight
// matrix. Compute is always float32; weights stay in their stored type and are
// widened as they are read, so a bf16 checkpoint costs bf16 memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/bf16.h"

namespace vt::kernels::cpu {

enum class DType : uint8_t { kF32, kBF16, kF16 };

inline size_t DTypeSize(DType t) { return t == DType::kF32 ? 4 : 2; }

inline const char* DTypeName(DType t) {
  switch (t) {
    case DType::kF32: return "F32";
    case DType::kBF16: return "BF16";
    case DType::kF16: return "F16";
  }
  return "?";
}

// IEEE binary16 → float32, exact (every half value is a float value).
inline float Fp16ToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {
    // Subnormal half: renormalise the mantissa into a normal float.
    exp = 113;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --exp;
    }
    bits = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// float32 → binary16 with round-to-nearest-even (used to build fp16 test data).
inline uint16_t FloatToFp16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  uint32_t sign = (u >> 16) & 0x8000u;
  int32_t exp = static_cast<int32_t>((u >> 23) & 0xffu) - 127 + 15;
  uint32_t mant = u & 0x7fffffu;
  if (((u >> 23) & 0xffu) == 0xffu) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));
  if (exp >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;
  return static_cast<uint16_t>(half);
}

inline float LoadAsFloat(DType t, const void* base, int64_t i) {
  switch (t) {
    case DType::kF32: return static_cast<const float*>(base)[i];
    case DType::kBF16: return Bf16ToFloat(static_cast<const bf16*>(base)[i]);
    case DType::kF16: return Fp16ToFloat(static_cast<const uint16_t*>(base)[i]);
  }
  return 0.0f;
}

// Widens n elements of a stored row to float32.
inline void RowToFloat(DType t, const void* base, int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = LoadAsFloat(t, base, i);
}

// A row-major [rows, cols] weight matrix in HF Linear layout: rows are output
// features, cols are input features.
struct WeightMatrix {
  DType dtype = DType::kF32;
  const void* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;

  const void* Row(int64_t r) const {
    return static_cast<const char*>(data) + static_cast<size_t>(r * cols) * DTypeSize(dtype);
  }
};

}  // namespace vt::kernels::cpu
