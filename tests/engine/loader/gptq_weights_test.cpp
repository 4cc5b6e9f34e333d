// GPTQ int4 checkpoints on the CPU backend: the embedded model quantised by
// tests/fixtures/make_gptq_checkpoint.py loads, dequantises to exactly the values the
// script's float32 twin holds, and generates token for token (logits bit for
// bit) what that twin generates; `vt generate` runs it end to end; corrupt and
// unsupported GPTQ checkpoints are errors naming the problem.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "engine/exec/llm_engine.h"
#include "engine/loader/gptq_weights.h"
#include "engine/loader/model_source.h"
#include "tests/engine/tiny_model.h"
#include "tests/engine/loader/gptq_fixture.h"
#include "tests/engine/loader/safetensors_writer.h"

namespace vt::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path Fixture(const std::string& name) { return GetGptqFixture().root / name; }

#define VT_REQUIRE_GPTQ_FIXTURE()                                              \
  do {                                                                         \
    if (GetGptqFixture().root.empty()) GTEST_SKIP() << GetGptqFixture().error; \
  } while (0)

Result<LoadedModel> Load(const fs::path& dir) {
  return LoadModel(dir.string(), LoadFormat::kAuto, kernels::cpu::DefaultThreadPool());
}

std::vector<const WeightMatrix*> Projections(const LayerWeights& l) {
  return {&l.q_proj, &l.k_proj, &l.v_proj, &l.o_proj, &l.gate_proj, &l.up_proj, &l.down_proj};
}

const std::vector<std::vector<int32_t>> kPrompts = {
    {1, 2, 3},
    {100, 200, 300, 400, 500},
    {42},
    {7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}};

std::vector<float> LastLogits(DecoderModel& model, const std::vector<int32_t>& prompt) {
  KvCacheStorage cache(model.config(), 8, 16);
  std::vector<int32_t> table = {0, 1, 2, 3, 4, 5, 6, 7};
  std::vector<float> logits;
  const std::vector<ForwardSeq> batch = {
      {prompt.data(), static_cast<int64_t>(prompt.size()), 0, table.data(), 8, true}};
  EXPECT_TRUE(model.Forward(batch, &cache, &logits).ok());
  return logits;
}

std::vector<std::vector<int32_t>> Greedy(LoadedModel loaded, int max_tokens) {
  EngineConfig ec;
  ec.num_kv_blocks = 64;
  LlmEngine engine(testing::CpuRunner(loaded.config, std::move(loaded.weights), ec), ec);
  SamplingParams params;
  params.temperature = 0.0f;
  params.ignore_eos = true;
  params.max_tokens = max_tokens;
  std::vector<RequestId> ids;
  for (const auto& p : kPrompts) ids.push_back(engine.AddRequest(p, params).value());
  while (engine.HasUnfinished()) EXPECT_TRUE(engine.Step().ok());
  std::vector<std::vector<int32_t>> out;
  for (RequestId id : ids) out.push_back(engine.TakeFinished(id)->output);
  return out;
}

class GptqCheckpoint : public ::testing::TestWithParam<const char*> {};

