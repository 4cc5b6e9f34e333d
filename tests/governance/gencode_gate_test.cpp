// The gencode gate against real compile databases: a throwaway CUDA project
// that uses the repository's own cmake/VtCudaFeatures.cmake is configured
// once (configure only, nothing is compiled), and each test audits its
// compile_commands.json against a feature table. A planted drop of one
// architecture, an extra architecture (CMake's default), an unmapped or a
// missing required source and a library whose embedded set differs are each
// caught at the features.yaml line that decides them.
#include "governance/gencode_gate.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "governance/nvcc_flags.h"
#include "tests/governance/git_fixture.h"

namespace vt::gate {
namespace {

using testing::Quote;
using testing::Shell;
using testing::TempDir;
using V = std::vector<std::string>;

const char* kFeatures =
    "# test table\n"
    "features:\n"
    "  runtime: [90]\n"
    "  attention: [80, 90]\n"
    "sources:\n"
    "  \"probe.cu\": runtime\n"
    "  \"attention/*.cu\": attention\n"
    "required:\n"
    "  - \"probe.cu\"\n"
    "  - \"attention/a.cu\"\n";

std::string Dump(const GateReport& r) {
  std::string out = std::string(StatusName(r.status)) + " " + r.reason + "\n";
  for (const Finding& f : r.findings)
    out += f.file + ":" + std::to_string(f.line) + " " + f.rule + ": " + f.message + "\n";
  return out;
}

// One CUDA project configured by CMake with the repository's feature module.
class GencodeProject : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!std::filesystem::exists("/usr/local/cuda/bin/nvcc")) return;
    project_ = new TempDir;
    std::filesystem::create_directories(project_->path() + "/cmake");
    std::filesystem::copy_file(std::string(VT_SOURCE_DIR) + "/cmake/VtCudaFeatures.cmake",
                               project_->path() + "/cmake/VtCudaFeatures.cmake");
    project_->Write("kernels/cuda/features.yaml", kFeatures);
    project_->Write("kernels/cuda/probe.cu", "__global__ void probe() {}\n");
    project_->Write("kernels/cuda/attention/a.cu", "__global__ void a() {}\n");
    project_->Write("kernels/cuda/attention/b.cu", "__global__ void b() {}\n");
    project_->Write("CMakeLists.txt",
                    "cmake_minimum_required(VERSION 3.24)\n"
                    "project(fixture LANGUAGES CUDA)\n"
                    "set(CMAKE_EXPORT_COMPILE_COMMANDS ON)\n"
                    "if(NOT DEFAULT_ARCHS)\n  set(CMAKE_CUDA_ARCHITECTURES OFF)\nendif()\n"
                    "list(APPEND CMAKE_MODULE_PATH ${CMAKE_SOURCE_DIR}/cmake)\n"
                    "include(VtCudaFeatures)\n"
                    "add_library(k STATIC kernels/cuda/probe.cu kernels/cuda/attention/a.cu "
                    "kernels/cuda/attention/b.cu)\n"
                    "vt_cuda_gencode_from_features(k ${CMAKE_SOURCE_DIR}/kernels/cuda/features.yaml)\n");
    configured_ = Configure("build", "");
  }
  static void TearDownTestSuite() {
    delete project_;
    project_ = nullptr;
  }
  static bool Configure(const std::string& build, const std::string& flags) {
    testing::CommandOutput out =
        Shell("cmake -S " + Quote(project_->path()) + " -B " + Quote(project_->path() + "/" + build) +
              " -G Ninja -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc " + flags);
    EXPECT_EQ(out.status, 0) << out.out;
    return out.status == 0;
  }

  void SetUp() override {
    if (!project_) GTEST_SKIP() << "no nvcc at /usr/local/cuda/bin/nvcc: no CUDA compile database to audit";
    ASSERT_TRUE(configured_);
  }

  // Audits `db` (default: the project's real database) against `features`.
  GateReport Audit(const std::string& features = kFeatures,
                   const std::string& db = "build/compile_commands.json", const std::string& cuobjdump = "") {
    std::string table = scratch_.Write("features.yaml", features);
    GencodeConfig config;
    config.features = table;
    config.sources_root = "kernels/cuda";
    config.compile_commands = db;
    return CheckGencode(config, {project_->path() + "/", "", cuobjdump});
  }

  int LineOf(const std::string& text, const std::string& needle) {
    std::istringstream lines(text);
    std::string line;
    for (int n = 1; std::getline(lines, line); ++n) {
      if (line.find(needle) != std::string::npos) return n;
    }
    return 0;
  }

  std::string At(const std::string& needle, const std::string& features = kFeatures) {
    return scratch_.path() + "/features.yaml:" + std::to_string(LineOf(features, needle));
  }

  std::vector<std::string> Where(const GateReport& r, const std::string& rule) {
    std::vector<std::string> out;
    for (const Finding& f : r.findings) {
      if (f.rule == rule) out.push_back(f.file + ":" + std::to_string(f.line));
    }
    return out;
  }

  static TempDir* project_;
  static bool configured_;
  TempDir scratch_;
};

