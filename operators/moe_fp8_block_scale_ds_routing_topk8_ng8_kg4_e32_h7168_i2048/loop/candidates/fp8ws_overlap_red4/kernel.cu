// fp8 MoE fp8ws_overlap_red4: fp8ws_overlap with GEMM2's scatter-add in 16-byte reductions
// (moe_fp8_ws.cuh, consume_overlap's kRed4: scatter_add4).
//
// What: for T > 2048, as fp8ws_overlap (two accumulator sets a consumer warpgroup, the fold of one
// wgmma group behind the next), except that GEMM2's epilogue pairs the lanes of each quad: they swap
// the halves of their two rows so that each lane holds four neighbouring columns of one row and adds
// them with one float4 reduction (red.global.add.v4.f32) instead of two float2 ones. T <= 2048 runs
// fp8wg's kernels.
//
// Why: fp8ws_tma_scales's GEMM2 (H100, 11948 tokens, bench/results/h100-loop/2026-12-07/call9) runs
// at SM 32% with its warps stalled on long_scoreboard and lg_throttle: the epilogue issues 8192
// reductions an item (32 a thread) into the fp32 sum, and the memory pipe's queue throttles them
// while the other consumer warpgroup and the producer wait. Half as many, each 16 bytes, halve the
// instructions the queue takes. Expected: GEMM2 1.1-1.2x faster than fp8ws_overlap's at 11948 and
// 14107 tokens; GEMM1 unchanged; calls of at most 2048 tokens unchanged.
#include "moe_fp8_ws_run.cuh"

using moe_fp8_grouped::ws::Ws;

int moe_fp8ws_overlap_red4(const DLTensor* routing_logits, const DLTensor* routing_bias,
                           const DLTensor* hidden_states, const DLTensor* hidden_states_scale,
                           const DLTensor* gemm1_weights, const DLTensor* gemm1_weights_scale,
                           const DLTensor* gemm2_weights, const DLTensor* gemm2_weights_scale,
                           int32_t local_expert_offset, float routed_scaling_factor, DLTensor* output,
                           kh_stream_t stream) {
  return moe_fp8_grouped::ws::run<Ws::persistent | Ws::tma_scales | Ws::overlap | Ws::red4>(
      routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
      gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output, stream);
}
