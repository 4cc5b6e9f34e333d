// Request bodies whose known fields have unexpected types or out-of-range values are 400 errors
// naming the field. Each case here once threw out of the parser or cast out of range (found by
// fuzz.request_parser); the server must answer them, not crash.
#include "engine/server/completion_request.h"

#include <gtest/gtest.h>

#include <string>
#include <variant>

namespace vt::server {
namespace {

ModelContext TokenIdModel() {
  ModelContext m;
  m.served_name = "m";
  m.max_model_len = 64;
  return m;
}

std::string ErrorParam(const std::string& body, bool chat = false) {
  const ModelContext model = TokenIdModel();
  auto parsed = ParseCompletionRequest(body, chat, model);
  if (auto* e = std::get_if<ApiError>(&parsed)) return e->param.empty() ? "<no param>" : e->param;
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

}  // namespace
}  // namespace vt::server
