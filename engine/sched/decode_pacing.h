// Keeps the running decodes' inter-token latency, while prompts prefill beside them, within a
// multiple of a decode-only step's (SchedulerConfig::max_decode_slowdown). A step that carries
// prompt chunks costs the decodes in it more than a step of decodes alone; the time it runs over
// `max_slowdown` × a decode-only step is owed, and steps of decodes alone, each `max_slowdown - 1`
// decode-only steps under the bound, pay it back before prompts may join the decodes again. Over
// any stretch of steps the decodes' mean step time then stays within the bound (plus at most one
// step's excess, and decode-only steps that ran slow on their own), while prompts still advance at
// least once every few steps.
// A decode-only step's time is measured, per class of decode counts (one class per CUDA graph
// bucket): until a class's first such step has run, prompts wait one step for it.
// A step without decodes clears what was owed: the decodes that were slowed have all finished.
#pragma once

#include <cstdint>
#include <map>

#include "base/status.h"

namespace vt {

// 0, or a finite number above 1 (at 1 or below, steps of decodes alone could never pay back what
// a step with prompts cost, and prompts would wait for every decode to finish).
Status CheckMaxDecodeSlowdown(double max_slowdown);

class DecodePacing {
 public:
  // max_slowdown 0: no pacing (prompts join the decodes at every step); otherwise above 1.
  explicit DecodePacing(double max_slowdown);

  // Whether the next step, with `decodes` running decodes, may also carry prompt tokens.
  bool AllowsPrefillBeside(int64_t decodes) const;
  // A finished step: its running decodes, the prompt tokens it computed, and its wall time.
  void Record(int64_t decodes, int64_t prompt_tokens, double seconds);

 private:
  static int CountClass(int64_t decodes);

  double max_slowdown_;
  std::map<int, double> decode_only_seconds_;  // a moving average, by CountClass
  double owed_seconds_ = 0.0;                  // beyond the bound, not yet paid back
};

}  // namespace vt
