// `vt serve`: loads a model behind the OpenAI-compatible HTTP API. The listener starts first
// (answering 503 while the model loads); SIGTERM or SIGINT stop accepting, give in-flight
// requests a grace period, then cancel what is left and exit 0.
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include "base/build_source.h"
#include "engine/cli/commands.h"
#include "engine/cli/model_flags.h"
#include "engine/sched/scheduler.h"
#include "engine/session/session.h"
#include "engine/server/openai_server.h"

namespace vt::cli {
namespace {

struct ServeOptions {
  SessionSpec session;
  std::string served_model_name;
  int max_num_seqs = 16;
  int max_queued_requests = 0;  // 0: 4 x max_num_seqs
  int64_t max_model_len = 0;
  int grace_seconds = 10;
  int header_timeout = 30;
  int body_timeout = 60;
  int idle_timeout = 60;
  // Running decodes' steps are held within 2x a step of decodes alone while prompts prefill: at the
  // 8,192-token budget below, issue #16's 8k/short mix on an H200 had TPOT p99 2.5x the short-only TPOT
  // without it and 1.8x with it, at no TTFT-median or tok/s cost for qwen3-1.7b and at +40% TTFT, -20% tok/s for
  // llama3-8b (docs/BENCHMARKS.md "The pace by default in vt serve"). 0 turns it off.
  double max_decode_slowdown = 2.0;
  // A prompt arriving at an idle server is prefilled this many tokens a step: at 512 (the engine's
  // default) a 32k prompt took 1.42x the TTFT of one 16k-token step on an H100, at 8192 1.02x, and
  // issue #16's 8k/short mix was unchanged within noise (docs/BENCHMARKS.md "vt serve's step budget").
  int64_t max_num_batched_tokens = 8192;
  int64_t max_prefill_beside_decodes = SchedulerConfig{}.max_prefill_tokens_beside_decodes;
  server::ServerOptions http;
};

int Fail(const std::string& message) {
  std::fprintf(stderr, "vt serve: %s\n", message.c_str());
  return 1;
}

std::string TokenString(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("content") && v["content"].is_string()) return v["content"].get<std::string>();
  return "";
}

// Distinct structured-output grammars kept compiled; agents reuse a handful of schemas.
constexpr size_t kCachedGrammars = 64;

// The session's tokenizer, and the chat template and template globals of its model directory
// (all optional).
Result<server::ModelContext> LoadModelContext(const Session& session, const std::string& name) {
  server::ModelContext m;
  m.served_name = name;
  m.max_model_len = session.engine->config().scheduler.max_model_len;
  m.vocab_size = session.model.vocab_size;
  m.template_globals = nlohmann::json::object();
  if (session.model_dir.empty()) return m;
  const std::string& dir = session.model_dir;
  if (session.tokenizer) {
    m.tokenizer = session.tokenizer;
    // The vocabulary every grammar of this model masks, walked per step: built once, here.
    m.grammars = std::make_shared<server::GrammarCache>(
        std::make_shared<const grammar::TokenVocabulary>(m.tokenizer->TokenBytesTable()), kCachedGrammars);
  }
  const std::string config_path = dir + "/tokenizer_config.json";
  if (std::filesystem::exists(config_path)) {
    std::ifstream in(config_path);
    std::stringstream text;
    text << in.rdbuf();
    const nlohmann::json config = nlohmann::json::parse(text.str(), nullptr, false);
    if (config.is_discarded()) return DataLoss(config_path + " is not valid JSON");
    m.template_globals["bos_token"] = TokenString(config.value("bos_token", nlohmann::json(nullptr)));
    m.template_globals["eos_token"] = TokenString(config.value("eos_token", nlohmann::json(nullptr)));
    if (config.contains("chat_template") && config["chat_template"].is_string()) {
      Result<std::shared_ptr<const ChatTemplate>> t = ChatTemplate::Parse(config["chat_template"].get<std::string>());
      if (!t.ok()) return InvalidArgument(config_path + ": " + t.status().message());
      m.chat_template = *t;
    }
  }
  return m;
}

int Run(ServeOptions o) {
  if (Status s = ResolveModelFlags(&o.session); !s.ok()) return Fail(s.message());
  if (Result<LoadFormat> format = ParseLoadFormat(o.session.load_format); !format.ok()) {
    return Fail(format.status().message());
  }
  // Every running request decodes a token each step, so a step must have room for all of them.
  if (o.max_num_batched_tokens < o.max_num_seqs) {
    return Fail("--max-num-batched-tokens " + std::to_string(o.max_num_batched_tokens) +
                " is below --max-num-seqs " + std::to_string(o.max_num_seqs) +
                ": a step could not carry every running request's next token");
  }
  const std::string& model = o.session.model;
  if (o.served_model_name.empty()) {
    o.served_model_name = IsPreset(model) ? model.substr(7) : std::filesystem::path(model).filename().string();
  }

  // Signals go to one thread that waits for them; every other thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  o.http.version = VT_VERSION;
  o.http.build_source = BuildSource();
  o.http.listener.http.header_timeout = std::chrono::seconds(o.header_timeout);
  o.http.listener.http.body_timeout = std::chrono::seconds(o.body_timeout);
  o.http.listener.http.idle_timeout = std::chrono::seconds(o.idle_timeout);
  server::OpenAiServer http(o.http);
  if (Status s = http.Bind(); !s.ok()) return Fail(s.message());
  std::atomic<bool> listener_done{false};
  std::thread listener([&] {
    http.Serve();
    listener_done = true;
  });
  // Stop() before the listener has started listening would be lost, so it is repeated until the
  // listener has returned.
  auto stop_until_closed = [&] {
    while (!listener_done) {
      http.Stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  };
  std::fprintf(stderr, "vt serve: listening on http://%s:%d, loading %s\n", o.http.host.c_str(), http.port(),
               model.c_str());

  // On SIGTERM / SIGINT: stop accepting, give in-flight requests the grace period (or less, once
  // the listener has drained), then cancel what is left.
  std::mutex mu;
  std::condition_variable drained_cv;
  bool drained = false;
  std::thread signal_thread([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    std::unique_lock<std::mutex> lock(mu);
    if (!drained) {  // a real signal, not the wake-up of a start-up that failed
      std::fprintf(stderr, "vt serve: %s, finishing in-flight requests (up to %d s)\n",
                   sig == SIGTERM ? "SIGTERM" : "SIGINT", o.grace_seconds);
    }
    http.StopAccepting();
    drained_cv.wait_for(lock, std::chrono::seconds(o.grace_seconds), [&] { return drained; });
    lock.unlock();
    stop_until_closed();
  });
  auto mark_drained = [&] {
    std::lock_guard<std::mutex> lock(mu);
    drained = true;
    drained_cv.notify_all();
  };

  // A model that cannot be loaded ends the process: the listener and the signal thread go first.
  auto abandon = [&](const Status& why) {
    stop_until_closed();
    listener.join();
    mark_drained();
    pthread_kill(signal_thread.native_handle(), SIGTERM);
    signal_thread.join();
    return Fail(why.message());
  };
  o.session.engine.scheduler.max_num_seqs = o.max_num_seqs;
  o.session.engine.scheduler.max_decode_slowdown = o.max_decode_slowdown;
  o.session.engine.scheduler.max_num_batched_tokens = o.max_num_batched_tokens;
  o.session.engine.scheduler.max_prefill_tokens_beside_decodes = o.max_prefill_beside_decodes;
  if (o.max_model_len > 0) o.session.engine.scheduler.max_model_len = o.max_model_len;
  Result<Session> session = OpenSession(o.session);
  if (!session.ok()) return abandon(session.status());
  Result<server::ModelContext> context = LoadModelContext(*session, o.served_model_name);
  if (!context.ok()) return abandon(context.status());
  const int64_t max_model_len = context->max_model_len;
  const int max_queued = o.max_queued_requests > 0 ? o.max_queued_requests : 4 * o.max_num_seqs;
  if (Status s = http.SetModel(std::make_unique<server::EngineService>(std::move(session->engine), max_queued),
                               std::move(*context));
      !s.ok()) {
    return abandon(s);
  }
  std::fprintf(stderr, "vt serve: ready, model '%s' (context %lld tokens)\n", o.served_model_name.c_str(),
               static_cast<long long>(max_model_len));

  listener.join();  // returns after a signal, once in-flight requests are done or cancelled
  mark_drained();
  signal_thread.join();
  std::fprintf(stderr, "vt serve: stopped\n");
  return 0;
}

}  // namespace

Command AddServeCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("serve", "Serve the OpenAI-compatible HTTP API");
  auto o = std::make_shared<ServeOptions>();
  AddModelFlags(app, &o->session);
  app->add_option("--host", o->http.host, "Address to listen on");
  app->add_option("--port", o->http.port, "Port (0: any free port)")->check(CLI::Range(0, 65535));
  app->add_option("--served-model-name", o->served_model_name, "The model name clients send");
  app->add_option("--max-num-seqs", o->max_num_seqs, "Requests in the running batch")->check(CLI::Range(1, 1024));
  app->add_option("--max-queued-requests", o->max_queued_requests,
                  "Requests waiting beyond the running batch; more are answered 503 (default 4 x --max-num-seqs)")
      ->check(CLI::Range(1, 1 << 20));
  app->add_option("--max-model-len", o->max_model_len, "Context length (default: the model's)");
  app->add_option("--max-decode-slowdown", o->max_decode_slowdown, kMaxDecodeSlowdownHelp)
      ->check(MaxDecodeSlowdownValidator())
      ->capture_default_str();
  app->add_option("--max-num-batched-tokens", o->max_num_batched_tokens,
                  "Tokens one step may compute: a step of prompts alone takes up to this many (at least "
                  "--max-num-seqs)")
      ->check(CLI::Range(int64_t(1), int64_t(1) << 20))
      ->capture_default_str();
  app->add_option("--max-prefill-beside-decodes", o->max_prefill_beside_decodes,
                  "Prompt tokens a step may carry beside running decodes (their inter-token latency grows with it)")
      ->check(CLI::Range(int64_t(1), int64_t(1) << 20))
      ->capture_default_str();
  app->add_option("--api-key", o->http.api_key, "Require Authorization: Bearer KEY on /v1 endpoints");
  app->add_option("--max-body-bytes", o->http.max_body_bytes, "Largest request body accepted");
  server::ListenerOptions& l = o->http.listener;
  app->add_option("--max-connections", l.max_connections, "Open connections; more are answered 503")
      ->check(CLI::Range(1, 1 << 20));
  app->add_option("--io-threads", l.io_threads, "Threads that read and write every connection")->check(CLI::Range(1, 64));
  app->add_option("--handler-threads", l.handler_threads, "Threads that parse and tokenize requests")
      ->check(CLI::Range(1, 256));
  app->add_option("--header-timeout", o->header_timeout, "Seconds a request's header may take to arrive")
      ->check(CLI::Range(1, 3600));
  app->add_option("--body-timeout", o->body_timeout, "Seconds a request's body may take after its header")
      ->check(CLI::Range(1, 3600));
  app->add_option("--idle-timeout", o->idle_timeout, "Seconds an idle keep-alive connection stays open")
      ->check(CLI::Range(1, 86400));
  app->add_option("--grace-period", o->grace_seconds, "Seconds in-flight requests get after SIGTERM");
  app->add_option("--tool-call-parser", o->http.tool_call_parser,
                  "How the model writes tool calls: hermes, llama3_json, mistral, none, or auto (from its "
                  "chat template)")
      ->check(CLI::IsMember({"auto", "hermes", "llama3_json", "mistral", "none"}));
  app->add_option(
         "--reasoning-parser", o->http.reasoning_parser,
         "How the model writes its reasoning: qwen3 (<think>...</think>), deepseek_r1 (the same), none, "
         "or auto (qwen3 when its chat template has </think>)")
      ->check(CLI::IsMember({"auto", "qwen3", "deepseek_r1", "none"}));
  return {app, [o] { return Run(*o); }};
}

}  // namespace vt::cli