TEST_P(GptqCheckpoint, DequantisesToTheScriptsFloat32Values) {
  VT_REQUIRE_GPTQ_FIXTURE();
  Result<LoadedModel> q = Load(Fixture(GetParam()));
  ASSERT_TRUE(q.ok()) << q.status().message();
  Result<LoadedModel> f = Load(Fixture(std::string(GetParam()) + "-fp32"));
  ASSERT_TRUE(f.ok()) << f.status().message();
  Result<LoadedModel> bf16 = Load(fs::path(VT_SOURCE_DIR) / "assets/models/fortune-qwen3-7m");
  ASSERT_TRUE(bf16.ok()) << bf16.status().message();
  ASSERT_TRUE(q->config.gptq.has_value());
  EXPECT_EQ(q->config.gptq->group_size, std::string(GetParam()) == "g128" ? 128 : -1);
  EXPECT_FALSE(f->config.gptq.has_value());

  for (size_t i = 0; i < q->weights.layers.size(); ++i) {
    const auto qp = Projections(q->weights.layers[i]);
    const auto fp = Projections(f->weights.layers[i]);
    const auto bp = Projections(bf16->weights.layers[i]);
    for (size_t j = 0; j < qp.size(); ++j) {
      SCOPED_TRACE("layer " + std::to_string(i) + " projection " + std::to_string(j));
      ASSERT_EQ(qp[j]->dtype, kernels::cpu::DType::kF32);
      ASSERT_EQ(fp[j]->dtype, kernels::cpu::DType::kF32);
      ASSERT_EQ(qp[j]->rows, fp[j]->rows);
      ASSERT_EQ(qp[j]->cols, fp[j]->cols);
      const size_t n = static_cast<size_t>(qp[j]->rows * qp[j]->cols);
      EXPECT_EQ(std::memcmp(qp[j]->data, fp[j]->data, n * sizeof(float)), 0);
      // Quantisation happened: int4 round-to-nearest is a few percent off the
      // bf16 original, never exact and never wildly off.
      double err = 0, ref = 0;
      for (size_t e = 0; e < n; ++e) {
        const float w = kernels::cpu::LoadAsFloat(bp[j]->dtype, bp[j]->data, static_cast<int64_t>(e));
        const float d = static_cast<const float*>(qp[j]->data)[e] - w;
        err += static_cast<double>(d) * d;
        ref += static_cast<double>(w) * w;
      }
      EXPECT_GT(std::sqrt(err / ref), 0.02);
      EXPECT_LT(std::sqrt(err / ref), 0.4);
    }
  }
}

TEST_P(GptqCheckpoint, GeneratesWhatTheDequantisedFloat32CheckpointGenerates) {
  VT_REQUIRE_GPTQ_FIXTURE();
  kernels::cpu::ThreadPool& pool = kernels::cpu::DefaultThreadPool();
  Result<LoadedModel> q = Load(Fixture(GetParam()));
  ASSERT_TRUE(q.ok()) << q.status().message();
  Result<LoadedModel> f = Load(Fixture(std::string(GetParam()) + "-fp32"));
  ASSERT_TRUE(f.ok()) << f.status().message();
  {
    DecoderModel qm(q->config, q->weights, &pool);
    DecoderModel fm(f->config, f->weights, &pool);
    // The same float32 weights through the same kernels: bit for bit, not merely close.
    for (const auto& prompt : kPrompts) {
      const std::vector<float> a = LastLogits(qm, prompt), b = LastLogits(fm, prompt);
      ASSERT_EQ(a.size(), static_cast<size_t>(q->config.vocab_size));
      ASSERT_EQ(a.size(), b.size());
      EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
    }
  }
  const auto got = Greedy(std::move(*q), 24);
  const auto want = Greedy(std::move(*f), 24);
  ASSERT_EQ(got.size(), kPrompts.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].size(), 24u);
    EXPECT_EQ(got[i], want[i]) << "prompt " << i;
  }
}

// A load for a device backend keeps no float32 copy of an int4 projection: it is declared by
// shape only, and the dequantisation a dense group would need gives the host load's values.
TEST_P(GptqCheckpoint, ADeviceLoadDeclaresInt4ProjectionsWithoutAFloatCopy) {
  VT_REQUIRE_GPTQ_FIXTURE();
  Result<LoadedModel> host = Load(Fixture(GetParam()));
  ASSERT_TRUE(host.ok()) << host.status().message();
  Result<LoadedModel> device = LoadModel(Fixture(GetParam()).string(), LoadFormat::kAuto,
                                         kernels::cpu::DefaultThreadPool(), 0, LoadTarget::kDevice);
  ASSERT_TRUE(device.ok()) << device.status().message();
  ASSERT_NE(device->weights.residency, nullptr);
  EXPECT_LT(device->weights.weight_bytes, host->weights.weight_bytes);  // no float32 projections
  const std::vector<Projection> projections = DecoderProjections(device->config);
  const LayerWeights& l = device->weights.layers[0];
  EXPECT_EQ(l.q_proj.data, nullptr);
  EXPECT_EQ(l.q_proj.rows, device->config.q_size());
  EXPECT_EQ(l.down_proj.data, nullptr);
  EXPECT_NE(l.input_norm.size(), 0u);  // norms are bound as usual
  Result<std::shared_ptr<std::vector<float>>> q =
      DequantizeGptqProjection(*device->store, projections[0], *device->config.gptq);
  ASSERT_TRUE(q.ok()) << q.status().message();
  ASSERT_NE(*q, nullptr);
  const WeightMatrix& host_q = host->weights.layers[0].q_proj;
  ASSERT_EQ(host_q.dtype, kernels::cpu::DType::kF32);
  EXPECT_EQ(std::memcmp((*q)->data(), host_q.data, (*q)->size() * sizeof(float)), 0);
}

