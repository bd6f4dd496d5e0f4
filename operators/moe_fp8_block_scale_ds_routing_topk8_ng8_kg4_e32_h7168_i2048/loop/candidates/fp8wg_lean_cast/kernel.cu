// fp8 MoE, fp8wg_lean with the cast to bf16 done by GEMM2's last blocks (fp8wg_lean_cast).
//
// What: fp8wg_lean (loop/candidates/fp8wg_lean/kernel.cu) for T > 128 and for the routing; for
// T <= 128 GEMM2 (Cfg's kCastLast, moe_fp8_gemm.cuh) counts, per column tile, the blocks that have
// added their rows into the fp32 sum, and the last of them casts that tile of every token to bf16:
// no to_bf16 launch. The small call is then route, plan_assign_zero, GEMM1, GEMM2: 4 device
// operations where fp8wg makes 8.
// Why faster: fp8wg_lean's reason once more (short kernels waiting on their launches; to_bf16 ran
// 2.3 us at T = 1 in the 2026-12-04 profile, its launch costs more); the last block's cast reads
// 64 columns of <= 128 tokens from L2. Expected: ~5-10 us below fp8wg_lean at T <= 128.
// Accuracy: fp8wg's (the same fp32 sum, cast with the same rounding).
#include "moe_fp8_grouped.cuh"

namespace {

using moe_fp8_grouped::Cfg;

struct Plan : moe_fp8_grouped::Fp8wgPlan {
  //                   BM  BN halves WM WN stages minBlocks wgmma fold128 cast
  using G2Small = Cfg<16, 64, 1, 1, 4, 6, 3, false, false, true>;
};

}  // namespace

int moe_fp8wg_lean_cast(const DLTensor* routing_logits, const DLTensor* routing_bias,
                        const DLTensor* hidden_states, const DLTensor* hidden_states_scale,
                        const DLTensor* gemm1_weights, const DLTensor* gemm1_weights_scale,
                        const DLTensor* gemm2_weights, const DLTensor* gemm2_weights_scale,
                        int32_t local_expert_offset, float routed_scaling_factor, DLTensor* output,
                        kh_stream_t stream) {
  return moe_fp8_grouped::run<Plan, true>(
      routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
      gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output, stream);
}
