// .vt-gate.yaml: the issue's verbatim config, the shipped examples and this
// repository's own config load; malformed configs fail with file:line.
#include "governance/config.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/governance/git_fixture.h"

namespace vt::gate {
namespace {

TEST(Config, IssueConfigWorksVerbatim) {
  Result<Config> config = ParseConfig(
      "trailers:\n"
      "  first_parent: true\n"
      "  merges: skip\n"
      "  marker: { token: FOLLOWING_AGENTS_PROTOCOL, placement: anywhere }\n",
      "x.yaml");
  ASSERT_TRUE(config.ok()) << config.status().message();
  EXPECT_TRUE(config->trailers.first_parent);
  EXPECT_EQ(config->trailers.merges, MergePolicy::kSkip);
  ASSERT_TRUE(config->trailers.marker.has_value());
  EXPECT_EQ(config->trailers.marker->token, "FOLLOWING_AGENTS_PROTOCOL");
  EXPECT_EQ(config->trailers.marker->placement, MarkerPlacement::kAnywhere);
  EXPECT_EQ(config->base, "origin/main");
  ASSERT_EQ(config->gates.size(), 1u);
  EXPECT_EQ(config->gates[0].name, "trailers");
}

TEST(Config, ShippedConfigsLoad) {
  std::filesystem::path root(VT_SOURCE_DIR);
  std::vector<std::filesystem::path> files = {root / ".vt-gate.yaml"};
  for (const auto& entry : std::filesystem::directory_iterator(root / "governance/examples"))
    files.push_back(entry.path());
  EXPECT_GE(files.size(), 3u);
  for (const auto& file : files) {
    Result<Config> config = LoadConfig(file.string());
    EXPECT_TRUE(config.ok()) << file << ": " << config.status().message();
  }
}

TEST(Config, RepositoryConfigRequiresTheProtocolTrailers) {
  Result<Config> config = LoadConfig(std::string(VT_SOURCE_DIR) + "/.vt-gate.yaml");
  ASSERT_TRUE(config.ok());
  std::vector<std::string> keys;
  for (const TrailerRequirement& r : config->trailers.required) keys.push_back(r.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"Row", "AI-Assisted", "Assisted-by"}));
  EXPECT_EQ(config->base, "origin/main");
  EXPECT_EQ(config->trailers.merges, MergePolicy::kFail);
  EXPECT_TRUE(config->trailers.required[0].in_record) << "Row names a row of the record";
  ASSERT_TRUE(config->trailers.cherry_picks.has_value()) << "cherry-pick provenance is on";
  EXPECT_EQ(config->trailers.cherry_picks->author_waivers, std::vector<std::string>{"Co-authored-by"});
  std::vector<std::string> gates;
  for (const GateSpec& g : config->gates) gates.push_back(g.name);
  EXPECT_EQ(gates, (std::vector<std::string>{"trailers", "record", "intake", "rows", "gencode"}));
}

// Issue #20's record rules are on for vt itself: DONE needs every speed goal met, MEASURED-SHORT
// needs them measured, verdicts come from docs/BENCHMARKS.md, and file ownership is reported (warn).
TEST(Config, RepositoryConfigTurnsOnTheGoalsAndOwnershipRules) {
  Result<Config> config = LoadConfig(std::string(VT_SOURCE_DIR) + "/.vt-gate.yaml");
  ASSERT_TRUE(config.ok()) << config.status().message();
  ASSERT_TRUE(config->record.has_value());
  const RecordConfig& record = *config->record;
  ASSERT_TRUE(record.goals.has_value()) << "record.goals is on";
  EXPECT_EQ(record.goals->verdicts, "docs/BENCHMARKS.md");
  const StateRule* done = record.FindState("DONE");
  const StateRule* short_of_goals = record.FindState("MEASURED-SHORT");
  ASSERT_NE(done, nullptr);
  ASSERT_NE(short_of_goals, nullptr);
  EXPECT_EQ(done->goals, GoalsRule::kMet);
  EXPECT_EQ(short_of_goals->goals, GoalsRule::kMeasured);
  EXPECT_TRUE(short_of_goals->closing) << "a row short of its goals has still landed";
  ASSERT_TRUE(record.ownership.has_value()) << "record.ownership is on";
  EXPECT_EQ(record.ownership->mode, OwnershipMode::kWarn);
  EXPECT_EQ(record.ownership->shared, (std::vector<std::string>{"CMakeLists.txt", "**/CMakeLists.txt"}));
}