INSTANTIATE_TEST_SUITE_P(Groups, GptqCheckpoint, ::testing::Values("g128", "g-1"), [](const auto& info) {
  return std::string(info.param) == "g128" ? "Group128" : "PerChannel";
});

// `vt generate --model <gptq dir>` and the float32 twin give the same tokens.
TEST(GptqCli, VtGenerateRunsAGptqCheckpoint) {
  VT_REQUIRE_GPTQ_FIXTURE();
  std::vector<json> results;
  for (const char* name : {"g128", "g128-fp32"}) {
    const std::string cmd = std::string("'") + VT_CLI + "' generate --model '" + Fixture(name).string() +
                            "' --prompt 'The meaning of life is' --max-tokens 16 --ignore-eos --json";
    FILE* p = ::popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    ASSERT_EQ(::pclose(p), 0) << cmd << "\n" << out;
    results.push_back(json::parse(out, nullptr, false));
    ASSERT_TRUE(results.back().is_object()) << out;
  }
  EXPECT_EQ(results[0]["token_ids"].size(), 16u);
  EXPECT_EQ(results[0]["token_ids"], results[1]["token_ids"]);
  EXPECT_FALSE(results[0]["text"].get<std::string>().empty());
}

// A copy of the group-128 checkpoint with its config.json, safetensors header
// or tensor bytes edited.
class BrokenGptq : public ::testing::Test {
 protected:
  void SetUp() override {
    VT_REQUIRE_GPTQ_FIXTURE();
    dir_ = TempDir("gptq_broken");
    fs::copy(Fixture("g128"), dir_, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    const std::string bytes = ReadAllBytes(dir_ / "model.safetensors");
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(bytes[i]);
    header_ = json::parse(bytes.substr(8, n));
    data_ = bytes.substr(8 + n);
    config_ = json::parse(ReadAllBytes(dir_ / "config.json"));
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Writes the edited files back and returns the load error.
  std::string LoadError() {
    std::string text = header_.dump();
    while ((8 + text.size()) % 8 != 0) text.push_back(' ');
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((text.size() >> (8 * i)) & 0xff);
    WriteFile(dir_ / "model.safetensors", out + text + data_);
    WriteFile(dir_ / "config.json", config_.dump());
    Result<LoadedModel> m = Load(dir_);
    return m.ok() ? "loaded" : m.status().message();
  }

  // Element i of an int32 tensor's data.
  void SetI32(const std::string& name, size_t i, uint32_t v) {
    const size_t at = header_[name]["data_offsets"][0].get<size_t>() + 4 * i;
    std::memcpy(&data_[at], &v, 4);
  }

  static constexpr const char* kQ = "model.layers.0.self_attn.q_proj";
  fs::path dir_;
  json header_, config_;
  std::string data_;
};

TEST_F(BrokenGptq, TheUneditedCopyLoads) { EXPECT_EQ(LoadError(), "loaded"); }

// Quantisers may leave some modules unquantised: a plain float weight binds as it is.
TEST_F(BrokenGptq, AnUnquantisedProjectionLoadsAsStored) {
  const std::string twin = ReadAllBytes(Fixture("g128-fp32") / "model.safetensors");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(twin[i]);
  const json twin_header = json::parse(twin.substr(8, n));
  const json& t = twin_header.at(std::string(kQ) + ".weight");
  const uint64_t begin = t["data_offsets"][0].get<uint64_t>(), end = t["data_offsets"][1].get<uint64_t>();
  for (const char* part : {".qweight", ".qzeros", ".scales", ".g_idx"}) header_.erase(std::string(kQ) + part);
  header_[std::string(kQ) + ".weight"] = {{"dtype", "F32"},
                                          {"shape", t["shape"]},
                                          {"data_offsets", {data_.size(), data_.size() + (end - begin)}}};
  data_ += twin.substr(8 + n + begin, end - begin);
  EXPECT_EQ(LoadError(), "loaded");
  Result<LoadedModel> m = Load(dir_);
  ASSERT_TRUE(m.ok());
  const WeightMatrix& q = m->weights.layers[0].q_proj;
  ASSERT_EQ(q.dtype, kernels::cpu::DType::kF32);
  EXPECT_EQ(std::memcmp(q.data, twin.data() + 8 + n + begin, end - begin), 0);

  header_[std::string(kQ) + ".qweight"] = {
      {"dtype", "I32"}, {"shape", {32, 512}}, {"data_offsets", {data_.size(), data_.size() + 32 * 512 * 4}}};
  data_.append(32 * 512 * 4, '\x88');
  const std::string e = LoadError();
  EXPECT_NE(e.find("checkpoint has both '" + std::string(kQ) + ".weight' and the GPTQ"), std::string::npos)
      << e;
}

TEST_F(BrokenGptq, DescActIsRejected) {
  config_["quantization_config"]["desc_act"] = true;
  const std::string e = LoadError();
  EXPECT_NE(e.find("GPTQ desc_act = true (act-order) unsupported"), std::string::npos) << e;
}

TEST_F(BrokenGptq, EightBitsAreRejected) {
  config_["quantization_config"]["bits"] = 8;
  const std::string e = LoadError();
  EXPECT_NE(e.find("GPTQ bits = 8 unsupported"), std::string::npos) << e;
}

TEST_F(BrokenGptq, OtherMethodsAreRejected) {
  config_["quantization_config"]["quant_method"] = "awq";
  const std::string e = LoadError();
  EXPECT_NE(e.find("quant_method 'awq' is not supported"), std::string::npos) << e;
}

TEST_F(BrokenGptq, AsymmetricZeroPointsAreRejected) {
  SetI32(std::string(kQ) + ".qzeros", 3, 0x77777776u);
  const std::string e = LoadError();
  EXPECT_NE(e.find(std::string(kQ) + ": GPTQ qzeros hold zero points other than 8"), std::string::npos) << e;
}

TEST_F(BrokenGptq, ActOrderGroupIndicesAreRejected) {
  SetI32(std::string(kQ) + ".g_idx", 5, 1);
  const std::string e = LoadError();
  EXPECT_NE(e.find(std::string(kQ) + ": GPTQ g_idx[5] = 1 reorders groups"), std::string::npos) << e;
}

TEST_F(BrokenGptq, AWrongQweightSizeIsRejected) {
  // Half the rows, with data_offsets to match, so the safetensors layer accepts it.
  json& t = header_[std::string(kQ) + ".qweight"];
  const uint64_t begin = t["data_offsets"][0].get<uint64_t>();
  t["shape"] = {16, 512};
  t["data_offsets"] = {begin, begin + 16 * 512 * 4};
  const std::string e = LoadError();
  EXPECT_NE(e.find("tensor '" + std::string(kQ) + ".qweight'"), std::string::npos) << e;
  EXPECT_NE(e.find("has shape [16, 512], GPTQ needs [32, 512]"), std::string::npos) << e;
}

TEST_F(BrokenGptq, MissingScalesAreRejected) {
  header_.erase("model.layers.3.mlp.down_proj.scales");
  const std::string e = LoadError();
  EXPECT_NE(e.find("checkpoint has no tensor 'model.layers.3.mlp.down_proj.scales'"), std::string::npos) << e;
}

TEST_F(BrokenGptq, ScalesMustBeFp16) {
  header_[std::string(kQ) + ".scales"]["dtype"] = "BF16";
  const std::string e = LoadError();
  EXPECT_NE(
      e.find(".scales' in " + (dir_ / "model.safetensors").string() + " is BF16, GPTQ stores it as F16"),
      std::string::npos)
      << e;
}

TEST_F(BrokenGptq, NonFiniteScalesAreRejected) {
  const size_t at = header_[std::string(kQ) + ".scales"]["data_offsets"][0].get<size_t>();
  const uint16_t inf = 0x7c00;
  std::memcpy(&data_[at + 2 * 7], &inf, 2);
  const std::string e = LoadError();
  EXPECT_NE(e.find(std::string(kQ) + ": GPTQ scales[7] is not finite"), std::string::npos) << e;
}

}  // namespace
}  // namespace vt::testing
