// Numerics of every paged decode-attention arm against the CPU float32 reference, on
// contexts that straddle page and split-chunk boundaries, shuffled block tables, both
// head dims and 1-8 query heads per KV head. Prints, per case, max_abs, max_rel and the
// percentage of outputs bitwise equal to the unsplit block arm.
//
// Pass criterion per element: |out - ref| <= 1e-2 * |ref| + 1e-3 * max|ref| over the
// head (bf16 output carries 8 significant bits, ~3.9e-3 relative).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kernels/cpu/decode_attention_reference.h"
#include "kernels/cuda/attention/kv_cache_write.h"
#include "kernels/cuda/attention/paged_decode.h"
#include "kernels/cuda/dependent_launch.h"
#include "kernels/cuda/testing/late_writer.h"
#include "kernels/bf16.h"
#include "tests/kernels/cuda/paged_kv_fixture.h"

namespace vt::kernels::cuda {
namespace {

using vt::testing::CheckCuda;
using vt::testing::CopyPiece;
using vt::testing::SkipWithoutGpu;
using vt::testing::PagedKvFixture;
using vt::testing::PagedKvShape;

constexpr uint16_t kPoison = 0xffff;  // a NaN: any element left unwritten shows up

std::vector<int> TestContexts() {
  std::vector<int> c = {1, 2, 31, 32, 33, 63, 64, 65, 100, 255, 256, 257, 511, 512, 513, 685, 1000, 1023, 1024, 1025};
  // VT_ATTN_TEST_QUICK drops the long contexts (compute-sanitizer runs are ~100x slower).
  if (std::getenv("VT_ATTN_TEST_QUICK") == nullptr) {
    c.push_back(4096);
    c.push_back(16384);
  }
  return c;
}

// A kernel right before the attention, on the same stream, that lets it start at once as a
// dependent launch and makes `pieces` only 2 ms later; `history_settled` is the call's promise
// about what that kernel writes (decode_params.h).
struct LateWriter {
  std::vector<CopyPiece> pieces;
  bool history_settled = false;
};

// Runs one arm over the fixture (after `late`'s kernel, when given); returns the bf16 output bits.
std::vector<uint16_t> RunArm(const PagedKvFixture& f, DecodeArm arm, int split_tokens, int chunks_per_cta = 0,
                             const LateWriter* late = nullptr) {
  const PagedKvShape& s = f.shape();
  DecodeShape shape{f.batch(), s.num_q_heads, s.num_kv_heads, s.head_dim, s.block_size, f.max_context()};
  Result<DecodePlan> plan = PlanDecode(shape, DecodeOverrides{arm, split_tokens});
  if (!plan.ok()) {
    ADD_FAILURE() << plan.status().message();
    return {};
  }
  plan->chunks_per_cta = chunks_per_cta;
  const size_t n = static_cast<size_t>(f.batch()) * s.num_q_heads * s.head_dim;
  uint16_t* d_out = nullptr;
  void* workspace = nullptr;
  CheckCuda(cudaMalloc(&d_out, n * 2), "alloc out");
  CheckCuda(cudaMemset(d_out, 0xff, n * 2), "poison out");
  const size_t ws = DecodeWorkspaceBytes(shape, *plan);
  if (ws > 0) {
    CheckCuda(cudaMalloc(&workspace, ws), "alloc workspace");
    CheckCuda(cudaMemset(workspace, 0xff, ws), "poison workspace");
  }
  PagedDecodeParams p;
  p.q = f.d_q();
  p.k_cache = f.d_k_cache();
  p.v_cache = f.d_v_cache();
  p.block_tables = f.d_block_tables();
  p.context_lens = f.d_context_lens();
  p.out = d_out;
  p.batch = f.batch();
  p.num_q_heads = s.num_q_heads;
  p.num_kv_heads = s.num_kv_heads;
  p.head_dim = s.head_dim;
  p.block_size = s.block_size;
  p.max_blocks_per_seq = f.max_blocks_per_seq();
  p.scale = 1.f / std::sqrt(static_cast<float>(s.head_dim));
  cudaStream_t stream = nullptr;
  if (late != nullptr) {
    CheckCuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
    CheckCuda(vt::testing::LaunchLateWriter(late->pieces, 2000, stream), "late writer");
    p.history_settled = late->history_settled;
    SetDependentLaunch(true);
  }
  Status st = RunPagedDecode(p, *plan, workspace, stream);
  SetDependentLaunch(false);
  EXPECT_TRUE(st.ok()) << st.message();
  CheckCuda(cudaDeviceSynchronize(), "decode");
  if (stream != nullptr) cudaStreamDestroy(stream);
  std::vector<uint16_t> out(n);
  CheckCuda(cudaMemcpy(out.data(), d_out, n * 2, cudaMemcpyDeviceToHost), "download out");
  cudaFree(d_out);
  cudaFree(workspace);
  return out;
}

std::vector<float> Reference(const PagedKvFixture& f) {
  const PagedKvShape& s = f.shape();
  const size_t per_req = static_cast<size_t>(s.num_q_heads) * s.head_dim;
  std::vector<float> ref(per_req * f.batch());
  for (int b = 0; b < f.batch(); ++b) {
    cpu::DecodeReferenceShape rs{s.num_q_heads, s.num_kv_heads, s.head_dim, f.contexts()[b],
                                 1.f / std::sqrt(static_cast<float>(s.head_dim))};
    cpu::DecodeAttentionReference(rs, std::span<const float>(f.q().data() + b * per_req, per_req), f.k(b), f.v(b),
                                  std::span<float>(ref.data() + b * per_req, per_req));
  }
  return ref;
}

struct RowComparison {
  double max_abs = 0, max_rel = 0;
  int64_t bitwise_equal = 0, elements = 0, failures = 0, unwritten = 0, mismatched_bits = 0;
  double BitwisePercent() const { return elements ? 100.0 * bitwise_equal / elements : 0; }
};

// Compares request b's output with the reference and with the bits of another arm.
RowComparison CompareRow(const PagedKvShape& s, int b, const std::vector<uint16_t>& out,
                         const std::vector<float>& ref, const std::vector<uint16_t>& other) {
  RowComparison c;
  const size_t head_elems = s.head_dim;
  for (int h = 0; h < s.num_q_heads; ++h) {
    const size_t base = (static_cast<size_t>(b) * s.num_q_heads + h) * head_elems;
    double head_max = 0;
    for (size_t d = 0; d < head_elems; ++d) head_max = std::max(head_max, std::fabs(double(ref[base + d])));
    for (size_t d = 0; d < head_elems; ++d) {
      const size_t i = base + d;
      ++c.elements;
      const float o = Bf16ToFloat(bf16{out[i]});
      if (std::isnan(o)) {
        ++c.unwritten;
        continue;
      }
      const double err = std::fabs(double(o) - ref[i]);
      c.max_abs = std::max(c.max_abs, err);
      if (std::fabs(ref[i]) > 1e-6) c.max_rel = std::max(c.max_rel, err / std::fabs(ref[i]));
      if (err > 1e-2 * std::fabs(ref[i]) + 1e-3 * head_max) ++c.failures;
      if (out[i] == other[i]) {
        ++c.bitwise_equal;
      } else {
        ++c.mismatched_bits;
      }
    }
  }
  return c;
}

struct ShapeCase {
  int num_q_heads, num_kv_heads, head_dim, block_size;
};

// The arms every shape of the suite runs (warp2 and solo are head_dim 128 only; warp2 is added where
// a test wants it).
std::vector<DecodeArm> ArmsFor(int head_dim) {
  std::vector<DecodeArm> arms = {DecodeArm::kBlock, DecodeArm::kWarp, DecodeArm::kGqa, DecodeArm::kPersistent};
  if (head_dim == 128) arms.push_back(DecodeArm::kSolo);
  return arms;
}

std::string CaseName(const ShapeCase& c) {
  char name[64];
  std::snprintf(name, sizeof name, "d%d_q%dkv%d_bs%d", c.head_dim, c.num_q_heads, c.num_kv_heads, c.block_size);
  return name;
}

class DecodeArms : public ::testing::TestWithParam<ShapeCase> {};

TEST_P(DecodeArms, EveryArmMatchesTheReferenceOnEveryContext) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  const ShapeCase sc = GetParam();
  const PagedKvShape shape{sc.num_q_heads, sc.num_kv_heads, sc.head_dim, sc.block_size};
  const PagedKvFixture f(shape, TestContexts(), 1234u + sc.head_dim + sc.num_q_heads);
  const std::vector<float> ref = Reference(f);
  const std::vector<uint16_t> block = RunArm(f, DecodeArm::kBlock, 0);

