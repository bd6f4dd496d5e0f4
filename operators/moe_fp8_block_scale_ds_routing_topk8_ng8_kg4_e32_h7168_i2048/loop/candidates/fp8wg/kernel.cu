// fp8 MoE, fp8mma + Hopper warpgroup MMA (wgmma) for the compute-bound sizes (fp8wg).
//
// What: identical to the fp8mma candidate (routing and row grouping as the baseline, a
// device-side (expert, row-tile) list, fp8 GEMMs straight on the e4m3 codes with the
// block scales folded into fp32 accumulators every 64 k, SwiGLU fused into GEMM1 and its
// output re-quantised to e4m3 per (row, 64 columns), GEMM2 scatter-added with float2
// atomics into an fp32 [T, H] buffer, cast to bf16), except that for T > 2048 both GEMMs
// use `wgmma.mma_async.m64nNk32.f32.e4m3.e4m3` (SASS: QGMMA) with both operands read by the tensor cores
// from shared memory (128-byte swizzled K-major tiles written by cp.async, BM = 128 = two
// m64 warpgroups, GEMM1 two n64 instructions for matching X1/X2 columns, GEMM2 one n128),
// instead of mma.sync fed by ld.shared (which sm_90 runs as fp8->f16 unpacks + HMMA.16816,
// checked in the SASS: no native fp8 mma.sync on Hopper). 128 < T <= 2048 uses the same
// wgmma kernel with BM = 64 (one warpgroup). T <= 128 runs exactly fp8mma's mma.sync
// kernels (bandwidth-bound there, the unpacks cost nothing).
//
// Why faster: at T = 11948 / 14107 (2.0 / 2.4 TFLOP, ~60% of the baseline's mean) the
// mma.sync kernel is bound by ld.shared bandwidth (~190 B per m16n8k32) and by mma.sync's
// fp8 rate on Hopper; wgmma reads operands without register staging and runs at the
// Hopper fp8 rate. Expected T=14107: ~2-3 ms (vs ~4-6 ms fp8mma, 30.6 ms baseline), T=901
// ~0.35-0.45 ms; T <= 128 as fp8mma (T=1 ~50 us, T=16 ~300 us, T=52-80 ~400-500 us).
// The routing, the GEMMs and the call are the operator's moe_routing.cuh, moe_fp8_gemm.cuh and
// moe_fp8_grouped.cuh (fp8mma and fp8wg differ only in their configurations: fp8wg's is Fp8wgPlan there).
#include "moe_fp8_grouped.cuh"

int moe_fp8wg(const DLTensor* routing_logits, const DLTensor* routing_bias, const DLTensor* hidden_states,
              const DLTensor* hidden_states_scale, const DLTensor* gemm1_weights,
              const DLTensor* gemm1_weights_scale, const DLTensor* gemm2_weights,
              const DLTensor* gemm2_weights_scale, int32_t local_expert_offset, float routed_scaling_factor,
              DLTensor* output, kh_stream_t stream) {
  return moe_fp8_grouped::run<moe_fp8_grouped::Fp8wgPlan>(
      routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
      gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output, stream);
}
