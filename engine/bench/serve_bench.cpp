#include "engine/bench/serve_bench.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <thread>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/build_source.h"
#include "engine/bench/http_stream_client.h"
#include "engine/bench/latency_stats.h"
#include "engine/bench/text_prompts.h"

namespace vt::bench {

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// Of a refused request's body, what is read (the message quotes its start); the rest is not.
constexpr size_t kErrorBodyBytes = 4096;
// One SSE event; a completion chunk is a few hundred bytes, so a server sending more without an
// event's end is not streaming completions.
constexpr size_t kMaxEventBytes = size_t(1) << 20;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Median, p90 and p99 (latency_stats' linear interpolation) of a set of samples.
struct Spread {
  int64_t count = 0;
  double median = 0.0;
  double p90 = 0.0;
  double p99 = 0.0;
};

Spread SpreadOf(const std::vector<double>& samples) {
  const LatencySummary s = Summarize(samples);
  return {s.count, s.median, Percentile(samples, 90.0), s.p99};
}

json SpreadJson(const Spread& s) {
  // No samples (no keep-alive requests when each connection sent one, or every request failed)
  // is null rather than a zero a comparison would take for a fast answer.
  if (s.count == 0) return {{"count", 0}, {"median", nullptr}, {"p90", nullptr}, {"p99", nullptr}};
  return {{"count", s.count}, {"median", s.median}, {"p90", s.p90}, {"p99", s.p99}};
}

std::string Clip(const std::string& text, size_t limit = 200) {
  return text.size() <= limit ? text : text.substr(0, limit) + "...";
}

// Whether `v` nests at most `levels` deep (it stops looking there).
bool NestsWithin(const json& v, int levels) {
  if (!v.is_structured()) return true;
  if (levels == 0) return false;
  for (const json& child : v) {
    if (!NestsWithin(child, levels - 1)) return false;
  }
  return true;
}

// A value from a file or a server, for a message: as JSON, clipped, unless it nests deeper than any
// answer would; then by its type and size, as dump() recurses once per level and a deep value
// would overflow the stack.
std::string Shown(const json& v) {
  if (NestsWithin(v, 16)) return Clip(v.dump());
  return std::string("a deeply nested ") + v.type_name() + " of " + std::to_string(v.size()) + " entries";
}

// Whether a streamed choice carries a token: a `text` (completions) or `delta.content` (chat)
// string, empty included. Servers send one event per token, and its text may be empty (bytes held
// back inside a UTF-8 character, or a model served without a tokenizer); a chat stream's opening
// role-only delta carries none.
bool CarriesToken(const json& choice) {
  if (!choice.is_object()) return false;
  if (auto it = choice.find("text"); it != choice.end() && it->is_string()) return true;
  if (auto d = choice.find("delta"); d != choice.end() && d->is_object()) {
    if (auto c = d->find("content"); c != d->end() && c->is_string()) return true;
  }
  return false;
}

// vt's engine-loop counters (metrics.h): the steps run and the engine thread's time between them.
struct EngineLoopCounters {
  int64_t steps = 0;
  double between_steps_s = 0.0;
};

// One of the server's small pages (/metrics, /version); nullopt where it does not answer 200.
std::optional<std::string> GetSmallPage(const HttpTarget& target, const std::string& base_url,
                                        const std::string& path) {
  HttpStreamClient client(target, base_url, std::chrono::seconds(10), std::chrono::seconds(10));
  // These pages are a few KB; a server that sends more, or takes longer, is not one to read them from.
  constexpr size_t kMaxPageBytes = size_t(4) << 20;
  int status = 0;
  std::string text;
  const PostOutcome outcome = client.Get(
      path, [&](int s) { status = s; },
      [&](const char* data, size_t size) {
        if (text.size() + size > kMaxPageBytes) return false;
        text.append(data, size);
        return true;
      },
      std::chrono::seconds(10));
  if (!outcome.error.empty() || status != 200) return std::nullopt;
  return text;
}

// The build the server names on /version (vt's since it said so); null where it names none, so
// a report never passes the load generator's build off as the server's.
json ServerBuildSource(const HttpTarget& target, const std::string& base_url) {
  const std::optional<std::string> page = GetSmallPage(target, base_url, "/version");
  if (!page) return nullptr;
  const json version = json::parse(*page, nullptr, /*allow_exceptions=*/false);
  if (!version.is_object()) return nullptr;
  const auto it = version.find("build_source");
  const bool named = it != version.end() && it->is_string() && !it->get_ref<const std::string&>().empty();
  return named ? *it : json(nullptr);
}

// From the server's /metrics; nullopt where it has no such counters (not vt, or an older vt).
std::optional<EngineLoopCounters> ScrapeEngineLoop(const HttpTarget& target, const std::string& base_url) {
  const std::optional<std::string> text = GetSmallPage(target, base_url, "/metrics");
  if (!text) return std::nullopt;
  std::optional<int64_t> steps;
  std::optional<double> seconds;
  std::istringstream lines(*text);
  for (std::string name; lines >> name;) {
    if (name == "vt:engine_steps_total") {
      steps.emplace();
      if (!(lines >> *steps)) return std::nullopt;
    } else if (name == "vt:engine_between_steps_seconds_total") {
      seconds.emplace();
      if (!(lines >> *seconds)) return std::nullopt;
    }
    lines.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  if (!steps || !seconds) return std::nullopt;
  return EngineLoopCounters{*steps, *seconds};
}

}  // namespace

bool SseStreamParser::Feed(const char* data, size_t size, double now_ms) {
  if (!malformed_.empty()) return false;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] != '\r') pending_.push_back(data[i]);
  }
  for (size_t end; (end = pending_.find("\n\n")) != std::string::npos;) {
    const std::string block = pending_.substr(0, end);
    pending_.erase(0, end + 2);
    // An event's data lines joined by newlines (SSE); comment and other fields are ignored.
    std::string payload;
    bool has_data = false;
    size_t pos = 0;
    while (pos <= block.size()) {
      size_t nl = block.find('\n', pos);
      if (nl == std::string::npos) nl = block.size();
      const std::string line = block.substr(pos, nl - pos);
      if (line.rfind("data:", 0) == 0) {
        std::string value = line.substr(5);
        if (!value.empty() && value[0] == ' ') value.erase(0, 1);
        if (has_data) payload += '\n';
        payload += value;
        has_data = true;
      }
      pos = nl + 1;
    }
    if (has_data) Event(payload, now_ms);
  }
  if (malformed_.empty() && pending_.size() > kMaxEventBytes) {
    malformed_ = "a stream event over " + std::to_string(kMaxEventBytes >> 20) + " MiB";
  }
  return malformed_.empty();
}

