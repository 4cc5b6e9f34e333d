// Buffers carved out of one device allocation start at 256-byte boundaries, the alignment
// cudaMalloc itself guarantees, so every vector load a kernel makes on them stays aligned.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vt::kernels {

inline constexpr size_t kDeviceAlignment = 256;

constexpr size_t AlignToDevice(size_t bytes) { return (bytes + kDeviceAlignment - 1) / kDeviceAlignment * kDeviceAlignment; }

// Whether a kernel may read or write `p` with 16-byte vector accesses (views into packed weights
// need not start on 16 bytes). Null counts as aligned: the kernel does not touch it.
inline bool VectorAligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

}  // namespace vt::kernels
