// The one step loop every app runs: `vt generate`, the server's engine thread and `vt bench`.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

#include "base/status.h"
#include "engine/exec/llm_engine.h"

namespace vt {

// What the loop's caller costs the device: the steps run and the wall time spent in on_step,
// between one step's result and the next step's start (on a GPU, time it is not launching work).
// Atomic so another thread (a /metrics scrape) can read them while the loop runs.
struct StepLoopTimes {
  std::atomic<int64_t> steps{0};
  std::atomic<int64_t> between_steps_ns{0};
};

// Steps `engine` while it has unfinished requests, handing each step's result to `on_step`
// (which may add or abort requests between steps). Returns early, ok, when on_step returns
// false; returns the error of the first step that fails. Adds to `times` when given.
Status RunSteps(LlmEngine& engine, const std::function<bool(const StepResult&)>& on_step,
                StepLoopTimes* times = nullptr);

}  // namespace vt
