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

#include "engine/cli/commands.h"
#include "engine/cli/default_model.h"
#include "engine/exec/backend_factory.h"
#include "engine/loader/model_source.h"
#include "engine/server/openai_server.h"

namespace vt::cli {
namespace {

struct ServeOptions {
  std::string model;
  std::string load_format = "auto";
  BackendOptions backend;
  std::string served_model_name;
  int max_num_seqs = 16;
  int64_t max_model_len = 0;
  int grace_seconds = 10;
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

// Tokenizer, chat template and template globals of a model directory (all optional).
Result<server::ModelContext> LoadModelContext(const std::string& dir, const std::string& name, int64_t max_model_len) {
  server::ModelContext m;
  m.served_name = name;
  m.max_model_len = max_model_len;
  m.template_globals = nlohmann::json::object();
  if (dir.rfind("preset:", 0) == 0) return m;
  if (std::filesystem::exists(dir + "/tokenizer.json")) {
    Result<std::shared_ptr<Tokenizer>> t = Tokenizer::FromFile(dir + "/tokenizer.json");
    if (!t.ok()) return t.status();
    m.tokenizer = *t;
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
  if (o.model.empty()) o.model = DefaultModelDir();
  if (Status s = ValidateBackendOptions(o.backend); !s.ok()) return Fail(s.message());
  Result<LoadFormat> format = ParseLoadFormat(o.load_format);
  if (!format.ok()) return Fail(format.status().message());
  if (o.served_model_name.empty()) {
    o.served_model_name = o.model.rfind("preset:", 0) == 0 ? o.model.substr(7)
                                                           : std::filesystem::path(o.model).filename().string();
  }

  // Signals go to one thread that waits for them; every other thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  o.http.version = VT_VERSION;
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
               o.model.c_str());

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
  kernels::cpu::ThreadPool& pool = kernels::cpu::DefaultThreadPool();
  Result<LoadedModel> loaded = LoadModel(o.model, *format, pool);
  if (!loaded.ok()) return abandon(loaded.status());
  EngineConfig ec;
  ec.scheduler.max_num_seqs = o.max_num_seqs;
  if (o.max_model_len > 0) ec.scheduler.max_model_len = o.max_model_len;
  ec.scheduler.eos_token_ids = loaded->config.eos_token_ids;
  Result<std::unique_ptr<LlmEngine>> created = CreateEngine(std::move(*loaded), o.backend, ec, pool);
  if (!created.ok()) return abandon(created.status());
  std::unique_ptr<LlmEngine> engine = std::move(*created);
  const int64_t max_model_len = engine->config().scheduler.max_model_len;
  Result<server::ModelContext> context = LoadModelContext(o.model, o.served_model_name, max_model_len);
  if (!context.ok()) return abandon(context.status());
  context->vocab_size = engine->model_config().vocab_size;
  engine->set_tokenizer(context->tokenizer);
  http.SetModel(std::make_unique<server::EngineService>(std::move(engine), 4 * o.max_num_seqs), std::move(*context));
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
  app->add_option("--model", o->model, "Model directory, or preset:NAME; default: the embedded fortune-qwen3-7m");
  app->add_option("--load-format", o->load_format, "auto (read the checkpoint) or dummy (random weights)")
      ->check(CLI::IsMember({"auto", "dummy"}));
  app->add_option("--backend", o->backend.backend, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}));
  app->add_option("--gpu-memory-utilization", o->backend.gpu_memory_utilization,
                  "cuda: fraction of the GPU's memory vt may hold; the KV pool gets what weights leave");
  app->add_option("--host", o->http.host, "Address to listen on");
  app->add_option("--port", o->http.port, "Port (0: any free port)")->check(CLI::Range(0, 65535));
  app->add_option("--served-model-name", o->served_model_name, "The model name clients send");
  app->add_option("--max-num-seqs", o->max_num_seqs, "Requests in the running batch")->check(CLI::Range(1, 1024));
  app->add_option("--max-model-len", o->max_model_len, "Context length (default: the model's)");
  app->add_option("--api-key", o->http.api_key, "Require Authorization: Bearer KEY on /v1 endpoints");
  app->add_option("--max-body-bytes", o->http.max_body_bytes, "Largest request body accepted");
  app->add_option("--grace-period", o->grace_seconds, "Seconds in-flight requests get after SIGTERM");
  return {app, [o] { return Run(*o); }};
}

}  // namespace vt::cli
