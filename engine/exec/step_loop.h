// The one step loop every app runs: `vt generate`, the server's engine thread and `vt bench`.
#pragma once

#include <functional>

#include "base/status.h"
#include "engine/exec/llm_engine.h"

namespace vt {

// Steps `engine` while it has unfinished requests, handing each step's result to `on_step`
// (which may add or abort requests between steps). Returns early, ok, when on_step returns
// false; returns the error of the first step that fails.
Status RunSteps(LlmEngine& engine, const std::function<bool(const StepResult&)>& on_step);

}  // namespace vt