  std::vector<DecodeArm> arms = ArmsFor(sc.head_dim);
  if (sc.head_dim == 128) arms.push_back(DecodeArm::kWarpTwoRows);
  std::printf("%-20s %-6s %-6s %6s %10s %10s %9s\n", "shape", "arm", "split", "ctx", "max_abs", "max_rel",
              "bitwise%");
  for (DecodeArm arm : arms) {
    for (int split : {0, kSplitAuto, 256}) {
      const std::vector<uint16_t> out = RunArm(f, arm, split);
      ASSERT_EQ(out.size(), block.size());
      for (int b = 0; b < f.batch(); ++b) {
        const RowComparison c = CompareRow(shape, b, out, ref, block);
        std::printf("%-20s %-6s %-6d %6d %10.3e %10.3e %9.4f\n", CaseName(sc).c_str(), DecodeArmName(arm), split,
                    f.contexts()[b], c.max_abs, c.max_rel, c.BitwisePercent());
        EXPECT_EQ(c.unwritten, 0) << DecodeArmName(arm) << " split " << split << " ctx " << f.contexts()[b];
        EXPECT_EQ(c.failures, 0) << DecodeArmName(arm) << " split " << split << " ctx " << f.contexts()[b]
                                 << " max_abs " << c.max_abs;
      }
    }
  }
}

// A single-chunk request must come out of the split path bitwise equal to the unsplit path:
// the merge multiplies by exactly 1 and divides by exactly 1.
TEST_P(DecodeArms, SplitOfOneChunkIsBitwiseTheUnsplitResult) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  const ShapeCase sc = GetParam();
  const PagedKvShape shape{sc.num_q_heads, sc.num_kv_heads, sc.head_dim, sc.block_size};
  const std::vector<int> contexts = {1, 33, 255, 256, 700, 1500};
  const PagedKvFixture f(shape, contexts, 99u);
  const size_t per_req = static_cast<size_t>(sc.num_q_heads) * sc.head_dim;
  for (DecodeArm arm : ArmsFor(sc.head_dim)) {
    const std::vector<uint16_t> unsplit = RunArm(f, arm, 0);
    const std::vector<uint16_t> split = RunArm(f, arm, 256);
    for (int b = 0; b < f.batch(); ++b) {
      if (contexts[b] > 256) continue;
      EXPECT_EQ(0, std::memcmp(unsplit.data() + b * per_req, split.data() + b * per_req, per_req * 2))
          << DecodeArmName(arm) << " ctx " << contexts[b];
    }
  }
}

