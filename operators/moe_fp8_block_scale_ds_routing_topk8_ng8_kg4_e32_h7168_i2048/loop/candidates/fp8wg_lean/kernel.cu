// fp8 MoE, fp8wg with fewer launches for the small calls (fp8wg_lean).
//
// What: fp8wg (its notes: loop/candidates/fp8wg/kernel.cu) unchanged for T > 128. For T <= 128 the
// routing and the row plan take 2 launches instead of 5: route, then plan_assign_zero
// (moe_routing.cuh), one block of which recounts each local expert's picks, lays out the
// (expert, first row) tiles and assigns every pick its row in shared memory while its other blocks
// zero GEMM2's fp32 sum; the two memsets, plan_tiles and assign_rows are gone. The GEMMs and the
// cast are fp8wg's, byte for byte.
//
// Why faster: at T = 1 the H200 profile (bench/results/h200-loop/2026-12-04/call5) has fp8wg's six
// kernels running 21.6 us of an 89.3 us call: the rest is eight device operations launched one
// after another, each waiting on the host (a traced launch costs ~2 us more, docs/timing.md). Three
// operations fewer should take ~15-30 us off every call of T <= 128 (12 of the 19 workloads: T=1
// 105 -> ~80 us, T=14..80 330-515 -> 3-8% less); T > 128 runs fp8wg exactly.
// Accuracy: fp8wg's (the same rows, tiles and GEMMs; rows within an expert in atomic order as before).
#include "moe_fp8_grouped.cuh"

int moe_fp8wg_lean(const DLTensor* routing_logits, const DLTensor* routing_bias,
                   const DLTensor* hidden_states, const DLTensor* hidden_states_scale,
                   const DLTensor* gemm1_weights, const DLTensor* gemm1_weights_scale,
                   const DLTensor* gemm2_weights, const DLTensor* gemm2_weights_scale,
                   int32_t local_expert_offset, float routed_scaling_factor, DLTensor* output,
                   kh_stream_t stream) {
  return moe_fp8_grouped::run<moe_fp8_grouped::Fp8wgPlan, true>(
      routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
      gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output, stream);
}
