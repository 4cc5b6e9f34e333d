// GPTQ checkpoints of the embedded model for tests, written by the committed
// tests/fixtures/make_gptq_checkpoint.py (group 128 and -1, each with its dequantised
// float32 twin). ctest runs every test in its own process, so the files are
// written once per content of the script and the model, into the build tree,
// and shared; a concurrent writer loses the final rename and uses the winner's.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/source_root.h"

namespace vt::testing {

struct GptqFixture {
  std::filesystem::path root;  // root / "g128", "g128-fp32", "g-1", "g-1-fp32"
  std::string error;           // why there is none (then root is empty)
};

inline std::string ReadAllBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline uint64_t Fnv1a(const std::string& bytes, uint64_t h) {
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

inline GptqFixture MakeGptqFixture() {
  namespace fs = std::filesystem;
  const std::string python = VT_PYTHON3;
  if (python.empty()) return {{}, "no python3 interpreter was found at configure time"};
  const fs::path script = SourceRoot() / "tests/fixtures/make_gptq_checkpoint.py";
  const fs::path model = SourceRoot() / "assets/models/fortune-qwen3-7m";
  uint64_t key = 14695981039346656037ull;
  for (const fs::path& p : {script, model / "config.json", model / "model.safetensors"}) {
    key = Fnv1a(ReadAllBytes(p), key);
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(key));
  const fs::path root = fs::path(VT_GPTQ_CACHE) / hex;
  if (fs::exists(root / "complete")) return {root, ""};

  const fs::path tmp = root.string() + ".tmp" + std::to_string(::getpid());
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  for (const char* group : {"128", "-1"}) {
    const std::string out = (tmp / (std::string("g") + group)).string();
    const std::string cmd = "'" + python + "' '" + script.string() + "' '" + model.string() +
                            "' --group-size " + group + " --out '" + out + "' --dequantized-out '" + out +
                            "-fp32'";
    if (std::system(cmd.c_str()) != 0) return {{}, "failed: " + cmd};
  }
  std::ofstream(tmp / "complete").put('\n');
  std::error_code ec;
  fs::rename(tmp, root, ec);
  if (ec) fs::remove_all(tmp);
  if (!fs::exists(root / "complete")) return {{}, "cannot move " + tmp.string() + " to " + root.string()};
  return {root, ""};
}

// The fixture of this process, made on first use.
inline const GptqFixture& GetGptqFixture() {
  static const GptqFixture fixture = MakeGptqFixture();
  return fixture;
}

}  // namespace vt::testing
