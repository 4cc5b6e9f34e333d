// OpenSession, the one way every app opens a model: the embedded model with its tokenizer, a
// dummy preset without one, and errors that name what is wrong.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "engine/exec/step_loop.h"
#include "engine/session/session.h"
#include "tests/source_root.h"

namespace vt {
namespace {

const std::string kModel = (testing::SourceRoot() / "assets/models/fortune-qwen3-7m").string();

TEST(Session, OpensTheEmbeddedModelWithItsTokenizerAndGenerates) {
  SessionSpec spec;
  spec.model = kModel;
  Result<Session> session = OpenSession(spec);
  ASSERT_TRUE(session.ok()) << session.status().message();
  ASSERT_NE(session->tokenizer, nullptr);
  EXPECT_EQ(session->model_dir, kModel);
  EXPECT_GT(session->weight_bytes, 0u);
  // The one EOS policy filled the scheduler's ids from the checkpoint.
  EXPECT_EQ(session->engine->config().scheduler.eos_token_ids, session->model.eos_token_ids);
  EXPECT_FALSE(session->model.eos_token_ids.empty());

  SamplingParams params;
  params.max_tokens = 6;
  params.ignore_eos = true;
  const RequestId id = session->engine->AddRequest(session->tokenizer->Encode("The meaning", true), params).value();
  ASSERT_TRUE(RunSteps(*session->engine, [](const StepResult&) { return true; }).ok());
  std::unique_ptr<Request> r = session->engine->TakeFinished(id);
  EXPECT_EQ(r->output.size(), 6u);
  ASSERT_NE(r->text, nullptr);  // the session gave the engine its tokenizer
  EXPECT_FALSE(r->text->text().empty());
}

TEST(Session, SizesTheCpuPoolByTheDemandWithinTheBudget) {
  SessionSpec spec;
  spec.model = kModel;
  spec.kv_demand = [](const ModelConfig&) { return KvDemand::Uniform(2, 100, 16); };
  Result<Session> session = OpenSession(spec);
  ASSERT_TRUE(session.ok()) << session.status().message();
  EXPECT_EQ(session->engine->kv().num_blocks(), 2 * 7);

  spec.kv_demand = nullptr;  // the default: max_num_seqs sequences of the full context
  spec.engine.scheduler.max_num_seqs = 3;
  spec.engine.scheduler.max_model_len = 64;
  session = OpenSession(spec);
  ASSERT_TRUE(session.ok()) << session.status().message();
  EXPECT_EQ(session->engine->kv().num_blocks(), 3 * 4);
}

TEST(Session, ADummyPresetHasNoTokenizer) {
  SessionSpec spec;
  spec.model = "preset:qwen3-0.6b";
  spec.load_format = "dummy";
  spec.engine.scheduler.max_model_len = 64;
  spec.engine.scheduler.max_num_seqs = 1;
  Result<Session> session = OpenSession(spec);
  ASSERT_TRUE(session.ok()) << session.status().message();
  EXPECT_EQ(session->tokenizer, nullptr);
  EXPECT_TRUE(session->model_dir.empty());
  EXPECT_EQ(session->engine->config().scheduler.max_model_len, 64);
}

TEST(Session, ErrorsNameWhatIsWrong) {
  SessionSpec spec;
  spec.model = "/nonexistent/model";
  Result<Session> missing = OpenSession(spec);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/model"), std::string::npos);

  spec.model = kModel;
  spec.backend.backend = "tpu";
  Result<Session> backend = OpenSession(spec);
  ASSERT_FALSE(backend.ok());
  EXPECT_NE(backend.status().message().find("--backend tpu"), std::string::npos);

  spec.backend.backend = "cpu";
  spec.load_format = "lazy";
  EXPECT_FALSE(OpenSession(spec).ok());
}

// Greedy tokens of three prompts decoded together by a session of `tp` ranks (the engine's real path:
// OpenSession, the backend factory, the scheduler, the sampler).
std::vector<std::vector<int32_t>> GreedyOnRanks(int tp) {
  SessionSpec spec;
  spec.model = kModel;
  spec.backend.tensor_parallel_size = tp;
  spec.backend.tuning.num_threads = 2;
  Result<Session> session = OpenSession(spec);
  EXPECT_TRUE(session.ok()) << session.status().message();
  std::vector<std::vector<int32_t>> out;
  if (!session.ok()) return out;
  SamplingParams params;
  params.temperature = 0.0f;
  params.max_tokens = 24;
  params.ignore_eos = true;
  std::vector<RequestId> ids;
  for (const char* prompt : {"The meaning of life is", "Once upon a time", "A fortune:"}) {
    ids.push_back(session->engine->AddRequest(session->tokenizer->Encode(prompt, true), params).value());
  }
  EXPECT_TRUE(RunSteps(*session->engine, [](const StepResult&) { return true; }).ok());
  for (RequestId id : ids) out.push_back(session->engine->TakeFinished(id)->output);
  return out;
}

// --tensor-parallel-size 2 on the CPU backend: two ranks, each a shard of the weights with its own
// KV cache of one KV head and its own threads, driven in step by the engine, decode greedily what one
// rank decodes (the row-parallel sums differ from one rank's only in their order: the embedded
// model's margins are far above that).
TEST(Session, TwoTensorParallelRanksDecodeWhatOneRankDecodes) {
  const std::vector<std::vector<int32_t>> one = GreedyOnRanks(1);
  ASSERT_EQ(one.size(), 3u);
  EXPECT_EQ(GreedyOnRanks(2), one);
}

TEST(Session, TensorParallelSizesItCannotRunAreNamed) {
  SessionSpec spec;
  spec.model = kModel;
  spec.backend.tensor_parallel_size = 3;  // the embedded model has 4 heads
  Result<Session> three = OpenSession(spec);
  ASSERT_FALSE(three.ok());
  EXPECT_NE(three.status().message().find("does not divide num_attention_heads (4)"), std::string::npos)
      << three.status().message();
  // Named before the weights load: 141 GB of dummy weights would not fit this machine.
  SessionSpec big = spec;
  big.model = "preset:llama3-70b";
  big.load_format = "dummy";
  Result<Session> seventy = OpenSession(big);
  ASSERT_FALSE(seventy.ok());
  EXPECT_NE(seventy.status().message().find("does not divide num_attention_heads (64)"), std::string::npos)
      << seventy.status().message();
  spec.backend.tensor_parallel_size = 0;
  Result<Session> zero = OpenSession(spec);
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.status().message().find("--tensor-parallel-size 0"), std::string::npos) << zero.status().message();
  // The CUDA backend names what it lacks (no CUDA in this build, or its sharded runner).
  spec.backend.tensor_parallel_size = 2;
  spec.backend.backend = "cuda";
  Result<Session> cuda = OpenSession(spec);
  ASSERT_FALSE(cuda.ok());
  EXPECT_NE(cuda.status().message().find("--backend cuda"), std::string::npos) << cuda.status().message();
}

}  // namespace
}  // namespace vt
