#include "engine/server/openai_server.h"

#include <chrono>
#include <ctime>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/server/chat_message.h"
#include "engine/server/client_connection.h"
#include "engine/server/http_listener.h"
#include "engine/server/output_formats.h"
#include "engine/server/tokenize_request.h"

namespace vt::server {
namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

void SendError(httplib::Response& res, const ApiError& e) {
  res.status = e.http_status;
  res.set_content(Dump(e.ToJson()), "application/json");
}

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

// The message of an error httplib answers itself, before or instead of a handler.
std::string HttpErrorMessage(const httplib::Request& req, int status, size_t max_body_bytes) {
  switch (status) {
    case 404:
      return "no such endpoint: " + req.method + " " + req.path;
    case 413:
      return "the request body is over the size limit of " + std::to_string(max_body_bytes) + " bytes";
    case 414:
      return "the request line is too long";
    case 400:
      return "the request is not valid HTTP/1.1 (request line, headers or body framing)";
    default:
      return "the request failed with HTTP status " + std::to_string(status);
  }
}

// A POST body, read through httplib's content reader instead of httplib's own buffering: that
// refuses x-www-form-urlencoded bodies over 8 KB (a constant of the Debian library), which is
// what plain `curl -d` sends, and does not bound chunked bodies. Here one limit holds for every
// content type and framing. On failure the response holds the error.
std::optional<std::string> ReadBody(const httplib::Request& req, httplib::Response& res,
                                    const httplib::ContentReader& reader, size_t limit) {
  // RFC 9112 6.3: a request with neither Content-Length nor chunked framing has no body.
  if (!req.has_header("Content-Length") && !req.has_header("Transfer-Encoding")) {
    return std::string();
  }
  std::string body;
  bool over = false;
  // Past the limit the rest is read and dropped, so the connection stays in step for its next
  // request (httplib does the same for a Content-Length over the limit).
  auto append = [&](const char* data, size_t n) {
    if (!over && body.size() + n <= limit) {
      body.append(data, n);
    } else {
      over = true;
      body.clear();
    }
    return true;
  };
  const bool read = req.is_multipart_form_data()
                        ? reader([](const httplib::MultipartFormData&) { return true; }, append)
                        : reader(append);
  if (!read || over) {
    const int status = over ? 413 : res.status;
    SendError(res, BadRequest(status == 413 ? HttpErrorMessage(req, 413, limit)
                                            : "the request body could not be read (truncated or bad chunked framing)"));
    return std::nullopt;
  }
  if (req.is_multipart_form_data()) {
    SendError(res, BadRequest("multipart bodies are not accepted; send a JSON body"));
    return std::nullopt;
  }
  return body;
}

json ModelObject(const ModelContext& m) {
  return {{"id", m.served_name}, {"object", "model"}, {"created", 0}, {"owned_by", "vt"},
          {"max_model_len", m.max_model_len}};
}

}  // namespace

struct OpenAiServer::Impl {
  ServerOptions options;
  std::string fingerprint;  // system_fingerprint: which build answered
  HttpListener http;
  std::mutex mu;
  std::shared_ptr<EngineService> service;
  std::shared_ptr<const ModelContext> model;
  std::atomic<int64_t> next_id{0};

  std::pair<std::shared_ptr<EngineService>, std::shared_ptr<const ModelContext>> Current() {
    std::lock_guard<std::mutex> lock(mu);
    return {service, model};
  }

  bool Authorized(const httplib::Request& req, httplib::Response& res) {
    if (options.api_key.empty()) return true;
    if (req.get_header_value("Authorization") == "Bearer " + options.api_key) return true;
    SendError(res, {401, "Missing or wrong API key (Authorization: Bearer ...)", "AuthenticationError", "", "invalid_api_key"});
    return false;
  }

