#include "engine/server/chat_message.h"

#include <random>

namespace vt::server {

using json = nlohmann::json;

std::string NewToolCallId() {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_int_distribution<size_t> pick(0, sizeof(kAlphabet) - 2);
  std::string id = "call_";
  for (int i = 0; i < 24; ++i) id += kAlphabet[pick(rng)];
  return id;
}

json MessageJson(const AssistantMessage& m, bool with_reasoning) {
  const bool content_null = m.content.empty() && (!m.calls.empty() || !m.reasoning.empty());
  json out = {{"role", "assistant"}, {"content", content_null ? json(nullptr) : json(m.content)}};
  if (with_reasoning) out["reasoning_content"] = m.reasoning.empty() ? json(nullptr) : json(m.reasoning);
  if (!m.calls.empty()) {
    json calls = json::array();
    for (size_t i = 0; i < m.calls.size(); ++i) {
      calls.push_back({{"id", m.call_ids[i]},
                       {"type", "function"},
                       {"function", {{"name", m.calls[i].name}, {"arguments", m.calls[i].arguments}}}});
    }
    out["tool_calls"] = std::move(calls);
  }
  return out;
}

std::vector<json> DeltaJson(const chat::ChatDelta& delta, const std::vector<std::string>& call_ids,
                            size_t first_call_index) {
  std::vector<json> out;
  if (!delta.reasoning.empty() || !delta.content.empty()) {
    json d = json::object();
    if (!delta.reasoning.empty()) d["reasoning_content"] = delta.reasoning;
    if (!delta.content.empty()) d["content"] = delta.content;
    out.push_back(std::move(d));
  }
  for (size_t i = 0; i < delta.calls.size(); ++i) {
    const auto index = static_cast<int64_t>(first_call_index + i);
    out.push_back(
        {{"tool_calls", json::array({{{"index", index},
                                      {"id", call_ids[i]},
                                      {"type", "function"},
                                      {"function", {{"name", delta.calls[i].name}, {"arguments", ""}}}}})}});
    out.push_back({{"tool_calls", json::array({{{"index", index},
                                                {"function", {{"arguments", delta.calls[i].arguments}}}}})}});
  }
  return out;
}

}  // namespace vt::server