// How many chunks one GQA CTA serves is launch geometry only: every value gives the same bits.
TEST_P(DecodeArms, GqaChunksPerCtaChangesNoBit) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  const ShapeCase sc = GetParam();
  const PagedKvShape shape{sc.num_q_heads, sc.num_kv_heads, sc.head_dim, sc.block_size};
  const PagedKvFixture f(shape, {1, 100, 700, 1025, 3000}, 11u);
  for (int split : {kSplitAuto, 256}) {
    const std::vector<uint16_t> one = RunArm(f, DecodeArm::kGqa, split, 1);
    for (int per_cta : {2, 3, 8}) {
      EXPECT_EQ(one, RunArm(f, DecodeArm::kGqa, split, per_cta)) << "split " << split << " per CTA " << per_cta;
    }
  }
}

// The persistent arms reduce every chunk as the gqa arm does, whichever CTA or warp takes it: the
// same bits for every split, on a batch whose contexts give chunks of every length (the solo arm's
// short chunks leave some of its four key streams empty) and workers that start and stop
// mid-request.
TEST_P(DecodeArms, PersistentGivesTheGqaBits) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  const ShapeCase sc = GetParam();
  const PagedKvShape shape{sc.num_q_heads, sc.num_kv_heads, sc.head_dim, sc.block_size};
  // A dozen requests (about one item per CTA), 96 (CTAs run many items across requests), 300
  // short ones (the context prefix sum takes three rounds of the CTA's 128 threads), and a CUDA
  // graph's padded batch: 96 requests, then 32 one-key padding rows (one-key items weigh more than
  // their keys in the schedule).
  std::vector<int> many, short_many, padded;
  for (int i = 0; i < 96; ++i) many.push_back(1 + (i * 7919) % 2500);
  for (int i = 0; i < 300; ++i) short_many.push_back(1 + (i * 7919) % 300);
  for (int i = 0; i < 128; ++i) padded.push_back(i < 96 ? 130 + (i * 7919) % 127 : 1);
  int device = 0, major = 0;
  CheckCuda(cudaGetDevice(&device), "device");
  CheckCuda(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "compute capability");
  const bool sm90 = major >= 9;
  for (const std::vector<int>& contexts : {std::vector<int>{1, 2, 17, 64, 65, 100, 130, 700, 1025, 3000, 5000, 129},
                                           many, short_many, padded}) {
    const PagedKvFixture f(shape, contexts, 23u);
    for (int split : {0, kSplitAuto, 256}) {
      const std::vector<uint16_t> gqa = RunArm(f, DecodeArm::kGqa, split);
      for (DecodeArm arm : {DecodeArm::kPersistent, DecodeArm::kSolo}) {
        if (arm == DecodeArm::kSolo && sc.head_dim != 128) continue;
        // Where a solo CTA does not fit, the gqa kernel runs instead and there is nothing to compare. On
        // sm_90's 227 KB of shared memory a block every group up to 8 fits these batches; on sm_86/89's
        // 99 KB groups of 4 and more do not.
        const int group = sc.num_q_heads / sc.num_kv_heads;
        if (arm == DecodeArm::kSolo && !SoloArmRunsItself(f.batch(), group)) {
          EXPECT_FALSE(sm90 && group <= 8) << "solo ran the gqa kernel where it fits: nothing compared";
          continue;
        }
        const std::vector<uint16_t> out = RunArm(f, arm, split);
        // Both arms leaving an element unwritten (the NaN poison) would still compare equal.
        EXPECT_EQ(std::count(out.begin(), out.end(), kPoison), 0) << DecodeArmName(arm) << " split " << split;
        EXPECT_EQ(gqa, out) << DecodeArmName(arm) << " split " << split << ", batch " << contexts.size();
      }
    }
  }
}

