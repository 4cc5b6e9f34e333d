// Stop strings matched by the engine: with the embedded model and its real tokenizer, a stop
// string that spans tokens ends the request as "stop" in the step that completed it, its text
// cut right before the string, and the request is reported finished like any other (so the
// server counts it). OutputText alone: multi-byte characters split across byte-level tokens are
// never released in halves, and text held back as a possible stop prefix is released once it
// cannot be one.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "engine/exec/llm_engine.h"
#include "engine/loader/model_source.h"
#include "engine/tokenizer/output_text.h"
#include "engine/tokenizer/tokenizer.h"
#include "engine/tokenizer/utf8.h"
#include "tests/engine/tiny_model.h"

namespace vt {
namespace {

namespace fs = std::filesystem;

const fs::path kModelDir = fs::path(VT_SOURCE_DIR) / "assets/models/fortune-qwen3-7m";

std::shared_ptr<const Tokenizer> LoadTokenizer() {
  Result<std::shared_ptr<Tokenizer>> tok = Tokenizer::FromFile((kModelDir / "tokenizer.json").string());
  EXPECT_TRUE(tok.ok()) << tok.status().message();
  return tok.ok() ? *tok : nullptr;
}

std::unique_ptr<LlmEngine> EmbeddedEngine(std::shared_ptr<const Tokenizer> tokenizer) {
  kernels::cpu::ThreadPool& pool = kernels::cpu::DefaultThreadPool();
  Result<LoadedModel> loaded = LoadModel(kModelDir.string(), LoadFormat::kAuto, pool);
  EXPECT_TRUE(loaded.ok()) << loaded.status().message();
  if (!loaded.ok()) return nullptr;
  EngineConfig ec;
  ec.num_kv_blocks = 64;
  auto engine = std::make_unique<LlmEngine>(testing::CpuRunner(loaded->config, std::move(loaded->weights), ec), ec);
  engine->set_tokenizer(std::move(tokenizer));
  return engine;
}

struct Generation {
  std::vector<std::string> pieces;  // SampledResult::text of each token
  std::unique_ptr<Request> request;
  bool reported_finished = false;   // in some step's finished list
};

Generation Generate(LlmEngine& engine, const std::vector<int32_t>& prompt, std::vector<std::string> stop) {
  SamplingParams p;
  p.temperature = 0.0f;
  p.max_tokens = 24;
  p.ignore_eos = true;
  p.stop = std::move(stop);
  Generation run;
  Result<RequestId> id = engine.AddRequest(prompt, p);
  EXPECT_TRUE(id.ok()) << id.status().message();
  if (!id.ok()) return run;
  while (engine.HasUnfinished()) {
    Result<StepResult> step = engine.Step();
    EXPECT_TRUE(step.ok()) << step.status().message();
    if (!step.ok()) return run;
    for (const SampledResult& t : step->tokens) run.pieces.push_back(t.text);
    for (RequestId f : step->finished) run.reported_finished |= f == *id;
  }
  run.request = engine.TakeFinished(*id);
  return run;
}

std::string Join(const std::vector<std::string>& pieces) {
  std::string s;
  for (const std::string& p : pieces) s += p;
  return s;
}

TEST(EngineStopStrings, StopAcrossTokensFinishesAsStopWithTheTextCut) {
  std::shared_ptr<const Tokenizer> tok = LoadTokenizer();
  ASSERT_TRUE(tok);
  std::unique_ptr<LlmEngine> engine = EmbeddedEngine(tok);
  ASSERT_TRUE(engine);
  const std::vector<int32_t> prompt = tok->Encode("The meaning of life is", true);

  const Generation unstopped = Generate(*engine, prompt, {});
  ASSERT_TRUE(unstopped.request);
  EXPECT_EQ(unstopped.request->finish, FinishReason::kLength);
  const std::string full = Join(unstopped.pieces);
  EXPECT_EQ(full, unstopped.request->text->text());
  EXPECT_EQ(full, tok->Decode(unstopped.request->output, /*skip_special_tokens=*/true));

  // The last two bytes of one token's text and the first two of the next: a string no single
  // token holds.
  size_t k = 0;
  while (k + 1 < unstopped.pieces.size() && (unstopped.pieces[k].size() < 2 || unstopped.pieces[k + 1].size() < 2)) ++k;
  ASSERT_LT(k + 1, unstopped.pieces.size()) << "no two neighbouring tokens of two bytes or more in: " << full;
  const std::string stop = unstopped.pieces[k].substr(unstopped.pieces[k].size() - 2) + unstopped.pieces[k + 1].substr(0, 2);
  const size_t at = full.find(stop);
  // The token whose text completes the first occurrence is the last one generated.
  size_t completing = 0;
  for (size_t covered = 0; covered < at + stop.size(); ++completing) covered += unstopped.pieces[completing].size();

  const Generation stopped = Generate(*engine, prompt, {"never in this text", stop});
  ASSERT_TRUE(stopped.request);
  EXPECT_EQ(stopped.request->finish, FinishReason::kStop);
  EXPECT_TRUE(stopped.reported_finished) << "a stopped request must be reported finished, not vanish";
  EXPECT_EQ(Join(stopped.pieces), full.substr(0, at)) << "stop '" << stop << "'";
  EXPECT_EQ(stopped.request->text->text(), full.substr(0, at));
  EXPECT_EQ(stopped.request->output.size(), completing);
}

TEST(EngineStopStrings, RefusedWithoutATokenizerOrWhenEmpty) {
  std::unique_ptr<LlmEngine> engine = EmbeddedEngine(nullptr);
  ASSERT_TRUE(engine);
  SamplingParams p;
  p.stop = {"x"};
  EXPECT_EQ(engine->AddRequest({1, 2}, p).status().code(), StatusCode::kInvalidArgument);
  engine->set_tokenizer(LoadTokenizer());
  p.stop = {""};
  EXPECT_EQ(engine->AddRequest({1, 2}, p).status().code(), StatusCode::kInvalidArgument);
}

TEST(OutputText, NeverReleasesHalfACharacterAndCutsBeforeAMultiByteStop) {
  std::shared_ptr<const Tokenizer> tok = LoadTokenizer();
  ASSERT_TRUE(tok);
  const std::string text = "na\xc3\xafve caf\xc3\xa9 au lait \xe2\x82\xac 5";  // "naïve café au lait € 5"
  const std::vector<int32_t> ids = tok->Encode(text);
  ASSERT_GT(ids.size(), 4u);

  // No stop strings: every release is whole UTF-8, and together they are the text.
  OutputText plain(tok, {}, {});
  std::string released;
  for (int32_t id : ids) {
    bool stopped = true;
    const std::string piece = plain.Add(id, &stopped);
    EXPECT_FALSE(stopped);
    EXPECT_EQ(CompleteUtf8Prefix(piece), piece.size()) << "half a character released";
    released += piece;
  }
  released += plain.Finish();
  EXPECT_EQ(released, text);

  // A stop string starting inside a multi-byte character's run of tokens.
  OutputText cut(tok, {}, {"\xc3\xa9 au", "\xe2\x82\xac"});
  released.clear();
  bool stopped = false;
  size_t used = 0;
  for (; used < ids.size() && !stopped; ++used) {
    const std::string piece = cut.Add(ids[used], &stopped);
    EXPECT_EQ(CompleteUtf8Prefix(piece), piece.size()) << "half a character released";
    released += piece;
  }
  EXPECT_TRUE(stopped);
  EXPECT_EQ(released, "na\xc3\xafve caf");
  EXPECT_EQ(cut.text(), released);
  EXPECT_EQ(cut.Finish(), "") << "nothing follows a stop";

  // A prefix of a stop string that never completes is held, then released whole.
  OutputText held(tok, {}, {"caf\xc3\xa9 noir"});
  released.clear();
  for (int32_t id : ids) {
    released += held.Add(id, &stopped);
    EXPECT_FALSE(stopped);
  }
  released += held.Finish();
  EXPECT_EQ(released, text);
}

}  // namespace
}  // namespace vt
