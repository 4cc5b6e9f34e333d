// One way to open a model for any app (`vt generate`, `vt serve`, `vt bench`): resolve the model
// source (a directory, `preset:NAME`), load its tokenizer, load the weights with the backend
// known, size the KV pool by the one policy and build the engine on the chosen backend.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/status.h"
#include "engine/backends/backend_factory.h"
#include "engine/exec/kv_sizing.h"
#include "engine/exec/llm_engine.h"
#include "engine/tokenizer/tokenizer.h"

namespace vt {

struct SessionSpec {
  std::string model;  // a model directory or preset:NAME
  std::string load_format = "auto";
  uint64_t dummy_seed = 0;
  BackendOptions backend;
  // The scheduler's limits; max_model_len <= 0 means the model's own context.
  EngineConfig engine;
  // What the run keeps in the KV pool at once, given the model; unset: engine.scheduler's
  // max_num_seqs sequences of the full context.
  std::function<KvDemand(const ModelConfig&)> kv_demand;
  // Used instead of loading the directory's tokenizer.json (an app that encodes its prompts
  // before loading the weights passes the one it loaded with LoadModelTokenizer).
  std::shared_ptr<const Tokenizer> tokenizer;
};

struct Session {
  std::string model_dir;  // empty for a preset
  ModelConfig model;
  uint64_t weight_bytes = 0;
  double load_seconds = 0.0;
  // Null for a preset or a directory without tokenizer.json; the engine detokenises with it.
  std::shared_ptr<const Tokenizer> tokenizer;
  std::unique_ptr<LlmEngine> engine;
};

bool IsPreset(const std::string& model);

// The tokenizer.json of a model directory; null (not an error) for a preset or a directory
// without one; an error for one that cannot be read.
Result<std::shared_ptr<const Tokenizer>> LoadModelTokenizer(const std::string& model);

Result<Session> OpenSession(const SessionSpec& spec);

}  // namespace vt