// A persist-arm call after a kernel that lets it start at once as a dependent launch and writes
// 2 ms later: the true queries and keys saved aside, the written ones zeroed before the call.
class PersistentAfterALateWriter : public ::testing::Test {
 protected:
  static constexpr int kLongRequest = 4;

  void SetUp() override {
    SkipWithoutGpu();
    if (IsSkipped()) GTEST_SKIP();
    int device = 0, major = 0;
    CheckCuda(cudaGetDevice(&device), "device");
    CheckCuda(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device),
              "compute capability");
    if (major < 9) GTEST_SKIP() << "programmatic dependent launch needs sm_90 or newer";
    f_ = std::make_unique<PagedKvFixture>(kShape, std::vector<int>{1, 100, 700, 1025, 4096}, 31u);
    expected_ = RunArm(*f_, DecodeArm::kPersistent, kSplitAuto);

    const size_t q_bytes = size_t(f_->batch()) * kShape.num_q_heads * kShape.head_dim * 2;
    tables_.resize(size_t(f_->batch()) * f_->max_blocks_per_seq());
    CheckCuda(cudaMemcpy(tables_.data(), f_->d_block_tables(), tables_.size() * 4, cudaMemcpyDeviceToHost),
              "tables");
    size_t cache_bytes = 0;
    for (int32_t page : tables_) cache_bytes = std::max(cache_bytes, (size_t(page) + 1) * kShape.block_size);
    cache_bytes *= size_t(kShape.num_kv_heads) * kShape.head_dim * 2;
    CheckCuda(cudaMalloc(&saved_q_, q_bytes), "alloc");
    CheckCuda(cudaMalloc(&saved_k_, cache_bytes), "alloc");
    CheckCuda(cudaMalloc(&saved_v_, cache_bytes), "alloc");
    CheckCuda(cudaMemcpy(saved_q_, f_->d_q(), q_bytes, cudaMemcpyDeviceToDevice), "save q");
    CheckCuda(cudaMemcpy(saved_k_, f_->d_k_cache(), cache_bytes, cudaMemcpyDeviceToDevice), "save k");
    CheckCuda(cudaMemcpy(saved_v_, f_->d_v_cache(), cache_bytes, cudaMemcpyDeviceToDevice), "save v");

