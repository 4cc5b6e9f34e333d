// Pieces every GPU benchmark of `vt bench` shares: the copy-bandwidth ceiling measured in the
// same run, random bf16 data on the device, and CUDA-graph timing of a launch sequence.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace vt::kernels::cuda::bench {

// The attention shapes of real models both attention benchmarks time.
struct AttentionShape {
  const char* name;
  int num_q_heads, num_kv_heads, head_dim;
};

inline constexpr AttentionShape kAttentionShapes[] = {
    {"qwen3-1.7b", 16, 8, 128}, {"llama3-8b", 32, 8, 128}, {"qwen3-32b", 64, 8, 128},
    {"d256-16q2kv", 16, 2, 256}, {"gemma3-d256-8q4kv", 8, 4, 256},
    // One KV head: a page's K (or V) rows are contiguous, where the shapes above interleave the
    // heads at a stride of num_kv_heads rows. Same group as qwen3-32b, for a layout A/B.
    {"mqa-d128-8q1kv", 8, 1, 128},
};

// Prints "vt bench: <what>: <CUDA error>" and returns false when `err` is an error.
bool Check(cudaError_t err, const char* what);

// Device-to-device copy bandwidth of a 2 GiB cudaMemcpy, bytes read plus bytes written.
bool MeasureCopyGBps(double& gbps);

// Fills `n` bf16 values uniform in [-scale, scale) derived from a hash of the index and seed
// (random-looking data without a host round trip; never time on zeros).
bool FillRandomBf16(uint16_t* dst, size_t n, uint32_t seed, float scale = 1.f);

// Fills `n` 32-bit words with hash-random bits.
bool FillRandomWords(uint32_t* dst, size_t n, uint32_t seed);

double Median(std::vector<double> values);

// Parses a weight shape written "KxN" (both positive).
bool ParseShape(const std::string& s, int& k, int& n);

// Captures `launches` calls of launch(i, stream) into one CUDA graph, replays it `reps` times
// and reports the median time per call in microseconds. launch returns false on an error.
bool TimeGraph(const std::function<bool(int, cudaStream_t)>& launch, int launches, int reps, double& us_per_call);

}  // namespace vt::kernels::cuda::bench
