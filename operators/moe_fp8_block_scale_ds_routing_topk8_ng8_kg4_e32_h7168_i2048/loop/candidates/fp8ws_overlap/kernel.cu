// fp8 MoE fp8ws_overlap: fp8ws_tma_scales with two accumulator sets a consumer warpgroup, so that its
// fold of one wgmma group runs while the tensor cores run the next (moe_fp8_ws.cuh, consume_overlap).
//
// What: for T > 2048, as fp8ws_tma_scales (persistent TMA producer, two wgmma consumer warpgroups,
// six 32 KB stages carrying their block scales), except that each consumer issues a group's wgmmas
// into one of two accumulator sets and waits out only the group before it (wgmma.wait_group 1),
// folding that one with its scales while the new group runs. The producer warpgroup gives up its
// registers (setmaxnreg 40) so each consumer thread may hold three 64-float sets (232). T <= 2048
// runs fp8wg's kernels.
//
// Why: the profiles of 2026-12-07 (H100, 14107 tokens, bench/results/h100-loop/2026-12-07) put
// fp8ws_tma_scales's GEMM1 at SM 53% with memory 82% (L2 82%, DRAM 45%); fp8ws_tma_pair cut its L2
// traffic (memory 64%) and GEMM1 stayed at 1.80 ms, so neither DRAM nor L2 bounds it. Each consumer
// warpgroup waits out its four wgmmas (wait_group 0) and then folds 64 accumulators before it issues
// again: its own tensor-core work stops during every fold and every stage wait, and only the other
// warpgroup's can fill the gap. With a group always in flight, the fold hides behind it.
// Expected: GEMM1 and GEMM2 1.1-1.3x faster (14107 tokens ~3.7 -> ~3.1 ms on the H100); calls of at
// most 2048 tokens unchanged.
#include "moe_fp8_ws_run.cuh"

using moe_fp8_grouped::ws::Ws;

int moe_fp8ws_overlap(const DLTensor* routing_logits, const DLTensor* routing_bias,
                      const DLTensor* hidden_states, const DLTensor* hidden_states_scale,
                      const DLTensor* gemm1_weights, const DLTensor* gemm1_weights_scale,
                      const DLTensor* gemm2_weights, const DLTensor* gemm2_weights_scale,
                      int32_t local_expert_offset, float routed_scaling_factor, DLTensor* output,
                      kh_stream_t stream) {
  return moe_fp8_grouped::ws::run<Ws::persistent | Ws::tma_scales | Ws::overlap>(
      routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
      gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output, stream);
}
