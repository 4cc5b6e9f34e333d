#include "engine/sample/sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "kernels/seeded_uniform.h"

namespace vt {

namespace {

void FillLogprobs(const float* logits, int64_t vocab, int32_t n, SampledToken* out) {
  const float max = *std::max_element(logits, logits + vocab);
  double sum = 0.0;
  for (int64_t i = 0; i < vocab; ++i) sum += std::exp(static_cast<double>(logits[i]) - max);
  const float log_z = max + static_cast<float>(std::log(sum));
  out->logprob = logits[out->token] - log_z;
  if (n <= 0) return;
  std::vector<int32_t> ids(static_cast<size_t>(vocab));
  std::iota(ids.begin(), ids.end(), 0);
  const int64_t k = std::min<int64_t>(n, vocab);
  std::partial_sort(ids.begin(), ids.begin() + k, ids.end(),
                    [&](int32_t a, int32_t b) { return logits[a] > logits[b] || (logits[a] == logits[b] && a < b); });
  for (int64_t i = 0; i < k; ++i) out->top.push_back({ids[i], logits[ids[i]] - log_z});
}

int32_t SampleFiltered(const float* logits, int64_t vocab, const SamplingParams& p, double u) {
  // Candidates sorted by probability (ties by id), so filtering and the
  // inverse-CDF draw are deterministic.
  std::vector<int32_t> ids(static_cast<size_t>(vocab));
  std::iota(ids.begin(), ids.end(), 0);
  auto by_logit = [&](int32_t a, int32_t b) { return logits[a] > logits[b] || (logits[a] == logits[b] && a < b); };
  int64_t keep = vocab;
  if (p.top_k > 0 && p.top_k < vocab) {
    keep = p.top_k;
    std::partial_sort(ids.begin(), ids.begin() + keep, ids.end(), by_logit);
  } else {
    std::sort(ids.begin(), ids.end(), by_logit);
  }
  const double max = logits[ids[0]];
  std::vector<double> probs(static_cast<size_t>(keep));
  for (int64_t i = 0; i < keep; ++i) probs[i] = std::exp((static_cast<double>(logits[ids[i]]) - max) / p.temperature);
  // min-p is relative to the most likely token over the full distribution.
  if (p.min_p > 0.0f) {
    const double threshold = p.min_p * probs[0];
    while (keep > 1 && probs[keep - 1] < threshold) --keep;
  }
  double kept = std::accumulate(probs.begin(), probs.begin() + keep, 0.0);
  if (p.top_p < 1.0f) {
    double cumulative = 0.0;
    for (int64_t i = 0; i < keep; ++i) {
      cumulative += probs[i];
      if (cumulative >= p.top_p * kept) {
        keep = i + 1;
        break;
      }
    }
    kept = std::accumulate(probs.begin(), probs.begin() + keep, 0.0);
  }
  const double target = u * kept;
  double cumulative = 0.0;
  for (int64_t i = 0; i < keep; ++i) {
    cumulative += probs[i];
    if (target < cumulative) return ids[i];
  }
  return ids[keep - 1];
}

}  // namespace

int32_t Argmax(const float* logits, int64_t vocab) {
  int64_t best = 0;
  for (int64_t i = 1; i < vocab; ++i) {
    if (logits[i] > logits[best]) best = i;
  }
  return static_cast<int32_t>(best);
}

SampledToken Sample(const float* logits, int64_t vocab, const SamplingParams& params, uint64_t seed,
                    int64_t token_index, const float* logprob_logits) {
  SampledToken out;
  if (params.temperature <= 0.0f || params.top_k == 1) {
    out.token = Argmax(logits, vocab);
  } else {
    out.token = SampleFiltered(logits, vocab, params, kernels::SeededUniform(seed, token_index));
  }
  if (params.logprobs >= 0) FillLogprobs(logprob_logits ? logprob_logits : logits, vocab, params.logprobs, &out);
  return out;
}

}  // namespace vt
