#include "engine/bench/decode_bench.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <filesystem>
#include <fstream>
#include <utility>

#include "engine/bench/ab_compare.h"
#include "engine/bench/decode_report.h"
#include "engine/bench/decode_sweep.h"
#include "engine/bench/self_exec.h"
#include "engine/bench/svg_plot.h"
#include "engine/session/session.h"

namespace vt::bench {

namespace {

using Clock = std::chrono::steady_clock;

// Progress on stderr, where it never mixes with --json on stdout: rewritten in place on a
// terminal, and at most one line every few seconds into a log.
class ProgressLine {
 public:
  void operator()(int32_t concurrency, int64_t done, int64_t total) {
    const Clock::time_point now = Clock::now();
    const bool finished = done >= total;
    if (!finished && now - last_ < (terminal_ ? std::chrono::milliseconds(200) : std::chrono::seconds(5))) return;
    last_ = now;
    std::fprintf(stderr, "%sbench decode: c=%d: %lld/%lld tokens%s", terminal_ ? "\r\x1b[K" : "", concurrency,
                 static_cast<long long>(done), static_cast<long long>(total), terminal_ && !finished ? "" : "\n");
  }

 private:
  bool terminal_ = ::isatty(STDERR_FILENO) != 0;
  Clock::time_point last_{};
};

std::string ModelTitle(const std::string& model) {
  const std::filesystem::path path(model);
  return path.has_filename() ? path.filename().string() : path.parent_path().filename().string();
}

Status WritePlot(const std::string& path, const SweepReport& report) {
  ThroughputPlot plot;
  plot.title = "vt bench decode: " + ModelTitle(report.model) + " on " + report.result.backend + ", " +
               std::to_string(report.options.input_len) + " in / " + std::to_string(report.options.output_len) +
               " out tokens";
  for (const DecodeLevelResult& level : report.result.levels) {
    plot.concurrencies.push_back(level.concurrency);
    plot.measured_tokens_per_s.push_back(level.output_tokens_per_s);
    plot.roofline_tokens_per_s.push_back(level.roofline_tokens_per_s);
  }
  std::ofstream out(path, std::ios::binary);
  out << ThroughputSvg(plot);
  out.close();
  if (!out) return Unavailable("--plot " + path + ": cannot write the file");
  return Status::Ok();
}

// A plot that cannot be written is better found before the run than after it.
Status CheckPlotPath(const std::string& path) {
  if (path.empty()) return Status::Ok();
  const std::filesystem::path dir = std::filesystem::absolute(path).parent_path();
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error)) {
    return NotFound("--plot " + path + ": " + dir.string() + " is not a directory");
  }
  return Status::Ok();
}

Status RunSweep(const DecodeBenchOptions& o, DecodeSweepOptions sweep) {
  SessionSpec spec = o.session;
  spec.engine = SweepEngineConfig(sweep);
  spec.kv_demand = [&](const ModelConfig&) { return SweepKvDemand(sweep, spec.engine.block_size); };
  spec.backend.host_kv_bytes = UINT64_MAX;  // the demand is the run's: a measured level never preempts
  Result<Session> session = OpenSession(spec);
  if (!session.ok()) return session.status();
  VT_RETURN_IF_ERROR(CheckSweepFitsModel(sweep, session->model));
  LlmEngine* engine = session->engine.get();

  ProgressLine progress;
  Result<DecodeSweepResult> result = RunDecodeSweep(*engine, sweep, std::ref(progress));
  if (!result.ok()) return result.status();
  const SweepReport report{o.session.model, std::move(sweep), std::move(*result)};
  if (o.json) {
    std::printf("%s\n", SweepJson(report).c_str());
  } else {
    std::fputs(SweepTable(report).c_str(), stdout);
  }
  std::fflush(stdout);
  if (!o.plot_path.empty()) VT_RETURN_IF_ERROR(WritePlot(o.plot_path, report));
  return Status::Ok();
}

