#include "engine/server/completion_reply.h"

#include <ctime>
#include <utility>
#include <vector>

#include "engine/server/chat_message.h"

namespace vt::server {
namespace {

using json = nlohmann::json;

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// One choice of a response: its engine request and what it has produced so far. Its text comes
// from the engine, which also matched the stop strings.
struct Choice {
  int index = 0;
  size_t prompt = 0;  // which prompt of the request
  std::shared_ptr<ResultStream> stream;
  int64_t tokens = 0;
  std::string finish;  // empty while running
  json logprobs;       // accumulated for non-streaming responses
  int64_t text_offset = 0;
  // Chat requests with tools or a reasoning model: splits the text as it arrives (null: the text
  // is all content). Responses accumulate in `message`; streams only count the calls.
  std::shared_ptr<chat::ChatOutputParser> parser;
  AssistantMessage message;
  size_t calls = 0;
};

std::string TokenText(const Tokenizer* tok, int32_t id) {
  return tok ? tok->Decode({id}, /*skip_special_tokens=*/false) : std::to_string(id);
}

// The logprobs entry of one token, in the completions or the chat format.
json TokenLogprobs(const CompletionRequest& r, const Tokenizer* tok, const SampledToken& t) {
  if (r.chat) {
    auto entry = [&](int32_t id, float lp) {
      const std::string s = TokenText(tok, id);
      return json{{"token", s}, {"logprob", lp}, {"bytes", std::vector<int>(s.begin(), s.end())}};
    };
    json e = entry(t.token, t.logprob);
    e["top_logprobs"] = json::array();
    for (const TokenLogprob& top : t.top) e["top_logprobs"].push_back(entry(top.token, top.logprob));
    return e;
  }
  json top = json::object();
  for (const TokenLogprob& x : t.top) top[TokenText(tok, x.token)] = x.logprob;
  return {{"token", TokenText(tok, t.token)}, {"logprob", t.logprob}, {"top", top}};
}

// Folds per-token completion logprobs into OpenAI's column layout.
json CompletionLogprobs(const json& tokens, int64_t start_offset) {
  json out = {{"tokens", json::array()}, {"token_logprobs", json::array()}, {"top_logprobs", json::array()},
              {"text_offset", json::array()}};
  int64_t offset = start_offset;
  for (const json& t : tokens) {
    out["tokens"].push_back(t["token"]);
    out["token_logprobs"].push_back(t["logprob"]);
    out["top_logprobs"].push_back(t["top"]);
    out["text_offset"].push_back(offset);
    offset += static_cast<int64_t>(t["token"].get<std::string>().size());
  }
  return out;
}

// OpenAI's usage object over all choices of a response. Each prompt counts once, however many
// choices (n) were sampled from it: that is what was prefilled and what OpenAI bills.
json Usage(const CompletionRequest& r, const std::vector<Choice>& choices) {
  int64_t prompt_tokens = 0, completion_tokens = 0;
  for (const std::vector<int32_t>& p : r.prompts) prompt_tokens += static_cast<int64_t>(p.size());
  for (const Choice& c : choices) completion_tokens += c.tokens;
  return {{"prompt_tokens", prompt_tokens},
          {"completion_tokens", completion_tokens},
          {"total_tokens", prompt_tokens + completion_tokens}};
}

// What one update of a choice's stream made visible: its text, per-token logprob entries and,
// for a parsed chat output, the parts of the message (with the new calls' ids).
struct Visible {
  std::string text;
  json lps = json::array();
  chat::ChatDelta delta;
  std::vector<std::string> call_ids;
  size_t first_call = 0;  // the index of delta.calls[0] in the message
};

void Append(chat::ChatDelta& into, chat::ChatDelta&& more) {
  into.reasoning += more.reasoning;
  into.content += more.content;
  for (chat::ToolCall& call : more.calls) into.calls.push_back(std::move(call));
}

// Applies one update of a choice's stream: text, token count, logprobs, parsed parts and finish.
// A parsed output that called tools and ended by itself finishes with "tool_calls".
Visible Advance(const CompletionRequest& r, const ModelContext& m, Choice& c, const StreamUpdate& u) {
  Visible v;
  for (const SampledResult& t : u.tokens) {
    ++c.tokens;
    v.text += t.text;
    if (r.logprobs >= 0) v.lps.push_back(TokenLogprobs(r, m.tokenizer.get(), t.token));
  }
  const bool ends = c.finish.empty() && (u.finish || !u.error.ok());
  if (c.parser) {
    v.delta = c.parser->Feed(v.text);
    if (ends) Append(v.delta, c.parser->Finish());
    v.first_call = c.calls;
    for (size_t i = 0; i < v.delta.calls.size(); ++i) v.call_ids.push_back(NewToolCallId());
    c.calls += v.delta.calls.size();
  }
  if (ends) {
    c.finish = !u.error.ok() ? "error" : *u.finish == FinishReason::kLength ? "length" : "stop";
    if (c.finish == "stop" && c.calls > 0) c.finish = "tool_calls";
  }
  return v;
}

class CompletionReply : public PendingReply {
 public:
  CompletionReply(const CompletionRequest& r, std::shared_ptr<const ModelContext> m, std::vector<Choice> choices,
                  std::string id, std::string fingerprint)
      : r_(r),
        m_(std::move(m)),
        choices_(std::move(choices)),
        texts_(choices_.size()),
        id_(std::move(id)),
        fingerprint_(std::move(fingerprint)) {}

