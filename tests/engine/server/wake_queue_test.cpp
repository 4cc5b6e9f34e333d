// The engine thread's hand-off of woken streams: one runner call however many streams and steps
// pile up before the I/O threads drain, and every stream handed is woken exactly once.
#include "engine/server/wake_queue.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <vector>

#include "engine/server/engine_service.h"

namespace vt::server {
namespace {

TEST(WakeQueue, OneDrainWakesEveryStreamHandedBeforeIt) {
  auto queue = std::make_shared<WakeQueue>();
  std::vector<std::function<void()>> posted;
  queue->SetRunner([&](std::function<void()> f) { posted.push_back(std::move(f)); });
  std::vector<int> wakes(3, 0);
  std::vector<std::shared_ptr<ResultStream>> streams;
  for (int i = 0; i < 3; ++i) {
    streams.push_back(std::make_shared<ResultStream>());
    streams.back()->OnUpdate([&wakes, i] { ++wakes[i]; });
  }
  std::vector<std::shared_ptr<ResultStream>> woken = {streams[0], streams[1]};
  queue->Hand(woken);
  EXPECT_TRUE(woken.empty());
  woken = {streams[2]};  // the next step, before the I/O threads drained the first
  queue->Hand(woken);
  ASSERT_EQ(posted.size(), 1u);
  EXPECT_EQ(wakes, (std::vector<int>{0, 0, 0}));  // nothing wakes on the handing thread
  posted[0]();
  EXPECT_EQ(wakes, (std::vector<int>{1, 1, 1}));

  woken = {streams[1]};  // after a drain, the next hand posts again
  queue->Hand(woken);
  ASSERT_EQ(posted.size(), 2u);
  posted[1]();
  EXPECT_EQ(wakes, (std::vector<int>{1, 2, 1}));
}

TEST(WakeQueue, WithoutARunnerTheHandingThreadWakes) {
  WakeQueue queue;
  int wakes = 0;
  auto stream = std::make_shared<ResultStream>();
  stream->OnUpdate([&] { ++wakes; });
  std::vector<std::shared_ptr<ResultStream>> woken = {stream};
  queue.Hand(woken);
  EXPECT_EQ(wakes, 1);
  EXPECT_TRUE(woken.empty());
}

}  // namespace
}  // namespace vt::server
