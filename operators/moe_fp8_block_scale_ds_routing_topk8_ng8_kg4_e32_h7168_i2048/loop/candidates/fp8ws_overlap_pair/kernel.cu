// fp8 MoE fp8ws_overlap_pair: fp8ws_overlap launched as fp8ws_tma_pair's clusters of two (moe_fp8_ws.cuh,
// consume_overlap with kPair).
//
// What: for T > 2048, the consumers of fp8ws_overlap (two accumulator sets a warpgroup, each fold
// behind the next wgmma group) in persistent clusters of two blocks on neighbouring column tiles of
// one row tile, each producer multicasting half of the shared A tile into both blocks; a stage is
// released to both producers. T <= 2048 runs fp8wg's kernels.
//
// Why: side by side on one H100 (bench/results/h100-loop/2026-12-07 and 2026-12-07b), the two act
// on different GEMMs: fp8ws_overlap made GEMM1 5-6% faster (1808 -> 1713 us at 14107 tokens) and
// left GEMM2; fp8ws_tma_pair made GEMM2 7-10% faster (1333 -> 1238 us) and left GEMM1.
// Expected: the large calls 4-6% faster than fp8ws_tma_scales (14107 tokens ~3.73 -> ~3.55 ms on the
// H100); calls of at most 2048 tokens unchanged.
#include "moe_fp8_ws_run.cuh"

using moe_fp8_grouped::ws::Ws;

int moe_fp8ws_overlap_pair(const DLTensor* routing_logits, const DLTensor* routing_bias,
                           const DLTensor* hidden_states, const DLTensor* hidden_states_scale,
                           const DLTensor* gemm1_weights, const DLTensor* gemm1_weights_scale,
                           const DLTensor* gemm2_weights, const DLTensor* gemm2_weights_scale,
                           int32_t local_expert_offset, float routed_scaling_factor, DLTensor* output,
                           kh_stream_t stream) {
  return moe_fp8_grouped::ws::run<Ws::persistent | Ws::pair | Ws::tma_scales | Ws::overlap>(
      routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
      gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output, stream);
}
