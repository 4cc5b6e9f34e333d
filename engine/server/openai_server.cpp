#include "engine/server/openai_server.h"

#include <string>
#include <utility>

#include "engine/server/completion_reply.h"
#include "engine/server/http_listener.h"
#include "engine/server/output_formats.h"
#include "engine/server/tokenize_request.h"

namespace vt::server {
namespace {

using json = nlohmann::json;

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

Reply Json(const json& body, int status = 200) { return {{status, "application/json", Dump(body)}, nullptr, false}; }

Reply Error(const ApiError& e) { return Json(e.ToJson(), e.http_status); }

const ApiError kLoading{503, "the model is still loading", "ServiceUnavailableError", "", ""};

json ModelObject(const ModelContext& m) {
  return {{"id", m.served_name}, {"object", "model"}, {"created", 0}, {"owned_by", "vt"},
          {"max_model_len", m.max_model_len}};
}

}  // namespace

struct OpenAiServer::Impl {
  explicit Impl(ServerOptions o)
      : options(std::move(o)),
        fingerprint("vt-" + options.version),
        http(Listener(options), [this](const HttpRequest& req) { return Route(req); }) {}

  static ListenerOptions Listener(const ServerOptions& o) {
    ListenerOptions l = o.listener;
    l.host = o.host;
    l.port = o.port;
    l.http.max_body_bytes = o.max_body_bytes;
    return l;
  }

  ServerOptions options;
  std::string fingerprint;  // system_fingerprint: which build answered
  std::mutex mu;
  std::shared_ptr<EngineService> service;
  std::shared_ptr<const ModelContext> model;
  std::atomic<int64_t> next_id{0};
  HttpListener http;  // last: its threads call Route, which reads the members above

  std::pair<std::shared_ptr<EngineService>, std::shared_ptr<const ModelContext>> Current() {
    std::lock_guard<std::mutex> lock(mu);
    return {service, model};
  }

  bool Authorized(const HttpRequest& req) const {
    return options.api_key.empty() || req.authorization == "Bearer " + options.api_key;
  }

  Reply Route(const HttpRequest& req);
  Reply Completions(const HttpRequest& req, bool chat);
  // /tokenize and /detokenize: `op` turns the body into the response object.
  Reply TokenizerCall(const HttpRequest& req, std::variant<json, ApiError> (*op)(const std::string&, const ModelContext&));
};

Reply OpenAiServer::Impl::Route(const HttpRequest& req) {
  const std::string& path = req.path;
  const bool get = req.method == "GET";
  const bool post = req.method == "POST";
  auto [svc, m] = Current();
  if ((get || post) && (path == "/health" || (path == "/ping"))) {
    // vLLM's (and SageMaker's) liveness probe is /ping.
    return svc ? Json(json::object()) : Json({{"status", "loading"}}, 503);
  }
  if (get && path == "/version") {
    return Json({{"version", options.version}, {"build_source", options.build_source}});
  }
  if (get && path == "/metrics") {
    if (!svc) return Error(kLoading);
    return {{200, "text/plain; version=0.0.4", RenderPrometheus(svc->metrics(), svc->Gauges())}, nullptr, false};
  }
  const bool api = (post && (path == "/v1/completions" || path == "/v1/chat/completions" || path == "/tokenize" ||
                             path == "/detokenize")) ||
                   (get && (path == "/v1/models" || path.rfind("/v1/models/", 0) == 0));
  if (!api) return Error({404, "no such endpoint: " + req.method + " " + path, "NotFoundError", "", ""});
  if (!Authorized(req)) {
    return Error({401, "Missing or wrong API key (Authorization: Bearer ...)", "AuthenticationError", "", "invalid_api_key"});
  }
  if (!svc) return Error(kLoading);
  if (path == "/v1/completions") return Completions(req, false);
  if (path == "/v1/chat/completions") return Completions(req, true);
  if (path == "/tokenize") return TokenizerCall(req, Tokenize);
  if (path == "/detokenize") return TokenizerCall(req, Detokenize);
  if (path == "/v1/models") return Json({{"object", "list"}, {"data", json::array({ModelObject(*m)})}});
  const std::string id = path.substr(std::string("/v1/models/").size());
  if (id != m->served_name) {
    return Error({404, "The model '" + id + "' does not exist.", "NotFoundError", "model", "model_not_found"});
  }
  return Json(ModelObject(*m));
}

Reply OpenAiServer::Impl::Completions(const HttpRequest& req, bool chat) {
  auto [svc, m] = Current();
  std::variant<CompletionRequest, ApiError> parsed = ParseCompletionRequest(req.body, chat, *m);
  if (auto* e = std::get_if<ApiError>(&parsed)) return Error(*e);
  const std::string id = (chat ? "chatcmpl-" : "cmpl-") + std::to_string(next_id.fetch_add(1));
  return StartCompletion(*svc, std::get<CompletionRequest>(parsed), m, id, fingerprint);
}

Reply OpenAiServer::Impl::TokenizerCall(const HttpRequest& req,
                                        std::variant<json, ApiError> (*op)(const std::string&, const ModelContext&)) {
  auto [svc, m] = Current();
  std::variant<json, ApiError> out = op(req.body, *m);
  if (auto* e = std::get_if<ApiError>(&out)) return Error(*e);
  return Json(std::get<json>(out));
}

OpenAiServer::OpenAiServer(ServerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

OpenAiServer::~OpenAiServer() { Stop(); }

Status OpenAiServer::Bind() {
  Status s = impl_->http.Bind();
  if (s.ok()) port_ = impl_->http.port();
  return s;
}

void OpenAiServer::Serve() { impl_->http.Serve(); }

Status OpenAiServer::SetModel(std::unique_ptr<EngineService> service, ModelContext model) {
  if (Status s =
          ResolveOutputFormats(impl_->options.tool_call_parser, impl_->options.reasoning_parser, &model);
      !s.ok()) {
    return s;
  }
  // The connections are woken on the I/O threads, not on the engine thread (wake_queue.h). Stop
  // stops the engine before the listener goes.
  service->WakeOn([http = &impl_->http](std::function<void()> f) { http->Post(std::move(f)); });
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->service = std::move(service);
  impl_->model = std::make_shared<const ModelContext>(std::move(model));
  return Status::Ok();
}

void OpenAiServer::StopAccepting() { impl_->http.StopAccepting(); }

void OpenAiServer::Stop() {
  impl_->http.StopAccepting();
  auto [svc, m] = impl_->Current();
  if (svc) svc->Stop();
  impl_->http.Close();
}

}  // namespace vt::server
