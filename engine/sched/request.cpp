#include "engine/sched/request.h"

namespace vt {

const char* FinishReasonName(FinishReason r) {
  switch (r) {
    case FinishReason::kNone: return "none";
    case FinishReason::kStop: return "stop";
    case FinishReason::kLength: return "length";
    case FinishReason::kAborted: return "abort";
  }
  return "?";
}

std::vector<int32_t> Request::AllTokens() const {
  std::vector<int32_t> all = prompt;
  all.insert(all.end(), output.begin(), output.end());
  return all;
}

}  // namespace vt
