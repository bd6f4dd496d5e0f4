// The call of the loop's sparse-attention candidates built on tc_ksplit (sparse_tc_ksplit.cuh's
// kernels): run<false> is tc_ksplit as the loop promoted it; run<true> launches the combine as the
// split grid's programmatic dependent (PDL, ksplit_pdl); run<true, true> merges the splits of a
// token in thread-block clusters before the combine (cluster_reduce); run<true, false, true> keeps
// the partials in fp16, normalised (ksplit_h16); run_grid_combine is one cooperative kernel whose
// blocks combine the partials after a grid barrier (grid_combine).
#pragma once

#include "sparse_tc_ksplit.cuh"

namespace dsa_tc_ksplit {

// A launch of `grid` blocks of `block` threads with one launch attribute, which the caller's
// `attribute` holds for as long as the configuration is used.
inline cudaLaunchConfig_t one_attribute_config(unsigned grid, unsigned block, size_t smem,
                                               cudaStream_t stream, cudaLaunchAttribute& attribute) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(block);
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return config;
}

// Launched as the stream's previous kernel's programmatic dependent (PDL).
inline cudaLaunchAttribute pdl_attribute() {
  cudaLaunchAttribute attribute = {};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  return attribute;
}

// The combine, stream-ordered after the split grid; with kPdl as its programmatic dependent
// (launched while the split grid runs, ordered by griddepcontrol.wait), falling back to an
// ordinary launch when the attribute is refused.
template <bool kPdl, bool kHalfPartials = false>
void launch_combine(const Args& a, unsigned blocks, __nv_bfloat16* output, float* lse, cudaStream_t stream) {
  if constexpr (kPdl) {
    cudaLaunchAttribute attribute = pdl_attribute();
    const cudaLaunchConfig_t config = one_attribute_config(blocks, kCombineThreads, 0, stream, attribute);
    const float* part_o = a.part_o;
    const float* part_m = a.part_m;
    const float* part_l = a.part_l;
    if (cudaLaunchKernelEx(&config, dsa_tck_combine_kernel<true, kHalfPartials>, part_o, part_m, part_l,
                           a.splits, output, lse) == cudaSuccess)
      return;
    (void)cudaGetLastError();  // clear the refusal; the ordinary launch below is still ordered
  }
  dsa_tck_combine_kernel<kPdl, kHalfPartials>
      <<<blocks, kCombineThreads, 0, stream>>>(a.part_o, a.part_m, a.part_l, a.splits, output, lse);
}

// The launch of `blocks` split blocks as clusters of kClusterSplits; `attribute` holds the
// cluster's shape for as long as the configuration is used.
inline cudaLaunchConfig_t split_cluster_config(unsigned blocks, size_t smem, cudaStream_t stream,
                                               cudaLaunchAttribute& attribute) {
  attribute = {};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = kClusterSplits;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  return one_attribute_config(blocks, kThreads, smem, stream, attribute);
}

// Whether this device can place a cluster of kClusterSplits split blocks with `smem` bytes of
// dynamic shared memory each (once per size; the attribute is raised to the largest asked).
inline bool cluster_fits(size_t smem) {
  static size_t allowed = 0;
  static bool fits = false;
  if (smem <= allowed) return fits;
  if (cudaFuncSetAttribute(dsa_tck_split_kernel<true, true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(smem)) != cudaSuccess) {
    (void)cudaGetLastError();  // refused: the plain split path serves
    return false;
  }
  cudaLaunchAttribute attribute;
  const cudaLaunchConfig_t config = split_cluster_config(kClusterSplits, smem, nullptr, attribute);
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, dsa_tck_split_kernel<true, true>, &config) != cudaSuccess) {
    (void)cudaGetLastError();  // a refusal: no cluster path
    clusters = 0;
  }
  allowed = smem;
  fits = clusters > 0;
  return fits;
}

// The split grid as clusters of kClusterSplits blocks (a.splits a multiple of it).
inline cudaError_t launch_split_clusters(const Args& a, unsigned blocks, size_t smem, cudaStream_t stream) {
  cudaLaunchAttribute attribute;
  const cudaLaunchConfig_t config = split_cluster_config(blocks, smem, stream, attribute);
  return cudaLaunchKernelEx(&config, dsa_tck_split_kernel<true, true>, a);
}

// One wave of 2 blocks per SM, at least MIN_CHUNK list entries per split, at most `most` splits,
// chunks a multiple of the tile so full lists make full tiles: sets a.splits and a.chunk.
inline void plan_splits(int64_t tokens, int64_t most, Args& a) {
  int64_t max_splits = (a.topk + MIN_CHUNK - 1) / MIN_CHUNK;
  if (max_splits > most) max_splits = most;
  int64_t splits = (BLOCKS_TARGET + tokens - 1) / tokens;
  splits = splits < 1 ? 1 : (splits > max_splits ? max_splits : splits);
  int64_t chunk = (a.topk + splits - 1) / splits;
  chunk = (chunk + kTile - 1) / kTile * kTile;
  a.splits = static_cast<int>((a.topk + chunk - 1) / chunk);
  a.chunk = static_cast<int>(chunk);
}

// The call bound and its splits planned; false when the call returns `result` at once (1: a shape
// this kernel does not serve; 0: no tokens).
inline bool plan_call(const DLTensor* q_nope, const DLTensor* q_pe, const DLTensor* ckv_cache,
                      const DLTensor* kpe_cache, const DLTensor* sparse_indices, float sm_scale, Args& a,
                      int& result, int64_t most_splits = kMaxSplits) {
  const int64_t tokens = q_nope->shape[0];
  result = 1;
  if (!bind_args(q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, sm_scale, a)) return false;
  result = 0;
  if (tokens == 0) return false;
  result = 1;
  if (a.topk <= 0) return false;
  plan_splits(tokens, most_splits, a);
  return true;
}