void SseStreamParser::Event(const std::string& payload, double now_ms) {
  if (!malformed_.empty()) return;
  if (done_) {
    malformed_ = "an event after [DONE]";
    return;
  }
  if (payload == "[DONE]") {
    done_ = true;
    return;
  }
  const json event = json::parse(payload, nullptr, /*allow_exceptions=*/false);
  if (event.is_discarded() || !event.is_object()) {
    malformed_ = "malformed stream event: " + Clip(payload);
    return;
  }
  if (auto e = event.find("error"); e != event.end()) {
    malformed_ = "error event: " + Shown(*e);
    return;
  }
  if (auto u = event.find("usage"); u != event.end() && u->is_object()) {
    if (auto c = u->find("completion_tokens"); c != u->end() && c->is_number_integer()) {
      result_.output_tokens = c->get<int64_t>();
      usage_seen_ = true;
    }
  }
  bool token = false;
  if (auto c = event.find("choices"); c != event.end() && c->is_array()) {
    for (const json& choice : *c) {
      if (auto f = choice.find("finish_reason"); f != choice.end() && f->is_string() && *f == "error") {
        malformed_ = "a choice finished with an error";
        return;
      }
      token = token || CarriesToken(choice);
    }
  }
  if (!token) return;
  if (first_ms_ < 0) {
    first_ms_ = now_ms;
    result_.ttft_ms = now_ms;
  } else {
    result_.itl_ms.push_back(now_ms - last_ms_);
  }
  last_ms_ = now_ms;
  result_.last_token_ms = now_ms;
  ++result_.token_events;
}

