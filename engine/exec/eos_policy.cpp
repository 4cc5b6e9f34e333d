#include "engine/exec/eos_policy.h"

namespace vt {

std::vector<int32_t> ResolveEosTokenIds(const std::vector<int32_t>& requested, const ModelConfig& model) {
  const std::vector<int32_t>& named = requested.empty() ? model.eos_token_ids : requested;
  std::vector<int32_t> ids;
  for (int32_t id : named) {
    if (id >= 0 && id < model.vocab_size) ids.push_back(id);
  }
  return ids;
}

}  // namespace vt