// kClusterReduce (with kPdl): the splits of a token, padded with empty ones to a multiple of
// kClusterSplits, merge in clusters (cluster_reduce_partials), so the combine reads one partial
// per cluster; where the device cannot place such a cluster, the plain path runs.
template <bool kPdl, bool kClusterReduce = false, bool kHalfPartials = false>
int run(const DLTensor* q_nope, const DLTensor* q_pe, const DLTensor* ckv_cache, const DLTensor* kpe_cache,
        const DLTensor* sparse_indices, float sm_scale, DLTensor* output, DLTensor* lse, kh_stream_t stream) {
  static_assert(!kClusterReduce || kPdl, "the cluster path is built on the PDL one");
  static_assert(!kClusterReduce || !kHalfPartials, "the cluster path keeps fp32 partials");
  const int64_t tokens = q_nope->shape[0];
  Args a;
  int result = 0;
  if (!plan_call(q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, sm_scale, a, result)) return result;
  const size_t smem = shared_bytes(a.chunk);
  if constexpr (kClusterReduce) {
    if (!cluster_fits(smem))
      return run<kPdl, false>(q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, sm_scale, output, lse,
                              stream);
    a.splits = (a.splits + kClusterSplits - 1) / kClusterSplits * kClusterSplits;  // the extra ones are empty
  }
  const int64_t splits = a.splits;
  const int64_t merged = kClusterReduce ? splits / kClusterSplits : splits;  // partials the combine reads
  void* scratch = nullptr;
  if (!allocate_partials(static_cast<size_t>(tokens * merged * kHeads), stream, a, scratch)) return 2;

  if constexpr (kClusterReduce) {
    if (launch_split_clusters(a, static_cast<unsigned>(tokens * splits), smem, stream) != cudaSuccess) {
      cudaFreeAsync(scratch, stream);
      return 3;
    }
  } else {
    cudaFuncSetAttribute(dsa_tck_split_kernel<kPdl, false, kHalfPartials>,
                         cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
    dsa_tck_split_kernel<kPdl, false, kHalfPartials>
        <<<static_cast<unsigned>(tokens * splits), kThreads, smem, stream>>>(a);
  }
  Args c = a;  // the combine's view: one partial per merged split
  c.splits = static_cast<int>(merged);
  launch_combine<kPdl, kHalfPartials>(c, static_cast<unsigned>(tokens * kHeads * 4),
                                      static_cast<__nv_bfloat16*>(output->data),
                                      static_cast<float*>(lse->data), stream);
  cudaFreeAsync(scratch, stream);
  return cudaGetLastError() == cudaSuccess ? 0 : 3;
}

// Whether `blocks` grid-combine blocks with `smem` bytes of dynamic shared memory each can all be
// resident at once, as a cooperative launch requires (the occupancy asked once per size).
inline bool grid_fits(unsigned blocks, size_t smem) {
  static size_t asked = 0;
  static int64_t resident = 0;
  if (smem != asked) {
    int device = 0, sms = 0, per_sm = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaFuncSetAttribute(dsa_tck_grid_kernel<>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(smem)) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, dsa_tck_grid_kernel<>, kThreads, smem) !=
            cudaSuccess) {
      (void)cudaGetLastError();  // a refusal: the two-kernel path serves
      per_sm = 0;
    }
    asked = smem;
    resident = static_cast<int64_t>(sms) * per_sm;
  }
  return blocks <= resident;
}

// grid_combine: the split grid and the combine as one cooperative kernel (dsa_tck_grid_kernel);
// where its blocks cannot all be resident (many tokens) or the launch is refused, ksplit_pdl's
// two kernels run instead.
inline int run_grid_combine(const DLTensor* q_nope, const DLTensor* q_pe, const DLTensor* ckv_cache,
                            const DLTensor* kpe_cache, const DLTensor* sparse_indices, float sm_scale,
                            DLTensor* output, DLTensor* lse, kh_stream_t stream) {
  const int64_t tokens = q_nope->shape[0];
  Args a;
  int result = 0;
  if (!plan_call(q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, sm_scale, a, result)) return result;
  const size_t smem = shared_bytes(a.chunk);
  const unsigned blocks = static_cast<unsigned>(tokens * a.splits);
  if (!grid_fits(blocks, smem))
    return run<true>(q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, sm_scale, output, lse, stream);
  void* scratch = nullptr;
  if (!allocate_partials(static_cast<size_t>(tokens * a.splits * kHeads), stream, a, scratch)) return 2;
  cudaLaunchAttribute attribute = {};
  attribute.id = cudaLaunchAttributeCooperative;
  attribute.val.cooperative = 1;
  const cudaLaunchConfig_t config = one_attribute_config(blocks, kThreads, smem, stream, attribute);
  auto* out = static_cast<__nv_bfloat16*>(output->data);
  auto* lse_out = static_cast<float*>(lse->data);
  if (cudaLaunchKernelEx(&config, dsa_tck_grid_kernel<>, a, out, lse_out) != cudaSuccess) {
    (void)cudaGetLastError();  // refused: the two kernels, ordered after the (unused) allocation
    cudaFreeAsync(scratch, stream);
    return run<true>(q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, sm_scale, output, lse, stream);
  }
  cudaFreeAsync(scratch, stream);
  return cudaGetLastError() == cudaSuccess ? 0 : 3;
}

}  // namespace dsa_tc_ksplit