TEST(Config, GateSectionsAreValidatedWithFileAndLine) {
  auto error = [](const std::string& yaml) {
    Result<Config> config = ParseConfig(yaml, "x.yaml");
    return config.ok() ? std::string("ok") : config.status().message();
  };
  EXPECT_EQ(
      error("record:\n  files: [a.md]\n  states: {A: {spec: yes, anchor: true}}\n"),
      "x.yaml:3: unknown key 'anchor' in state A (known: anchors, closing, counted, goals, live, owner, spec)");
  EXPECT_EQ(error("record:\n  states: {A: {}}\n"),
            "x.yaml:2: record needs files (globs of the Markdown files that hold the record)");
  EXPECT_EQ(error("rows: {branch: 'row/x'}\n"), "x.yaml:1: branch must contain {id}");
  EXPECT_EQ(error("trailers:\n  required:\n    - {key: Row, in_record: true}\n"),
            "x.yaml:3: in_record needs a record section");
  EXPECT_EQ(error("ratchets:\n  - {gate: recrod, rule: x, baseline: b}\n"),
            "x.yaml:2: unknown built-in gate 'recrod'");
  EXPECT_EQ(error("preflight:\n  gates: [rows]\n"), "x.yaml:2: gate 'rows' needs a record section");
}

TEST(Config, CountSpecs) {
  Result<Config> config = ParseConfig(
      "trailers:\n  required:\n    - {key: A, count: 1}\n    - {key: B, count: '>=2'}\n    - {key: C, count: "
      "'<=1'}\n"
      "    - {key: D, count: '1..3'}\n",
      "x.yaml");
  ASSERT_TRUE(config.ok()) << config.status().message();
  const auto& r = config->trailers.required;
  EXPECT_TRUE(r[0].count.Allows(1));
  EXPECT_FALSE(r[0].count.Allows(2));
  EXPECT_FALSE(r[1].count.Allows(1));
  EXPECT_TRUE(r[1].count.Allows(7));
  EXPECT_TRUE(r[2].count.Allows(0));
  EXPECT_FALSE(r[2].count.Allows(2));
  EXPECT_TRUE(r[3].count.Allows(3));
  EXPECT_FALSE(r[3].count.Allows(4));
}

struct BadConfig {
  const char* yaml;
  const char* expected;  // "x.yaml:LINE: ..." prefix
};

class MalformedConfig : public ::testing::TestWithParam<BadConfig> {};

TEST_P(MalformedConfig, FailsWithFileAndLine) {
  Result<Config> config = ParseConfig(GetParam().yaml, "x.yaml");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().message().rfind(GetParam().expected, 0), 0u) << config.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MalformedConfig,
    ::testing::Values(
        BadConfig{"trailers:\n  merges: sometimes\n", "x.yaml:2: merges must be skip|check"},
        BadConfig{"trailers:\n  requird: []\n", "x.yaml:2: unknown key 'requird'"},
        BadConfig{"trailers:\n  required:\n    - key: Row\n      pattern: '(['\n", "x.yaml:4: pattern"},
        BadConfig{"trailers:\n  required:\n    - key: Row\n      count: lots\n", "x.yaml:4: count"},
        BadConfig{"trailers: [\n", "x.yaml:2:"},
        BadConfig{"trailers:\n  cutover: abc\n", "x.yaml:2: cutover"},
        BadConfig{"preflight:\n  gates:\n    - recrod\n", "x.yaml:3: unknown built-in gate"},
        BadConfig{"preflight:\n  gates:\n    - {name: x}\n", "x.yaml:3: an external gate needs"},
        BadConfig{"trailers:\n  marker: {placement: anywhere}\n", "x.yaml:2: marker needs a token"},
        BadConfig{"trailers:\n  cherry_picks:\n    author_waiver: [Co-authored-by]\n",
                  "x.yaml:3: unknown key 'author_waiver' in cherry_picks (known: author_waivers)"},
        BadConfig{"trailers:\n  cherry_picks:\n    author_waivers: [Co-authored-by]\n    author_waivers: []\n",
                  "x.yaml:4: duplicate key 'author_waivers' (first at line 3)"},
        BadConfig{"trailers:\n  cherry_picks: {author_waivers: ['Co-authored-by:']}\n",
                  "x.yaml:2: author_waivers entry 'Co-authored-by:' must be a trailer key"},
        BadConfig{"- a\n- b\n", "x.yaml:1: the config must be a mapping"},
        BadConfig{"preflight:\n  gates:\n    - trailers\n",
                  "x.yaml:3: gate 'trailers' needs a trailers section"},
        BadConfig{"preflight:\n  gates:\n    - {name: a, run: x}\n    - {name: a, run: y}\n",
                  "x.yaml:4: gate 'a' is listed twice"}));

TEST(Config, MissingAndBinaryFilesAreErrorsNotCrashes) {
  testing::TempDir dir;
  EXPECT_FALSE(LoadConfig(dir.path() + "/absent.yaml").ok());
  std::string binary("trailers:\0\xff\xfe", 13);
  Result<Config> config = LoadConfig(dir.Write("bin.yaml", binary));
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.status().message().find("bin.yaml:1:"), std::string::npos);
}

}  // namespace
}  // namespace vt::gate
