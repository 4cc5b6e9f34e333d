// The one end-of-sequence policy.
#include <gtest/gtest.h>

#include "engine/exec/eos_policy.h"

namespace vt {
namespace {

ModelConfig ModelWithEos(std::vector<int32_t> eos) {
  ModelConfig m;
  m.vocab_size = 1000;
  m.eos_token_ids = std::move(eos);
  return m;
}

TEST(EosPolicy, TheModelsOwnIdsUnlessTheCallerNamesSome) {
  const ModelConfig model = ModelWithEos({2, 7});
  EXPECT_EQ(ResolveEosTokenIds({}, model), (std::vector<int32_t>{2, 7}));
  EXPECT_EQ(ResolveEosTokenIds({9}, model), (std::vector<int32_t>{9}));
}

TEST(EosPolicy, DropsIdsNoTokenOfTheVocabularyCanMatch) {
  EXPECT_EQ(ResolveEosTokenIds({}, ModelWithEos({-1, 5, 1000, 999})), (std::vector<int32_t>{5, 999}));
  EXPECT_TRUE(ResolveEosTokenIds({}, ModelWithEos({})).empty());
}

}  // namespace
}  // namespace vt
