// fp8 MoE fp8ws_prefetch: fp8ws_persist (promoted, H100 2026-12-06) with each k block's block
// scales loaded one k block ahead (moe_fp8_ws.cuh, kPrefetch).
//
// What: the consumer warpgroups of the persistent warp-specialised GEMMs load the activation and
// weight scales of k block kb + 1 into registers before running k block kb's wgmmas, instead of
// loading kb's own just before waiting for its stage. Everything else is fp8ws_persist's.
//
// Why: ncu on the H100 (fp8ws_persist, 14107 tokens): GEMM1 2747 us at SM 32% / memory 39%, its
// warps stalled mostly on long_scoreboard (5.6 cycles an instruction; GEMM2 2.0): the scale loads
// (GEMM1's activation scales are one 4-byte load a row from a [56, T] table, scattered by token)
// wait out their L2 latency at the fold, because the stage's mbarrier wait returns at once when the
// producer is ahead. One k block ahead, that latency hides behind a stage's wgmmas.
// Expected: GEMM1 10-20% faster at T > 2048 (14107 tokens ~4.5 -> ~4.1 ms on the H100).
#include "moe_fp8_ws_run.cuh"

using moe_fp8_grouped::ws::Ws;

int moe_fp8ws_prefetch(const DLTensor* routing_logits, const DLTensor* routing_bias,
                       const DLTensor* hidden_states, const DLTensor* hidden_states_scale,
                       const DLTensor* gemm1_weights, const DLTensor* gemm1_weights_scale,
                       const DLTensor* gemm2_weights, const DLTensor* gemm2_weights_scale,
                       int32_t local_expert_offset, float routed_scaling_factor, DLTensor* output,
                       kh_stream_t stream) {
  return moe_fp8_grouped::ws::run<Ws::persistent | Ws::prefetch>(
      routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
      gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output, stream);
}
