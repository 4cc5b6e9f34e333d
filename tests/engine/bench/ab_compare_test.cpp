#include "engine/bench/ab_compare.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace vt::bench {
namespace {

TEST(AbCompare, ParsesNameEqualsValue) {
  Result<EnvSetting> s = ParseEnvSetting("VT_ATTN_DECODE=block");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->name, "VT_ATTN_DECODE");
  EXPECT_EQ(s->value, "block");
  // The value may be empty or hold further '='.
  EXPECT_EQ(ParseEnvSetting("X=")->value, "");
  EXPECT_EQ(ParseEnvSetting("X=a=b")->value, "a=b");
}

TEST(AbCompare, RejectsWhatIsNotASetting) {
  for (const char* bad : {"VT_ATTN_DECODE", "=block", "1X=2", "A B=1", ""}) {
    Result<EnvSetting> s = ParseEnvSetting(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.status().message().find("NAME=VALUE"), std::string::npos);
  }
}

TEST(AbCompare, PairsRoundsAndTakesTheMedianRatio) {
  const std::vector<ThroughputByConcurrency> a = {{{1, 100.0}, {4, 400.0}}, {{1, 100.0}, {4, 400.0}},
                                                  {{1, 100.0}, {4, 500.0}}};
  const std::vector<ThroughputByConcurrency> b = {{{1, 110.0}, {4, 400.0}}, {{1, 90.0}, {4, 600.0}},
                                                  {{1, 150.0}, {4, 500.0}}};
  Result<std::vector<AbLevel>> levels = CompareAbRuns(a, b);
  ASSERT_TRUE(levels.ok()) << levels.status().message();
  ASSERT_EQ(levels->size(), 2u);
  const AbLevel& c1 = (*levels)[0];
  EXPECT_EQ(c1.concurrency, 1);
  ASSERT_EQ(c1.ratios.size(), 3u);
  EXPECT_DOUBLE_EQ(c1.ratios[0], 1.1);
  EXPECT_DOUBLE_EQ(c1.ratios[1], 0.9);
  EXPECT_DOUBLE_EQ(c1.ratios[2], 1.5);
  EXPECT_DOUBLE_EQ(c1.median_ratio, 1.1);
  const AbLevel& c4 = (*levels)[1];
  EXPECT_EQ(c4.concurrency, 4);
  EXPECT_DOUBLE_EQ(c4.median_ratio, 1.0);  // ratios 1.0, 1.5, 1.0
  EXPECT_EQ(c4.a_tokens_per_s, (std::vector<double>{400.0, 400.0, 500.0}));
}

TEST(AbCompare, EvenRoundCountsAverageTheMiddleRatios) {
  Result<std::vector<AbLevel>> levels =
      CompareAbRuns({{{2, 100.0}}, {{2, 100.0}}}, {{{2, 120.0}}, {{2, 100.0}}});
  ASSERT_TRUE(levels.ok());
  EXPECT_DOUBLE_EQ((*levels)[0].median_ratio, 1.1);
}

TEST(AbCompare, UnpairedOrMismatchedRunsAreErrors) {
  EXPECT_FALSE(CompareAbRuns({{{1, 1.0}}}, {}).ok());
  EXPECT_FALSE(CompareAbRuns({}, {}).ok());
  EXPECT_FALSE(CompareAbRuns({{{1, 1.0}}}, {{{2, 1.0}}}).ok());
  EXPECT_FALSE(CompareAbRuns({{{1, 1.0}}, {{1, 1.0}, {2, 1.0}}}, {{{1, 1.0}}, {{1, 1.0}, {2, 1.0}}}).ok());
  EXPECT_FALSE(CompareAbRuns({{{1, 0.0}}}, {{{1, 1.0}}}).ok());
}

TEST(AbCompare, JsonAndTableCarryEveryRatio) {
  Result<std::vector<AbLevel>> levels = CompareAbRuns({{{1, 100.0}}, {{1, 100.0}}}, {{{1, 125.0}}, {{1, 75.0}}});
  ASSERT_TRUE(levels.ok());
  const AbReport report{{"X", "a"}, {"X", "b"}, 2, *levels};
  const nlohmann::json j = nlohmann::json::parse(AbJson(report));
  EXPECT_EQ(j["a"], "X=a");
  EXPECT_EQ(j["b"], "X=b");
  EXPECT_EQ(j["rounds"], 2);
  ASSERT_EQ(j["results"].size(), 1u);
  EXPECT_EQ(j["results"][0]["concurrency"], 1);
  EXPECT_EQ(j["results"][0]["ratios"].size(), 2u);
  EXPECT_DOUBLE_EQ(j["results"][0]["median_ratio"].get<double>(), 1.0);
  const std::string table = AbTable(report);
  EXPECT_NE(table.find("1.250 0.750"), std::string::npos) << table;
  EXPECT_NE(table.find("A: X=a"), std::string::npos) << table;
}

}  // namespace
}  // namespace vt::bench
