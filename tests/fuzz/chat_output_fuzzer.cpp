// libFuzzer target: arbitrary bytes as a model's output, split into reasoning, content and tool
// calls by every format. Besides not crashing, the parts must not depend on how the engine cut
// the text into pieces: the output fed whole and fed in pieces of a size the input picks must
// give the same reasoning, content and calls, or the fuzzer aborts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "engine/chat/chat_output_parser.h"
#include "tests/engine/chat/chat_output_test_util.h"

namespace {

using vt::chat::ChatDelta;
using vt::chat::ChatOutputOptions;
using vt::chat::testing::ParseInPieces;

bool Same(const ChatDelta& a, const ChatDelta& b) {
  if (a.reasoning != b.reasoning || a.content != b.content || a.calls.size() != b.calls.size()) return false;
  for (size_t i = 0; i < a.calls.size(); ++i) {
    if (a.calls[i].name != b.calls[i].name || a.calls[i].arguments != b.calls[i].arguments) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  ChatOutputOptions o;
  o.tools = static_cast<vt::chat::ToolCallFormat>(data[0] % 4);
  o.reasoning = data[0] & 4 ? vt::chat::ReasoningFormat::kQwen3 : vt::chat::ReasoningFormat::kNone;
  o.reasoning_start = static_cast<vt::chat::ReasoningStart>((data[0] >> 3) % 3);
  if (data[0] & 32) o.max_calls = 1;
  if (data[0] & 64) o.tool_names = {"get_weather", "a"};
  const size_t piece = 1 + data[1] % 16;
  const std::string_view text(reinterpret_cast<const char*>(data + 2), size - 2);
  if (!Same(ParseInPieces(o, text), ParseInPieces(o, text, piece))) std::abort();
  return 0;
}
