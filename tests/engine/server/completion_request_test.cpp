// Request bodies whose known fields have unexpected types or out-of-range values are 400 errors
// naming the field. Each case here once threw out of the parser or cast out of range (found by
// fuzz.request_parser); the server must answer them, not crash.
#include "engine/server/completion_request.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <variant>

#include "tests/source_root.h"

namespace vt::server {
namespace {

ModelContext TokenIdModel() {
  ModelContext m;
  m.served_name = "m";
  m.max_model_len = 64;
  m.vocab_size = 1000;
  return m;
}

// The embedded model's tokenizer with a 2048-token context, as `vt serve` has it.
ModelContext TextModel() {
  ModelContext m = TokenIdModel();
  m.max_model_len = 2048;
  auto tok = Tokenizer::FromFile((vt::testing::SourceRoot() / "assets/models/fortune-qwen3-7m/tokenizer.json").string());
  EXPECT_TRUE(tok.ok()) << tok.status().message();
  if (tok.ok()) m.tokenizer = *tok;
  if (tok.ok()) m.vocab_size = (*tok)->vocab_size();
  return m;
}

std::string ErrorParam(const std::string& body, bool chat = false) {
  const ModelContext model = TokenIdModel();
  auto parsed = ParseCompletionRequest(body, chat, model);
  if (auto* e = std::get_if<ApiError>(&parsed)) return e->param.empty() ? "<no param>" : e->param;
  return "<accepted>";
}

std::string ErrorMessage(const std::string& body, const ModelContext& model, bool chat = false) {
  auto parsed = ParseCompletionRequest(body, chat, model);
  if (auto* e = std::get_if<ApiError>(&parsed)) return e->message;
  return "<accepted>";
}

TEST(CompletionRequest, WrongTypesAreErrorsNotExceptions) {
  EXPECT_EQ(ErrorParam(R"({"prompt": [1, 2], "stream": 1})"), "stream");
  EXPECT_EQ(ErrorParam(R"({"prompt": [1, 2], "stream_options": {"include_usage": "yes"}})"), "<accepted>");
  EXPECT_EQ(ErrorParam(R"({"messages": [{"role": "user", "content": [{"type": 7, "text": "x"}]}]})", true),
            "messages");
  EXPECT_EQ(ErrorParam(R"({"prompt": [1, 2], "logprobs": 4294967297})"), "logprobs");
}

TEST(CompletionRequest, NumbersOutsideTheirTypeAreOutOfRange) {
  EXPECT_EQ(ErrorParam(R"({"prompt": [1], "temperature": 1e300})"), "temperature");
  EXPECT_EQ(ErrorParam(R"({"prompt": [1], "n": 4294967297})"), "n");
  EXPECT_EQ(ErrorParam(R"({"prompt": [1], "max_tokens": 18446744073709551615})"), "max_tokens");
  EXPECT_EQ(ErrorParam(R"({"prompt": [1], "top_k": -9223372036854775808})"), "top_k");
}

TEST(CompletionRequest, TokenIdsMustFitInt32AndBeNonNegative) {
  EXPECT_EQ(ErrorParam(R"({"prompt": [1, 4294967297]})"), "prompt");
  EXPECT_EQ(ErrorParam(R"({"prompt": [-1]})"), "prompt");
  EXPECT_EQ(ErrorParam(R"({"prompt": [1], "stop_token_ids": [2147483648]})"), "stop_token_ids");
  EXPECT_EQ(ErrorParam(R"({"prompt": [[1, 2], [3]], "stop_token_ids": [0, 2147483647]})"), "<accepted>");
}

// A million nested '[' in any field once became a million-deep tree that the server copied and
// destroyed recursively until its stack overflowed. Parsing now stops at depth 64.
TEST(CompletionRequest, DeepNestingIsRefusedWhileParsing) {
  const std::string deep(1'000'000, '[');
  for (const char* field : {"tools", "chat_template_kwargs", "documents", "prompt", "anything"}) {
    const std::string message =
        ErrorMessage(R"({"prompt": [1], ")" + std::string(field) + R"(": )" + deep + deep + "}", TokenIdModel());
    EXPECT_NE(message.find("deeper than 64 levels"), std::string::npos) << field << ": " << message;
  }
  const std::string in_message = R"({"messages": [{"role": "user", "content": "x", "extra": )" + deep + "}]}";
  EXPECT_NE(ErrorMessage(in_message, TokenIdModel(), true).find("deeper than 64"), std::string::npos);
  // 64 levels are fine.
  EXPECT_EQ(ErrorParam(R"({"prompt": [1], "tools": )" + std::string(63, '[') + std::string(63, ']') + "}"),
            "<accepted>");
}

TEST(CompletionRequest, TokenIdsOutsideTheVocabularyAreRefusedByName) {
  EXPECT_EQ(ErrorParam(R"({"prompt": [1, 999]})"), "<accepted>");
  EXPECT_EQ(ErrorParam(R"({"prompt": [1, 99999]})"), "prompt");
  EXPECT_NE(ErrorMessage(R"({"prompt": [[1], [5, 1000]]})", TokenIdModel()).find("token id 1000"), std::string::npos);
}

// Far past the context in bytes, a prompt is refused without being tokenized: 8 MB of text takes
// seconds to tokenize, the refusal well under one.
TEST(CompletionRequest, OverlongTextIsRefusedBeforeTokenizing) {
  const ModelContext model = TextModel();
  ASSERT_GT(model.tokenizer->max_input_bytes_per_token(), 0);
  const std::string body = R"({"prompt": ")" + std::string(8 << 20, 'x') + R"("})";
  const auto start = std::chrono::steady_clock::now();
  const std::string message = ErrorMessage(body, model);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(message.find("bytes, so at least"), std::string::npos) << message;
  EXPECT_LT(seconds, 1.0);
}

// The byte bound never refuses a prompt that fits: the longest text that still fits (one token
// per the longest token's bytes) is counted, not refused by its length in bytes.
TEST(CompletionRequest, ByteBoundNeverRefusesAPromptThatFits) {
  const ModelContext model = TextModel();
  const std::string words = [] {
    std::string s;
    while (s.size() < 6000) s += "the ";
    return s;
  }();
  const size_t tokens = model.tokenizer->Encode(words, true).size();
  ASSERT_LT(static_cast<int64_t>(tokens), model.max_model_len);
  EXPECT_EQ(ErrorMessage(R"({"prompt": ")" + words + R"(", "max_tokens": 1})", model), "<accepted>");
}

CompletionRequest Parsed(const std::string& body, bool chat = false) {
  auto parsed = ParseCompletionRequest(body, chat, TokenIdModel());
  if (auto* e = std::get_if<ApiError>(&parsed)) ADD_FAILURE() << body << ": " << e->message;
  return std::holds_alternative<CompletionRequest>(parsed) ? std::get<CompletionRequest>(parsed) : CompletionRequest{};
}

TEST(CompletionRequest, LogitsAdjustmentsReachTheSamplingParams) {
  const CompletionRequest r = Parsed(R"({"prompt": [1], "max_tokens": 8, "presence_penalty": 1.5,
      "frequency_penalty": -0.5, "repetition_penalty": 1.2, "min_tokens": 8, "logit_bias": {"7": 100, "999": -2.5}})");
  EXPECT_FLOAT_EQ(r.params.presence_penalty, 1.5f);
  EXPECT_FLOAT_EQ(r.params.frequency_penalty, -0.5f);
  EXPECT_FLOAT_EQ(r.params.repetition_penalty, 1.2f);
  EXPECT_EQ(r.params.min_tokens, 8);
  const std::vector<std::pair<int32_t, float>> bias = {{7, 100.0f}, {999, -2.5f}};
  EXPECT_EQ(r.params.logit_bias, bias);
  EXPECT_TRUE(r.params.AdjustsLogits());
  const CompletionRequest plain = Parsed(R"({"prompt": [1], "logit_bias": {}, "min_tokens": 0, "presence_penalty": null})");
  EXPECT_FALSE(plain.params.AdjustsLogits());
}

TEST(CompletionRequest, LogitsAdjustmentsOutOfRangeAreRefusedByName) {
  EXPECT_EQ(ErrorParam(R"({"prompt": [1], "presence_penalty": 2.5})"), "presence_penalty");
  EXPECT_EQ(ErrorParam(R"({"prompt": [1], "presence_penalty": "1"})"), "presence_penalty");
  EXPECT_EQ(ErrorParam(R"({"prompt": [1], "frequency_penalty": -2.01})"), "frequency_penalty");
  EXPECT_EQ(ErrorParam(R"({"prompt": [1], "frequency_penalty": 2})"), "<accepted>");
  EXPECT_EQ(ErrorParam(R"({"prompt": [1], "repetition_penalty": 0})"), "repetition_penalty");
  EXPECT_EQ(ErrorParam(R"({"prompt": [1], "repetition_penalty": -1})"), "repetition_penalty");
  EXPECT_EQ(ErrorParam(R"({"prompt": [1], "min_tokens": -1})"), "min_tokens");
  EXPECT_EQ(ErrorParam(R"({"prompt": [1], "min_tokens": 1.5})"), "min_tokens");
  EXPECT_EQ(ErrorParam(R"({"prompt": [1], "max_tokens": 4, "min_tokens": 5})"), "min_tokens");
  EXPECT_EQ(ErrorParam(R"({"prompt": [1], "max_tokens": 5, "min_tokens": 5})"), "<accepted>");
  // max_tokens is cut to the room the context leaves (64 - 1 prompt token here); min_tokens must fit in that.
  EXPECT_EQ(ErrorParam(R"({"prompt": [1], "max_tokens": 100, "min_tokens": 64})"), "min_tokens");
  EXPECT_EQ(ErrorParam(R"({"prompt": [1], "max_tokens": 100, "min_tokens": 63})"), "<accepted>");
}

TEST(CompletionRequest, LogitBiasKeysMustBeTokenIdsAndValuesInRange) {
  for (const char* bias : {R"([1])", R"({"x": 1})", R"({"-1": 1})", R"({"1000": 1})", R"({"1.0": 1})", R"({"": 1})",
                           R"({"99999999999999999999": 1})", R"({"5": 101})", R"({"5": -100.5})", R"({"5": "1"})",
                           R"({"5": null})"}) {
    EXPECT_EQ(ErrorParam(std::string(R"({"prompt": [1], "logit_bias": )") + bias + "}"), "logit_bias") << bias;
  }
  EXPECT_EQ(ErrorParam(R"({"prompt": [1], "logit_bias": {"0": -100, "999": 100}})"), "<accepted>");
  EXPECT_EQ(ErrorParam(R"({"prompt": [1], "logit_bias": null})"), "<accepted>");
}

}  // namespace
}  // namespace vt::server
