#include "engine/bench/decode_report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace vt::bench {
namespace {

SweepReport TwoLevels() {
  SweepReport r;
  r.model = "preset:tiny";
  r.options = {{1, 2}, 8, 4, 0, 0, 0};
  r.result.backend = "cpu";
  r.result.weight_bytes = 1000;
  r.result.copy_bandwidth_bytes_per_s = 2e9;
  DecodeLevelResult one{1, 4, 0.5, 8.0, {1, 10.0, 10.0}, {1, 2.0, 2.0}, {3, 2.0, 2.5}, {0, 0.0, 0.0}, 1e3, 2e6, 4e-6,
                        800.0, 0.0};
  DecodeLevelResult two{2, 8, 0.5, 16.0, {2, 10.0, 11.0}, {0, 0.0, 0.0}, {4, 1.0, 1.5}, {2, 3.0, 3.5}, 1e3, 4e6, 4e-6,
                        1455.0, 0.0};
  r.result.levels = {one, two};
  return r;
}

TEST(DecodeReport, JsonHasThePinnedShape) {
  const nlohmann::json j = nlohmann::json::parse(SweepJson(TwoLevels()));
  EXPECT_EQ(j["model"], "preset:tiny");
  EXPECT_EQ(j["backend"], "cpu");
  EXPECT_EQ(j["weight_bytes"], 1000);
  EXPECT_DOUBLE_EQ(j["copy_bandwidth_gb_s"].get<double>(), 2.0);
  EXPECT_EQ(j["input_len"], 8);
  EXPECT_EQ(j["output_len"], 4);
  ASSERT_EQ(j["results"].size(), 2u);
  const nlohmann::json& first = j["results"][0];
  EXPECT_EQ(first["concurrency"], 1);
  EXPECT_EQ(first["output_tokens"], 4);
  EXPECT_DOUBLE_EQ(first["seconds"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(first["output_tokens_per_s"].get<double>(), 8.0);
  EXPECT_DOUBLE_EQ(first["ttft_ms"]["median"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(first["tpot_ms"]["p99"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(first["decode_itl_ms"]["p99"].get<double>(), 2.5);
  EXPECT_TRUE(first["prefill_itl_ms"]["median"].is_null());
  EXPECT_DOUBLE_EQ(j["results"][1]["prefill_itl_ms"]["median"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(first["roofline_tokens_per_s"].get<double>(), 2e6);
  EXPECT_DOUBLE_EQ(first["roofline_fraction"].get<double>(), 4e-6);
  // A level without TPOT samples says so instead of claiming 0 ms.
  EXPECT_TRUE(j["results"][1]["tpot_ms"]["median"].is_null());
  EXPECT_DOUBLE_EQ(first["prefill_tokens_per_s"].get<double>(), 800.0);
  // Without a matmul probe (the CPU) there is no MFU to claim, and no peak.
  EXPECT_TRUE(first["prefill_mfu"].is_null());
  EXPECT_DOUBLE_EQ(first["between_steps_us"].get<double>(), 0.0);
  EXPECT_TRUE(j["matmul_tflop_s"].is_null());
}

TEST(DecodeReport, MfuAppearsWithAMatmulPeak) {
  SweepReport r = TwoLevels();
  r.result.matmul_flops_per_s = 800e12;
  r.result.levels[1].prefill_mfu = 0.5625;
  const nlohmann::json j = nlohmann::json::parse(SweepJson(r));
  EXPECT_DOUBLE_EQ(j["matmul_tflop_s"].get<double>(), 800.0);
  EXPECT_DOUBLE_EQ(j["results"][1]["prefill_mfu"].get<double>(), 0.5625);
  const std::string table = SweepTable(r);
  EXPECT_NE(table.find("matmul peak 800.0 TFLOP/s"), std::string::npos) << table;
  EXPECT_NE(table.find("1455    56.2%"), std::string::npos) << table;
}

TEST(DecodeReport, ThroughputReadsBackFromTheJson) {
  Result<std::map<int32_t, double>> t = ThroughputFromSweepJson(SweepJson(TwoLevels()));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(*t, (std::map<int32_t, double>{{1, 8.0}, {2, 16.0}}));
}

TEST(DecodeReport, ThroughputRejectsOtherDocuments) {
  EXPECT_FALSE(ThroughputFromSweepJson("").ok());
  EXPECT_FALSE(ThroughputFromSweepJson("bench decode: c=1: 4/4 tokens").ok());
  EXPECT_FALSE(ThroughputFromSweepJson("{\"results\": [{\"concurrency\": 1}]}").ok());
  EXPECT_FALSE(ThroughputFromSweepJson("[1, 2]").ok());
}

TEST(DecodeReport, TableHasARowPerLevel) {
  const std::string table = SweepTable(TwoLevels());
  EXPECT_NE(table.find("preset:tiny on cpu"), std::string::npos) << table;
  EXPECT_NE(table.find("\n          2       16.0     10.00/11.00    "), std::string::npos) << table;
  EXPECT_NE(table.find("        -/-        "), std::string::npos) << table;  // no TPOT samples at c=2
  EXPECT_NE(table.find("800        -\n"), std::string::npos) << table;    // prefill tok/s, no MFU without a peak
  int lines = 0;
  for (char c : table) lines += c == '\n';
  EXPECT_EQ(lines, 4);  // header, column names, two levels
}

}  // namespace
}  // namespace vt::bench
