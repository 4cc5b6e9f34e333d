#include "engine/exec/step_loop.h"

#include <chrono>

namespace vt {

Status RunSteps(LlmEngine& engine, const std::function<bool(const StepResult&)>& on_step, StepLoopTimes* times) {
  using Clock = std::chrono::steady_clock;
  while (engine.HasUnfinished()) {
    Result<StepResult> step = engine.Step();
    if (!step.ok()) return step.status();
    const Clock::time_point result = times ? Clock::now() : Clock::time_point{};
    const bool more = on_step(*step);
    if (times) {
      times->steps.fetch_add(1, std::memory_order_relaxed);
      times->between_steps_ns.fetch_add(std::chrono::nanoseconds(Clock::now() - result).count(),
                                        std::memory_order_relaxed);
    }
    if (!more) break;
  }
  return Status::Ok();
}

}  // namespace vt
