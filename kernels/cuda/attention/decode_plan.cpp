#include "kernels/cuda/attention/decode_plan.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace vt::kernels::cuda {

const char* DecodeArmName(DecodeArm arm) {
  switch (arm) {
    case DecodeArm::kAuto: return "auto";
    case DecodeArm::kBlock: return "block";
    case DecodeArm::kWarp: return "warp";
    case DecodeArm::kWarpTwoRows: return "warp2";
    case DecodeArm::kGqa: return "gqa";
    case DecodeArm::kPersistent: return "persist";
    case DecodeArm::kSolo: return "solo";
  }
  return "unknown";
}

Result<DecodeOverrides> ParseDecodeOverrides(const char* arm_env, const char* split_env) {
  DecodeOverrides o;
  const std::string arm = arm_env ? arm_env : "";
  if (arm.empty() || arm == "auto") {
    o.arm = DecodeArm::kAuto;
  } else if (arm == "block") {
    o.arm = DecodeArm::kBlock;
  } else if (arm == "warp") {
    o.arm = DecodeArm::kWarp;
  } else if (arm == "warp2") {
    o.arm = DecodeArm::kWarpTwoRows;
  } else if (arm == "gqa") {
    o.arm = DecodeArm::kGqa;
  } else if (arm == "persist") {
    o.arm = DecodeArm::kPersistent;
  } else if (arm == "solo") {
    o.arm = DecodeArm::kSolo;
  } else {
    return InvalidArgument("decode arm '" + arm + "': expected block, warp, warp2, gqa, persist, solo or auto");
  }

  // Unset means auto: split-KV passed the model-level gates (tests/engine/backends/cuda/cuda_engine_test.cpp), and
  // unsplit, batch 1 would run one CTA per KV head on a GPU of 132 SMs.
  const std::string split = split_env ? split_env : "";
  if (split == "off") {
    o.split_tokens = 0;
  } else if (split.empty() || split == "auto") {
    o.split_tokens = kSplitAuto;
  } else {
    char* end = nullptr;
    long tokens = std::strtol(split.c_str(), &end, 10);
    if (end == split.c_str() || *end != '\0' || tokens <= 0 || tokens > (1 << 20)) {
      return InvalidArgument("split '" + split + "': expected off, auto or a positive token count");
    }
    o.split_tokens = static_cast<int>(tokens);
  }
  return o;
}

Status CheckArmSupports(DecodeArm arm, const DecodeShape& s) {
  if (s.num_kv_heads <= 0 || s.num_q_heads <= 0 || s.num_q_heads % s.num_kv_heads != 0) {
    return InvalidArgument("decode attention: num_q_heads (" + std::to_string(s.num_q_heads) +
                           ") must be a positive multiple of num_kv_heads (" +
                           std::to_string(s.num_kv_heads) + ")");
  }
  if (s.block_size != 16 && s.block_size != 32) {
    return InvalidArgument("decode attention: block_size " + std::to_string(s.block_size) +
                           " unsupported (16 or 32)");
  }
  const int group = s.num_q_heads / s.num_kv_heads;
  switch (arm) {
    case DecodeArm::kAuto:
    case DecodeArm::kBlock:
      if (s.head_dim <= 0 || s.head_dim % 32 != 0 || s.head_dim > 512) {
        return InvalidArgument("block arm: head_dim " + std::to_string(s.head_dim) +
                               " must be a multiple of 32 up to 512");
      }
      return Status::Ok();
    case DecodeArm::kWarp:
      if (s.head_dim != 128 && s.head_dim != 256) {
        return InvalidArgument("warp arm: head_dim " + std::to_string(s.head_dim) + " unsupported (128 or 256)");
      }
      return Status::Ok();
    case DecodeArm::kWarpTwoRows:
      if (s.head_dim != 128) {
        return InvalidArgument("warp2 arm: head_dim " + std::to_string(s.head_dim) + " unsupported (128 only)");
      }
      return Status::Ok();
    case DecodeArm::kGqa:
    case DecodeArm::kPersistent:
    case DecodeArm::kSolo: {
      const std::string name = DecodeArmName(arm);
      if (arm == DecodeArm::kSolo && s.head_dim != 128) {
        return InvalidArgument("solo arm: head_dim " + std::to_string(s.head_dim) + " unsupported (128 only)");
      }
      if (s.head_dim != 128 && s.head_dim != 256) {
        return InvalidArgument(name + " arm: head_dim " + std::to_string(s.head_dim) + " unsupported (128 or 256)");
      }
      if (group > 16) {
        return InvalidArgument(name + " arm: " + std::to_string(group) +
                               " query heads per KV head exceed the 16 rows of one MMA tile");
      }
      // The persistent arms sum the batch's weights in 32-bit shared memory (work_items.cuh).
      if (arm != DecodeArm::kGqa && int64_t(s.batch) * std::max(s.max_context, 6) > kMaxPersistentKeys) {
        return InvalidArgument(name + " arm: " + std::to_string(s.batch) + " rows of up to " +
                               std::to_string(s.max_context) + " keys may exceed its " +
                               std::to_string(kMaxPersistentKeys) + "-key schedule");
      }
      return Status::Ok();
    }
  }
  return Internal("unknown decode arm");
}

