// The device forward's step inputs, staged on the host: what each token's slot, position,
// context and table row become, how padding rows look, and that input the device must not see
// (it would turn into out-of-bounds writes there) is an error instead.
#include "engine/exec/step_inputs.h"

#include <gtest/gtest.h>

#include <vector>

namespace vt {
namespace {

constexpr StepCapacity kCapacity{/*max_tokens=*/16, /*max_seqs=*/4, /*max_blocks_per_seq=*/8, /*block_size=*/4,
                                 /*num_blocks=*/32, /*vocab_size=*/100};

class Staging : public ::testing::Test {
 protected:
  Staging() : inputs_(kCapacity), buffer_(inputs_.layout().bytes) { inputs_.Bind(buffer_.data()); }

  template <typename T>
  std::vector<T> Array(size_t offset, size_t n) const {
    const T* p = inputs_.At<T>(offset);
    return std::vector<T>(p, p + n);
  }

  StepInputs inputs_;
  std::vector<unsigned char> buffer_;
};

TEST_F(Staging, PrefillAndDecodeTokensGetTheirSlotsPositionsAndRows) {
  const std::vector<int32_t> prompt = {5, 6, 7}, next = {9};
  const std::vector<int32_t> table_a = {10, 11}, table_b = {3, 20, 21, 22, 23};
  const std::vector<ForwardSeq> batch = {
      {prompt.data(), 3, 0, table_a.data(), 2, true},   // prefill of positions 0-2
      {next.data(), 1, 17, table_b.data(), 5, true}};   // decode at position 17: block 4, offset 1
  StagedStep staged;
  ASSERT_TRUE(inputs_.Stage(batch, &staged).ok());
  EXPECT_EQ(staged.tokens, 4);
  EXPECT_EQ(staged.rows, 2);
  EXPECT_EQ(staged.max_context, 18);
  EXPECT_FALSE(staged.decode_only);
  EXPECT_EQ(staged.leading_single_tokens, 0) << "the step starts with a prefill";
  const StepInputs::Layout& l = inputs_.layout();
  EXPECT_EQ(Array<int32_t>(l.token_ids, 4), (std::vector<int32_t>{5, 6, 7, 9}));
  EXPECT_EQ(Array<int32_t>(l.positions, 4), (std::vector<int32_t>{0, 1, 2, 17}));
  EXPECT_EQ(Array<int32_t>(l.seq_of_token, 4), (std::vector<int32_t>{0, 0, 0, 1}));
  EXPECT_EQ(Array<int32_t>(l.context_lens, 4), (std::vector<int32_t>{1, 2, 3, 18}));
  EXPECT_EQ(Array<int64_t>(l.slots, 4), (std::vector<int64_t>{40, 41, 42, 23 * 4 + 1}));
  const std::vector<int32_t> tables = Array<int32_t>(l.block_tables, 16);
  EXPECT_EQ(std::vector<int32_t>(tables.begin(), tables.begin() + 2), table_a);
  EXPECT_EQ(std::vector<int32_t>(tables.begin() + 8, tables.begin() + 13), table_b);
  EXPECT_EQ(inputs_.BytesThroughTableRow(2), l.block_tables + 2 * 8 * 4);
}

TEST_F(Staging, DecodeBatchesAreMarkedAndPaddingWritesNothing) {
  const std::vector<int32_t> a = {1}, b = {2}, table = {7, 8};
  StagedStep staged;
  ASSERT_TRUE(inputs_.Stage({{a.data(), 1, 4, table.data(), 2, true}, {b.data(), 1, 0, table.data(), 1, true}}, &staged).ok());
  EXPECT_TRUE(staged.decode_only);
  EXPECT_EQ(staged.leading_single_tokens, 2);
  ASSERT_TRUE(inputs_.Pad(2, 4).ok());
  const StepInputs::Layout& l = inputs_.layout();
  EXPECT_EQ(Array<int64_t>(l.slots, 4), (std::vector<int64_t>{8 * 4, 7 * 4, -1, -1}));
  EXPECT_EQ(Array<int32_t>(l.seq_of_token, 4), (std::vector<int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(Array<int32_t>(l.context_lens, 4), (std::vector<int32_t>{5, 1, 1, 1}));
  EXPECT_EQ(inputs_.At<int32_t>(l.block_tables)[2 * 8], 0);
  EXPECT_EQ(inputs_.At<int32_t>(l.block_tables)[3 * 8], 0);
  EXPECT_FALSE(inputs_.Pad(2, 5).ok()) << "past max_seqs";

  // Decodes first, then a prefill chunk: the two decode tokens lead.
  const std::vector<int32_t> chunk = {3, 4, 5};
  ASSERT_TRUE(inputs_.Stage({{a.data(), 1, 4, table.data(), 2, true}, {b.data(), 1, 0, table.data(), 1, true},
                             {chunk.data(), 3, 0, table.data(), 1, true}},
                            &staged)
                  .ok());
  EXPECT_EQ(staged.leading_single_tokens, 2);
  EXPECT_FALSE(staged.decode_only);

  // A chunk that does not sample is not a decode step, even at one token.
  ASSERT_TRUE(inputs_.Stage({{a.data(), 1, 4, table.data(), 2, false}}, &staged).ok());
  EXPECT_FALSE(staged.decode_only);
}

TEST_F(Staging, InputThatWouldWriteOutOfBoundsIsAnError) {
  const std::vector<int32_t> ok = {1}, bad_token = {100}, table = {0, 1}, bad_table = {0, 32};
  StagedStep staged;
  EXPECT_FALSE(inputs_.Stage({{bad_token.data(), 1, 0, table.data(), 2, true}}, &staged).ok()) << "token id";
  EXPECT_FALSE(inputs_.Stage({{ok.data(), 1, 4, bad_table.data(), 2, true}}, &staged).ok()) << "block id";
  EXPECT_FALSE(inputs_.Stage({{ok.data(), 1, 8, table.data(), 2, true}}, &staged).ok()) << "position without a block";
  EXPECT_FALSE(inputs_.Stage({{ok.data(), 1, -1, table.data(), 2, true}}, &staged).ok()) << "negative position";
  EXPECT_FALSE(inputs_.Stage({{ok.data(), 0, 0, table.data(), 2, true}}, &staged).ok()) << "empty sequence";
  const std::vector<int32_t> many(17, 1), long_table(9, 0);
  EXPECT_FALSE(inputs_.Stage({{many.data(), 17, 0, long_table.data(), 5, true}}, &staged).ok()) << "tokens";
  EXPECT_FALSE(inputs_.Stage({{ok.data(), 1, 0, long_table.data(), 9, true}}, &staged).ok()) << "table row";
  const ForwardSeq one{ok.data(), 1, 0, table.data(), 2, true};
  EXPECT_FALSE(inputs_.Stage({one, one, one, one, one}, &staged).ok()) << "sequences";
  EXPECT_TRUE(inputs_.Stage({one, one, one, one}, &staged).ok());
}

}  // namespace
}  // namespace vt
