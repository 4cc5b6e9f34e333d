// Builds paged K/V caches for GPU attention tests: random bf16 values per request,
// held contiguously on the host for the reference and scattered into shuffled pages
// on the device. Unused page slots are poisoned with NaN so a kernel that reads past
// a context shows up as NaN in its output.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <random>
#include <vector>

#include "tests/kernels/cuda/gpu_test_support.h"

namespace vt::testing {

struct PagedKvShape {
  int num_q_heads = 0;
  int num_kv_heads = 0;
  int head_dim = 0;
  int block_size = 16;
};

class PagedKvFixture {
 public:
  // contiguous_pages: lay each request's pages out in order (for paged == dense checks).
  PagedKvFixture(const PagedKvShape& shape, const std::vector<int>& contexts, uint32_t seed,
                 bool contiguous_pages = false);
  ~PagedKvFixture();
  PagedKvFixture(const PagedKvFixture&) = delete;
  PagedKvFixture& operator=(const PagedKvFixture&) = delete;

  const PagedKvShape& shape() const { return shape_; }
  const std::vector<int>& contexts() const { return contexts_; }
  int batch() const { return static_cast<int>(contexts_.size()); }
  int max_blocks_per_seq() const { return max_blocks_; }
  int max_context() const;

  // Host copies (bf16-rounded floats): q [batch][Hq][D]; k/v per request [ctx][Hkv][D].
  const std::vector<float>& q() const { return q_; }
  const std::vector<float>& k(int b) const { return k_[b]; }
  const std::vector<float>& v(int b) const { return v_[b]; }

  const uint16_t* d_q() const { return d_q_; }
  const uint16_t* d_k_cache() const { return d_k_; }
  const uint16_t* d_v_cache() const { return d_v_; }
  const int32_t* d_block_tables() const { return d_tables_; }
  const int32_t* d_context_lens() const { return d_lens_; }

 private:
  PagedKvShape shape_;
  std::vector<int> contexts_;
  int max_blocks_ = 0;
  std::vector<float> q_;
  std::vector<std::vector<float>> k_, v_;
  uint16_t* d_q_ = nullptr;
  uint16_t* d_k_ = nullptr;
  uint16_t* d_v_ = nullptr;
  int32_t* d_tables_ = nullptr;
  int32_t* d_lens_ = nullptr;
};

}  // namespace vt::testing
