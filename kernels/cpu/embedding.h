// Token embedding lookup: one widened row of the table per token.
#pragma once

#include <cstdint>

#include "kernels/cpu/dtype.h"

namespace vt::kernels::cpu {

// table: [vocab, hidden]; out: float [n, hidden]. Ids must be < table.rows
// (the executor validates them before the forward).
void Embedding(const WeightMatrix& table, const int32_t* ids, int64_t n, float* out);

// A vocabulary-parallel slice of the table: `table` holds ids [first_id, first_id + table.rows);
// other ids get zero rows, so summing the slices' outputs over the ranks gives the full lookup.
void EmbeddingSlice(const WeightMatrix& table, int64_t first_id, const int32_t* ids, int64_t n, float* out);

}  // namespace vt::kernels::cpu
