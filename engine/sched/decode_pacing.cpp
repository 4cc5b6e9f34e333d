#include "engine/sched/decode_pacing.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

namespace vt {
namespace {

// How far a new decode-only step moves the average: steps of one class differ by their contexts,
// which grow a token a step (and, on the CPU backend, by their rows).
constexpr double kAverageWeight = 0.25;

}  // namespace

Status CheckMaxDecodeSlowdown(double max_slowdown) {
  if (max_slowdown == 0.0 || (std::isfinite(max_slowdown) && max_slowdown > 1.0)) return Status::Ok();
  return InvalidArgument("--max-decode-slowdown " + std::to_string(max_slowdown) +
                         ": give 0 (no bound) or a multiple above 1 of a decode-only step");
}

DecodePacing::DecodePacing(double max_slowdown) : max_slowdown_(max_slowdown) {}

// (2^(k-1), 2^k]: the CUDA backend replays one graph for each such class of batch sizes (five to
// eight decodes run as eight rows), so a class's steps cost about the same.
int DecodePacing::CountClass(int64_t decodes) { return std::bit_width(static_cast<uint64_t>(decodes - 1)); }

bool DecodePacing::AllowsPrefillBeside(int64_t decodes) const {
  if (max_slowdown_ <= 0.0 || decodes <= 0) return true;
  return decode_only_seconds_.count(CountClass(decodes)) > 0 && owed_seconds_ <= 0.0;
}

void DecodePacing::Record(int64_t decodes, int64_t prompt_tokens, double seconds) {
  if (max_slowdown_ <= 0.0) return;
  if (decodes <= 0) {
    // No decode ran, so none is left to repay: the decodes of later steps were never slowed.
    owed_seconds_ = 0.0;
    return;
  }
  const int count_class = CountClass(decodes);
  auto average = decode_only_seconds_.find(count_class);
  if (prompt_tokens == 0) {
    if (average == decode_only_seconds_.end()) {
      average = decode_only_seconds_.emplace(count_class, seconds).first;
    } else {
      // A step over the bound moves the average only as far as the bound: one hiccup must not
      // raise the bound for the mixed steps after it, which never move the average themselves.
      const double counted = std::min(seconds, max_slowdown_ * average->second);
      average->second += kAverageWeight * (counted - average->second);
    }
    // A step of decodes alone pays back what it came in under the bound. One that ran over (a host
    // hiccup, longer contexts) owes nothing: no prompt slowed it, and holding prompts back for it
    // would cost their TTFT without protecting any decode.
    owed_seconds_ = std::max(0.0, owed_seconds_ - std::max(0.0, max_slowdown_ * average->second - seconds));
    return;
  }
  if (average == decode_only_seconds_.end()) {
    // Decodes of a class never measured alone (a preemption changed the step's rows after it was
    // allowed): nothing to hold the step against.
    return;
  }
  // Credit is not banked: a run of decode-only steps must not let a burst of prompt chunks through.
  owed_seconds_ = std::max(0.0, owed_seconds_ + seconds - max_slowdown_ * average->second);
}

}  // namespace vt
