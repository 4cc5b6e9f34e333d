#include "engine/exec/step_loop.h"

namespace vt {

Status RunSteps(LlmEngine& engine, const std::function<bool(const StepResult&)>& on_step) {
  while (engine.HasUnfinished()) {
    Result<StepResult> step = engine.Step();
    if (!step.ok()) return step.status();
    if (!on_step(*step)) break;
  }
  return Status::Ok();
}

}  // namespace vt
