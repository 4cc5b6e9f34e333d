// Programmatic dependent launch (PDL, sm_90 and newer). A decode step is a chain of a few hundred
// short kernels, and between two of them the GPU drains one grid before it starts launching the
// next: a few microseconds per boundary, a third of a small model's step (docs/BENCHMARKS.md, issue
// #17). A kernel launched with LaunchDependent may be launched while the kernel before it in the
// stream still runs; it calls AwaitPrecedingGrid() before its first access to memory that a kernel of
// the step writes, which returns once that kernel has finished and its writes are visible, and then
// lets the kernel after it launch in turn. Before it a kernel may read only what no kernel of the step
// writes (the persist arm's older keys). Only launches and those
// reads overlap, never the work, so results are the same bits either way.
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

// Sets the calling thread's switch for the scope and restores what it was, on every way out.
class ScopedDependentLaunch {
 public:
  explicit ScopedDependentLaunch(bool on) : was_(DependentLaunchOn()) { SetDependentLaunch(on); }
  ~ScopedDependentLaunch() { SetDependentLaunch(was_); }
  ScopedDependentLaunch(const ScopedDependentLaunch&) = delete;
  ScopedDependentLaunch& operator=(const ScopedDependentLaunch&) = delete;

 private:
  bool was_;
};

#ifdef __CUDACC__

// The wait alone: the kernel after this one launches only once this one's CTAs have all exited
// (the unsplit decode attention, whose successor launched early cost 9% at batch 4: warp_subtile.cuh).
__device__ __forceinline__ void AwaitPrecedingGridOnly() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// In every kernel that LaunchDependent launches, before any early return and before its first access
// to memory a kernel of the step writes: the wait, then the kernel after this one may launch.
__device__ __forceinline__ void AwaitPrecedingGrid() {
  AwaitPrecedingGridOnly();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Where a launch's CTAs go beyond grid and block: thread-block clusters of `cluster_x` CTAs along x
// (1: no cluster; grid.x must be a multiple), and `cooperative`: every CTA resident at once, for
// kernels with grid-wide barriers (a grid larger than one wave fails to launch instead of hanging).
struct LaunchPlacement {
  unsigned cluster_x = 1;
  bool cooperative = false;
};

// kernel<<<grid, block, smem, stream>>>(args...) placed as `placement` says, as a dependent launch
// when the switch is on; the launch's error, or else the error a launch before it left (as
// cudaGetLastError after <<<>>>).
template <typename... Params, typename... Args>
cudaError_t LaunchDependentPlaced(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem, cudaStream_t stream,
                                  LaunchPlacement placement, Args... args) {
  cudaLaunchAttribute attrs[3];
  unsigned count = 0;
  if (DependentLaunchOn()) {
    attrs[count].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attrs[count++].val.programmaticStreamSerializationAllowed = 1;
  }
  if (placement.cluster_x > 1) {
    attrs[count].id = cudaLaunchAttributeClusterDimension;
    attrs[count].val.clusterDim.x = placement.cluster_x;
    attrs[count].val.clusterDim.y = 1;
    attrs[count++].val.clusterDim.z = 1;
  }
  if (placement.cooperative) {
    attrs[count].id = cudaLaunchAttributeCooperative;
    attrs[count++].val.cooperative = 1;
  }
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  config.attrs = attrs;
  config.numAttrs = count;
  const cudaError_t launched = cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...);
  const cudaError_t pending = cudaGetLastError();
  return launched != cudaSuccess ? launched : pending;
}

// In thread-block clusters of `cluster_x` CTAs along x.
template <typename... Params, typename... Args>
cudaError_t LaunchDependentClustered(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem,
                                     cudaStream_t stream, unsigned cluster_x, Args... args) {
  return LaunchDependentPlaced(kernel, grid, block, smem, stream, LaunchPlacement{cluster_x, false}, args...);
}

// The same without clusters.
template <typename... Params, typename... Args>
cudaError_t LaunchDependent(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem, cudaStream_t stream,
                            Args... args) {
  return LaunchDependentClustered(kernel, grid, block, smem, stream, 1u, args...);
}

#endif  // __CUDACC__

}  // namespace vt::kernels::cuda