ServeRequestResult SseStreamParser::Finish() {
  ServeRequestResult r = std::move(result_);
  if (!usage_seen_) r.output_tokens = r.token_events;
  if (!malformed_.empty()) {
    r.error = malformed_;
  } else if (!pending_.empty() && pending_.find_first_not_of('\n') != std::string::npos) {
    r.error = "the stream ended inside an event";
  } else if (!done_) {
    r.error = "the stream ended without [DONE]";
  } else if (r.token_events == 0) {
    r.error = "the stream carried no tokens";
  } else {
    r.ok = true;
  }
  return r;
}

// The per-request output lengths of a previous run's --json report, one per request of this run.
Result<std::vector<int32_t>> ReadOutputLens(const std::string& path, int32_t num_prompts) {
  constexpr std::streamoff kMaxReportBytes = 64 << 20;
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) {
    return Status{StatusCode::kInvalidArgument, "--output-lens-from: '" + path + "' is not a file"};
  }
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const std::streamoff size = in ? std::streamoff(in.tellg()) : -1;
  if (size < 0) return Status{StatusCode::kInvalidArgument, "--output-lens-from: cannot read '" + path + "'"};
  if (size > kMaxReportBytes) {
    return Status{StatusCode::kInvalidArgument, "--output-lens-from: '" + path + "' is over 64 MiB"};
  }
  std::string text(static_cast<size_t>(size), '\0');
  in.seekg(0);
  if (!in.read(text.data(), size)) {
    return Status{StatusCode::kInvalidArgument, "--output-lens-from: cannot read '" + path + "'"};
  }
  const json report = json::parse(text, nullptr, /*allow_exceptions=*/false);
  const auto lens = report.is_object() ? report.find("output_lens") : report.end();
  if (report.is_discarded() || !report.is_object() || lens == report.end() || !lens->is_array()) {
    return Status{StatusCode::kInvalidArgument,
                  "--output-lens-from: '" + path + "' is not a `vt bench serve --json` report with output_lens"};
  }
  if (lens->size() != static_cast<size_t>(num_prompts)) {
    return Status{StatusCode::kInvalidArgument, "--output-lens-from: '" + path + "' has " +
                                                    std::to_string(lens->size()) + " requests, this run " +
                                                    std::to_string(num_prompts)};
  }
  std::vector<int32_t> out;
  for (size_t i = 0; i < lens->size(); ++i) {
    const json& n = (*lens)[i];
    if (!n.is_number_integer() || n.get<int64_t>() < 1 || n.get<int64_t>() > std::numeric_limits<int32_t>::max()) {
      return Status{StatusCode::kInvalidArgument, "--output-lens-from: request " + std::to_string(i) + " of '" +
                                                      path + "' has no output length (it failed?): " + Shown(n)};
    }
    out.push_back(n.get<int32_t>());
  }
  return out;
}

