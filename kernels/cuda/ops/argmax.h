// Greedy sampling on the device: each row's argmax over its logits, so that only token ids cross to
// the host. A decode step ends with it, right after the lm_head GEMM, so its time is all on the step's
// critical path.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "base/status.h"

namespace vt::kernels::cuda {

// What the bf16 argmax needs between its CTAs for up to `rows` rows: a block a row (a ticket and the
// slices' maxima), row r's at the same place in calls of any row count. Zeroed once before its first
// use (cudaMemset); every call leaves its rows' tickets at zero again, so calls of any size follow one
// another and a CUDA graph replays the call without a reset.
size_t ArgmaxWorkspaceBytes(int rows);

// out[r] = argmax over logits[r, :vocab] (float32), the lowest index on ties; rows whose logits
// are all NaN or -inf give token 0. One CTA a row.
Status ArgmaxRows(const float* logits, int rows, int vocab, int32_t* out, cudaStream_t stream);

// The same over bf16 logits, as the lm_head GEMM writes them. A row is read by several CTAs (one SM
// streams a 150k vocabulary at a fraction of the GPU's bandwidth, alone at the step's end); the last
// of them to finish folds their maxima. `workspace` holds ArgmaxWorkspaceBytes(rows).
Status ArgmaxRowsBf16(const uint16_t* logits, int rows, int vocab, int32_t* out, void* workspace,
                      cudaStream_t stream);

}  // namespace vt::kernels::cuda
