// Programmatic dependent launch (PDL, sm_90 and newer). A decode step is a chain of a few hundred
// short kernels, and between two of them the GPU drains one grid before it starts launching the
// next: a few microseconds per boundary, a third of a small model's step (docs/BENCHMARKS.md, issue
// #17). A kernel launched with LaunchDependent may be launched while the kernel before it in the
// stream still runs; it calls AwaitPrecedingGrid() before its first memory access, which returns once
// that kernel has finished and its writes are visible, and then lets the kernel after it launch in
// turn. Only the launch overlaps, never the work, so results are the same bits either way.
//
// The switch belongs to the calling thread (every kernel a thread launches or captures reads it; a
// thread drives one GPU's step); the CUDA runner sets it before each step from VT_PDL and the step's
// size, kernel tests and benchmarks leave it off unless they ask.
#pragma once

#include <cuda_runtime.h>

namespace vt::kernels::cuda {

// Turns dependent launches on (where the device is sm_90 or newer) or off for the calling thread.
void SetDependentLaunch(bool on);
bool DependentLaunchOn();

#ifdef __CUDACC__

// The first statement of every kernel that LaunchDependent launches, before any early return.
__device__ __forceinline__ void AwaitPrecedingGrid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// kernel<<<grid, block, smem, stream>>>(args...), as a dependent launch when the switch is on; the
// launch's error, or else the error a launch before it left (as cudaGetLastError after <<<>>>).
template <typename... Params, typename... Args>
cudaError_t LaunchDependent(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem, cudaStream_t stream,
                            Args... args) {
  cudaLaunchAttribute dependent[1];
  dependent[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  dependent[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  config.attrs = dependent;
  config.numAttrs = DependentLaunchOn() ? 1 : 0;
  const cudaError_t launched = cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...);
  const cudaError_t pending = cudaGetLastError();
  return launched != cudaSuccess ? launched : pending;
}

#endif  // __CUDACC__

}  // namespace vt::kernels::cuda
