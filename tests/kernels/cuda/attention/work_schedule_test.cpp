// The persistent decode arms' work schedule (work_schedule.h), on the CPU: the code the persist and
// solo kernels walk, compiled for the host. What it must hold whatever the batch: every (request, KV
// head, chunk) item goes to exactly one worker, the solo arm's subtile order is the persist arm's key
// streams, and the weights stay within the 32-bit bound the plan admits calls by.
#include "kernels/cuda/attention/work_schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace vt::kernels::cuda::attention {
namespace {

// One call as the kernels see it: the contexts and the split.
struct Call {
  std::vector<int32_t> contexts;
  int kv_heads = 1;
  int chunk_tokens = 0;  // 0 unsplit, kChunkByContext, or a fixed length
};

PagedDecodeParams ParamsOf(const Call& call) {
  PagedDecodeParams p;
  p.context_lens = call.contexts.data();
  p.batch = static_cast<int>(call.contexts.size());
  p.num_kv_heads = call.kv_heads;
  const int longest = *std::max_element(call.contexts.begin(), call.contexts.end());
  p.chunk_tokens = call.chunk_tokens;
  if (call.chunk_tokens == kChunkByContext) {
    p.num_chunks = MaxChunksByContext(longest);
  } else if (call.chunk_tokens > 0) {
    p.num_chunks = (longest + call.chunk_tokens - 1) / call.chunk_tokens;
  }
  if (p.num_chunks <= 1) p.chunk_tokens = 0, p.num_chunks = 1;  // as PlanDecode leaves a call of one chunk
  return p;
}

template <class Weights>
std::vector<int> Prefix(const PagedDecodeParams& p) {
  std::vector<int> prefix(p.batch + 1, 0);
  for (int b = 0; b < p.batch; ++b) prefix[b + 1] = prefix[b] + RequestUnits<Weights>(p, p.context_lens[b]);
  return prefix;
}

using Item = std::tuple<int, int, int>;  // request, KV head, chunk

// Every worker's share walked as the kernels walk it; how often each item was visited.
template <class Weights>
std::map<Item, int> Visits(const PagedDecodeParams& p, int workers) {
  const std::vector<int> prefix = Prefix<Weights>(p);
  const int64_t total = int64_t(prefix[p.batch]) * p.num_kv_heads;
  std::map<Item, int> visits;
  for (int worker = 0; worker < workers; ++worker) {
    int64_t start = 0, stop = 0;
    WorkerShare(total, worker, workers, start, stop);
    ItemWalk<Weights> walk{};  // as the kernels' cursors: the rest value-initialised, then set by Seek
    walk.prefix = prefix.data();
    walk.batch = p.batch;
    walk.kv_heads = p.num_kv_heads;
    walk.p = &p;
    walk.stop = stop;
    walk.Seek(start);
    for (; walk.live; walk.NextChunk()) {
      ++visits[{walk.b, walk.h, walk.c}];
      EXPECT_LT(walk.KeyBegin(), walk.KeyEnd()) << "an empty item";
    }
  }
  return visits;
}

std::string Describe(const Call& call, int workers) {
  return "batch " + std::to_string(call.contexts.size()) + ", " + std::to_string(call.kv_heads) + " KV heads, split " +
         std::to_string(call.chunk_tokens) + ", " + std::to_string(workers) + " workers";
}

template <class Weights>
void ExpectEveryItemOnce(const Call& call, int workers) {
  const PagedDecodeParams p = ParamsOf(call);
  const std::map<Item, int> visits = Visits<Weights>(p, workers);
  size_t items = 0;
  for (int b = 0; b < p.batch; ++b) {
    for (int h = 0; h < p.num_kv_heads; ++h) {
      for (int c = 0; c < LiveChunks(p, p.context_lens[b]); ++c, ++items) {
        const auto it = visits.find({b, h, c});
        ASSERT_TRUE(it != visits.end() && it->second == 1)
            << "item (" << b << ", " << h << ", " << c << ") visited " << (it == visits.end() ? 0 : it->second)
            << " times; " << Describe(call, workers);
      }
    }
  }
  EXPECT_EQ(visits.size(), items) << "items outside the call were visited; " << Describe(call, workers);
}

TEST(WorkSchedule, EveryItemGoesToExactlyOneWorker) {
  std::mt19937 rng(17);
  std::vector<Call> calls;
  // A CUDA graph's padded batch: 96 requests, then 32 one-key padding rows.
  Call padded{{}, 8, kChunkByContext};
  for (int i = 0; i < 128; ++i) padded.contexts.push_back(i < 96 ? 130 + (i * 7919) % 127 : 1);
  calls.push_back(padded);
  calls.push_back(Call{{1}, 1, 0});
  calls.push_back(Call{{8192, 8192, 8192, 8192, 8192, 8192, 8192, 8192}, 8, kChunkByContext});
  for (int i = 0; i < 150; ++i) {
    Call call;
    const int batch = std::uniform_int_distribution<int>(1, 80)(rng);
    const bool short_ones = i % 3 == 0;
    for (int b = 0; b < batch; ++b) {
      call.contexts.push_back(std::uniform_int_distribution<int>(1, short_ones ? 200 : 20000)(rng));
    }
    call.kv_heads = std::vector<int>{1, 2, 4, 8}[i % 4];
    call.chunk_tokens = std::vector<int>{0, kChunkByContext, 256, 16}[(i / 4) % 4];
    calls.push_back(call);
  }
  for (size_t i = 0; i < calls.size(); ++i) {
    for (int workers : {1, 7, 132, 1056}) {
      if (i % 2 == 0) {
        ExpectEveryItemOnce<CtaItemWeights>(calls[i], workers);
      } else {
        ExpectEveryItemOnce<WarpItemWeights>(calls[i], workers);
      }
      if (HasFatalFailure()) return;
    }
  }
}

// With fewer items than CTAs the persist arm shares them over ItemWorkers CTAs, the lowest-numbered:
// a request of 8,200 keys (17 live chunks, the last of 8 keys) with 8 KV heads in a grid of 396 CTAs
// gives each of 136 workers exactly one item; a grid smaller than the items keeps every CTA a worker.
TEST(WorkSchedule, AsManyWorkersAsItemsEachTakeOne) {
  Call call{{8200}, 8, kChunkByContext};
  const PagedDecodeParams p = ParamsOf(call);
  const int64_t items = int64_t(LiveChunks(p, 8200)) * p.num_kv_heads;
  ASSERT_EQ(items, 17 * 8);
  const int64_t workers = ItemWorkers(items, 396);
  EXPECT_EQ(workers, items);
  EXPECT_EQ(ItemWorkers(items, 100), 100);
  const std::vector<int> prefix = Prefix<CtaItemWeights>(p);
  const int64_t total = int64_t(prefix[p.batch]) * p.num_kv_heads;
  for (int64_t worker = 0; worker < workers; ++worker) {
    int64_t start = 0, stop = 0;
    WorkerShare(total, worker, workers, start, stop);
    ItemWalk<CtaItemWeights> walk{};
    walk.prefix = prefix.data();
    walk.batch = p.batch;
    walk.kv_heads = p.num_kv_heads;
    walk.p = &p;
    walk.stop = stop;
    int taken = 0;
    for (walk.Seek(start); walk.live; walk.NextChunk()) ++taken;
    EXPECT_EQ(taken, 1) << "worker " << worker;
  }
  ExpectEveryItemOnce<CtaItemWeights>(call, static_cast<int>(workers));
}

// The solo arm's warp walks an item's subtiles stream by stream; each stream must be exactly the
// subtiles one persist warp takes (w, w + 4, ...), in order, with the stream and item ends where
// the merge expects them.
TEST(WorkSchedule, SoloSubtilesFollowThePersistWarpsKeyStreams) {
  for (int subtiles = 1; subtiles <= 300; ++subtiles) {
    std::vector<std::vector<int>> expected(kItemStreams), walked(kItemStreams);
    for (int s = 0; s < subtiles; ++s) expected[s % kItemStreams].push_back(s);
    std::vector<int> stream_ends;
    int item_ends = 0;
    SubtileStreams order;
    order.Start(subtiles);
    do {
      walked[order.stream].push_back(order.Subtile());
      if (order.LastOfStream()) stream_ends.push_back(order.stream);
      if (order.LastOfItem()) ++item_ends;
    } while (order.Advance());
    EXPECT_EQ(walked, expected) << subtiles << " subtiles";
    std::vector<int> live(order.LiveStreams());
    for (int w = 0; w < order.LiveStreams(); ++w) live[w] = w;
    EXPECT_EQ(stream_ends, live) << subtiles << " subtiles";
    EXPECT_EQ(item_ends, 1) << subtiles << " subtiles";
    EXPECT_EQ(order.LiveStreams(), std::min(subtiles, kItemStreams));
  }
}

// CheckArmSupports admits a call by batch x max(max_context, 6) <= 2^31 - 1 because no request
// weighs more than max(context, 6) units; and the solo arm's weights never exceed the persist arm's.
TEST(WorkSchedule, RequestsWeighAtMostOneUnitAKeyOrSixUnits) {
  for (int chunk_tokens : {0, kChunkByContext, 16, 32, 128, 256, 4096}) {
    for (int context = 1; context <= 70000; context += context < 300 ? 1 : 97) {
      PagedDecodeParams p;
      p.chunk_tokens = chunk_tokens;
      p.num_chunks = chunk_tokens == 0                ? 1
                     : chunk_tokens == kChunkByContext ? MaxChunksByContext(context)
                                                      : (context + chunk_tokens - 1) / chunk_tokens;
      if (p.num_chunks == 1) p.chunk_tokens = 0;
      const int bound = std::max(context, 6);
      ASSERT_LE(RequestUnits<CtaItemWeights>(p, context), bound) << "context " << context << ", split " << chunk_tokens;
      ASSERT_LE(RequestUnits<WarpItemWeights>(p, context), RequestUnits<CtaItemWeights>(p, context))
          << "context " << context << ", split " << chunk_tokens;
    }
  }
}

// The schedule's divisions take the 32-bit path below 2^32 and the 64-bit one from there: the same
// quotient on both sides of the boundary, for divisors on both sides too.
TEST(WorkSchedule, DivisionsAgreeAcrossTheThirtyTwoBitBoundary) {
  const int64_t edge = int64_t(1) << 32;
  for (int64_t n : {int64_t(0), int64_t(1), int64_t(7), edge / 3, edge - 2, edge - 1, edge, edge + 1, 3 * edge + 5,
                    (int64_t(1) << 62) + 11}) {
    for (int64_t d : {int64_t(1), int64_t(2), int64_t(396), edge - 1, edge, edge + 3}) {
      EXPECT_EQ(DivideNonNegative(n, d), n / d) << n << " / " << d;
    }
  }
}

}  // namespace
}  // namespace vt::kernels::cuda::attention
