// fp8 MoE fp8ws_pair: fp8ws with its warp-specialised GEMMs launched as clusters of two blocks on
// neighbouring column tiles of one row tile, sharing the A tile (moe_fp8_ws.cuh, kPair).
//
// What: as fp8ws for T > 2048, except that each block's producer loads only half of the stage's
// 128-row A tile (64 rows) with a multicast TMA that writes it into both blocks of the cluster;
// a stage is reused once the consumers of both blocks have released it (each consumer warp
// arrives on its own block's and its peer's mbarrier). B tiles stay per block.
//
// Why: a 128 x 128 output tile with 128 x 128-byte A and B tiles a stage moves 32 KB from L2 into
// shared memory per 4.2 MFLOP, ~128 FLOP a byte: at the fp8 peak every SM would pull ~64 bytes a
// clock, ~16 TB/s over 132 SMs, above what L2 gives. Sharing A cuts it to 24 KB a stage (-25%).
// Expected: where fp8ws is bound by L2-to-SM traffic, up to ~1.3x on its GEMMs; no gain if not.
#include "moe_fp8_ws_run.cuh"

using moe_fp8_grouped::ws::Ws;

int moe_fp8ws_pair(const DLTensor* routing_logits, const DLTensor* routing_bias,
                   const DLTensor* hidden_states, const DLTensor* hidden_states_scale,
                   const DLTensor* gemm1_weights, const DLTensor* gemm1_weights_scale,
                   const DLTensor* gemm2_weights, const DLTensor* gemm2_weights_scale,
                   int32_t local_expert_offset, float routed_scaling_factor, DLTensor* output,
                   kh_stream_t stream) {
  return moe_fp8_grouped::ws::run<Ws::pair>(
      routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
      gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output, stream);
}
