#include "kernels/w4a16/gptq_layout.h"

#include <cmath>
#include <cstring>

#include "kernels/bf16.h"
#include "kernels/cpu/dtype.h"

namespace vt::kernels {
namespace {

// Position of (k, n) inside the packed array: word index and nibble.
struct NibbleAt {
  size_t word;
  int nibble;
};

NibbleAt Locate(int k_dim, int k, int n) {
  const int nb = n / 16, kb = k / 64;
  const int s = (k % 64) / 16, kk = k % 16, nn = n % 16;
  const int q = nn % 8, hi_cols = nn / 8;  // columns 8-15 use nibbles 2/3 and 6/7
  const int hi_k = kk >= 8 ? 1 : 0;        // k 8-15 of the step use nibbles 1/3 and 5/7
  const int c = (kk % 8) / 2, odd = kk % 2;
  const int lane = q * 4 + c;
  const int nibble = (hi_cols * 2 + hi_k) + 4 * odd;
  const size_t word = ((static_cast<size_t>(nb) * (k_dim / 64) + kb) * 32 + lane) * 4 + s;
  return {word, nibble};
}

}  // namespace

float HalfToFloat(uint16_t h) { return cpu::Fp16ToFloat(h); }

Status CheckW4A16Shape(int k, int n) {
  if (k <= 0 || k % 128 != 0) {
    return InvalidArgument("W4A16: K = " + std::to_string(k) + " must be a positive multiple of 128");
  }
  if (n <= 0 || n % 64 != 0) {
    return InvalidArgument("W4A16: N = " + std::to_string(n) + " must be a positive multiple of 64");
  }
  return Status::Ok();
}

Status CheckGptqVariant(int bits, int group_size, bool sym, bool desc_act, int k) {
  if (bits != 4) return Unimplemented("GPTQ bits = " + std::to_string(bits) + " unsupported (4 only)");
  if (!sym) return Unimplemented("GPTQ sym = false (asymmetric zero points) unsupported");
  if (desc_act) return Unimplemented("GPTQ desc_act = true (act-order) unsupported");
  if (group_size != 128 && group_size != -1 && group_size != k) {
    return Unimplemented("GPTQ group_size = " + std::to_string(group_size) + " unsupported (128 or -1)");
  }
  return Status::Ok();
}

Status ValidateGptq(const GptqTensors& t) {
  VT_RETURN_IF_ERROR(CheckGptqVariant(t.bits, t.group_size, t.sym, t.desc_act, t.k));
  VT_RETURN_IF_ERROR(CheckW4A16Shape(t.k, t.n));
  const int group = t.group_size == -1 ? t.k : t.group_size;
  const int groups = t.k / group;
  if (t.qweight.size() != static_cast<size_t>(t.k / 8) * t.n) {
    return InvalidArgument("GPTQ qweight has " + std::to_string(t.qweight.size()) + " words, expected " +
                           std::to_string(static_cast<size_t>(t.k / 8) * t.n) + " for K=" + std::to_string(t.k) +
                           ", N=" + std::to_string(t.n));
  }
  if (t.scales.size() != static_cast<size_t>(groups) * t.n) {
    return InvalidArgument("GPTQ scales have " + std::to_string(t.scales.size()) + " values, expected " +
                           std::to_string(static_cast<size_t>(groups) * t.n));
  }
  if (t.qzeros.size() != static_cast<size_t>(groups) * (t.n / 8)) {
    return InvalidArgument("GPTQ qzeros have " + std::to_string(t.qzeros.size()) + " words, expected " +
                           std::to_string(static_cast<size_t>(groups) * (t.n / 8)));
  }
  for (int32_t z : t.qzeros) {
    const uint32_t u = static_cast<uint32_t>(z);
    if (u != 0x88888888u && u != 0x77777777u) {
      return Unimplemented("GPTQ qzeros hold zero points other than 8: the checkpoint is not symmetric");
    }
  }
  if (!t.g_idx.empty()) {
    if (t.g_idx.size() != static_cast<size_t>(t.k)) return InvalidArgument("GPTQ g_idx length is not K");
    for (int k = 0; k < t.k; ++k) {
      if (t.g_idx[k] != k / group) {
        return Unimplemented("GPTQ g_idx[" + std::to_string(k) + "] = " + std::to_string(t.g_idx[k]) +
                             " reorders groups (act-order), unsupported");
      }
    }
  }
  for (size_t i = 0; i < t.scales.size(); ++i) {
    if (!std::isfinite(HalfToFloat(t.scales[i]))) return DataLoss("GPTQ scales[" + std::to_string(i) + "] is not finite");
  }
  return Status::Ok();
}

Result<W4A16Weights> RepackGptq(const GptqTensors& t) {
  VT_RETURN_IF_ERROR(ValidateGptq(t));
  const int group = t.group_size == -1 ? t.k : t.group_size;
  W4A16Weights w;
  w.k = t.k;
  w.n = t.n;
  w.group_size = group;
  w.packed.assign(static_cast<size_t>(t.k) * t.n / 8, 0u);
  for (int k = 0; k < t.k; ++k) {
    for (int n = 0; n < t.n; ++n) {
      const uint32_t word = static_cast<uint32_t>(t.qweight[static_cast<size_t>(k / 8) * t.n + n]);
      const uint32_t q = (word >> (4 * (k % 8))) & 0xfu;
      const NibbleAt at = Locate(t.k, k, n);
      w.packed[at.word] |= q << (4 * at.nibble);
    }
  }
  w.scales.resize(t.scales.size());
  for (size_t i = 0; i < t.scales.size(); ++i) w.scales[i] = FloatToBf16(HalfToFloat(t.scales[i])).bits;
  return w;
}

int PackedNibble(const W4A16Weights& w, int k, int n) {
  const NibbleAt at = Locate(w.k, k, n);
  return static_cast<int>((w.packed[at.word] >> (4 * at.nibble)) & 0xfu);
}

Result<W4A16Weights> ConcatColumns(std::span<const W4A16Weights* const> parts) {
  if (parts.empty()) return InvalidArgument("W4A16 concat: no parts");
  W4A16Weights out;
  out.k = parts[0]->k;
  out.group_size = parts[0]->group_size;
  for (const W4A16Weights* p : parts) {
    if (p->k != out.k || p->group_size != out.group_size) {
      return InvalidArgument("W4A16 concat: parts differ in K or group size (" + std::to_string(p->k) + "/" +
                             std::to_string(p->group_size) + " vs " + std::to_string(out.k) + "/" +
                             std::to_string(out.group_size) + ")");
    }
    if (p->n % 16 != 0) return InvalidArgument("W4A16 concat: a part's N (" + std::to_string(p->n) + ") is not a multiple of 16");
    out.n += p->n;
    out.packed.insert(out.packed.end(), p->packed.begin(), p->packed.end());
  }
  const int groups = out.k / out.group_size;
  out.scales.reserve(static_cast<size_t>(groups) * out.n);
  for (int g = 0; g < groups; ++g) {
    for (const W4A16Weights* p : parts) {
      const auto row = p->scales.begin() + static_cast<ptrdiff_t>(g) * p->n;
      out.scales.insert(out.scales.end(), row, row + p->n);
    }
  }
  return out;
}

W4A16Weights RandomW4A16Weights(int k, int n, int group_size, uint64_t seed) {
  W4A16Weights w;
  w.k = k;
  w.n = n;
  w.group_size = group_size;
  uint64_t state = seed * 0x9e3779b97f4a7c15ull + 1;
  auto next = [&state] {  // splitmix64
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  w.packed.resize(static_cast<size_t>(k) * n / 8);
  for (uint32_t& word : w.packed) word = static_cast<uint32_t>(next());
  // q - 8 is uniform on [-8, 7]: variance 21.25, so a scale of 1 / sqrt(21.25 k) gives 1/k.
  const float scale = 1.0f / std::sqrt(21.25f * static_cast<float>(k));
  w.scales.resize(static_cast<size_t>(k / group_size) * n);
  for (uint16_t& s : w.scales) {
    const float jitter = 0.75f + 0.5f * static_cast<float>(next() >> 40) / static_cast<float>(1ull << 24);
    s = FloatToBf16(scale * jitter).bits;
  }
  return w;
}

}  // namespace vt::kernels