Status RunServeBench(const ServeBenchOptions& o) {
  if (o.num_prompts < 1) return {StatusCode::kInvalidArgument, "--num-prompts must be at least 1"};
  if (o.concurrency < 1) return {StatusCode::kInvalidArgument, "--concurrency must be at least 1"};
  if (o.input_len < 1) return {StatusCode::kInvalidArgument, "--input-len must be at least 1"};
  if (o.output_len < 1) return {StatusCode::kInvalidArgument, "--output-len must be at least 1"};
  if (o.vocab_size < 1) return {StatusCode::kInvalidArgument, "--vocab-size must be at least 1"};
  const std::optional<HttpTarget> target = ParseBaseUrl(o.base_url);
  if (!target) {
    return {StatusCode::kInvalidArgument, "--base-url must be http://HOST:PORT, not '" + o.base_url + "'"};
  }

  std::vector<int32_t> output_lens(static_cast<size_t>(o.num_prompts), o.output_len);
  if (!o.output_lens_from.empty()) {
    Result<std::vector<int32_t>> replayed = ReadOutputLens(o.output_lens_from, o.num_prompts);
    if (!replayed.ok()) return replayed.status();
    output_lens = std::move(*replayed);
  }

  json extra = json::object();
  if (!o.extra_body.empty()) {
    extra = json::parse(o.extra_body, nullptr, /*allow_exceptions=*/false);
    if (extra.is_discarded() || !extra.is_object()) {
      return {StatusCode::kInvalidArgument, "--extra-body must be a JSON object, not '" + Clip(o.extra_body) + "'"};
    }
  }

  // The request bodies, made up front from the seed so a run is repeatable and no worker waits on
  // a shared generator.
  std::mt19937_64 rng(o.seed);
  std::uniform_int_distribution<int32_t> token(0, o.vocab_size - 1);
  std::shared_ptr<Tokenizer> tokenizer;
  std::optional<TextPromptMaker> text_prompts;
  if (!o.tokenizer.empty()) {
    Result<std::shared_ptr<Tokenizer>> loaded = Tokenizer::FromFile(o.tokenizer);
    if (!loaded.ok()) return {StatusCode::kInvalidArgument, "--tokenizer: " + loaded.status().message()};
    tokenizer = *loaded;
    text_prompts.emplace(*tokenizer);
  }
  std::vector<std::string> bodies;
  bodies.reserve(static_cast<size_t>(o.num_prompts));
  int64_t prompt_tokens = 0;  // by the tokenizer for text prompts
  for (int32_t i = 0; i < o.num_prompts; ++i) {
    json prompt = json::array();
    if (text_prompts) {
      TextPrompt text = text_prompts->Make(o.input_len, rng);
      prompt_tokens += text.tokens;
      prompt = std::move(text.text);
    } else {
      for (int32_t t = 0; t < o.input_len; ++t) prompt.push_back(token(rng));
      prompt_tokens += o.input_len;
    }
    json body = {{"prompt", std::move(prompt)},
                 {"max_tokens", output_lens[static_cast<size_t>(i)]},
                 {"ignore_eos", true},
                 {"stream", true},
                 {"stream_options", {{"include_usage", true}}}};
    if (!o.model.empty()) body["model"] = o.model;
    body.update(extra);
    bodies.push_back(body.dump());
  }

  // When each request is due, from the run's start.
  std::vector<double> due_s(bodies.size(), 0.0);
  if (o.request_rate > 0) {
    std::exponential_distribution<double> gap(o.request_rate);
    for (size_t i = 1; i < due_s.size(); ++i) due_s[i] = due_s[i - 1] + gap(rng);
  }

  const json server_build = ServerBuildSource(*target, o.base_url);
  const std::optional<EngineLoopCounters> loop_before = ScrapeEngineLoop(*target, o.base_url);
  std::vector<ServeRequestResult> results(bodies.size());
  std::atomic<size_t> next{0};
  std::atomic<int32_t> finished{0};
  const int32_t workers = std::min(o.concurrency, o.num_prompts);
  const bool progress = !o.json;
  std::mutex progress_mutex;
  const Clock::time_point start = Clock::now();
  auto worker = [&] {
    HttpStreamClient client(*target, o.base_url, std::chrono::seconds(10), std::chrono::seconds(o.timeout_s));
    for (size_t i; (i = next.fetch_add(1)) < bodies.size();) {
      std::this_thread::sleep_until(start + std::chrono::duration_cast<Clock::duration>(
                                                std::chrono::duration<double>(due_s[i])));
      SseStreamParser parser;
      std::string error_body;  // a non-200 answer's body, for the message
      int status = 0;
      bool stopped = false;  // reading stopped here: the status or the stream says why
      const Clock::time_point sent = Clock::now();
      const PostOutcome outcome = client.Post(
          o.endpoint, bodies[i], [&](int s) { status = s; },
          [&](const char* data, size_t size) {
            if (status == 200) {
              stopped = !parser.Feed(data, size, MsSince(sent));
            } else {
              error_body.append(data, std::min(size, kErrorBodyBytes - error_body.size()));
              stopped = error_body.size() >= kErrorBodyBytes;
            }
            return !stopped;
          },
          std::chrono::seconds(o.request_timeout_s));
      ServeRequestResult r;
      if (!outcome.error.empty() && !stopped) {
        r.error = outcome.error;
      } else if (status != 200) {
        r.error = "HTTP " + std::to_string(status) + ": " + Clip(error_body);
      } else {
        r = parser.Finish();
      }
      r.keep_alive = outcome.reused;
      r.latency_ms = MsSince(sent);
      results[i] = std::move(r);
      const int32_t n = finished.fetch_add(1) + 1;
      if (progress) {
        std::lock_guard<std::mutex> lock(progress_mutex);
        std::fprintf(stderr, "\rvt bench serve: %d/%d requests", n, o.num_prompts);
        if (n == o.num_prompts) std::fprintf(stderr, "\n");
        std::fflush(stderr);
      }
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(workers));
  for (int32_t w = 0; w < workers; ++w) threads.emplace_back(worker);
  for (std::thread& t : threads) t.join();
  const double duration_s = std::chrono::duration<double>(Clock::now() - start).count();
  // The engine thread's time between steps while this load ran, per step: what serving the
  // streams cost the device beyond the engine's own loop (`vt bench decode` has no server).
  const std::optional<EngineLoopCounters> loop_after =
      loop_before ? ScrapeEngineLoop(*target, o.base_url) : std::nullopt;
  const int64_t engine_steps = loop_after ? loop_after->steps - loop_before->steps : 0;
  const double between_steps_us =
      engine_steps > 0 ? (loop_after->between_steps_s - loop_before->between_steps_s) * 1e6 /
                             static_cast<double>(engine_steps)
                       : 0.0;

  int64_t ok = 0;
  int64_t output_tokens = 0;
  std::vector<double> ttft, ttft_new_connection, ttft_keep_alive, tpot, itl, latency;
  std::map<std::string, int64_t> errors;  // message -> requests
  for (const ServeRequestResult& r : results) {
    if (!r.ok) {
      ++errors[r.error];
      continue;
    }
    ++ok;
    output_tokens += r.output_tokens;
    ttft.push_back(r.ttft_ms);
    (r.keep_alive ? ttft_keep_alive : ttft_new_connection).push_back(r.ttft_ms);
    latency.push_back(r.latency_ms);
    itl.insert(itl.end(), r.itl_ms.begin(), r.itl_ms.end());
    if (r.output_tokens > 1) {
      tpot.push_back((r.last_token_ms - r.ttft_ms) / static_cast<double>(r.output_tokens - 1));
    }
  }
  const int64_t failed = static_cast<int64_t>(results.size()) - ok;
  const Spread ttft_s = SpreadOf(ttft), tpot_s = SpreadOf(tpot), itl_s = SpreadOf(itl), e2e_s = SpreadOf(latency);
  const Spread ttft_new_s = SpreadOf(ttft_new_connection), ttft_kept_s = SpreadOf(ttft_keep_alive);
  const double tok_s = duration_s > 0 ? static_cast<double>(output_tokens) / duration_s : 0.0;
  const double req_s = duration_s > 0 ? static_cast<double>(ok) / duration_s : 0.0;
  const double prompt_tokens_mean = static_cast<double>(prompt_tokens) / static_cast<double>(bodies.size());
  const char* prompt_kind = tokenizer ? "text" : "ids";
  if (o.json) {
    json errs = json::array();
    json lens = json::array();  // each request's output tokens, in the order sent (0: it failed)
    for (const ServeRequestResult& r : results) lens.push_back(r.ok ? r.output_tokens : 0);
    for (const auto& [message, count] : errors) errs.push_back({{"message", message}, {"requests", count}});
    const json report = {{"build_source", BuildSource()}, {"server_build_source", server_build},
                         {"base_url", o.base_url}, {"endpoint", o.endpoint},
                         {"num_prompts", o.num_prompts}, {"concurrency", o.concurrency},
                         {"request_rate", o.request_rate}, {"last_due_s", due_s.empty() ? 0.0 : due_s.back()},
                         {"input_len", o.input_len},     {"output_len", o.output_len},
                         {"prompts", prompt_kind},       {"prompt_tokens_mean", prompt_tokens_mean},
                         {"requests_ok", ok},            {"requests_failed", failed},
                         {"duration_s", duration_s},     {"output_tokens", output_tokens},
                         {"output_tok_s", tok_s},        {"request_s", req_s},
                         {"ttft_ms", SpreadJson(ttft_s)}, {"tpot_ms", SpreadJson(tpot_s)},
                         {"ttft_new_connection_ms", SpreadJson(ttft_new_s)},
                         {"ttft_keep_alive_ms", SpreadJson(ttft_kept_s)},
                         {"itl_ms", SpreadJson(itl_s)},  {"e2e_latency_ms", SpreadJson(e2e_s)},
                         {"engine_steps", engine_steps},
                         {"engine_between_steps_us", engine_steps > 0 ? json(between_steps_us) : json(nullptr)},
                         {"output_lens_from", o.output_lens_from},
                         {"output_lens", std::move(lens)},
                         {"errors", std::move(errs)}};
    std::printf("%s\n", report.dump(2).c_str());
  } else {
    std::printf("vt bench serve: %s%s, %d requests at concurrency %d, %s prompts of %.1f tokens -> %d tokens\n",
                o.base_url.c_str(), o.endpoint.c_str(), o.num_prompts, o.concurrency, prompt_kind, prompt_tokens_mean,
                o.output_len);
    if (o.request_rate > 0) std::printf("  arrivals          Poisson, %.2f requests/s\n", o.request_rate);
    std::printf("  requests ok       %10lld\n  requests failed   %10lld\n", static_cast<long long>(ok),
                static_cast<long long>(failed));
    std::printf("  duration (s)      %10.3f\n  output tokens     %10lld\n", duration_s,
                static_cast<long long>(output_tokens));
    std::printf("  output tok/s      %10.1f\n  requests/s        %10.2f\n", tok_s, req_s);
    std::printf("  %-16s %10s %10s %10s\n", "(ms)", "median", "p90", "p99");
    for (const auto& [name, s] : {std::pair<const char*, Spread>{"TTFT", ttft_s},
                                  {" new connection", ttft_new_s},
                                  {" keep-alive", ttft_kept_s},
                                  {"TPOT", tpot_s},
                                  {"ITL", itl_s},
                                  {"E2E latency", e2e_s}}) {
      // No samples prints "-", as in the JSON's null.
      if (s.count == 0) {
        std::printf("  %-16s %10s %10s %10s\n", name, "-", "-", "-");
      } else {
        std::printf("  %-16s %10.2f %10.2f %10.2f\n", name, s.median, s.p90, s.p99);
      }
    }
    if (engine_steps > 0) {
      std::printf("  engine thread between steps: %.2f us a step over %lld steps\n", between_steps_us,
                  static_cast<long long>(engine_steps));
    }
    for (const auto& [message, count] : errors) {
      std::printf("  error (%lld requests): %s\n", static_cast<long long>(count), message.c_str());
    }
  }
  std::fflush(stdout);
  if (failed > 0) {
    return {StatusCode::kUnavailable, std::to_string(failed) + " of " + std::to_string(results.size()) +
                                          " requests failed; first error: " + errors.begin()->first};
  }
  return Status::Ok();
}

}  // namespace vt::bench
