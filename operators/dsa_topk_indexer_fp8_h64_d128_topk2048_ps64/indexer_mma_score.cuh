// The scoring and the call of the loop's indexer candidate rank_select, shared by the candidates
// built on it (loop/candidates/rank_select, rank_pdl, scale_prefetch, cluster_select): fp8 scores on
// tensor cores (indexer_fp8_mma_score.cuh, first page read early) into a [batch, max_pages * 64] f32
// buffer, then indexer_rank_select.cuh's selection. run<false> is rank_select as the loop promoted it;
// run<true> launches the selection as the score grid's programmatic dependent (PDL); run<false, true>
// is scale_prefetch (each page's scales prefetched into L2). The notes: rank_select/kernel.cu.
#pragma once

#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <kharness/kernel.h>

#include "indexer_fp8_mma_score.cuh"
#include "indexer_layout.h"
#include "indexer_pool_keep.h"
#include "indexer_rank_select.cuh"

namespace dsa_mma_score {

using namespace dsa_rank_select;    // NOLINT(google-build-using-namespace): the shared selection
using namespace dsa_fp8_mma_score;  // NOLINT(google-build-using-namespace): the shared scoring

// Selection: indexer_rank_select.cuh (rank_select's, shared with its children).
// Dynamic shared memory of select_kernel for rows of `capacity` tokens (0 past the budget).
inline int select_smem_keys(int64_t capacity) {
  return capacity <= kMaxSmemKeys ? static_cast<int>(capacity) : 0;
}

// The selection as the score grid's programmatic dependent. A template, so that only a candidate
// that launches it compiles it.
template <bool kWaitForScores>
__global__ void __launch_bounds__(kSelectThreads)
    select_after_scores_kernel(const float* scores, const int32_t* __restrict__ seq_lens,
                               const int32_t* __restrict__ block_table, int max_pages, int smem_keys,
                               int32_t* __restrict__ out) {
  select_request<kWaitForScores>(scores, seq_lens, block_table, max_pages, smem_keys, out);
}

// Host-side, once per process: keep the stream-ordered pool's memory mapped (range_select's), and
// allow select_kernel its largest dynamic shared memory once instead of on every call.
template <bool kPdl>
void prepare_once() {
  static const bool done = [] {
    keep_pool_memory_mapped();
    const int most = static_cast<int>(sizeof(float) * kMaxSmemKeys);
    if constexpr (kPdl) {
      cudaFuncSetAttribute(select_after_scores_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           most);
    } else {
      cudaFuncSetAttribute(select_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, most);
    }
    return true;
  }();
  (void)done;
}

// The selection, stream-ordered after the scoring. kPdl: as the score grid's programmatic
// dependent when there is one (launched while it runs, ordered by griddepcontrol.wait); a refused
// launch falls back to an ordinary one of the same kernel (the wait is then a no-op).
template <bool kPdl>
void launch_select(const float* scores, unsigned batch, size_t smem_bytes, const int32_t* lens,
                   const int32_t* table, int max_pages, int smem_keys, int32_t* out, cudaStream_t stream) {
  if constexpr (kPdl) {
    if (scores != nullptr) {  // a score kernel precedes
      cudaLaunchConfig_t config = {};
      config.gridDim = dim3(batch);
      config.blockDim = dim3(kSelectThreads);
      config.dynamicSmemBytes = smem_bytes;
      config.stream = stream;
      cudaLaunchAttribute attribute[1];
      attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
      attribute[0].val.programmaticStreamSerializationAllowed = 1;
      config.attrs = attribute;
      config.numAttrs = 1;
      if (cudaLaunchKernelEx(&config, select_after_scores_kernel<true>, scores, lens, table, max_pages,
                             smem_keys, out) == cudaSuccess)
        return;
      (void)cudaGetLastError();  // clear the refusal; the ordinary launch below is still ordered
    }
    select_after_scores_kernel<true>
        <<<batch, kSelectThreads, smem_bytes, stream>>>(scores, lens, table, max_pages, smem_keys, out);
    return;
  }
  select_kernel<<<batch, kSelectThreads, smem_bytes, stream>>>(scores, lens, table, max_pages, smem_keys,
                                                               out);
}

template <bool kPdl, bool kPrefetchScales = false>
void run(const DLTensor* q_index_fp8, const DLTensor* k_index_cache_fp8, const DLTensor* weights,
         const DLTensor* seq_lens, const DLTensor* block_table, DLTensor* topk_indices, kh_stream_t stream) {
  const int batch = static_cast<int>(q_index_fp8->shape[0]);
  const int max_pages = static_cast<int>(block_table->shape[1]);
  if (batch == 0) return;
  const int smem_keys = select_smem_keys(int64_t{max_pages} * kPageTokens);
  const size_t smem_bytes = sizeof(float) * static_cast<size_t>(smem_keys);
  prepare_once<kPdl>();
  float* scores = launch_mma_scores<kPdl, true, kPrefetchScales>(q_index_fp8, k_index_cache_fp8, weights,
                                                                 seq_lens, block_table, stream);
  launch_select<kPdl>(scores, static_cast<unsigned>(batch), smem_bytes,
                      static_cast<const int32_t*>(seq_lens->data),
                      static_cast<const int32_t*>(block_table->data), max_pages, smem_keys,
                      static_cast<int32_t*>(topk_indices->data), stream);
  if (scores != nullptr) cudaFreeAsync(scores, stream);
}

}  // namespace dsa_mma_score