  void Completions(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader,
                   bool chat);
  // `client` (when found) is polled while the choices run: a client that went away cancels them.
  void Respond(const CompletionRequest& r, const ModelContext& m, std::vector<Choice>& choices,
               const std::optional<ClientConnection>& client, httplib::Response& res, const std::string& id,
               bool chat);
  void Stream(const httplib::Request& req, const CompletionRequest& r, std::shared_ptr<const ModelContext> m,
              std::shared_ptr<std::vector<Choice>> choices, std::optional<ClientConnection> client,
              httplib::Response& res, const std::string& id, bool chat);
  // /tokenize and /detokenize: `op` turns the body into the response object.
  void TokenizerCall(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader,
                     std::variant<json, ApiError> (*op)(const std::string&, const ModelContext&));
};

namespace {

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

}  // namespace

void OpenAiServer::Impl::Completions(const httplib::Request& req, httplib::Response& res,
                                     const httplib::ContentReader& reader, bool chat) {
  const std::optional<std::string> body = ReadBody(req, res, reader, options.max_body_bytes);
  if (!body) return;
  if (!Authorized(req, res)) return;
  auto [svc, m] = Current();
  if (!svc) return SendError(res, {503, "the model is still loading", "ServiceUnavailableError", "", ""});
  std::variant<CompletionRequest, ApiError> parsed = ParseCompletionRequest(*body, chat, *m);
  if (auto* e = std::get_if<ApiError>(&parsed)) return SendError(res, *e);
  const CompletionRequest& r = std::get<CompletionRequest>(parsed);

  auto choices = std::make_shared<std::vector<Choice>>();
  for (size_t p = 0; p < r.prompts.size(); ++p) {
    for (int i = 0; i < r.n; ++i) {
      SamplingParams params = r.params;
      if (params.seed) *params.seed += static_cast<uint64_t>(i);
      Result<std::shared_ptr<ResultStream>> s = svc->Submit(r.prompts[p], params);
      if (!s.ok()) {
        for (Choice& c : *choices) c.stream->Cancel();
        return SendError(res, {503, s.status().message(), "ServiceUnavailableError", "", ""});
      }
      Choice c;
      if (r.parse_output) c.parser = std::make_shared<chat::ChatOutputParser>(r.output);
      c.index = static_cast<int>(choices->size());
      c.prompt = p;
      c.stream = *s;
      c.logprobs = json::array();
      choices->push_back(std::move(c));
    }
  }
  const std::string id = (chat ? "chatcmpl-" : "cmpl-") + std::to_string(next_id.fetch_add(1));
  std::optional<ClientConnection> client;
  if (Result<ClientConnection> found = ClientConnection::Of(req); found.ok()) client = *found;
  if (r.stream) return Stream(req, r, m, choices, client, res, id, chat);
  Respond(r, *m, *choices, client, res, id, chat);
}

void OpenAiServer::Impl::Respond(const CompletionRequest& r, const ModelContext& m, std::vector<Choice>& choices,
                                 const std::optional<ClientConnection>& client, httplib::Response& res,
                                 const std::string& id, bool chat) {
  std::vector<std::string> texts(choices.size());
  for (size_t i = 0; i < choices.size(); ++i) {
    Choice& c = choices[i];
    while (c.finish.empty()) {
      // Wakes at every step that gave this choice a token, and often enough while it waits in
      // the queue, so a client that left is noticed within one engine step.
      const StreamUpdate u = c.stream->Wait(20ms);
      if (client && client->Closed()) {
        for (Choice& other : choices) other.stream->Cancel();
        // Nobody reads this; nginx's 499 names the case in the server's own log.
        return SendError(res, {499, "the client closed the connection", "ClientClosedRequest", "", ""});
      }
      if (!u.error.ok()) return SendError(res, {500, u.error.message(), "InternalServerError", "", ""});
      Visible v = Advance(r, m, c, u);
      texts[i] += v.text;
      for (json& lp : v.lps) c.logprobs.push_back(std::move(lp));
      if (c.parser) {
        c.message.reasoning += v.delta.reasoning;
        c.message.content += v.delta.content;
        for (size_t k = 0; k < v.delta.calls.size(); ++k) {
          c.message.calls.push_back(std::move(v.delta.calls[k]));
          c.message.call_ids.push_back(v.call_ids[k]);
        }
      }
    }
  }
  json out_choices = json::array();
  for (size_t i = 0; i < choices.size(); ++i) {
    const Choice& c = choices[i];
    json choice = {{"index", c.index}, {"finish_reason", c.finish}};
    if (chat) {
      choice["message"] = c.parser
                              ? MessageJson(c.message, r.output.reasoning != chat::ReasoningFormat::kNone)
                              : json{{"role", "assistant"}, {"content", texts[i]}};
      choice["logprobs"] = r.chat_logprobs ? json{{"content", c.logprobs}} : json(nullptr);
    } else {
      choice["text"] = texts[i];
      choice["logprobs"] = r.logprobs >= 0 ? CompletionLogprobs(c.logprobs, 0) : json(nullptr);
    }
    out_choices.push_back(choice);
  }
  const json body = {{"id", id},
                     {"object", chat ? "chat.completion" : "text_completion"},
                     {"created", static_cast<int64_t>(std::time(nullptr))},
                     {"model", m.served_name},
                     {"system_fingerprint", fingerprint},
                     {"choices", out_choices},
                     {"usage", Usage(r, choices)}};
  res.set_content(Dump(body), "application/json");
}

