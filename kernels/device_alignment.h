// Buffers carved out of one device allocation start at 256-byte boundaries, the alignment
// cudaMalloc itself guarantees, so every vector load a kernel makes on them stays aligned.
#pragma once

#include <cstddef>

namespace vt::kernels {

inline constexpr size_t kDeviceAlignment = 256;

constexpr size_t AlignToDevice(size_t bytes) { return (bytes + kDeviceAlignment - 1) / kDeviceAlignment * kDeviceAlignment; }

}  // namespace vt::kernels