// The arguments of one A/B child: this run's sweep, as JSON, without --ab and --plot.
std::vector<std::string> ChildArguments(const DecodeBenchOptions& o, const DecodeSweepOptions& sweep) {
  std::string concurrencies;
  for (int32_t c : sweep.concurrencies) concurrencies += (concurrencies.empty() ? "" : ",") + std::to_string(c);
  auto exact = [](double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", v);
    return std::string(text);
  };
  return {"bench", "decode",
          "--model", o.session.model,
          "--load-format", o.session.load_format,
          "--backend", o.session.backend.backend,
          "--gpu-memory-utilization", exact(o.session.backend.gpu_memory_utilization),
          "--concurrency", concurrencies,
          "--input-len", std::to_string(sweep.input_len),
          "--output-len", std::to_string(sweep.output_len),
          "--seed", std::to_string(sweep.seed),
          "--max-num-batched-tokens", std::to_string(sweep.max_num_batched_tokens),
          "--max-prefill-beside-decodes", std::to_string(sweep.max_prefill_tokens_beside_decodes),
          "--max-decode-slowdown", exact(sweep.max_decode_slowdown),
          "--json"};
}

Status RunAb(const DecodeBenchOptions& o, const DecodeSweepOptions& sweep) {
  if (o.ab.size() != 2) return InvalidArgument("--ab: give exactly two settings, A and B, e.g. 'VT_X=1' 'VT_X=2'");
  Result<EnvSetting> a = ParseEnvSetting(o.ab[0]);
  if (!a.ok()) return a.status();
  Result<EnvSetting> b = ParseEnvSetting(o.ab[1]);
  if (!b.ok()) return b.status();
  if (o.ab_rounds < 1) return InvalidArgument("--ab-rounds " + std::to_string(o.ab_rounds) + ": must be at least 1");

  const std::vector<std::string> args = ChildArguments(o, sweep);
  std::vector<ThroughputByConcurrency> a_runs, b_runs;
  for (int32_t round = 1; round <= o.ab_rounds; ++round) {
    for (const auto& [setting, runs] : {std::pair{&*a, &a_runs}, std::pair{&*b, &b_runs}}) {
      std::fprintf(stderr, "bench decode --ab: round %d/%d, %s\n", round, o.ab_rounds, setting->text().c_str());
      Result<std::string> output = RunSelfWithSetting(args, *setting);
      if (!output.ok()) return output.status();
      Result<ThroughputByConcurrency> throughput = ThroughputFromSweepJson(*output);
      if (!throughput.ok()) return Internal("the " + setting->text() + " run: " + throughput.status().message());
      runs->push_back(std::move(*throughput));
    }
  }
  Result<std::vector<AbLevel>> levels = CompareAbRuns(a_runs, b_runs);
  if (!levels.ok()) return levels.status();
  const AbReport report{*a, *b, o.ab_rounds, std::move(*levels)};
  if (o.json) {
    std::printf("%s\n", AbJson(report).c_str());
  } else {
    std::fputs(AbTable(report).c_str(), stdout);
  }
  return Status::Ok();
}

}  // namespace

Status RunDecodeBench(const DecodeBenchOptions& options) {
  Result<DecodeSweepOptions> sweep = NormalizeSweepOptions(
      {options.concurrencies, options.input_len, options.output_len, options.seed, options.max_num_batched_tokens,
       options.max_prefill_tokens_beside_decodes, options.max_decode_slowdown});
  if (!sweep.ok()) return sweep.status();
  // Checked before a model is loaded or a child spawned: in an A/B a bad option is then one
  // message rather than one per child.
  VT_RETURN_IF_ERROR(ValidateBackendOptions(options.session.backend));
  Result<LoadFormat> format = ParseLoadFormat(options.session.load_format);
  if (!format.ok()) return format.status();
  if (!options.ab.empty()) return RunAb(options, *sweep);
  VT_RETURN_IF_ERROR(CheckPlotPath(options.plot_path));
  return RunSweep(options, std::move(*sweep));
}

}  // namespace vt::bench
