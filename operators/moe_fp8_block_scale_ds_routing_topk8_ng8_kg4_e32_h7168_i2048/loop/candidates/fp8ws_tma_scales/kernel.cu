// fp8 MoE fp8ws_tma_scales: fp8ws_persist with the block scales streamed into the stages by TMA
// (moe_fp8_ws.cuh, kTmaScales).
//
// What: for T > 2048, as fp8ws_persist (TMA producer, two wgmma consumer warpgroups, six 32 KB stages,
// one block an SM), except that each stage also receives its k block's scales by TMA: GEMM1's
// activation scales gathered into expert order beside the rows (gather_scales, [56][rows]), GEMM2's
// from the [rows][32] table GEMM1 writes, and 16 bytes of each weight scale row. The consumers read
// them from shared memory after the stage's wait. T <= 2048 runs fp8wg's kernels.
//
// Why: ncu's source view of fp8ws_persist's GEMM1 (H100, 14107 tokens, bench/results/h100-loop/
// 2026-12-06d) puts 46% of all warp stall samples on the fold's first FMUL waiting for the scale
// loads (long scoreboard), and the tensor cores' wait (WARPGROUP.DEPBAR) at 0.4%. fp8ws_prefetch
// loaded them one k block earlier and gained 2%: an ordinary load issued by the consumers queues
// behind the stages' bulk TMA traffic into the same SM, ~6 stages (192 KB) deep, so one k block of
// lead is not enough. Carried by the producer inside each stage, the scales arrive with the tiles.
// Expected: GEMM1 1.3-1.8x faster (14107 tokens ~4.5 -> ~3.5 ms on the H100); smaller calls unchanged.
#include "moe_fp8_ws_run.cuh"

using moe_fp8_grouped::ws::Ws;

int moe_fp8ws_tma_scales(const DLTensor* routing_logits, const DLTensor* routing_bias,
                         const DLTensor* hidden_states, const DLTensor* hidden_states_scale,
                         const DLTensor* gemm1_weights, const DLTensor* gemm1_weights_scale,
                         const DLTensor* gemm2_weights, const DLTensor* gemm2_weights_scale,
                         int32_t local_expert_offset, float routed_scaling_factor, DLTensor* output,
                         kh_stream_t stream) {
  return moe_fp8_grouped::ws::run<Ws::persistent | Ws::tma_scales>(
      routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
      gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output, stream);
}
