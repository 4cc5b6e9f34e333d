// The two collectives a tensor-parallel forward needs, over the ranks of one group: summing the
// row-parallel layers' partial outputs, and gathering the vocabulary slices of the logits. NCCL
// provides them on GPUs; host_collective.h between threads of one process (the CPU reference).
#pragma once

#include <cstdint>

namespace vt {

class Collective {
 public:
  virtual ~Collective() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Every rank's `data[0, n)` becomes the element-wise sum over the ranks, the same bits on all.
  virtual void AllReduceSum(float* data, int64_t n) = 0;
  // `rows` rows of `width` values per rank become rows of size() x width: rank r's block at
  // columns [r x width, (r + 1) x width) of every row of `out`.
  virtual void AllGatherColumns(const float* in, int64_t rows, int64_t width, float* out) = 0;
};

}  // namespace vt
