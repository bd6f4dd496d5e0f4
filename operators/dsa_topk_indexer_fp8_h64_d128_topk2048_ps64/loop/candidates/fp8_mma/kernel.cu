// fp8_mma: tensor-core scoring (fp8 bytes widened to f16 in registers, mma.sync m16n8k16 f16 -> f32)
// + the shared-memory radix selection of smem_select. Two kernels, no host sync.
//
// Why faster: the baseline dequantises keys to fp32 in shared memory and scores with FFMA:
// 64 heads x 128 dims = 8K FMAs per token, compute-bound at ~9x the memory floor (B28 P405:
// ~263 us). Here each warp multiplies 32 heads of q[b] (kept in registers as f16 A fragments) by
// 16 tokens of a page (B fragments: 16-byte loads straight from global memory, every sector fully
// used, widened with F2FP) in 32 HMMA.16816 per page, one page ahead in flight; the per-token
// scale, relu and head weights are applied to the f32 accumulators, the heads summed in-thread,
// by 3 xor-shuffles and across the two head halves in shared memory. 4 HMMAs per token: B28 P405
// (~360K tokens) is ~11K HMMAs per SM, ~10 us at mma.sync rates, against ~45 MB of keys (~12 us
// at 4 TB/s): scoring becomes memory/latency-bound instead of FFMA-bound (10x+ fewer issue slots).
// (mma.sync with e4m3 operands exists in PTX for sm_89+, but on sm_90a ptxas lowers it to exactly
// this f16 HMMA plus conversions; hoisting those for q took 255 registers and spilled.)
// The grid has ~264 blocks even at B=1 (pages per block chosen on the host from batch x
// max_num_pages, 1..8) and requests with seq_len <= 2048 skip scoring.
// Selection (as smem_select): the row is read once into shared memory as uint32 order keys, then
// 3 radix passes (11/11/10 bits) and the gather run in shared memory with warp-aggregated atomics.
// Expected: B1 P32 ~5 us (baseline 23), B2 P93 ~8 us (33), B1 P282 ~9 us (48), B5 P311 ~10 us
// (63), B29 P134 ~14 us (104), B28 P405 ~25 us (263); mean ~10-12 us vs 68 us.
// Accuracy: e4m3 values are exact in f16, products exact in f32, f32 accumulation, then * scale;
// the checker's tolerance (1e-4 * M) is far above the resulting error (skill.md).
// The code: the operator's indexer_fp8_mma_score.cuh (mma_score_kernel<false>) and
// indexer_radix_select.cuh.
#include "indexer_fp8_mma_score.cuh"
#include "indexer_radix_select.cuh"

void dsa_topk_indexer_fp8_mma(const DLTensor* q_index_fp8, const DLTensor* k_index_cache_fp8,
                              const DLTensor* weights, const DLTensor* seq_lens, const DLTensor* block_table,
                              DLTensor* topk_indices, kh_stream_t stream) {
  const int batch = static_cast<int>(q_index_fp8->shape[0]);
  const int max_pages = static_cast<int>(block_table->shape[1]);
  if (batch == 0) return;
  float* scores = dsa_fp8_mma_score::launch_mma_scores<false>(q_index_fp8, k_index_cache_fp8, weights,
                                                              seq_lens, block_table, stream);
  dsa_radix_select::prepare_select(max_pages);
  dsa_radix_select::launch_select(scores, seq_lens, block_table, batch, max_pages, topk_indices, stream);
  if (scores != nullptr) cudaFreeAsync(scores, stream);
}
