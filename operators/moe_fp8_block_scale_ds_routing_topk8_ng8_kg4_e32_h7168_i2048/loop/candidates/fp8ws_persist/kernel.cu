// fp8 MoE fp8ws_persist: fp8ws with its two warp-specialised GEMMs persistent (moe_fp8_ws.cuh,
// kPersistent): one block an SM walks the output tiles, its producer streaming the next tile's
// stages while the consumers finish the last one.
//
// What: as fp8ws for T > 2048 (TMA producer, two wgmma consumer warpgroups, six 32 KB stages),
// except that the grid is one 384-thread block an SM instead of one block a (column tile, row
// tile) and the stage ring runs on across tiles; T <= 2048 runs fp8wg's kernels.
//
// Why: with 197 KB of shared memory one block fits an SM, so in fp8ws each new block starts with
// an empty ring (mbarrier set-up, a TMA round trip of ~1 us before the first wgmma) and ends with
// its epilogue (SwiGLU and fp8 stores, or GEMM2's atomics) while the tensor cores idle: ~1-2 us
// of a ~15 us GEMM1 tile, and a few thousand blocks past the tile list that each start and leave.
// Persistent, the producer fills the ring for the next tile during the epilogue.
// Expected: 5-10% under fp8ws at T > 2048.
#include "moe_fp8_ws_run.cuh"

using moe_fp8_grouped::ws::Ws;

int moe_fp8ws_persist(const DLTensor* routing_logits, const DLTensor* routing_bias,
                      const DLTensor* hidden_states, const DLTensor* hidden_states_scale,
                      const DLTensor* gemm1_weights, const DLTensor* gemm1_weights_scale,
                      const DLTensor* gemm2_weights, const DLTensor* gemm2_weights_scale,
                      int32_t local_expert_offset, float routed_scaling_factor, DLTensor* output,
                      kh_stream_t stream) {
  return moe_fp8_grouped::ws::run<Ws::persistent>(
      routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
      gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output, stream);
}
