// The paged, batched, multi-threaded forward against a plain dense forward
// written here in double precision, straight from the HF modeling code.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "engine/backends/cpu/decoder_model.h"
#include "tests/engine/tiny_model.h"

namespace vt::testing {
namespace {

using Vec = std::vector<double>;
namespace cpu = kernels::cpu;

Vec MatVec(const WeightMatrix& w, const Vec& x, const std::vector<float>& bias) {
  Vec y(w.rows);
  for (int64_t r = 0; r < w.rows; ++r) {
    double s = bias.empty() ? 0.0 : bias[r];
    for (int64_t k = 0; k < w.cols; ++k) s += cpu::LoadAsFloat(w.dtype, w.Row(r), k) * x[k];
    y[r] = s;
  }
  return y;
}

Vec Norm(const Vec& x, const std::vector<float>& w, size_t offset, size_t n, double eps) {
  double ss = 0;
  for (size_t i = 0; i < n; ++i) ss += x[offset + i] * x[offset + i];
  const double inv = 1.0 / std::sqrt(ss / n + eps);
  Vec y(n);
  for (size_t i = 0; i < n; ++i) y[i] = w[i] * x[offset + i] * inv;
  return y;
}

double InvFreq(const ModelConfig& c, int64_t i) {
  double f = 1.0 / std::pow(c.rope_theta, 2.0 * i / c.head_dim);
  const auto& s = c.rope_scaling;
  if (!s.llama3) return f;
  const double wavelen = 2 * std::numbers::pi / f;
  const double low = s.original_max_position / s.low_freq_factor;
  const double high = s.original_max_position / s.high_freq_factor;
  if (wavelen < high) return f;
  if (wavelen > low) return f / s.factor;
  const double smooth = (s.original_max_position / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
  return (1 - smooth) * f / s.factor + smooth * f;
}

void Rope(const ModelConfig& c, Vec& v, size_t offset, int64_t pos) {
  const int64_t half = c.head_dim / 2;
  for (int64_t j = 0; j < half; ++j) {
    const double a = pos * InvFreq(c, j);
    const double x = v[offset + j], y = v[offset + j + half];
    v[offset + j] = x * std::cos(a) - y * std::sin(a);
    v[offset + j + half] = y * std::cos(a) + x * std::sin(a);
  }
}

// Logits of the last token of `tokens`, computed densely.
Vec DenseLogits(const ModelConfig& c, const ModelWeights& w, const std::vector<int32_t>& tokens) {
  const int64_t n = static_cast<int64_t>(tokens.size()), h = c.hidden_size, d = c.head_dim;
  std::vector<Vec> hidden(n, Vec(h));
  for (int64_t t = 0; t < n; ++t) {
    for (int64_t i = 0; i < h; ++i) hidden[t][i] = cpu::LoadAsFloat(w.embed_tokens.dtype, w.embed_tokens.Row(tokens[t]), i);
  }
  for (const LayerWeights& l : w.layers) {
    std::vector<Vec> q(n), k(n), v(n);
    for (int64_t t = 0; t < n; ++t) {
      const Vec x = Norm(hidden[t], l.input_norm, 0, h, c.rms_norm_eps);
      q[t] = MatVec(l.q_proj, x, l.q_bias);
      k[t] = MatVec(l.k_proj, x, l.k_bias);
      v[t] = MatVec(l.v_proj, x, l.v_bias);
      for (int64_t hd = 0; hd < c.num_heads; ++hd) {
        if (c.qk_norm) {
          const Vec nq = Norm(q[t], l.q_norm, hd * d, d, c.rms_norm_eps);
          std::copy(nq.begin(), nq.end(), q[t].begin() + hd * d);
        }
        Rope(c, q[t], hd * d, t);
      }
      for (int64_t hd = 0; hd < c.num_kv_heads; ++hd) {
        if (c.qk_norm) {
          const Vec nk = Norm(k[t], l.k_norm, hd * d, d, c.rms_norm_eps);
          std::copy(nk.begin(), nk.end(), k[t].begin() + hd * d);
        }
        Rope(c, k[t], hd * d, t);
      }
    }
    for (int64_t t = 0; t < n; ++t) {
      Vec attn(c.q_size(), 0.0);
      for (int64_t hd = 0; hd < c.num_heads; ++hd) {
        const int64_t g = hd / (c.num_heads / c.num_kv_heads);
        Vec s(t + 1);
        double mx = -1e300;
        for (int64_t j = 0; j <= t; ++j) {
          double dot = 0;
          for (int64_t i = 0; i < d; ++i) dot += q[t][hd * d + i] * k[j][g * d + i];
          s[j] = dot / std::sqrt(static_cast<double>(d));
          mx = std::max(mx, s[j]);
        }
        double sum = 0;
        for (double& x : s) sum += (x = std::exp(x - mx));
        for (int64_t j = 0; j <= t; ++j) {
          for (int64_t i = 0; i < d; ++i) attn[hd * d + i] += s[j] / sum * v[j][g * d + i];
        }
      }
      const Vec o = MatVec(l.o_proj, attn, {});
      for (int64_t i = 0; i < h; ++i) hidden[t][i] += o[i];
      const Vec x = Norm(hidden[t], l.post_attention_norm, 0, h, c.rms_norm_eps);
      const Vec g = MatVec(l.gate_proj, x, {}), u = MatVec(l.up_proj, x, {});
      Vec act(g.size());
      for (size_t i = 0; i < g.size(); ++i) act[i] = g[i] / (1 + std::exp(-g[i])) * u[i];
      const Vec down = MatVec(l.down_proj, act, {});
      for (int64_t i = 0; i < h; ++i) hidden[t][i] += down[i];
    }
  }
  return MatVec(w.lm_head, Norm(hidden[n - 1], w.final_norm, 0, h, c.rms_norm_eps), {});
}

struct Case {
  const char* name;
  Architecture arch;
  bool llama3_rope;
  cpu::DType dtype;
  bool tied;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class ModelReferenceTest : public ::testing::TestWithParam<Case> {};

TEST_P(ModelReferenceTest, PagedChunkedForwardMatchesDenseReference) {
  const Case& tc = GetParam();
  ModelConfig c = TinyConfig(tc.arch);
  c.tie_word_embeddings = tc.tied;
  if (tc.llama3_rope) {
    // A short original context so a 70-token prompt crosses every band.
    c.rope_theta = 500000.0;
    c.rope_scaling = {true, 8.0f, 1.0f, 4.0f, 32};
  }
  cpu::ThreadPool& pool = cpu::DefaultThreadPool();
  DecoderModel model(c, MakeDummyWeights(c, tc.dtype, 11, pool), &pool);
  const std::vector<int32_t> tokens = Prompt(70, 8);
  const Vec expected = DenseLogits(c, model.weights(), tokens);

  // Two chunks through shuffled (non-contiguous) blocks.
  KvCacheStorage cache(c, 16, 16);
  const std::vector<int32_t> table = {9, 2, 14, 5, 0};
  std::vector<float> logits;
  ASSERT_TRUE(model.Forward({{tokens.data(), 37, 0, table.data(), 5, false}}, &cache, &logits).ok());
  ASSERT_TRUE(model.Forward({{tokens.data() + 37, 33, 37, table.data(), 5, true}}, &cache, &logits).ok());
  ASSERT_EQ(logits.size(), static_cast<size_t>(c.vocab_size));
  double max_abs = 0;
  for (double e : expected) max_abs = std::max(max_abs, std::abs(e));
  for (int64_t i = 0; i < c.vocab_size; ++i) {
    ASSERT_NEAR(logits[i], expected[i], 1e-4 * max_abs) << "logit " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ModelReferenceTest,
    ::testing::Values(Case{"qwen3_bf16", Architecture::kQwen3, false, cpu::DType::kBF16, false},
                      Case{"qwen2_bias_fp16", Architecture::kQwen2, false, cpu::DType::kF16, true},
                      Case{"llama3_rope_fp32", Architecture::kLlama, true, cpu::DType::kF32, false},
                      Case{"mistral_bf16_tied", Architecture::kMistral, false, cpu::DType::kBF16, true}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace vt::testing
