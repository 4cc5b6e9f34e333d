// The tensor-parallel group's NCCL communicators (engine/backends/cuda/nccl_group.h): named errors
// for sizes it cannot serve, and the two collectives' results on one GPU (a group of one) and on two
// where the machine has them. Each GPU case skips with its reason where the GPUs or NCCL are missing.
#include "engine/backends/cuda/nccl_group.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "tests/kernels/cuda/gpu_test_support.h"

namespace vt::cuda_backend {
namespace {

// A failed CUDA call fails the test, naming the call.
void Cuda(cudaError_t err, const char* what) {
  if (err != cudaSuccess) ADD_FAILURE() << what << ": " << cudaGetErrorString(err);
}

int VisibleGpus() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

// A group of `size`, or null with why not in `skip` (too few GPUs, NCCL not installed).
std::unique_ptr<NcclGroup> GroupOf(int size, std::string* skip) {
  if (VisibleGpus() < size) {
    *skip = "needs " + std::to_string(size) + " GPUs; " + std::to_string(VisibleGpus()) + " visible";
    return nullptr;
  }
  Result<std::unique_ptr<NcclGroup>> group = NcclGroup::Create(size);
  if (!group.ok() && group.status().code() == StatusCode::kUnavailable) {
    *skip = group.status().message();
    return nullptr;
  }
  EXPECT_TRUE(group.ok()) << group.status().message();
  return group.ok() ? std::move(group.value()) : nullptr;
}

TEST(NcclGroup, SizesItCannotServeAreNamed) {
  Result<std::unique_ptr<NcclGroup>> zero = NcclGroup::Create(0);
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.status().message().find("must be at least 1"), std::string::npos) << zero.status().message();
  testing::SkipWithoutGpu();
  if (IsSkipped()) return;
  const int visible = VisibleGpus();
  Result<std::unique_ptr<NcclGroup>> too_many = NcclGroup::Create(visible + 1);
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.status().message().find("needs " + std::to_string(visible + 1) + " GPUs; " +
                                             std::to_string(visible) + " visible"),
            std::string::npos)
      << too_many.status().message();
}

// One rank per thread, each on its own device and stream, as the engine drives them.
void OnEveryRank(NcclGroup& group, const std::function<void(int, cudaStream_t)>& body) {
  std::vector<std::thread> threads;
  for (int rank = 0; rank < group.size(); ++rank) {
    threads.emplace_back([&, rank] {
      Cuda(cudaSetDevice(rank), "set device");
      cudaStream_t stream = nullptr;
      Cuda(cudaStreamCreate(&stream), "stream");
      body(rank, stream);
      Cuda(cudaStreamSynchronize(stream), "sync");
      Cuda(cudaStreamDestroy(stream), "stream");
    });
  }
  for (std::thread& t : threads) t.join();
}

// Returns why it could not run, or "" when it ran.
std::string ExpectCollectivesOver(int size) {
  std::string skip;
  std::unique_ptr<NcclGroup> group = GroupOf(size, &skip);
  if (!group) return skip.empty() ? "the group could not be made" : skip;
  constexpr size_t kCount = 1000;
  std::vector<std::vector<float>> summed(static_cast<size_t>(size));
  std::vector<std::vector<float>> gathered(static_cast<size_t>(size));
  OnEveryRank(*group, [&](int rank, cudaStream_t stream) {
    std::vector<float> mine(kCount);
    for (size_t i = 0; i < kCount; ++i) mine[i] = float(rank + 1) * float(i % 7);
    float *data = nullptr, *all = nullptr;
    Cuda(cudaMalloc(&data, kCount * sizeof(float)), "data buffer");
    Cuda(cudaMemcpy(data, mine.data(), kCount * sizeof(float), cudaMemcpyHostToDevice), "upload");
    Cuda(cudaMalloc(&all, kCount * size_t(size) * sizeof(float)), "gather buffer");
    EXPECT_TRUE(group->AllGather(rank, data, all, kCount, ncclFloat32, stream).ok());
    EXPECT_TRUE(group->AllReduceSum(rank, data, kCount, ncclFloat32, stream).ok());
    Cuda(cudaStreamSynchronize(stream), "sync");
    summed[size_t(rank)].resize(kCount);
    gathered[size_t(rank)].resize(kCount * size_t(size));
    Cuda(cudaMemcpy(summed[size_t(rank)].data(), data, kCount * sizeof(float), cudaMemcpyDeviceToHost), "download");
    Cuda(cudaMemcpy(gathered[size_t(rank)].data(), all, kCount * size_t(size) * sizeof(float), cudaMemcpyDeviceToHost),
         "download");
    cudaFree(data);
    cudaFree(all);
  });
  const float ranks_sum = float(size * (size + 1) / 2);
  int wrong = 0;
  for (int rank = 0; rank < size; ++rank) {
    for (size_t i = 0; i < kCount; ++i) {
      if (summed[size_t(rank)][i] != ranks_sum * float(i % 7) && wrong++ == 0) {
        ADD_FAILURE() << "rank " << rank << " sum element " << i << ": " << summed[size_t(rank)][i];
      }
      for (int from = 0; from < size; ++from) {
        const float got = gathered[size_t(rank)][size_t(from) * kCount + i];
        if (got != float(from + 1) * float(i % 7) && wrong++ == 0) {
          ADD_FAILURE() << "rank " << rank << " gathered block " << from << " element " << i << ": " << got;
        }
      }
    }
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_FALSE(group->AllReduceSum(size, nullptr, 1, ncclFloat32, nullptr).ok()) << "a rank outside the group";
  return "";
}

TEST(NcclGroup, OneGpuIsAGroupOfOne) {
  if (const std::string skip = ExpectCollectivesOver(1); !skip.empty()) GTEST_SKIP() << skip;
}

TEST(NcclGroup, TwoGpusSumAndGatherTheirData) {
  if (const std::string skip = ExpectCollectivesOver(2); !skip.empty()) GTEST_SKIP() << skip;
}

}  // namespace
}  // namespace vt::cuda_backend