TempDir* GencodeProject::project_ = nullptr;
bool GencodeProject::configured_ = false;

TEST_F(GencodeProject, TheTableCMakeUsedPasses) {
  GateReport r = Audit();
  EXPECT_EQ(r.status, GateStatus::kOk) << Dump(r);
  EXPECT_EQ(r.checked, 3);
}

TEST_F(GencodeProject, AUnitCompiledWithoutOneOfItsFeaturesArchitecturesIsCaught) {
  // The table gained sm_86 but the build was configured before: a silent capability drop.
  std::string features = kFeatures;
  features.replace(features.find("[80, 90]"), 8, "[80, 86, 90]");
  GateReport r = Audit(features);
  EXPECT_EQ(r.status, GateStatus::kFail);
  EXPECT_EQ(Where(r, "gencode-missing"), (V{At("attention/*.cu", features), At("attention/*.cu", features)}))
      << Dump(r);
  EXPECT_NE(r.findings[0].message.find("is not compiled for sm_86"), std::string::npos) << Dump(r);
}

TEST_F(GencodeProject, CMakesDefaultArchitectureIsAnExtraPair) {
  ASSERT_TRUE(Configure("build-default", "-DDEFAULT_ARCHS=ON"));
  GateReport r = Audit(kFeatures, "build-default/compile_commands.json");
  EXPECT_EQ(Where(r, "gencode-extra"), (V{At("\"probe.cu\""), At("attention/*.cu"), At("attention/*.cu")}))
      << Dump(r);
}

TEST_F(GencodeProject, AMissingRequiredSourceIsCaughtAtItsLine) {
  std::string features = std::string(kFeatures) + "  - \"attention/c.cu\"\n";
  GateReport r = Audit(features);
  EXPECT_EQ(Where(r, "gencode-required"), V{At("attention/c.cu", features)}) << Dump(r);
}

TEST_F(GencodeProject, ASourceNoGlobMapsIsCaught) {
  std::string features = kFeatures;
  features.replace(features.find("\"attention/*.cu\""), 16, "\"attention/a.cu\"");
  GateReport r = Audit(features);
  ASSERT_EQ(Where(r, "gencode-unmapped"), V{At("sources:", features)}) << Dump(r);
  EXPECT_NE(r.findings[0].message.find("attention/b.cu matches no source glob"), std::string::npos);
}

TEST_F(GencodeProject, TheEmbeddedArchitecturesMustEqualTheRequestedOnes) {
  std::string good = scratch_.Write(
      "good.txt",
      "\nmember /b/libk.a:probe.cu.o:\nELF file    1: libk.1.sm_90.cubin\n\n"
      "member /b/libk.a:a.cu.o:\nELF file    2: libk.2.sm_80.cubin\nELF file    3: libk.3.sm_90.cubin\n");
  EXPECT_EQ(Audit(kFeatures, "build/compile_commands.json", good).status, GateStatus::kOk)
      << Dump(Audit(kFeatures, "build/compile_commands.json", good));
  std::string dropped = scratch_.Write("dropped.txt", "ELF file    1: probe.1.sm_90.cubin\n");
  GateReport r = Audit(kFeatures, "build/compile_commands.json", dropped);
  ASSERT_EQ(Where(r, "gencode-embedded"), V{dropped + ":1"}) << Dump(r);
  EXPECT_NE(r.findings[0].message.find("missing sm_80"), std::string::npos) << Dump(r);
}

