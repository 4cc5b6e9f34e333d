// The split-KV merge kernel against the same merge written as a plain loop over the chunks
// (kernels/cuda/testing/sequential_merge.cu): bit for bit, however the kernel schedules its loads.
// The persist and gqa arms are held to each other's bits through this kernel, and the engine's
// token gates to the bits it gave before, so a merge that reordered an add must fail here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernels/cuda/attention/decode_launch.h"
#include "kernels/cuda/testing/sequential_merge.h"
#include "tests/kernels/cuda/gpu_test_support.h"

namespace vt::kernels::cuda {
namespace {

using vt::testing::CheckCuda;
using vt::testing::Download;
using vt::testing::SkipWithoutGpu;
using vt::testing::Upload;

struct MergeInputs {
  std::vector<float> partial;  // [heads, chunks, head_dim]
  std::vector<float> lse;      // [heads, chunks]
};

// Random partials and log2-sum-exps, with what the merge must weigh as nothing: empty chunks
// (lse -inf, their partials never written: NaN here), chunks whose weight underflows to zero
// (lse 200 below the head's largest, partials NaN too) and one head with no live chunk. With
// `cancelling`, every chunk weighs the same and the partials alternate around +-2^20, so the
// running sum's rounding depends on the order of the adds and a reordered merge differs in bf16.
MergeInputs MakeInputs(int heads, int chunks, int head_dim, bool cancelling, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> unit(-1.f, 1.f);
  MergeInputs in;
  in.partial.resize(size_t(heads) * chunks * head_dim);
  in.lse.resize(size_t(heads) * chunks);
  for (int h = 0; h < heads; ++h) {
    for (int c = 0; c < chunks; ++c) {
      float& lse = in.lse[size_t(h) * chunks + c];
      lse = cancelling ? 3.f : 8.f * unit(rng);
      const bool empty = h == heads - 1 || (chunks > 2 && c % 7 == 3);
      const bool underflows = !empty && chunks > 2 && c % 11 == 5;
      if (empty) lse = -std::numeric_limits<float>::infinity();
      if (underflows) lse = -200.f;
      for (int d = 0; d < head_dim; ++d) {
        float v = unit(rng);
        if (cancelling) v += (c % 2 ? -1.f : 1.f) * 1048576.f;
        in.partial[(size_t(h) * chunks + c) * head_dim + d] = empty || underflows ? std::nanf("") : v;
      }
    }
  }
  return in;
}

constexpr int kChunkTokens = 16;

// Runs the merge kernel and the plain loop on the same inputs; returns both outputs' bits. Request
// b has contexts[b] keys in chunks of kChunkTokens; by default each fills every chunk of the grid.
// Without contexts (`with_contexts` false) the call is the tensor-core prefill's merge, whose rows
// are all merged.
void RunBoth(const MergeInputs& in, int batch, int q_heads, int chunks, int head_dim,
             std::vector<uint16_t>& kernel, std::vector<uint16_t>& sequential,
             std::vector<int32_t> contexts = {}, bool with_contexts = true) {
  if (contexts.empty()) contexts.assign(size_t(batch), chunks * kChunkTokens);
  int32_t* context_lens = with_contexts ? Upload(contexts) : nullptr;
  float* partial = Upload(in.partial);
  float* lse = Upload(in.lse);
  const size_t n = size_t(batch) * q_heads * head_dim;
  uint16_t* out = nullptr;
  CheckCuda(cudaMalloc(&out, n * 2), "alloc out");
  PagedDecodeParams p;
  p.partial_out = partial;
  p.partial_lse = lse;
  p.out = out;
  p.batch = batch;
  p.num_q_heads = q_heads;
  p.head_dim = head_dim;
  p.num_chunks = chunks;
  p.chunk_tokens = kChunkTokens;
  p.context_lens = context_lens;
  CheckCuda(cudaMemset(out, 0xff, n * 2), "poison out");
  CheckCuda(attention::LaunchMergeChunks(p, nullptr), "merge kernel");
  kernel = Download(out, n);
  CheckCuda(cudaMemset(out, 0xff, n * 2), "poison out");
  CheckCuda(vt::testing::LaunchSequentialMerge(p, nullptr), "sequential merge");
  sequential = Download(out, n);
  cudaFree(context_lens);
  cudaFree(partial);
  cudaFree(lse);
  cudaFree(out);
}

TEST(ChunkMerge, TheKernelGivesThePlainLoopsBits) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  constexpr int kBatch = 3, kQHeads = 4;
  // Two chunks, fewer than a batch of loads, exactly one, one past it, and several.
  for (int chunks : {2, 5, 32, 33, 100}) {
    for (int head_dim : {128, 256}) {
      for (bool cancelling : {false, true}) {
        for (bool with_contexts : {true, false}) {
          const MergeInputs in = MakeInputs(kBatch * kQHeads, chunks, head_dim, cancelling, 11u + chunks);
          std::vector<uint16_t> kernel, sequential;
          RunBoth(in, kBatch, kQHeads, chunks, head_dim, kernel, sequential, {}, with_contexts);
          int64_t mismatched = 0, finite_nonzero = 0;
          for (size_t i = 0; i < kernel.size(); ++i) {
            mismatched += kernel[i] != sequential[i];
            const uint16_t magnitude = kernel[i] & 0x7fff;
            finite_nonzero += magnitude != 0 && magnitude < 0x7f80;
          }
          EXPECT_EQ(mismatched, 0) << chunks << " chunks, head_dim " << head_dim
                                   << (cancelling ? ", cancelling" : "")
                                   << (with_contexts ? "" : ", no contexts");
          // Every head but the last has a live chunk: those outputs are finite numbers (the last
          // head's are zero), so both merges wrote and neither read a weightless chunk's NaN.
          const int64_t live_outputs = int64_t(kBatch * kQHeads - 1) * head_dim;
          EXPECT_GE(finite_nonzero, live_outputs * 95 / 100) << chunks << " chunks, head_dim " << head_dim;
          for (int d = 0; d < head_dim; ++d)
            EXPECT_EQ(kernel[size_t(kBatch * kQHeads - 1) * head_dim + d], 0);
        }
      }
    }
  }
}

// A request whose context fills only its first chunk was written whole by the attention kernel
// (SoleChunk): the merge leaves its rows as they are and merges the split requests beside it as
// the plain loop does.
TEST(ChunkMerge, PassesByARequestOfOneLiveChunk) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  constexpr int kBatch = 3, kQHeads = 4, kChunks = 4, kHeadDim = 128;
  const MergeInputs in = MakeInputs(kBatch * kQHeads, kChunks, kHeadDim, false, 7u);
  std::vector<uint16_t> kernel, sequential;
  // One live chunk, three, and four.
  RunBoth(in, kBatch, kQHeads, kChunks, kHeadDim, kernel, sequential,
          {kChunkTokens, 2 * kChunkTokens + 5, kChunks * kChunkTokens});
  const size_t per_request = size_t(kQHeads) * kHeadDim;
  for (size_t i = 0; i < kernel.size(); ++i) {
    if (i < per_request) {
      ASSERT_EQ(kernel[i], 0xffff) << "the merge wrote over the one-chunk request at " << i;
    } else {
      ASSERT_EQ(kernel[i], sequential[i]) << "a split request's merged output differs at " << i;
    }
  }
}

}  // namespace
}  // namespace vt::kernels::cuda
