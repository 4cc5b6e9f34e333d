// The model and backend flags every subcommand that opens a model shares (--model,
// --load-format, --backend, --gpu-memory-utilization), registered once here, and the settings
// the CLI reads from the environment: VT_DEFAULT_MODEL and the runner's VT_* options.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "base/status.h"
#include "engine/session/session.h"

namespace vt::cli {

// $VT_DEFAULT_MODEL, else the embedded fortune-qwen3-7m of the source tree this binary was
// built from.
std::string DefaultModelDir();

void AddModelFlags(CLI::App* app, SessionSpec* spec);

// --max-decode-slowdown (SchedulerConfig::max_decode_slowdown), for `vt serve` and `vt bench decode`.
inline constexpr const char* kMaxDecodeSlowdownHelp =
    "While prompts prefill beside running decodes, keep the decodes' mean step time within this multiple "
    "of a step of decodes alone, holding prompts back as needed (0: no bound)";
CLI::Validator MaxDecodeSlowdownValidator();

// After parsing: the default model where none was given, the runner options from the
// environment, and the flags checked together.
Status ResolveModelFlags(SessionSpec* spec);

}  // namespace vt::cli