void OpenAiServer::Impl::Stream(const httplib::Request& req, const CompletionRequest& r,
                                std::shared_ptr<const ModelContext> m, std::shared_ptr<std::vector<Choice>> choices,
                                std::optional<ClientConnection> client, httplib::Response& res, const std::string& id,
                                bool chat) {
  const int64_t created = static_cast<int64_t>(std::time(nullptr));
  // HTTP/1.0 has no chunked encoding: the stream's end is the connection's close.
  const bool close_delimited = req.version == "HTTP/1.0";
  res.set_header("Cache-Control", "no-cache");
  if (close_delimited) res.set_header("Connection", "close");
  auto events = [r, m, choices, client, id, chat, created, close_delimited, fingerprint = fingerprint](
                    size_t, httplib::DataSink& sink) {
    auto send = [&](const json& chunk) {
      const std::string event = "data: " + Dump(chunk) + "\n\n";
      return sink.write(event.data(), event.size());
    };
    auto chunk_for = [&](json choice_list) {
      return json{{"id", id},
                  {"object", chat ? "chat.completion.chunk" : "text_completion"},
                  {"created", created},
                  {"model", m->served_name},
                  {"system_fingerprint", fingerprint},
                  {"choices", std::move(choice_list)}};
    };
    // One choice of a chunk: the text (and logprobs) a token released, and the finish once known.
    auto stream_choice = [&](Choice& c, const std::string& text, const json& lps, const json* delta = nullptr,
                             bool last = true) {
      json choice = {{"index", c.index},
                     {"finish_reason", c.finish.empty() || !last ? json(nullptr) : json(c.finish)}};
      const bool with_logprobs = !lps.empty();
      if (chat) {
        choice["delta"] = delta != nullptr ? *delta : json{{"content", text}};
        choice["logprobs"] = r.chat_logprobs && with_logprobs ? json{{"content", lps}} : json(nullptr);
      } else {
        choice["text"] = text;
        choice["logprobs"] = r.logprobs >= 0 && with_logprobs ? CompletionLogprobs(lps, c.text_offset) : json(nullptr);
        c.text_offset += static_cast<int64_t>(text.size());
      }
      return chunk_for(json::array({choice}));
    };
    // The events of one update: the raw text, or for a parsed output its deltas (an empty one
    // when the text is held back: one event per token still lets clients time each token). The
    // logprobs ride on the first event, the finish on the last.
    auto send_visible = [&](Choice& c, const Visible& v) {
      if (!c.parser) return send(stream_choice(c, v.text, v.lps));
      std::vector<json> deltas = DeltaJson(v.delta, v.call_ids, v.first_call);
      if (deltas.empty()) deltas.push_back(json::object());
      for (size_t k = 0; k < deltas.size(); ++k) {
        if (!send(stream_choice(c, "", k == 0 ? v.lps : json::array(), &deltas[k], k + 1 == deltas.size()))) {
          return false;
        }
      }
      return true;
    };
    auto cancel_all = [&] {
      for (Choice& c : *choices) c.stream->Cancel();
      return false;
    };
    if (chat) {
      json first = json::array();
      for (const Choice& c : *choices) {
        first.push_back({{"index", c.index}, {"delta", {{"role", "assistant"}, {"content", ""}}}, {"logprobs", nullptr},
                         {"finish_reason", nullptr}});
      }
      if (!send(chunk_for(first))) return cancel_all();
    }
    size_t open = choices->size();
    const auto wait = choices->size() == 1 ? 200ms : 5ms;
    while (open > 0) {
      for (Choice& c : *choices) {
        if (!c.finish.empty()) continue;
        const StreamUpdate u = c.stream->Wait(wait);
        // One event per generated token, so clients can time each one.
        for (size_t t = 0; t < u.tokens.size() && c.finish.empty(); ++t) {
          StreamUpdate one;
          one.tokens = {u.tokens[t]};
          if (t + 1 == u.tokens.size()) {
            one.finish = u.finish;
            one.error = u.error;
          }
          if (!send_visible(c, Advance(r, *m, c, one))) return cancel_all();
        }
        if (u.tokens.empty() && (u.finish || !u.error.ok()) && c.finish.empty()) {
          if (!send_visible(c, Advance(r, *m, c, u))) return cancel_all();
        }
        if (!c.finish.empty()) --open;
        // A write into a closed connection can still succeed (the kernel buffers it), so the
        // peer's FIN is looked for too: the request ends at the next step, not a few tokens on.
        if (!sink.is_writable() || (client && client->Closed())) return cancel_all();
      }
    }
    if (r.include_usage) {
      json usage = chunk_for(json::array());
      usage["usage"] = Usage(r, *choices);
      if (!send(usage)) return false;
    }
    const std::string done = "data: [DONE]\n\n";
    sink.write(done.data(), done.size());
    sink.done();
    // A close-delimited body must end with the connection, even one the client asked to keep
    // alive: returning false makes httplib close it.
    return !close_delimited;
  };
  if (close_delimited) {
    res.set_content_provider("text/event-stream", std::move(events));
  } else {
    res.set_chunked_content_provider("text/event-stream", std::move(events));
  }
}