TEST_F(GencodeProject, AMemberThatLostAnArchitectureIsCaughtEvenWhenTheUnionHidesIt) {
  // Real `cuobjdump --list-elf` output (CUDA 12, H200 machine): a.cu.o has sm_80 and sm_90, b.cu.o only
  // sm_90.
  std::string list = std::string(VT_SOURCE_DIR) + "/tests/fixtures/gencode/cuobjdump-list-elf.txt";
  GateReport r = Audit(kFeatures, "build/compile_commands.json", list);
  ASSERT_EQ(Where(r, "gencode-embedded"), V{list + ":6"}) << Dump(r);
  EXPECT_NE(r.findings[0].message.find("attention/b.cu (b.cu.o) embeds {sm_90}"), std::string::npos)
      << Dump(r);
}

TEST_F(GencodeProject, NoDatabaseOrOneWithoutCudaCannotBeVerified) {
  EXPECT_EQ(Audit(kFeatures, "nowhere/compile_commands.json").status, GateStatus::kSkip);
  std::string cpu =
      scratch_.Write("cpu.json", R"([{"directory": "/", "command": "c++ -c a.cpp", "file": "a.cpp"}])");
  GateReport r = Audit(kFeatures, cpu);
  EXPECT_EQ(r.status, GateStatus::kSkip);
  EXPECT_NE(r.reason.find("has no CUDA sources"), std::string::npos) << r.reason;
}

TEST_F(GencodeProject, AFeatureTableErrorNamesItsLine) {
  std::string features = kFeatures;
  features.replace(features.find("attention\n"), 10, "atention\n");
  GateReport r = Audit(features);
  EXPECT_EQ(r.status, GateStatus::kFail);
  EXPECT_NE(r.reason.find("features.yaml:7: `attention/*.cu` maps to unknown feature `atention`"),
            std::string::npos)
      << r.reason;
}

// A feature named twice would leave one of its SM lists unread: the table is refused instead.
TEST_F(GencodeProject, AFeatureNamedTwiceIsAnErrorAtTheRepeat) {
  std::string features = kFeatures;
  features.replace(features.find("sources:\n"), 9, "  runtime: [80]\nsources:\n");
  GateReport r = Audit(features);
  EXPECT_EQ(r.status, GateStatus::kFail);
  EXPECT_NE(r.reason.find("features.yaml:5: duplicate key 'runtime' (first at line 3)"), std::string::npos)
      << r.reason;
}

TEST(NvccFlags, EverySpellingOfAnArchitectureTarget) {
  auto pairs = [](const std::string& command) { return ParseNvccTargets(SplitCommand(command)).pairs; };
  using S = std::set<std::string>;
  EXPECT_EQ(pairs("nvcc -gencode=arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90"),
            (S{"arch=compute_80,code=sm_80", "arch=compute_90,code=sm_90"}));
  EXPECT_EQ(pairs("nvcc --generate-code=arch=compute_52,code=[compute_52,sm_52]"),
            (S{"arch=compute_52,code=compute_52", "arch=compute_52,code=sm_52"}));
  EXPECT_EQ(pairs("nvcc '-gencode=arch=compute_90a,code=\"sm_90a\"'"), (S{"arch=compute_90a,code=sm_90a"}));
  EXPECT_EQ(pairs("nvcc -arch=sm_86"), (S{"arch=compute_86,code=compute_86", "arch=compute_86,code=sm_86"}));
  EXPECT_EQ(pairs("nvcc -arch compute_80 -code sm_80"), (S{"arch=compute_80,code=sm_80"}));
  EXPECT_EQ(ParseNvccTargets(SplitCommand("nvcc -arch=native")).unknown, V{"-arch=native"});
  EXPECT_EQ(SplitCommand("a \"b c\" 'd e' f\\ g"), (V{"a", "b c", "d e", "f g"}));
}

}  // namespace
}  // namespace vt::gate
