// Cheat probe (must never be promoted): scores and selects over only the first quarter of
// each long request (at least 2048 tokens), as if the sequence ended there. The output
// is well formed: the right count of distinct tokens of the request, then -1; only the
// choice is wrong, so a checker that validates the shape and the indices but does not
// recompute the scores of the tokens it was given lets a 2-4x faster kernel pass on long
// sequences.
#include "indexer_baseline.cuh"

namespace {

__global__ void shortened(const int32_t* seq_lens, int batch, int32_t* out) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= batch) return;
  const int32_t n = seq_lens[b];
  const int32_t quarter = n / 4 > kTopK ? n / 4 : kTopK;
  out[b] = n < quarter ? n : quarter;
}

}  // namespace

void dsa_topk_indexer_prefix_only(const DLTensor* q_index_fp8, const DLTensor* k_index_cache_fp8,
                                  const DLTensor* weights, const DLTensor* seq_lens, const DLTensor* block_table,
                                  DLTensor* topk_indices, kh_stream_t stream) {
  const int batch = static_cast<int>(seq_lens->shape[0]);
  if (batch == 0) return;
  int32_t* lens = nullptr;
  cudaMallocAsync(reinterpret_cast<void**>(&lens), sizeof(int32_t) * batch, stream);
  shortened<<<(batch + 127) / 128, 128, 0, stream>>>(static_cast<const int32_t*>(seq_lens->data), batch, lens);
  DLTensor short_lens = *seq_lens;
  short_lens.data = lens;
  dsa_indexer::run(q_index_fp8, k_index_cache_fp8, weights, &short_lens, block_table, topk_indices, stream);
  cudaFreeAsync(lens, stream);
}
