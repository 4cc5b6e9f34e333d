#include "engine/cli/model_flags.h"

#include <cstdlib>
#include <exception>
#include <string>

#include "engine/sched/decode_pacing.h"

namespace vt::cli {

std::string DefaultModelDir() {
  if (const char* env = std::getenv("VT_DEFAULT_MODEL"); env != nullptr && *env != '\0') return env;
  return VT_DEFAULT_MODEL_DIR;
}

void AddModelFlags(CLI::App* app, SessionSpec* spec) {
  app->add_option("--model", spec->model,
                  "Model directory, or preset:NAME (see README); default: the embedded fortune-qwen3-7m");
  app->add_option("--load-format", spec->load_format, "auto (read the checkpoint) or dummy (random weights)")
      ->check(CLI::IsMember({"auto", "dummy"}));
  app->add_option("--backend", spec->backend.backend, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}));
  app->add_option("--gpu-memory-utilization", spec->backend.gpu_memory_utilization,
                  "cuda: fraction of the GPU's memory vt may hold; the KV pool gets what weights leave");
  app->add_option("--tensor-parallel-size", spec->backend.tensor_parallel_size,
                  "ranks of tensor parallelism (Megatron-style shards); cpu: threads of this process, the "
                  "sharded reference; cuda: one GPU per rank over NCCL")
      ->capture_default_str();
}

CLI::Validator MaxDecodeSlowdownValidator() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        double value = 0.0;
        try {
          size_t used = 0;
          value = std::stod(text, &used);
          if (used != text.size()) return "not a number: " + text;
        } catch (const std::exception&) {
          return "not a number: " + text;
        }
        const Status s = CheckMaxDecodeSlowdown(value);
        return s.ok() ? std::string() : s.message();
      },
      "0 or above 1");
}

Status ResolveModelFlags(SessionSpec* spec) {
  if (spec->model.empty()) spec->model = DefaultModelDir();
  Result<RunnerOptions> tuning = RunnerOptionsFromEnvironment();
  if (!tuning.ok()) return tuning.status();
  spec->backend.tuning = *tuning;
  return ValidateBackendOptions(spec->backend);
}

}  // namespace vt::cli
