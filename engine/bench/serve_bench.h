// `vt bench serve`: a load generator for any OpenAI-compatible server (vt's or another engine's),
// like `vllm bench serve`. N streamed requests of random prompts (token ids, or text of the same
// token length when a tokenizer is given: text_prompts.h) go out from C worker
// threads, each with its own keep-alive connection; every request is timed from its send: TTFT to
// the first SSE event carrying a token, the inter-token latencies between token events, and TPOT
// ((last - first) / (tokens - 1), tokens from the stream's usage). It reports the successes and
// failures (a non-200 answer, a malformed stream, a stream without [DONE]), the duration, the
// output tokens and requests per second, and TTFT, TPOT and ITL median/p90/p99 in milliseconds.
// TTFT is also split by connection: the first request of each connection (which pays the connect)
// apart from the keep-alive requests after it (which alone can stall on the socket's state from
// the last answer, e.g. Nagle's algorithm waiting for a delayed ACK).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace vt::bench {

struct ServeBenchOptions {
  std::string base_url = "http://127.0.0.1:8000";
  std::string endpoint = "/v1/completions";
  std::string model;  // empty: no "model" field (the server's only model)
  int32_t num_prompts = 100;
  int32_t concurrency = 8;
  // Requests per second with Poisson arrivals (exponential gaps from the seed), at most
  // `concurrency` in flight; 0: each worker sends its next request as soon as the last one ends.
  double request_rate = 0.0;
  int32_t input_len = 32;     // prompt token ids per request
  int32_t output_len = 64;    // max_tokens, with ignore_eos
  // A previous run's --json report: request i asks for that run's request i's output tokens
  // (`output_lens`) instead of output_len. Same seed, same prompts: a free run that replays a
  // constrained run's lengths (which end at EOS) is like for like with it.
  std::string output_lens_from;
  int32_t vocab_size = 1000;  // prompt ids are drawn from [0, vocab_size)
  std::string tokenizer;      // a tokenizer.json: text prompts of input_len tokens by it; empty: ids
  // A JSON object merged into every request body (its fields win), e.g. a response_format.
  std::string extra_body;
  uint64_t seed = 0;
  int32_t timeout_s = 600;           // a request's wait for its next bytes
  int32_t request_timeout_s = 3600;  // a request's whole answer, its stream included
  bool json = false;
};

// One request's outcome; times in milliseconds from the request's send.
struct ServeRequestResult {
  bool ok = false;
  std::string error;        // why it failed
  bool keep_alive = false;  // sent on a connection an earlier request had used
  double ttft_ms = 0.0;
  double last_token_ms = 0.0;  // the last token event
  double latency_ms = 0.0;
  std::vector<double> itl_ms;  // gaps between consecutive token events
  int64_t output_tokens = 0;   // usage.completion_tokens, else the count of token events
  int64_t token_events = 0;
};

// Parses one request's SSE body as it arrives. Feed(bytes, now_ms) for every chunk received, false
// once the stream is known bad (reading on could only cost time); Finish() classifies the stream
// (ok, or the error).
class SseStreamParser {
 public:
  bool Feed(const char* data, size_t size, double now_ms);
  ServeRequestResult Finish();

 private:
  void Event(const std::string& payload, double now_ms);

  std::string pending_;
  ServeRequestResult result_;
  double first_ms_ = -1.0;
  double last_ms_ = -1.0;
  bool done_ = false;
  bool usage_seen_ = false;
  std::string malformed_;
};

// Runs the load and prints the report. Fails (non-OK) when any request failed, after printing.
Status RunServeBench(const ServeBenchOptions& options);

}  // namespace vt::bench