    // A decode step's writes: the queries and every request's last key and value.
    step_writes_ = {{const_cast<uint16_t*>(f_->d_q()), saved_q_, q_bytes}};
    for (int b = 0; b < f_->batch(); ++b) AddKvRows(step_writes_, b, false);
    with_older_ = step_writes_;
    AddKvRows(with_older_, kLongRequest, true);
  }

  void TearDown() override {
    cudaFree(saved_q_);
    cudaFree(saved_k_);
    cudaFree(saved_v_);
  }

  // Request b's K and V rows: all its pages but the last when `older`, else its last key's row.
  void AddKvRows(std::vector<CopyPiece>& pieces, int b, bool older) const {
    const size_t row = size_t(kShape.num_kv_heads) * kShape.head_dim;  // one token, every KV head
    const int last = f_->contexts()[b] - 1;
    const int32_t* table = tables_.data() + size_t(b) * f_->max_blocks_per_seq();
    for (const auto& [cache, saved] :
         {std::pair{f_->d_k_cache(), saved_k_}, std::pair{f_->d_v_cache(), saved_v_}}) {
      auto add = [&](size_t first_slot, size_t tokens) {
        pieces.push_back(
            {const_cast<uint16_t*>(cache) + first_slot * row, saved + first_slot * row, tokens * row * 2});
      };
      if (older) {
        for (int page = 0; page < last / kShape.block_size; ++page)
          add(size_t(table[page]) * kShape.block_size, kShape.block_size);
      } else {
        add(size_t(table[last / kShape.block_size]) * kShape.block_size + last % kShape.block_size, 1);
      }
    }
  }

  std::vector<uint16_t> RunAfter(const std::vector<CopyPiece>& writes, bool history_settled, DecodeArm arm) const {
    for (const CopyPiece& piece : writes) CheckCuda(cudaMemset(piece.dst, 0, piece.bytes), "zero");
    const LateWriter late{writes, history_settled};
    return RunArm(*f_, arm, kSplitAuto, 0, &late);
  }

  std::vector<uint16_t> LongRequestRows(const std::vector<uint16_t>& out) const {
    const size_t n = size_t(kShape.num_q_heads) * kShape.head_dim;
    return std::vector<uint16_t>(out.begin() + kLongRequest * n, out.begin() + (kLongRequest + 1) * n);
  }

  static constexpr PagedKvShape kShape{16, 8, 128, 16};
  std::unique_ptr<PagedKvFixture> f_;
  std::vector<uint16_t> expected_;
  std::vector<int32_t> tables_;
  uint16_t *saved_q_ = nullptr, *saved_k_ = nullptr, *saved_v_ = nullptr;
  std::vector<CopyPiece> step_writes_, with_older_;
};

