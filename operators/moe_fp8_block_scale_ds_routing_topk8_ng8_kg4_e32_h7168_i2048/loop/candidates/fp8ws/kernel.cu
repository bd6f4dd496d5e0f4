// fp8 MoE fp8ws: fp8wg (promoted) with both GEMMs of the large calls (T > 2048) warp-specialised
// and fed by the tensor memory accelerator (moe_fp8_ws.cuh).
//
// What: for T > 2048, GEMM1's activation rows are first gathered into expert order; then each
// GEMM block (128 rows x 128 output columns, as fp8wg's large tiles) runs one producer thread that
// streams 128 x 128-byte A and B tiles with TMA (cp.async.bulk.tensor, 128-byte swizzle) into a
// ring of six 32 KB stages, and two consumer warpgroups that only wait on the stage's mbarrier, run
// the stage's k32 wgmmas (QGMMA), release the stage and fold the block scales. T <= 2048 runs
// fp8wg's kernels unchanged.
//
// Why: at 11948 / 14107 tokens the call takes 5.6 / 6.5 ms at 24-25% of the fp8 peak, GEMM1 alone
// 3.5 / 4.1 ms, with "neither unit busy" and few stall cycles an instruction (ncu, 2026-12-04 call 5:
// wait 1.0, barrier 0.6): the SM is issuing instructions, not waiting. fp8wg's 256 threads issue
// 2048 cp.async a stage with their address arithmetic, then all meet at a __syncthreads, run the
// wgmmas, wait them out and fold, so the tensor cores idle during the load issue and the folds.
// fp8wg_fold128 halved the folds and gained 5%, so the loads and the lockstep are the suspects.
// Expected: GEMM1 and GEMM2 ~1.5-2x faster at T > 2048 (14107 tokens: 6.5 -> ~4 ms; the mean of
// the 19 workloads 1.05 -> ~0.8 ms); smaller calls unchanged.
#include "moe_fp8_ws_run.cuh"

int moe_fp8ws(const DLTensor* routing_logits, const DLTensor* routing_bias, const DLTensor* hidden_states,
              const DLTensor* hidden_states_scale, const DLTensor* gemm1_weights,
              const DLTensor* gemm1_weights_scale, const DLTensor* gemm2_weights,
              const DLTensor* gemm2_weights_scale, int32_t local_expert_offset, float routed_scaling_factor,
              DLTensor* output, kh_stream_t stream) {
  return moe_fp8_grouped::ws::run<0>(routing_logits, routing_bias, hidden_states, hidden_states_scale,
                                     gemm1_weights, gemm1_weights_scale, gemm2_weights, gemm2_weights_scale,
                                     local_expert_offset, routed_scaling_factor, output, stream);
}
