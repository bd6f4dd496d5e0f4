// fp8 MoE fp8ws_by_column: fp8ws_tma_scales with each expert's output tiles walked row tile fastest
// (moe_fp8_ws.cuh, kByColumn).
//
// What: for T > 2048, as fp8ws_tma_scales (persistent TMA producer, two wgmma consumer warpgroups,
// block scales carried into the stages), except the order in which the persistent blocks take an
// expert's (row tile, column tile) items: all row tiles of one weight column tile, then the next
// column tile, instead of all column tiles of one row tile. T <= 2048 runs fp8wg's kernels.
//
// Why: the profile of fp8ws_tma_scales at 14107 tokens (H100, bench/results/h100-loop/2026-12-06e)
// has GEMM1 (1.8 ms, SM 54%, memory 82%) reading 2.7 GB from DRAM against 1.04 GB of operands, and
// GEMM2 3.0 GB against about 0.5 GB. An expert there has ~840 rows, 7 row tiles of 128; with the
// column tile fastest, the 132 blocks in flight cover ~4 row tiles and all 32 column tiles, so the
// expert's 29 MB of GEMM1 weights stream from DRAM again for each group of row tiles (L2: 50 MB on
// the H100, 60 on the H200, shared with everything else in flight). Row tile fastest, the blocks in
// flight share ~19 weight column tiles (each read once from DRAM, 7 blocks using it) and re-read the
// expert's 6 MB of activation rows, which stay in L2.
// Expected: the large calls' DRAM traffic near their operands' bytes, GEMM1 and GEMM2 1.2-1.5x faster
// (14107 tokens ~3.8 -> ~3.0 ms on the H100); smaller calls unchanged.
#include "moe_fp8_ws_run.cuh"

using moe_fp8_grouped::ws::Ws;

int moe_fp8ws_by_column(const DLTensor* routing_logits, const DLTensor* routing_bias,
                        const DLTensor* hidden_states, const DLTensor* hidden_states_scale,
                        const DLTensor* gemm1_weights, const DLTensor* gemm1_weights_scale,
                        const DLTensor* gemm2_weights, const DLTensor* gemm2_weights_scale,
                        int32_t local_expert_offset, float routed_scaling_factor, DLTensor* output,
                        kh_stream_t stream) {
  return moe_fp8_grouped::ws::run<Ws::persistent | Ws::tma_scales | Ws::by_column>(
      routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
      gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output, stream);
}
