// vt's NFC against Python's unicodedata on strings that exercise every step of the algorithm
// (tests/fixtures/tokenizer/make_nfc_goldens.py): decomposition, canonical ordering, composition and blocking,
// Hangul, singletons, composition exclusions, and random mixes of letters and marks.
#include "engine/tokenizer/nfc.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace vt {
namespace {

TEST(Nfc, MatchesPythonUnicodedata) {
  std::ifstream in(std::string(VT_SOURCE_DIR) + "/tests/fixtures/tokenizer/nfc_goldens.json");
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json goldens = nlohmann::json::parse(text.str());
  int changed = 0;
  for (const nlohmann::json& c : goldens["cases"]) {
    const std::string input = c["input"], want = c["nfc"];
    EXPECT_EQ(ComposeNfc(input), want) << "input " << nlohmann::json(input).dump();
    changed += input != want;
  }
  EXPECT_GT(changed, 60);  // the goldens really exercise normalisation
}

TEST(Nfc, TextBelowU0300IsReturnedAsIs) {
  const std::string latin1 = "caf\xc3\xa9 na\xc3\xafve \xc3\x85ngstr\xc3\xb6m";
  EXPECT_EQ(ComposeNfc(latin1), latin1);
}

}  // namespace
}  // namespace vt
