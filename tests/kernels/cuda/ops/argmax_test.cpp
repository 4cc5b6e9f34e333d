// The device argmax against a CPU scan: the first maximum of each row (NaN never wins; token 0 where
// nothing is finite), for rows read by one CTA and by several (the bf16 kernel's slices), in calls of
// different row counts on one workspace, whose tickets each call must leave at zero.
#include "kernels/cuda/ops/argmax.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/bf16.h"
#include "tests/kernels/cuda/paged_kv_fixture.h"

namespace vt::kernels::cuda {
namespace {

using vt::testing::CheckCuda;
using vt::testing::Download;
using vt::testing::RandomBf16;
using vt::testing::SkipWithoutGpu;
using vt::testing::Upload;

// The first index of each row's maximum over values greater than -FLT_MAX, else 0.
std::vector<int32_t> FirstMaxima(const std::vector<float>& logits, int rows, int vocab) {
  std::vector<int32_t> want(rows);
  for (int r = 0; r < rows; ++r) {
    float best = -FLT_MAX;
    int idx = 0;
    for (int c = 0; c < vocab; ++c) {
      const float x = logits[size_t(r) * vocab + c];
      if (x > best) best = x, idx = c;
    }
    want[r] = idx;
  }
  return want;
}

TEST(Argmax, Float32TakesTheLowestIndexOnTies) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  const int rows = 4, vocab = 151936;
  std::vector<float> logits = RandomBf16(size_t(rows) * vocab, 10.f, 9).values;
  logits[size_t(1) * vocab + 70000] = 50.f;  // a tie: the lower index wins
  logits[size_t(1) * vocab + 90000] = 50.f;
  logits[size_t(2) * vocab + vocab - 1] = 60.f;
  for (int c = 0; c < vocab; ++c) logits[size_t(3) * vocab + c] = -INFINITY;  // nothing finite: token 0
  float* dlog = Upload(logits);
  int32_t* dout = nullptr;
  CheckCuda(cudaMalloc(&dout, rows * 4), "alloc");
  ASSERT_TRUE(ArgmaxRows(dlog, rows, vocab, dout, nullptr).ok());
  EXPECT_EQ(Download(dout, rows), FirstMaxima(logits, rows, vocab));
  EXPECT_EQ(Download(dout, rows)[1], 70000);
  cudaFree(dlog);
  cudaFree(dout);
}

// 151936 and 128256 (qwen3's and llama3's vocabularies) are read eight logits a load in 19 and 16
// slices; 1003 a logit a load by one CTA; 40003, and 151936 from an odd address, a logit a load in
// the most slices. Each row's maximum sits where the slicing is most likely to lose it: tied across
// two slices, in the last logit, beside a NaN, nowhere (all -inf).
TEST(Argmax, Bf16GivesTheFirstMaximumWhateverTheSlicing) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  struct Case {
    int vocab;
    int offset;  // logits start this many bf16 values into the allocation
  };
  for (const Case& k : {Case{151936, 0}, Case{128256, 0}, Case{1003, 0}, Case{40003, 0}, Case{151936, 1}}) {
    const int rows = 5, vocab = k.vocab;
    SCOPED_TRACE("vocab " + std::to_string(vocab) + " offset " + std::to_string(k.offset));
    vt::testing::Bf16Data logits = RandomBf16(size_t(rows) * vocab + k.offset, 10.f, 11);
    auto set = [&](int r, int c, float v) {
      logits.bits[k.offset + size_t(r) * vocab + c] = FloatToBf16(v).bits;
      logits.values[k.offset + size_t(r) * vocab + c] = v;
    };
    set(0, 100, 50.f);  // tied in the first slice and the last: the lower index wins
    set(0, vocab - 100, 50.f);
    set(1, vocab - 1, 60.f);
    set(2, vocab / 2, NAN);
    set(2, vocab / 2 + 1, 70.f);
    for (int c = 0; c < vocab; ++c) set(3, c, -INFINITY);
    set(4, 7, 80.f);
    set(4, 9, 80.f);
    const std::vector<float> values(logits.values.begin() + k.offset, logits.values.end());
    const std::vector<int32_t> want = FirstMaxima(values, rows, vocab);
    ASSERT_EQ(want, (std::vector<int32_t>{100, vocab - 1, vocab / 2 + 1, 0, 7}));

    uint16_t* dlog = Upload(logits.bits);
    int32_t* dout = nullptr;
    void* workspace = nullptr;
    CheckCuda(cudaMalloc(&dout, rows * 4), "alloc");
    CheckCuda(cudaMalloc(&workspace, ArgmaxWorkspaceBytes(rows)), "alloc");
    CheckCuda(cudaMemset(workspace, 0, ArgmaxWorkspaceBytes(rows)), "zero");
    // Calls of one row, then of more, fewer and more again on one workspace (as a runner's eager
    // steps and graphs of different batch sizes follow one another): each finds its rows' tickets
    // at zero only where the calls before it left them there, at the same place.
    for (int n : {1, 5, 2, 5}) {
      SCOPED_TRACE("rows " + std::to_string(n));
      CheckCuda(cudaMemset(dout, 0xff, rows * 4), "poison");
      ASSERT_TRUE(ArgmaxRowsBf16(dlog + k.offset, n, vocab, dout, workspace, nullptr).ok());
      EXPECT_EQ(Download(dout, n), std::vector<int32_t>(want.begin(), want.begin() + n));
    }
    // Row r's block starts ArgmaxWorkspaceBytes(1) bytes a row in, its ticket first.
    std::vector<unsigned char> left(ArgmaxWorkspaceBytes(rows));
    CheckCuda(cudaMemcpy(left.data(), workspace, left.size(), cudaMemcpyDeviceToHost), "download");
    for (int r = 0; r < rows; ++r) {
      unsigned ticket = 1;
      std::memcpy(&ticket, left.data() + r * ArgmaxWorkspaceBytes(1), sizeof(ticket));
      EXPECT_EQ(ticket, 0u) << "row " << r;
    }
    cudaFree(dlog);
    cudaFree(dout);
    cudaFree(workspace);
  }
}

TEST(Argmax, Bf16WithoutAWorkspaceIsAnError) {
  const Status s = ArgmaxRowsBf16(nullptr, 1, 151936, nullptr, nullptr, nullptr);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("workspace"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace vt::kernels::cuda
