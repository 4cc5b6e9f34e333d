#include "engine/exec/kv_sizing.h"

#include <algorithm>
#include <string>

namespace vt {
namespace {

int64_t BlocksFor(int64_t tokens, int32_t block_size) { return (tokens + block_size - 1) / block_size; }

}  // namespace

KvDemand KvDemand::Uniform(int64_t sequences, int64_t tokens, int32_t block_size) {
  KvDemand d;
  d.wanted_blocks = sequences * BlocksFor(tokens, block_size);
  return d;
}

KvDemand KvDemand::PerSequence(const std::vector<int64_t>& tokens, int32_t block_size) {
  KvDemand d;
  for (int64_t t : tokens) d.wanted_blocks += BlocksFor(t, block_size);
  return d;
}

Result<int32_t> KvPoolBlocks(const KvDemand& demand, uint64_t bytes_per_block, uint64_t budget_bytes) {
  if (bytes_per_block == 0) return InvalidArgument("KV sizing: a block of zero bytes");
  const uint64_t fit = budget_bytes / bytes_per_block;
  const int64_t affordable = static_cast<int64_t>(std::min<uint64_t>(fit, std::numeric_limits<int32_t>::max()));
  if (affordable < demand.required_blocks) {
    auto mib = [](double bytes) { return std::to_string(static_cast<int64_t>(bytes / (1 << 20))); };
    return ResourceExhausted("the KV cache gets " + mib(double(budget_bytes)) + " MiB, and the run needs at least " +
                             mib(double(demand.required_blocks) * double(bytes_per_block)) + " MiB (" +
                             std::to_string(demand.required_blocks) + " blocks)");
  }
  return static_cast<int32_t>(std::max<int64_t>(1, std::min(demand.wanted_blocks, affordable)));
}

}  // namespace vt