void OpenAiServer::Impl::TokenizerCall(const httplib::Request& req, httplib::Response& res,
                                       const httplib::ContentReader& reader,
                                       std::variant<json, ApiError> (*op)(const std::string&, const ModelContext&)) {
  const std::optional<std::string> body = ReadBody(req, res, reader, options.max_body_bytes);
  if (!body) return;
  if (!Authorized(req, res)) return;
  auto [svc, m] = Current();
  if (!svc) return SendError(res, {503, "the model is still loading", "ServiceUnavailableError", "", ""});
  std::variant<json, ApiError> out = op(*body, *m);
  if (auto* e = std::get_if<ApiError>(&out)) return SendError(res, *e);
  res.set_content(Dump(std::get<json>(out)), "application/json");
}

OpenAiServer::OpenAiServer(ServerOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->fingerprint = "vt-" + impl_->options.version;
  Impl* impl = impl_.get();
  httplib::Server& http = impl->http;
  const int threads = impl->options.http_threads;
  http.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  // httplib answers a Content-Length over this with 413 (skipping the body); ReadBody holds every
  // other body to the same limit.
  http.set_payload_max_length(impl->options.max_body_bytes);
  using Reader = httplib::ContentReader;
  http.Post("/v1/completions", [impl](const httplib::Request& q, httplib::Response& s, const Reader& r) {
    impl->Completions(q, s, r, false);
  });
  http.Post("/v1/chat/completions", [impl](const httplib::Request& q, httplib::Response& s, const Reader& r) {
    impl->Completions(q, s, r, true);
  });
  http.Post("/tokenize", [impl](const httplib::Request& q, httplib::Response& s, const Reader& r) {
    impl->TokenizerCall(q, s, r, Tokenize);
  });
  http.Post("/detokenize", [impl](const httplib::Request& q, httplib::Response& s, const Reader& r) {
    impl->TokenizerCall(q, s, r, Detokenize);
  });
  http.Get("/v1/models", [impl](const httplib::Request& q, httplib::Response& s) {
    if (!impl->Authorized(q, s)) return;
    auto [svc, m] = impl->Current();
    if (!svc) return SendError(s, {503, "the model is still loading", "ServiceUnavailableError", "", ""});
    s.set_content(Dump({{"object", "list"}, {"data", json::array({ModelObject(*m)})}}), "application/json");
  });
  http.Get("/v1/models/(.+)", [impl](const httplib::Request& q, httplib::Response& s) {
    if (!impl->Authorized(q, s)) return;
    auto [svc, m] = impl->Current();
    if (!svc) return SendError(s, {503, "the model is still loading", "ServiceUnavailableError", "", ""});
    const std::string id = q.matches[1];
    if (id != m->served_name) {
      return SendError(s, {404, "The model '" + id + "' does not exist.", "NotFoundError", "model", "model_not_found"});
    }
    s.set_content(Dump(ModelObject(*m)), "application/json");
  });
  auto health = [impl](const httplib::Request&, httplib::Response& s) {
    auto [svc, m] = impl->Current();
    s.status = svc ? 200 : 503;
    s.set_content(svc ? "{}" : "{\"status\":\"loading\"}", "application/json");
  };
  http.Get("/health", health);
  // vLLM's (and SageMaker's) liveness probe.
  http.Get("/ping", health);
  http.Post("/ping", health);
  http.Get("/version", [impl](const httplib::Request&, httplib::Response& s) {
    s.set_content(Dump({{"version", impl->options.version}}), "application/json");
  });
  http.Get("/metrics", [impl](const httplib::Request&, httplib::Response& s) {
    auto [svc, m] = impl->Current();
    if (!svc) return SendError(s, {503, "the model is still loading", "ServiceUnavailableError", "", ""});
    s.set_content(RenderPrometheus(svc->metrics(), svc->Gauges()), "text/plain; version=0.0.4");
  });
  // Errors httplib answers itself (no handler wrote a body: unknown endpoints, bodies over the
  // limit, unparseable requests) in OpenAI's shape too, never an empty body.
  http.set_error_handler([impl](const httplib::Request& q, httplib::Response& s) {
    if (!s.body.empty()) return;
    const std::string message = HttpErrorMessage(q, s.status, impl->options.max_body_bytes);
    if (s.status == 404) return SendError(s, {404, message, "NotFoundError", "", ""});
    // A body over the limit is the request's fault like any other: 400, as OpenAI answers it.
    if (s.status == 413) return SendError(s, BadRequest(message));
    SendError(s, {s.status, message, s.status < 500 ? "BadRequestError" : "InternalServerError", "", ""});
  });
}

