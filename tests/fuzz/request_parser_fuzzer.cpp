// libFuzzer target: arbitrary bytes as a /v1/completions or /v1/chat/completions body, parsed,
// templated and tokenized against the embedded model. Any outcome but a crash, a sanitizer
// report or a hang is fine; errors must come back as values.
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "engine/server/completion_request.h"

namespace {

vt::server::ModelContext* g_model = nullptr;

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const std::string dir = std::string(VT_SOURCE_DIR) + "/assets/models/fortune-qwen3-7m";
  auto* m = new vt::server::ModelContext();
  m->served_name = "fortune-qwen3-7m";
  m->max_model_len = 2048;
  auto tok = vt::Tokenizer::FromFile(dir + "/tokenizer.json");
  if (tok.ok()) m->tokenizer = *tok;
  const nlohmann::json config = nlohmann::json::parse(Read(dir + "/tokenizer_config.json"));
  auto t = vt::ChatTemplate::Parse(config["chat_template"].get<std::string>());
  if (t.ok()) m->chat_template = *t;
  m->template_globals = {{"bos_token", ""}, {"eos_token", "<|endoftext|>"}};
  // Tools and reasoning are read as for a Qwen3 model (no grammar cache: compiling schemas is the
  // grammar engine's own fuzzing, and would slow this target's runs down).
  m->tool_call_format = vt::chat::ToolCallFormat::kHermes;
  m->reasoning_format = vt::chat::ReasoningFormat::kQwen3;
  g_model = m;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool chat = data[0] & 1;
  const std::string body(reinterpret_cast<const char*>(data + 1), size - 1);
  auto parsed = vt::server::ParseCompletionRequest(body, chat, *g_model);
  (void)parsed;
  return 0;
}