  void Start(std::function<void()> wake) override {
    for (Choice& c : choices_) c.stream->OnUpdate(wake);
  }

  ReplyPart Poll() override { return r_.stream ? PollStream() : PollWhole(); }

  void Cancel() override {
    for (Choice& c : choices_) c.stream->Cancel();
  }

 private:
  ReplyPart PollWhole();
  ReplyPart PollStream();
  json ChunkFor(json choice_list) const;
  json StreamChoice(Choice& c, const std::string& text, const json& lps, const json* delta, bool last);
  void SendVisible(Choice& c, const Visible& v, std::string& out);

  const CompletionRequest r_;
  const std::shared_ptr<const ModelContext> m_;
  std::vector<Choice> choices_;
  std::vector<std::string> texts_;  // non-streaming: each choice's text so far
  const std::string id_;
  const std::string fingerprint_;
  const int64_t created_ = static_cast<int64_t>(std::time(nullptr));
  bool started_ = false;  // streaming: the first (role) event is out
};

ReplyPart CompletionReply::PollWhole() {
  bool open = false;
  for (size_t i = 0; i < choices_.size(); ++i) {
    Choice& c = choices_[i];
    if (!c.finish.empty()) continue;
    const StreamUpdate u = c.stream->Take();
    if (!u.error.ok()) {
      Cancel();
      return {{500, "application/json", Dump(ApiError{500, u.error.message(), "InternalServerError", "", ""}.ToJson())},
              true};
    }
    Visible v = Advance(r_, *m_, c, u);
    texts_[i] += v.text;
    for (json& lp : v.lps) c.logprobs.push_back(std::move(lp));
    if (c.parser) {
      c.message.reasoning += v.delta.reasoning;
      c.message.content += v.delta.content;
      for (size_t k = 0; k < v.delta.calls.size(); ++k) {
        c.message.calls.push_back(std::move(v.delta.calls[k]));
        c.message.call_ids.push_back(v.call_ids[k]);
      }
    }
    open = open || c.finish.empty();
  }
  if (open) return {};
  json out_choices = json::array();
  for (size_t i = 0; i < choices_.size(); ++i) {
    const Choice& c = choices_[i];
    json choice = {{"index", c.index}, {"finish_reason", c.finish}};
    if (r_.chat) {
      choice["message"] = c.parser ? MessageJson(c.message, r_.output.reasoning != chat::ReasoningFormat::kNone)
                                   : json{{"role", "assistant"}, {"content", texts_[i]}};
      choice["logprobs"] = r_.chat_logprobs ? json{{"content", c.logprobs}} : json(nullptr);
    } else {
      choice["text"] = texts_[i];
      choice["logprobs"] = r_.logprobs >= 0 ? CompletionLogprobs(c.logprobs, 0) : json(nullptr);
    }
    out_choices.push_back(choice);
  }
  const json body = {{"id", id_},
                     {"object", r_.chat ? "chat.completion" : "text_completion"},
                     {"created", created_},
                     {"model", m_->served_name},
                     {"system_fingerprint", fingerprint_},
                     {"choices", out_choices},
                     {"usage", Usage(r_, choices_)}};
  return {{200, "application/json", Dump(body)}, true};
}

json CompletionReply::ChunkFor(json choice_list) const {
  return json{{"id", id_},
              {"object", r_.chat ? "chat.completion.chunk" : "text_completion"},
              {"created", created_},
              {"model", m_->served_name},
              {"system_fingerprint", fingerprint_},
              {"choices", std::move(choice_list)}};
}

// One choice of a chunk: the text (and logprobs) a token released, and the finish once known.
json CompletionReply::StreamChoice(Choice& c, const std::string& text, const json& lps, const json* delta, bool last) {
  json choice = {{"index", c.index}, {"finish_reason", c.finish.empty() || !last ? json(nullptr) : json(c.finish)}};
  const bool with_logprobs = !lps.empty();
  if (r_.chat) {
    choice["delta"] = delta != nullptr ? *delta : json{{"content", text}};
    choice["logprobs"] = r_.chat_logprobs && with_logprobs ? json{{"content", lps}} : json(nullptr);
  } else {
    choice["text"] = text;
    choice["logprobs"] = r_.logprobs >= 0 && with_logprobs ? CompletionLogprobs(lps, c.text_offset) : json(nullptr);
    c.text_offset += static_cast<int64_t>(text.size());
  }
  return ChunkFor(json::array({choice}));
}

void AppendEvent(const json& chunk, std::string& out) { out += "data: " + Dump(chunk) + "\n\n"; }

// The events of one update: the raw text, or for a parsed output its deltas (an empty one when
// the text is held back: one event per token still lets clients time each token). The logprobs
// ride on the first event, the finish on the last.
void CompletionReply::SendVisible(Choice& c, const Visible& v, std::string& out) {
  if (!c.parser) return AppendEvent(StreamChoice(c, v.text, v.lps, nullptr, true), out);
  std::vector<json> deltas = DeltaJson(v.delta, v.call_ids, v.first_call);
  if (deltas.empty()) deltas.push_back(json::object());
  for (size_t k = 0; k < deltas.size(); ++k) {
    AppendEvent(StreamChoice(c, "", k == 0 ? v.lps : json::array(), &deltas[k], k + 1 == deltas.size()), out);
  }
}

ReplyPart CompletionReply::PollStream() {
  ReplyPart part;
  part.response.content_type = "text/event-stream";
  std::string& out = part.response.body;
  if (r_.chat && !started_) {
    json first = json::array();
    for (const Choice& c : choices_) {
      first.push_back({{"index", c.index}, {"delta", {{"role", "assistant"}, {"content", ""}}}, {"logprobs", nullptr},
                       {"finish_reason", nullptr}});
    }
    AppendEvent(ChunkFor(first), out);
  }
  started_ = true;
  bool open = false;
  for (Choice& c : choices_) {
    if (!c.finish.empty()) continue;
    const StreamUpdate u = c.stream->Take();
    // One event per generated token, so clients can time each one.
    for (size_t t = 0; t < u.tokens.size() && c.finish.empty(); ++t) {
      StreamUpdate one;
      one.tokens = {u.tokens[t]};
      if (t + 1 == u.tokens.size()) {
        one.finish = u.finish;
        one.error = u.error;
      }
      SendVisible(c, Advance(r_, *m_, c, one), out);
    }
    if (u.tokens.empty() && (u.finish || !u.error.ok()) && c.finish.empty()) SendVisible(c, Advance(r_, *m_, c, u), out);
    open = open || c.finish.empty();
  }
  if (open) return part;
  if (r_.include_usage) {
    json usage = ChunkFor(json::array());
    usage["usage"] = Usage(r_, choices_);
    AppendEvent(usage, out);
  }
  out += "data: [DONE]\n\n";
  part.done = true;
  return part;
}

}  // namespace

Reply StartCompletion(EngineService& service, const CompletionRequest& r, std::shared_ptr<const ModelContext> model,
                      const std::string& id, const std::string& fingerprint) {
  std::vector<Choice> choices;
  for (size_t p = 0; p < r.prompts.size(); ++p) {
    for (int i = 0; i < r.n; ++i) {
      SamplingParams params = r.params;
      if (params.seed) *params.seed += static_cast<uint64_t>(i);
      Result<std::shared_ptr<ResultStream>> s = service.Submit(r.prompts[p], params);
      if (!s.ok()) {
        for (Choice& c : choices) c.stream->Cancel();
        return {{503, "application/json",
                 Dump(ApiError{503, s.status().message(), "ServiceUnavailableError", "", ""}.ToJson())},
                nullptr,
                false};
      }
      Choice c;
      if (r.parse_output) c.parser = std::make_shared<chat::ChatOutputParser>(r.output);
      c.index = static_cast<int>(choices.size());
      c.prompt = p;
      c.stream = *s;
      c.logprobs = json::array();
      choices.push_back(std::move(c));
    }
  }
  Reply reply;
  reply.response.content_type = r.stream ? "text/event-stream" : "application/json";
  reply.streamed = r.stream;
  reply.pending = std::make_shared<CompletionReply>(r, std::move(model), std::move(choices), id, fingerprint);
  return reply;
}

}  // namespace vt::server
