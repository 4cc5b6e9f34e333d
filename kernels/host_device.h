// VT_HOST_DEVICE marks a function compiled for both the CPU and, under nvcc, the GPU: for the few
// pure functions whose CPU and GPU results must be the same bits.
#pragma once

#if defined(__CUDACC__)
#define VT_HOST_DEVICE __host__ __device__
#else
#define VT_HOST_DEVICE
#endif