// With history_settled (a decode step) the persistent arms plan their work and read older keys
// before they wait on the kernel before them, never the queries or the last keys that kernel writes;
// without it, they read nothing before. The solo arm gives the persist arm's bits.
TEST_F(PersistentAfterALateWriter, SeesEverythingTheKernelBeforeMayWrite) {
  ASSERT_TRUE(SoloArmRunsItself(f_->batch(), kShape.num_q_heads / kShape.num_kv_heads));
  for (DecodeArm arm : {DecodeArm::kPersistent, DecodeArm::kSolo}) {
    EXPECT_EQ(RunAfter(step_writes_, true, arm), expected_)
        << DecodeArmName(arm) << ": the queries or last keys were read before the wait";
    EXPECT_EQ(RunAfter(with_older_, false, arm), expected_)
        << DecodeArmName(arm) << ": without history_settled something was read before the wait";
  }
}

// The other side, so that the test above can fail: older keys rewritten by the kernel before (a
// broken promise) are read before it writes them. Needs launches that really overlap: under
// compute-sanitizer, which runs kernels one at a time, it fails by design (leave it out there).
TEST_F(PersistentAfterALateWriter, ReadsOlderKeysBeforeTheKernelBeforeEnds) {
  for (DecodeArm arm : {DecodeArm::kPersistent, DecodeArm::kSolo}) {
    EXPECT_NE(LongRequestRows(RunAfter(with_older_, true, arm)), LongRequestRows(expected_))
        << DecodeArmName(arm) << ": no older key was read before the wait: the test above sees nothing";
  }
}

// Paged == dense: the same values laid out in shuffled pages or in one contiguous run of pages
// give bitwise identical outputs for every arm.
TEST_P(DecodeArms, ShuffledPagesGiveTheContiguousResult) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  const ShapeCase sc = GetParam();
  const PagedKvShape shape{sc.num_q_heads, sc.num_kv_heads, sc.head_dim, sc.block_size};
  const std::vector<int> contexts = {1000};
  const PagedKvFixture shuffled(shape, contexts, 7u, false);
  const PagedKvFixture dense(shape, contexts, 7u, true);
  ASSERT_EQ(shuffled.k(0), dense.k(0));
  for (DecodeArm arm : ArmsFor(sc.head_dim)) {
    for (int split : {0, 256}) {
      EXPECT_EQ(RunArm(shuffled, arm, split), RunArm(dense, arm, split)) << DecodeArmName(arm) << " split " << split;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, DecodeArms,
                         ::testing::Values(ShapeCase{2, 2, 128, 16}, ShapeCase{4, 2, 128, 32},
                                           ShapeCase{8, 2, 128, 16}, ShapeCase{16, 2, 128, 32},
                                           // Groups of 16 (every MMA row), 7 (Qwen2.5-7B's 28/4) and
                                           // one KV head.
                                           ShapeCase{32, 2, 128, 16}, ShapeCase{28, 4, 128, 16},
                                           ShapeCase{8, 1, 128, 32}, ShapeCase{14, 2, 256, 16},
                                           ShapeCase{2, 2, 256, 32}, ShapeCase{4, 2, 256, 16},
                                           ShapeCase{8, 2, 256, 32}, ShapeCase{16, 2, 256, 16}),
                         [](const ::testing::TestParamInfo<ShapeCase>& info) { return CaseName(info.param); });

// The comparison itself can fail: three 1-ULP corruptions in one request are counted
// exactly, and only in that request's row.
TEST(DecodeComparator, CatchesOneUlpCorruptionInTheRightRowOnly) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  const PagedKvShape shape{8, 2, 128, 16};
  const std::vector<int> contexts = {31, 100, 685};
  const PagedKvFixture f(shape, contexts, 5u);
  const std::vector<float> ref = Reference(f);
  const std::vector<uint16_t> good = RunArm(f, DecodeArm::kBlock, 0);
  std::vector<uint16_t> bad = good;
  const size_t per_req = static_cast<size_t>(shape.num_q_heads) * shape.head_dim;
  for (size_t off : {size_t(5), size_t(512), per_req - 1}) bad[per_req * 0 + off] += 1;
  for (int b = 0; b < f.batch(); ++b) {
    const RowComparison c = CompareRow(shape, b, bad, ref, good);
    std::printf("self-test ctx %4d bitwise %.4f%% mismatched %lld max_abs %.3e\n", contexts[b], c.BitwisePercent(),
                static_cast<long long>(c.mismatched_bits), c.max_abs);
    EXPECT_EQ(c.mismatched_bits, b == 0 ? 3 : 0);
  }
}

