// Loads for a device backend hold host memory one matrix at a time: dummy matrices are generated
// on Acquire with the values an eager load gives, and Release hands their pages back.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "engine/loader/dummy_weights.h"
#include "engine/loader/model_source.h"
#include "tests/engine/tiny_model.h"
#include "tests/source_root.h"

namespace vt::testing {
namespace {

size_t Bytes(const WeightMatrix& m) { return static_cast<size_t>(m.rows * m.cols) * kernels::cpu::DTypeSize(m.dtype); }

std::vector<std::pair<const WeightMatrix*, const WeightMatrix*>> Matrices(const ModelWeights& a, const ModelWeights& b) {
  std::vector<std::pair<const WeightMatrix*, const WeightMatrix*>> out = {{&a.embed_tokens, &b.embed_tokens},
                                                                           {&a.lm_head, &b.lm_head}};
  for (size_t i = 0; i < a.layers.size(); ++i) {
    const LayerWeights &x = a.layers[i], &y = b.layers[i];
    for (auto [p, q] : {std::pair{&x.q_proj, &y.q_proj}, {&x.k_proj, &y.k_proj}, {&x.v_proj, &y.v_proj},
                        {&x.o_proj, &y.o_proj}, {&x.gate_proj, &y.gate_proj}, {&x.up_proj, &y.up_proj},
                        {&x.down_proj, &y.down_proj}}) {
      out.push_back({p, q});
    }
  }
  return out;
}

TEST(WeightResidency, DummyMatricesGeneratedOnAcquireEqualAnEagerLoad) {
  const ModelConfig c = TinyConfig();
  kernels::cpu::ThreadPool& pool = kernels::cpu::DefaultThreadPool();
  const ModelWeights eager = MakeDummyWeights(c, kernels::cpu::DType::kBF16, 11, pool);
  const ModelWeights lazy = MakeDummyWeights(c, kernels::cpu::DType::kBF16, 11, pool, DummyFill::kOnAcquire);
  EXPECT_EQ(eager.residency, nullptr);
  ASSERT_NE(lazy.residency, nullptr);
  EXPECT_EQ(lazy.weight_bytes, eager.weight_bytes);
  EXPECT_EQ(lazy.final_norm, eager.final_norm);
  EXPECT_EQ(lazy.layers[1].q_norm, eager.layers[1].q_norm);
  for (auto [l, e] : Matrices(lazy, eager)) {
    ASSERT_TRUE(lazy.residency->Acquire(*l).ok());
    EXPECT_EQ(std::memcmp(l->data, e->data, Bytes(*e)), 0);
    lazy.residency->Release(*l);
  }
}

TEST(WeightResidency, ReleaseHandsPagesBackAndAcquireRefillsThem) {
  ModelConfig c = TinyConfig();
  c.vocab_size = 4096;  // an embedding of 4096 x 64 bf16: 128 pages
  kernels::cpu::ThreadPool& pool = kernels::cpu::DefaultThreadPool();
  const ModelWeights eager = MakeDummyWeights(c, kernels::cpu::DType::kBF16, 5, pool);
  const ModelWeights lazy = MakeDummyWeights(c, kernels::cpu::DType::kBF16, 5, pool, DummyFill::kOnAcquire);
  const WeightMatrix& m = lazy.embed_tokens;
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  ASSERT_GE(Bytes(m), 4 * page);
  ASSERT_TRUE(lazy.residency->Acquire(m).ok());
  EXPECT_EQ(std::memcmp(m.data, eager.embed_tokens.data, Bytes(m)), 0);
  lazy.residency->Release(m);
  // Anonymous pages handed back read as zeros: the second page is wholly inside the matrix.
  const auto* bytes = static_cast<const unsigned char*>(m.data);
  const std::vector<unsigned char> zeros(page, 0);
  const size_t second = (reinterpret_cast<uintptr_t>(bytes) / page + 1) * page - reinterpret_cast<uintptr_t>(bytes);
  EXPECT_EQ(std::memcmp(bytes + second, zeros.data(), page), 0);
  ASSERT_TRUE(lazy.residency->Acquire(m).ok());
  EXPECT_EQ(std::memcmp(m.data, eager.embed_tokens.data, Bytes(m)), 0);
}

TEST(WeightResidency, CheckpointPagesDroppedAfterACopyReadBackTheSame) {
  const std::string dir = (SourceRoot() / "assets/models/fortune-qwen3-7m").string();
  kernels::cpu::ThreadPool& pool = kernels::cpu::DefaultThreadPool();
  Result<LoadedModel> host = LoadModel(dir, LoadFormat::kAuto, pool);
  Result<LoadedModel> device = LoadModel(dir, LoadFormat::kAuto, pool, 0, LoadTarget::kDevice);
  ASSERT_TRUE(host.ok() && device.ok());
  EXPECT_EQ(host->weights.residency, nullptr);
  ASSERT_NE(device->weights.residency, nullptr);
  for (auto [d, h] : Matrices(device->weights, host->weights)) {
    ASSERT_TRUE(device->weights.residency->Acquire(*d).ok());
    device->weights.residency->Release(*d);
    EXPECT_EQ(std::memcmp(d->data, h->data, Bytes(*h)), 0);  // re-read from the file
  }
}

}  // namespace
}  // namespace vt::testing
