// fp8 MoE fp8ws_tma_pair: fp8ws_tma_scales launched as clusters of two that share their A tiles by
// TMA multicast (moe_fp8_ws.cuh, fp8_gemm_ws_tma_scales's kPair).
//
// What: for T > 2048, as fp8ws_tma_scales (persistent TMA producer, two wgmma consumer warpgroups,
// block scales carried into the stages), with the persistent blocks in clusters of two that take
// the two halves' neighbouring column tiles of one row tile in step; each block's producer loads
// 64 of the tile's 128 A rows into both blocks, so a stage pulls 24 KB from L2 a block, not 32 KB.
// T <= 2048 runs fp8wg's kernels.
//
// Why: fp8ws_by_column's profile at 14107 tokens (H100, bench/results/h100-loop/2026-12-07) cut
// GEMM1's DRAM reads from 2.9 to 1.6 GB and left its time at 1.82 ms, so DRAM is not its bound.
// Its ~7200 items of 56 stages of 32 KB are ~13 GB from L2 into the SMs in 1.8 ms (~7 TB/s), the
// unit ncu finds at 80% ("memory"), while the SM is at 53%. fp8ws_pair, the same multicast without
// TMA scales and not persistent, was slower (6.6 ms) when the consumers' scale loads were the bound.
// Expected: GEMM1 and GEMM2 up to 1.25x faster at 11948 and 14107 tokens where L2 is the bound
// (14107 tokens ~3.7 -> ~3.1 ms on the H100); smaller calls unchanged.
#include "moe_fp8_ws_run.cuh"

using moe_fp8_grouped::ws::Ws;

int moe_fp8ws_tma_pair(const DLTensor* routing_logits, const DLTensor* routing_bias,
                       const DLTensor* hidden_states, const DLTensor* hidden_states_scale,
                       const DLTensor* gemm1_weights, const DLTensor* gemm1_weights_scale,
                       const DLTensor* gemm2_weights, const DLTensor* gemm2_weights_scale,
                       int32_t local_expert_offset, float routed_scaling_factor, DLTensor* output,
                       kh_stream_t stream) {
  return moe_fp8_grouped::ws::run<Ws::persistent | Ws::pair | Ws::tma_scales>(
      routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
      gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output, stream);
}