TEST(KvCacheWrite, RowsLandInTheirSlotsAndNothingElseMoves) {
  SkipWithoutGpu();
  if (IsSkipped()) return;
  const int heads = 2, dim = 128, block = 16, pages = 4, tokens = 5;
  const int row = heads * dim;
  std::vector<uint16_t> k(static_cast<size_t>(tokens) * row), v(k.size());
  for (size_t i = 0; i < k.size(); ++i) {
    k[i] = static_cast<uint16_t>(i * 7 + 1);
    v[i] = static_cast<uint16_t>(i * 13 + 2);
  }
  const std::vector<int64_t> slots = {17, 3, -1, 63, 48};
  std::vector<uint16_t> cache(static_cast<size_t>(pages) * block * row, 0xabcd);
  uint16_t *dk, *dv, *dkc, *dvc;
  int64_t* ds;
  CheckCuda(cudaMalloc(&dk, k.size() * 2), "k");
  CheckCuda(cudaMalloc(&dv, v.size() * 2), "v");
  CheckCuda(cudaMalloc(&dkc, cache.size() * 2), "kc");
  CheckCuda(cudaMalloc(&dvc, cache.size() * 2), "vc");
  CheckCuda(cudaMalloc(&ds, slots.size() * 8), "slots");
  CheckCuda(cudaMemcpy(dk, k.data(), k.size() * 2, cudaMemcpyHostToDevice), "k");
  CheckCuda(cudaMemcpy(dv, v.data(), v.size() * 2, cudaMemcpyHostToDevice), "v");
  CheckCuda(cudaMemcpy(dkc, cache.data(), cache.size() * 2, cudaMemcpyHostToDevice), "kc");
  CheckCuda(cudaMemcpy(dvc, cache.data(), cache.size() * 2, cudaMemcpyHostToDevice), "vc");
  CheckCuda(cudaMemcpy(ds, slots.data(), slots.size() * 8, cudaMemcpyHostToDevice), "slots");
  KvWriteParams p{dk, dv, ds, dkc, dvc, tokens, heads, dim};
  ASSERT_TRUE(WriteKvCache(p, nullptr).ok());
  std::vector<uint16_t> kc(cache.size()), vc(cache.size());
  CheckCuda(cudaMemcpy(kc.data(), dkc, kc.size() * 2, cudaMemcpyDeviceToHost), "kc");
  CheckCuda(cudaMemcpy(vc.data(), dvc, vc.size() * 2, cudaMemcpyDeviceToHost), "vc");
  std::vector<uint16_t> want_k = cache, want_v = cache;
  for (int t = 0; t < tokens; ++t) {
    if (slots[t] < 0) continue;
    std::memcpy(&want_k[slots[t] * row], &k[static_cast<size_t>(t) * row], row * 2);
    std::memcpy(&want_v[slots[t] * row], &v[static_cast<size_t>(t) * row], row * 2);
  }
  EXPECT_EQ(kc, want_k);
  EXPECT_EQ(vc, want_v);
  cudaFree(dk);
  cudaFree(dv);
  cudaFree(dkc);
  cudaFree(dvc);
  cudaFree(ds);
}

}  // namespace
}  // namespace vt::kernels::cuda
