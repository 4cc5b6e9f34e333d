// Decode steps as CUDA graphs: one captured per batch-size bucket, replayed with the bucket's
// padded inputs; every other step runs eagerly.
#include "engine/backends/cuda/cuda_runner.h"


namespace vt::cuda_backend {

Status CudaModelRunner::CaptureDecodeGraphs() {
  if (!options_.tuning.cuda_graphs) return Status::Ok();
  for (int b = 1; b < max_seqs_; b *= 2) graph_buckets_.push_back(b);
  graph_buckets_.push_back(max_seqs_);
  // Captured with the longest context the runner serves: the attention plan (split chunks
  // included) is then the same for every step the graph replays.
  const int max_context = int(options_.max_model_len);
  for (int bucket : graph_buckets_) {
    VT_RETURN_IF_ERROR(inputs_->Pad(0, bucket));
    VT_RETURN_IF_ERROR(CopyInputs(bucket));
    // One eager run first: modules load and cuBLAS picks its kernels outside the capture.
    VT_RETURN_IF_ERROR(EnqueueForward(nullptr, StagedStep{bucket, bucket, max_context, /*decode_only=*/true, bucket}));
    VT_RETURN_IF_ERROR(CudaCheck(cudaStreamSynchronize(stream_), "warming up a decode graph"));
    VT_RETURN_IF_ERROR(CudaCheck(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal),
                                 "capturing a decode graph"));
    const Status enqueued = EnqueueForward(nullptr, StagedStep{bucket, bucket, max_context, /*decode_only=*/true, bucket});
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(stream_, &graph);
    if (!enqueued.ok() || ended != cudaSuccess) {
      if (graph != nullptr) cudaGraphDestroy(graph);
      VT_RETURN_IF_ERROR(enqueued);
      return CudaCheck(ended, "capturing a decode graph");
    }
    cudaGraphExec_t exec = nullptr;
    const cudaError_t instantiated = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    VT_RETURN_IF_ERROR(CudaCheck(instantiated, "instantiating a decode graph"));
    graphs_.push_back(exec);
  }
  return CudaCheck(cudaStreamSynchronize(stream_), "capturing decode graphs");
}

int CudaModelRunner::GraphBucket(int tokens) const {
  for (size_t i = 0; i < graph_buckets_.size(); ++i) {
    if (graph_buckets_[i] >= tokens) return int(i);
  }
  return -1;
}

Status CudaModelRunner::Enqueue(const std::vector<ForwardSeq>& batch, const StagedStep& staged) {
  const int bucket = staged.decode_only ? GraphBucket(staged.tokens) : -1;
  if (bucket >= 0 && size_t(bucket) < graphs_.size()) {
    const int padded = graph_buckets_[size_t(bucket)];
    VT_RETURN_IF_ERROR(inputs_->Pad(staged.tokens, padded));
    VT_RETURN_IF_ERROR(CopyInputs(padded));
    return CudaCheck(cudaGraphLaunch(graphs_[size_t(bucket)], stream_), "replaying a decode graph");
  }
  VT_RETURN_IF_ERROR(CopyInputs(int(batch.size())));
  return EnqueueForward(&batch, staged);
}

}  // namespace vt::cuda_backend