OpenAiServer::~OpenAiServer() { Stop(); }

Status OpenAiServer::Bind() {
  Impl& impl = *impl_;
  if (impl.options.port == 0) {
    port_ = impl.http.bind_to_any_port(impl.options.host);
  } else {
    port_ = impl.http.bind_to_port(impl.options.host, impl.options.port) ? impl.options.port : -1;
  }
  if (port_ <= 0) {
    return Unavailable("cannot listen on " + impl.options.host + ":" + std::to_string(impl.options.port) +
                       " (in use, or not an address of this machine)");
  }
  return impl.http.WidenBacklog(impl.options.listen_backlog);
}

void OpenAiServer::Serve() { impl_->http.listen_after_bind(); }

Status OpenAiServer::SetModel(std::unique_ptr<EngineService> service, ModelContext model) {
  if (Status s =
          ResolveOutputFormats(impl_->options.tool_call_parser, impl_->options.reasoning_parser, &model);
      !s.ok()) {
    return s;
  }
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->service = std::move(service);
  impl_->model = std::make_shared<const ModelContext>(std::move(model));
  return Status::Ok();
}

void OpenAiServer::StopAccepting() {
  if (impl_->http.is_running()) impl_->http.stop();
}

void OpenAiServer::Stop() {
  StopAccepting();
  auto [svc, m] = impl_->Current();
  if (svc) svc->Stop();
}

}  // namespace vt::server