int ChunksPerCta(int kv_pairs, int num_chunks, int resident_ctas) {
  if (num_chunks <= 1) return 1;
  const int64_t target = 2LL * std::max(resident_ctas, 1);
  const int64_t by_waves = static_cast<int64_t>(kv_pairs) * num_chunks / target;
  const int cap = std::min(num_chunks, 8);
  const int wanted = static_cast<int>(std::clamp<int64_t>(by_waves, 1, cap));
  const int groups = (num_chunks + wanted - 1) / wanted;
  return (num_chunks + groups - 1) / groups;
}

Result<DecodePlan> PlanDecode(const DecodeShape& shape, const DecodeOverrides& overrides) {
  if (shape.batch <= 0 || shape.max_context <= 0) {
    return InvalidArgument("decode attention: batch and max_context must be positive");
  }
  DecodePlan plan;
  plan.arm = overrides.arm;
  if (plan.arm == DecodeArm::kAuto) {
    // gqa where the persistent arm's schedule cannot hold the shape: the same bits, so a request's
    // result does not depend on which of the two a step ran.
    plan.arm = CheckArmSupports(DecodeArm::kPersistent, shape).ok() ? DecodeArm::kPersistent
               : CheckArmSupports(DecodeArm::kGqa, shape).ok()      ? DecodeArm::kGqa
                                                                    : DecodeArm::kBlock;
  }
  VT_RETURN_IF_ERROR(CheckArmSupports(plan.arm, shape));

  if (overrides.split_tokens == kSplitAuto) {
    const int chunks = MaxChunksByContext(shape.max_context);
    if (chunks > 1) {
      plan.chunk_tokens = kChunkByContext;
      plan.num_chunks = chunks;
    }
    return plan;
  }
  const int chunk = overrides.split_tokens;
  if (chunk > 0 && chunk % shape.block_size != 0) {
    return InvalidArgument("split chunk " + std::to_string(chunk) + " is not a multiple of the block size " +
                           std::to_string(shape.block_size));
  }
  if (chunk > 0 && shape.max_context > chunk) {
    plan.chunk_tokens = chunk;
    plan.num_chunks = (shape.max_context + chunk - 1) / chunk;
    if (plan.num_chunks > kMaxDecodeChunks) {
      return InvalidArgument("split chunk " + std::to_string(chunk) + " gives " + std::to_string(plan.num_chunks) +
                             " chunks at context " + std::to_string(shape.max_context) + "; the limit is " +
                             std::to_string(kMaxDecodeChunks));
    }
  }
  return plan;
}

}  // namespace vt::kernels::cuda
