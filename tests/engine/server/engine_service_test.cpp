// The engine service's admission control: Submit answers Unavailable, naming the limit, once the
// requests waiting beyond the running batch reach max_waiting, and admits again once one leaves.
// Readiness is polled through the gauges /metrics reports, with a generous bound, never a fixed wait.
#include "engine/server/engine_service.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <thread>

#include "tests/engine/tiny_model.h"

namespace vt::server {
namespace {

bool WaitFor(const std::function<bool()>& ready) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!ready()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

TEST(EngineService, RefusesPastItsWaitingLimitAndAdmitsOnceOneLeaves) {
  ModelConfig c = vt::testing::TinyConfig();
  c.max_position_embeddings = 4096;
  EngineConfig ec;
  ec.scheduler.max_num_seqs = 1;
  ec.scheduler.max_model_len = 4096;
  EngineService service(vt::testing::MakeEngine(c, ec), /*max_waiting=*/2);
  SamplingParams long_run;  // thousands of steps: nothing finishes while the test runs
  long_run.max_tokens = 4000;
  long_run.ignore_eos = true;
  auto running_and_waiting = [&](int64_t running, int64_t waiting) {
    return WaitFor([&] {
      const ServerGauges g = service.Gauges();
      return g.running == running && g.waiting == waiting;
    });
  };

  Result<std::shared_ptr<ResultStream>> a = service.Submit(vt::testing::Prompt(4, 1), long_run);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(running_and_waiting(1, 0));
  Result<std::shared_ptr<ResultStream>> b = service.Submit(vt::testing::Prompt(4, 2), long_run);
  ASSERT_TRUE(b.ok()) << b.status().message();
  ASSERT_TRUE(running_and_waiting(1, 1));
  Result<std::shared_ptr<ResultStream>> c2 = service.Submit(vt::testing::Prompt(4, 3), long_run);
  ASSERT_TRUE(c2.ok()) << c2.status().message();
  ASSERT_TRUE(running_and_waiting(1, 2));

  Result<std::shared_ptr<ResultStream>> refused = service.Submit(vt::testing::Prompt(4, 4), long_run);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(refused.status().message().find("overloaded: 2 requests are already waiting"), std::string::npos)
      << refused.status().message();

  (*b)->Cancel();  // reaped at the engine's next step
  ASSERT_TRUE(running_and_waiting(1, 1));
  Result<std::shared_ptr<ResultStream>> admitted = service.Submit(vt::testing::Prompt(4, 5), long_run);
  EXPECT_TRUE(admitted.ok()) << admitted.status().message();
  service.Stop();
}

}  // namespace
}  // namespace vt::server
