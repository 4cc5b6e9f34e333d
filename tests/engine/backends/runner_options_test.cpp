// VT_* settings parsed once into typed runner options: defaults are what users get, bad values
// are errors naming the setting.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "engine/backends/runner_options.h"

namespace vt {
namespace {

Result<RunnerOptions> Parse(const std::map<std::string, std::string>& values) {
  return ParseRunnerOptions([&](const char* name) -> const char* {
    auto it = values.find(name);
    return it == values.end() ? nullptr : it->second.c_str();
  });
}

TEST(RunnerOptions, UnsetMeansTheDefaultsUsersGet) {
  Result<RunnerOptions> o = Parse({});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->num_threads, 0);
  EXPECT_EQ(o->attention.arm, kernels::cuda::DecodeArm::kAuto);
  EXPECT_EQ(o->attention.split_tokens, kernels::cuda::kSplitAuto);
  EXPECT_TRUE(o->tensor_core_prefill);
  EXPECT_TRUE(o->cuda_graphs);
  EXPECT_TRUE(o->skinny_dense_gemm);
  EXPECT_FALSE(o->batch_dense_gemm);
  EXPECT_TRUE(o->chosen_w4a16_forms);
  EXPECT_TRUE(o->dequantised_large_w4a16);
  EXPECT_TRUE(o->dependent_launch);
  EXPECT_TRUE(o->warpgroup_prefill);
  EXPECT_FALSE(o->fused_decode_mlp);
  // A default-constructed RunnerOptions is the same as an empty environment.
  const RunnerOptions d;
  EXPECT_EQ(d.attention.split_tokens, o->attention.split_tokens);
}

TEST(RunnerOptions, EachSettingReachesItsField) {
  Result<RunnerOptions> o = Parse({{"VT_NUM_THREADS", "3"},
                                   {"VT_ATTN_DECODE", "warp"},
                                   {"VT_ATTN_SPLIT", "256"},
                                   {"VT_ATTN_PREFILL", "decode"},
                                   {"VT_ATTN_PREFILL_MMA", "warp"},
                                   {"VT_CUDA_GRAPHS", "0"},
                                   {"VT_DENSE_GEMM", "cublas"},
                                   {"VT_DENSE_GEMM_MID", "batch"},
                                   {"VT_W4A16_FORM", "spread"},
                                   {"VT_W4A16_LARGE", "kernel"},
                                   {"VT_PDL", "0"},
                                   {"VT_DECODE_MLP", "fused"}});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->num_threads, 3);
  EXPECT_EQ(o->attention.arm, kernels::cuda::DecodeArm::kWarp);
  EXPECT_EQ(o->attention.split_tokens, 256);
  EXPECT_FALSE(o->tensor_core_prefill);
  EXPECT_FALSE(o->warpgroup_prefill);
  EXPECT_FALSE(o->cuda_graphs);
  EXPECT_FALSE(o->skinny_dense_gemm);
  EXPECT_TRUE(o->batch_dense_gemm);
  EXPECT_FALSE(o->chosen_w4a16_forms);
  EXPECT_FALSE(o->dequantised_large_w4a16);
  EXPECT_FALSE(o->dependent_launch);
  EXPECT_TRUE(o->fused_decode_mlp);
}

// A count's bounds are themselves accepted.
TEST(RunnerOptions, CountsTakeTheirBounds) {
  for (const char* threads : {"1", "4096"}) {
    Result<RunnerOptions> o = Parse({{"VT_NUM_THREADS", threads}});
    ASSERT_TRUE(o.ok()) << threads << ": " << o.status().message();
    EXPECT_EQ(o->num_threads, std::stoi(threads));
  }
}

TEST(RunnerOptions, ABadValueNamesItsSetting) {
  const std::map<std::string, std::string> bad[] = {{{"VT_NUM_THREADS", "many"}}, {{"VT_NUM_THREADS", "0"}}, {{"VT_NUM_THREADS", "4097"}},
                                                    {{"VT_NUM_THREADS", "99999999999999999999"}}, {{"VT_NUM_THREADS", "3 "}},
                                                    {{"VT_NUM_THREADS", "-2"}},
                                                    {{"VT_ATTN_DECODE", "fast"}}, {{"VT_ATTN_SPLIT", "-5"}},
                                                    {{"VT_ATTN_PREFILL", "flash"}}, {{"VT_ATTN_PREFILL_MMA", "wgmma"}},
                                                    {{"VT_CUDA_GRAPHS", "yes"}},
                                                    {{"VT_DENSE_GEMM", "gemv"}}, {{"VT_DENSE_GEMM_MID", "on"}},
                                                    {{"VT_W4A16_FORM", "stack"}}, {{"VT_W4A16_LARGE", "tile"}},
                                                    {{"VT_PDL", "2"}}, {{"VT_DECODE_MLP", "persistent"}}};
  for (const auto& values : bad) {
    const std::string& name = values.begin()->first;
    SCOPED_TRACE(name + "=" + values.begin()->second);
    Result<RunnerOptions> o = Parse(values);
    ASSERT_FALSE(o.ok());
    EXPECT_NE(o.status().message().find(name), std::string::npos) << o.status().message();
    EXPECT_NE(o.status().message().find(values.begin()->second), std::string::npos) << o.status().message();
  }
}

}  // namespace
}  // namespace vt
