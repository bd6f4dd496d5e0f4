// fp8 MoE fp8wg_fold128: fp8wg (promoted) with GEMM1's wgmma stage folded into the fp32
// accumulators once per 128 k instead of twice (moe_fp8_gemm.cuh, Cfg's kFold128).
//
// What: in fp8wg's wgmma kernels each 128-deep stage runs as two groups of two k32 wgmmas, each
// group waited out (wgmma.wait_group 0) and then folded into the accumulators with its scales
// (64 FFMAs a thread for BN = 64 x 2 halves). GEMM1's activation scale (hidden_states_scale) is
// one per 128 k, so the two groups carry the same scale: here GEMM1 issues the stage's four k32
// steps as one group, waits once and folds once. GEMM2 (activation scale per 64 k: its codes
// are re-quantised per 64 columns) and the mma.sync path (T <= 128) are fp8wg's.
//
// Why: at T = 11948 / 14107 the two workloads take 5.7 and 6.5 ms, 64% of the operator's mean,
// at 24% of the fp8 speed of light with neither unit busy (bench/results/h200-loop/summary.json,
// regimes large and outlier 1); GEMM1 is two thirds of their FLOPs. Each wait drains the
// tensor-core pipe and the fold's FFMAs run while it idles: per 64 k a warpgroup's m64n128k64
// is ~128 tensor clocks, the fold ~64 FFMAs a thread, the wait a pipe's latency.
// Expected: GEMM1 ~15-25% faster at T > 128 (T = 14107: 6.5 -> ~5.5-6 ms; mean 1.05 -> ~0.95 ms).
// Numerics: 4 k32 products summed in the wgmma's fp32 accumulator before scaling instead of 2
// (DeepGEMM promotes every 128 k as well); within the operator's atol 1, rtol 0.3.
#include "moe_fp8_grouped.cuh"

namespace {

using moe_fp8_grouped::Cfg;

struct Plan {
  //                   BM   BN  halves WM WN stages minBlocks wgmma fold128
  using G1Small = Cfg<16, 64, 2, 1, 4, 6, 2>;
  using G2Small = Cfg<16, 64, 1, 1, 4, 6, 3>;
  using G1Mid = Cfg<64, 64, 2, 4, 1, 4, 2, true, true>;
  using G2Mid = Cfg<64, 128, 1, 4, 1, 4, 2, true>;
  using G1Large = Cfg<128, 64, 2, 8, 1, 4, 1, true, true>;
  using G2Large = Cfg<128, 128, 1, 8, 1, 4, 1, true>;
};

}  // namespace

int moe_fp8wg_fold128(const DLTensor* routing_logits, const DLTensor* routing_bias,
                      const DLTensor* hidden_states, const DLTensor* hidden_states_scale,
                      const DLTensor* gemm1_weights, const DLTensor* gemm1_weights_scale,
                      const DLTensor* gemm2_weights, const DLTensor* gemm2_weights_scale,
                      int32_t local_expert_offset, float routed_scaling_factor, DLTensor* output,
                      kh_stream_t stream) {
  return moe_fp8_grouped::run<Plan>(routing_logits, routing_bias, hidden_states, hidden_states_scale,
                                    gemm1_weights, gemm1_weights_scale, gemm2_weights, gemm2_weights_scale,
                                    local_expert_offset, routed_scaling_factor, output, stream);
}
