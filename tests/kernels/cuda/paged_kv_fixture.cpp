#include "tests/kernels/cuda/paged_kv_fixture.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>

#include "kernels/bf16.h"

namespace vt::testing {

void CheckCuda(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    std::fprintf(stderr, "CUDA error in %s: %s\n", what, cudaGetErrorString(err));
    std::abort();
  }
}

namespace {

constexpr uint16_t kNanBits = 0x7fc1;


}  // namespace

PagedKvFixture::PagedKvFixture(const PagedKvShape& shape, const std::vector<int>& contexts, uint32_t seed,
                               bool contiguous_pages)
    : shape_(shape), contexts_(contexts) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  const int row = shape.num_kv_heads * shape.head_dim;
  const int bs = shape.block_size;

  q_.resize(static_cast<size_t>(batch()) * shape.num_q_heads * shape.head_dim);
  std::vector<uint16_t> q_bits(q_.size());
  for (size_t i = 0; i < q_.size(); ++i) {
    bf16 v = FloatToBf16(dist(rng));
    q_bits[i] = v.bits;
    q_[i] = Bf16ToFloat(v);
  }

  int total_blocks = 0;
  for (int ctx : contexts) {
    const int blocks = (ctx + bs - 1) / bs;
    max_blocks_ = std::max(max_blocks_, blocks);
    total_blocks += blocks;
  }
  total_blocks += 3;  // pages no request owns, so page ids are not a dense 0..n-1 range
  std::vector<int32_t> pages(total_blocks);
  std::iota(pages.begin(), pages.end(), 0);
  if (!contiguous_pages) {
    // Its own generator, so both layouts of one seed hold the same values.
    std::mt19937 page_rng(seed ^ 0x9e3779b9u);
    std::shuffle(pages.begin(), pages.end(), page_rng);
  }

  std::vector<uint16_t> k_cache(static_cast<size_t>(total_blocks) * bs * row, kNanBits);
  std::vector<uint16_t> v_cache(k_cache.size(), kNanBits);
  std::vector<int32_t> tables(static_cast<size_t>(batch()) * max_blocks_, -1);
  k_.resize(batch());
  v_.resize(batch());
  int next_page = 0;
  for (int b = 0; b < batch(); ++b) {
    const int ctx = contexts[b];
    k_[b].resize(static_cast<size_t>(ctx) * row);
    v_[b].resize(k_[b].size());
    const int blocks = (ctx + bs - 1) / bs;
    for (int j = 0; j < blocks; ++j) tables[static_cast<size_t>(b) * max_blocks_ + j] = pages[next_page++];
    for (int t = 0; t < ctx; ++t) {
      const int page = tables[static_cast<size_t>(b) * max_blocks_ + t / bs];
      const size_t dst = (static_cast<size_t>(page) * bs + t % bs) * row;
      for (int e = 0; e < row; ++e) {
        bf16 kv = FloatToBf16(dist(rng));
        bf16 vv = FloatToBf16(dist(rng));
        k_cache[dst + e] = kv.bits;
        v_cache[dst + e] = vv.bits;
        k_[b][static_cast<size_t>(t) * row + e] = Bf16ToFloat(kv);
        v_[b][static_cast<size_t>(t) * row + e] = Bf16ToFloat(vv);
      }
    }
  }
  // Unused table entries point at a real page so a stray read is a wrong value, not a fault.
  for (int32_t& page : tables) page = page < 0 ? pages.back() : page;

  d_q_ = Upload(q_bits, "upload q");
  d_k_ = Upload(k_cache, "upload k cache");
  d_v_ = Upload(v_cache, "upload v cache");
  d_tables_ = Upload(tables, "upload block tables");
  d_lens_ = Upload(contexts_, "upload context lens");
}

PagedKvFixture::~PagedKvFixture() {
  cudaFree(d_q_);
  cudaFree(d_k_);
  cudaFree(d_v_);
  cudaFree(d_tables_);
  cudaFree(d_lens_);
}

int PagedKvFixture::max_context() const { return *std::max_element(contexts_.begin(), contexts_.end()); }

}  // namespace vt::testing
