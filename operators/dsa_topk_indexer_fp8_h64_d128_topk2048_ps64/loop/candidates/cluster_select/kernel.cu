// cluster_select: rank_pdl (promoted in loop round 4) with the selection spread over a cluster of
// C = 8 or 4 blocks per request (indexer_cluster_select.cuh) instead of one 1024-thread block.
// Why: the H200 profile (bench/results/h200-loop/2026-12-04b/call2/profile_.../profile.md) puts
// the one-block selection at 8.5 us (small rows), 13.1 (medium) and 10.8 (large) a call, SM 1-6%
// busy, its warps stalled on `wait`, `not_selected` and `math_pipe_throttle`: one SM issues every
// sweep. The
// scoring is 6.2 / 10.7 / 17.5 us, so on small and medium rows the selection is the larger half.
// With C blocks on C SMs each sweeps 1/C of the row; the blocks meet at three cluster barriers
// through distributed shared memory, and block 0 alone resolves the threshold bin (~10-100 keys).
// C: the largest of 8, 4 whose batch * C blocks fit one wave on the GPU (one 512-thread block an
// SM) and whose cluster the device can place; batches too large for C = 4 (more than 33 on
// the H200) keep rank_pdl's one-block selection, as does any refused cluster launch.
// Expected: selection 8.5-13 -> ~3-4 us; small and medium workloads ~5-8 us faster, large ~4
// (contest mean 20.6 -> ~14 us).
// Accuracy: rank_select's (exact selection on the same f32 scores).
#include "indexer_cluster_select.cuh"
#include "indexer_mma_score.cuh"

namespace {

using dsa_cluster_select::cluster_select_kernel;
using dsa_cluster_select::kClusterThreads;
using dsa_cluster_select::kMaxSliceKeys;

// Once per process: the cluster sizes this device can place with the largest slice in shared
// memory, and the SM count they must fit in.
struct ClusterPlan {
  int sms = 0;
  bool size8 = false;
  bool size4 = false;
};

// A launch of `blocks` selection blocks as clusters of c; `attribute` holds the cluster's shape
// (and room for one more attribute) for as long as the configuration is used.
cudaLaunchConfig_t cluster_config(unsigned blocks, int c, size_t smem, cudaStream_t stream,
                                  cudaLaunchAttribute (&attribute)[2]) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(kClusterThreads);
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  attribute[0].id = cudaLaunchAttributeClusterDimension;
  attribute[0].val.clusterDim.x = static_cast<unsigned>(c);
  attribute[0].val.clusterDim.y = 1;
  attribute[0].val.clusterDim.z = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  return config;
}

// Whether the device can place a cluster of c blocks with the largest slice in shared memory.
bool cluster_fits(int c) {
  cudaLaunchAttribute attribute[2];
  const cudaLaunchConfig_t config =
      cluster_config(static_cast<unsigned>(c), c, sizeof(float) * kMaxSliceKeys, nullptr, attribute);
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, cluster_select_kernel<true>, &config) != cudaSuccess) {
    (void)cudaGetLastError();  // a refusal: this size is not used
    return false;
  }
  return clusters > 0;
}

const ClusterPlan& cluster_plan() {
  static const ClusterPlan plan = [] {
    ClusterPlan p;
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&p.sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaFuncSetAttribute(cluster_select_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(sizeof(float) * kMaxSliceKeys)) != cudaSuccess) {
      (void)cudaGetLastError();  // no cluster selection: rank_pdl's is used
      return p;
    }
    p.size8 = cluster_fits(8);
    p.size4 = cluster_fits(4);
    return p;
  }();
  return plan;
}

// The cluster size for `batch` requests, or 0 for rank_pdl's one-block selection.
int cluster_size(int batch) {
  const ClusterPlan& plan = cluster_plan();
  if (plan.size8 && batch * 8 <= plan.sms) return 8;
  if (plan.size4 && batch * 4 <= plan.sms) return 4;
  return 0;
}

// The cluster selection, as the score grid's programmatic dependent when there is one; false when
// the launch is refused (then nothing was launched).
bool launch_cluster_select(const float* scores, int batch, int c, int max_pages, const int32_t* lens,
                           const int32_t* table, int32_t* out, cudaStream_t stream) {
  const int slice = dsa_cluster_select::slice_keys(int64_t{max_pages} * kPageTokens, c);
  const int smem_keys = slice <= kMaxSliceKeys ? slice : 0;
  cudaLaunchAttribute attribute[2];
  cudaLaunchConfig_t config = cluster_config(
      static_cast<unsigned>(batch * c), c, sizeof(float) * static_cast<size_t>(smem_keys), stream, attribute);
  attribute[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[1].val.programmaticStreamSerializationAllowed = 1;
  for (int attrs = scores != nullptr ? 2 : 1; attrs >= 1; --attrs) {  // with PDL, then without
    config.numAttrs = attrs;
    if (cudaLaunchKernelEx(&config, cluster_select_kernel<true>, scores, lens, table, max_pages, smem_keys,
                           out) == cudaSuccess)
      return true;
    (void)cudaGetLastError();  // refused: the next form (or the caller's fallback) is still ordered
  }
  return false;
}

}  // namespace

void dsa_topk_indexer_cluster_select(const DLTensor* q_index_fp8, const DLTensor* k_index_cache_fp8,
                                     const DLTensor* weights, const DLTensor* seq_lens,
                                     const DLTensor* block_table, DLTensor* topk_indices,
                                     kh_stream_t stream) {
  const int batch = static_cast<int>(q_index_fp8->shape[0]);
  const int max_pages = static_cast<int>(block_table->shape[1]);
  if (batch == 0) return;
  const int c = cluster_size(batch);
  if (c == 0) {
    dsa_mma_score::run<true>(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, topk_indices,
                             stream);
    return;
  }
  dsa_mma_score::prepare_once<true>();
  float* scores = dsa_fp8_mma_score::launch_mma_scores<true, true>(q_index_fp8, k_index_cache_fp8, weights,
                                                                   seq_lens, block_table, stream);
  const auto* lens = static_cast<const int32_t*>(seq_lens->data);
  const auto* table = static_cast<const int32_t*>(block_table->data);
  auto* out = static_cast<int32_t*>(topk_indices->data);
  if (!launch_cluster_select(scores, batch, c, max_pages, lens, table, out, stream)) {
    const int smem_keys = dsa_mma_score::select_smem_keys(int64_t{max_pages} * kPageTokens);
    dsa_mma_score::launch_select<true>(scores, static_cast<unsigned>(batch), sizeof(float) * smem_keys, lens,
                                       table, max_pages, smem_keys, out, stream);
  }
  if (scores != nullptr) cudaFreeAsync(scores, stream);
}
