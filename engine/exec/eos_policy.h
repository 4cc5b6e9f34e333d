// The one end-of-sequence policy: which token ids end a request unless it asks to ignore EOS.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/config/model_config.h"

namespace vt {

// `requested` when the caller names any (a test, a server flag), else the model's own
// (generation_config.json's eos_token_id where the checkpoint has one, else config.json's); ids outside the
// vocabulary are dropped, since no sampled token could ever match them.
std::vector<int32_t> ResolveEosTokenIds(const std::vector<int32_t>& requested, const ModelConfig& model);

}  // namespace vt
