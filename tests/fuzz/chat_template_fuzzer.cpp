// libFuzzer target: arbitrary bytes as a chat template, parsed and rendered over a fixed
// conversation. Parse errors and render errors are values; nothing may crash or hang.
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/chat/chat_template.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string source(reinterpret_cast<const char*>(data), size);
  auto t = vt::ChatTemplate::Parse(source);
  if (!t.ok()) return 0;
  static const nlohmann::json context = {
      {"messages", nlohmann::json::array({{{"role", "system"}, {"content", "Be brief."}},
                                          {{"role", "user"}, {"content", "Hi <3 \xc3\xa9"}},
                                          {{"role", "assistant"}, {"content", "Hello"}}})},
      {"add_generation_prompt", true},
      {"bos_token", "<s>"},
      {"n", 3}};
  auto out = (*t)->Render(context);
  (void)out;
  return 0;
}
