#include "engine/session/session.h"

#include <filesystem>
#include <utility>

#include "engine/loader/model_source.h"
#include "engine/parallel/tensor_parallel.h"
#include "kernels/cpu/thread_pool.h"

namespace vt {

bool IsPreset(const std::string& model) { return model.rfind("preset:", 0) == 0; }

Result<std::shared_ptr<const Tokenizer>> LoadModelTokenizer(const std::string& model) {
  const std::string path = model + "/tokenizer.json";
  if (IsPreset(model) || !std::filesystem::exists(path)) return std::shared_ptr<const Tokenizer>();
  Result<std::shared_ptr<Tokenizer>> t = Tokenizer::FromFile(path);
  if (!t.ok()) return t.status();
  return std::shared_ptr<const Tokenizer>(std::move(*t));
}

Result<Session> OpenSession(const SessionSpec& spec) {
  VT_RETURN_IF_ERROR(ValidateBackendOptions(spec.backend));
  Result<LoadFormat> format = ParseLoadFormat(spec.load_format);
  if (!format.ok()) return format.status();
  Session session;
  session.tokenizer = spec.tokenizer;
  if (!session.tokenizer) {
    Result<std::shared_ptr<const Tokenizer>> tokenizer = LoadModelTokenizer(spec.model);
    if (!tokenizer.ok()) return tokenizer.status();
    session.tokenizer = *tokenizer;
  }
  // Tensor-parallel ranks slice the whole matrices (ShardModel), so dummy weights are made up front
  // then (mapped checkpoints are readable as they are).
  const bool sliced_dummy = spec.backend.tensor_parallel_size > 1 && *format == LoadFormat::kDummy;
  const LoadTarget target = spec.backend.backend == "cpu" || sliced_dummy ? LoadTarget::kHost : LoadTarget::kDevice;
  if (spec.backend.tensor_parallel_size > 1) {  // a size the model refuses is named before its weights load
    Result<ModelConfig> config = LoadModelConfig(spec.model);
    if (!config.ok()) return config.status();
    VT_RETURN_IF_ERROR(CheckTensorParallel(*config, spec.backend.tensor_parallel_size));
  }
  Result<LoadedModel> loaded =
      LoadModel(spec.model, *format, kernels::cpu::DefaultThreadPool(), spec.dummy_seed, target);
  if (!loaded.ok()) return loaded.status();
  session.model_dir = loaded->dir;
  session.model = loaded->config;
  session.weight_bytes = loaded->weights.weight_bytes;
  session.load_seconds = loaded->load_seconds;

  const SchedulerConfig& s = spec.engine.scheduler;
  const int64_t context = ResolveMaxModelLen(s.max_model_len, session.model);
  const KvDemand demand = spec.kv_demand ? spec.kv_demand(session.model)
                                         : KvDemand::Uniform(s.max_num_seqs, context, spec.engine.block_size);
  Result<std::unique_ptr<LlmEngine>> engine = CreateEngine(std::move(*loaded), spec.backend, spec.engine, demand);
  if (!engine.ok()) return engine.status();
  session.engine = std::move(*engine);
  session.engine->set_tokenizer(session.tokenizer);
  return session;
}

}  // namespace vt
