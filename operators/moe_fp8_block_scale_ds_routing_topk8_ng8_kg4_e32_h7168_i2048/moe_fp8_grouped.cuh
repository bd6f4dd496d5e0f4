// The call of the loop's fp8 MoE candidates (fp8mma, fp8wg): one stream-ordered scratch
// allocation, routing (moe_routing.cuh), GEMM1 + SwiGLU and GEMM2 (moe_fp8_gemm.cuh) in the
// configurations a candidate's Plan names for its call size, the cast to bf16. No host round trip.
#pragma once

#include <kharness/kernel.h>

#include "moe_fp8_gemm.cuh"
#include "moe_routing.cuh"

namespace moe_fp8_grouped {

struct Scratch {
  int *counts, *cursors, *offsets, *pick_local, *row_token, *num_tiles;
  unsigned* arrived;  // GEMM2's column tiles' arrival counters (kCastLast), after counts and cursors
  int2* tiles;
  float *pick_weight, *row_weight, *sum, *act_scale;
  uint8_t* act;

  int64_t layout(char* base, int local, int64_t picks, int64_t max_rows, int inter, int64_t outputs,
                 int64_t max_tiles) {
    int64_t used = 0;
    auto carve = [&](auto*& ptr, int64_t count) {
      ptr = base == nullptr ? nullptr : reinterpret_cast<std::remove_reference_t<decltype(ptr)>>(base + used);
      used += (count * static_cast<int64_t>(sizeof(*ptr)) + 255) / 256 * 256;
    };
    // counts, cursors and the arrival counters side by side: one memset
    carve(counts, 2 * local + kH / 64);
    cursors = base == nullptr ? nullptr : counts + local;
    arrived = base == nullptr ? nullptr : reinterpret_cast<unsigned*>(counts + 2 * local);
    carve(offsets, local + 1);
    carve(num_tiles, 1);
    carve(tiles, max_tiles);
    carve(pick_local, picks);
    carve(pick_weight, picks);
    carve(row_token, max_rows);
    carve(row_weight, max_rows);
    carve(sum, outputs);
    carve(act_scale, max_rows * (inter / kQuant));
    carve(act, max_rows * inter);
    return used;
  }
};

template <class C, bool kGemm1>
void launch_gemm(const GemmArgs& a, int n_tiles_x, int max_tiles, cudaStream_t stream) {
  static bool configured = false;  // per instantiation
  if (!configured) {
    cudaFuncSetAttribute(fp8_gemm<C, kGemm1>, cudaFuncAttributeMaxDynamicSharedMemorySize, C::kSmem);
    configured = true;
  }
  fp8_gemm<C, kGemm1><<<dim3(n_tiles_x, max_tiles), C::kThreads, C::kSmem, stream>>>(a);
}

// The routing and the row plan before GEMM1. kLean (fp8wg_lean; calls of at most kPlanMaxTokens
// tokens and kPlanMaxLocal local experts): route, then plan_assign_zero (2 launches); otherwise the
// two memsets, route, plan_tiles and assign_rows (5). Either zeroes `arrivals` counters of GEMM2's
// cast (b.arrived), 0 without one.
template <bool kLean>
void launch_routing(const DLTensor* routing_logits, const DLTensor* routing_bias, int tokens, int32_t offset,
                    int local, float scaling, int bm, int64_t max_tiles, int64_t outputs, int arrivals,
                    const Scratch& b, cudaStream_t stream) {
  if constexpr (!kLean) {
    cudaMemsetAsync(b.counts, 0, (2 * local + arrivals) * sizeof(int), stream);
    cudaMemsetAsync(b.sum, 0, outputs * sizeof(float), stream);
  }
  // Lean: route's counts are not read (plan_assign_zero recounts), so they are left unzeroed.
  route<<<(tokens + 3) / 4, 128, 0, stream>>>(static_cast<const float*>(routing_logits->data),
                                              static_cast<const __nv_bfloat16*>(routing_bias->data), tokens,
                                              offset, local, scaling, b.pick_local, b.pick_weight, b.counts);
  if constexpr (kLean) {
    const int64_t sum4 = outputs / 4;  // H = 7168 is a multiple of 4
    int64_t zero_blocks = (sum4 + 4 * kPlanThreads - 1) / (4 * kPlanThreads);
    zero_blocks = zero_blocks < 1 ? 1 : (zero_blocks > 64 ? 64 : zero_blocks);
    plan_assign_zero<<<static_cast<unsigned>(1 + zero_blocks), kPlanThreads, 0, stream>>>(
        b.pick_local, b.pick_weight, tokens, local, bm, static_cast<int>(max_tiles), b.offsets, b.tiles,
        b.num_tiles, b.row_token, b.row_weight, reinterpret_cast<float4*>(b.sum), sum4, b.arrived, arrivals);
  } else {
    const int64_t picks = static_cast<int64_t>(tokens) * kTopK;
    plan_tiles<<<1, 32, 0, stream>>>(b.counts, local, bm, static_cast<int>(max_tiles), b.offsets, b.tiles,
                                     b.num_tiles);
    assign_rows<<<static_cast<unsigned>((picks + 255) / 256), 256, 0, stream>>>(
        b.pick_local, b.pick_weight, tokens, b.offsets, b.cursors, b.row_token, b.row_weight);
  }
}

// A call's sizes: its scratch and its tile list of bm-row tiles.
struct CallSize {
  int tokens, local;
  int64_t picks, max_rows, outputs, max_tiles;
};

inline CallSize call_size(const DLTensor* routing_logits, const DLTensor* gemm1_weights, int bm) {
  CallSize n{};
  n.tokens = static_cast<int>(routing_logits->shape[0]);
  n.local = static_cast<int>(gemm1_weights->shape[0]);
  n.picks = static_cast<int64_t>(n.tokens) * kTopK;
  n.max_rows = static_cast<int64_t>(n.tokens) * (n.local < kTopK ? n.local : kTopK);
  n.outputs = static_cast<int64_t>(n.tokens) * kH;
  // sum over experts of ceil(c_e / bm) <= (rows + nonempty * (bm - 1)) / bm, nonempty <= min(local, rows)
  const int64_t nonempty = n.max_rows < n.local ? n.max_rows : n.local;
  n.max_tiles = (n.max_rows + nonempty * (bm - 1)) / bm;
  const int64_t per_expert = static_cast<int64_t>(n.local) * ((n.tokens + bm - 1) / bm);
  if (per_expert < n.max_tiles) n.max_tiles = per_expert;
  if (n.max_tiles < 1) n.max_tiles = 1;
  return n;
}

// GEMM2's fp32 sum [T, H] as the bf16 output.
inline void launch_to_bf16(const float* sum, int64_t outputs, DLTensor* output, cudaStream_t stream) {
  const int64_t n4 = outputs / 4;  // H = 7168 is a multiple of 4
  int64_t blocks = (n4 + 255) / 256;
  if (blocks > 4096) blocks = 4096;
  to_bf16<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(reinterpret_cast<const float4*>(sum), n4,
                                                             static_cast<uint2*>(output->data));
}

template <class C1, class C2, bool kLean = false>
int run_moe(const DLTensor* routing_logits, const DLTensor* routing_bias, const DLTensor* hidden_states,
            const DLTensor* hidden_states_scale, const DLTensor* gemm1_weights,
            const DLTensor* gemm1_weights_scale, const DLTensor* gemm2_weights,
            const DLTensor* gemm2_weights_scale, int32_t local_expert_offset, float routed_scaling_factor,
            DLTensor* output, cudaStream_t stream) {
  static_assert(C1::BM == C2::BM, "one tile list serves both GEMMs");
  if constexpr (kLean) {
    if (routing_logits->shape[0] > kPlanMaxTokens || gemm1_weights->shape[0] > kPlanMaxLocal)
      return run_moe<C1, C2, false>(routing_logits, routing_bias, hidden_states, hidden_states_scale,
                                    gemm1_weights, gemm1_weights_scale, gemm2_weights, gemm2_weights_scale,
                                    local_expert_offset, routed_scaling_factor, output, stream);
  }
  const CallSize n = call_size(routing_logits, gemm1_weights, C1::BM);
  if (n.max_tiles > 65535) return 1;
  const int tokens = n.tokens, hidden = kH, local = n.local, inter = kI;
  const int64_t picks = n.picks, max_rows = n.max_rows, outputs = n.outputs, max_tiles = n.max_tiles;
  constexpr int BM = C1::BM;

  Scratch b{};
  char* scratch = nullptr;
  if (cudaMallocAsync(&scratch, b.layout(nullptr, local, picks, max_rows, inter, outputs, max_tiles),
                      stream) != cudaSuccess)
    return 1;
  b.layout(scratch, local, picks, max_rows, inter, outputs, max_tiles);
  const int arrivals = C2::kCastLast ? hidden / C2::BN : 0;  // GEMM2's column tiles
  launch_routing<kLean>(routing_logits, routing_bias, tokens, local_expert_offset, local,
                        routed_scaling_factor, BM, max_tiles, outputs, arrivals, b, stream);

  GemmArgs g1{};
  g1.a = static_cast<const uint8_t*>(hidden_states->data);
  g1.a_scale = static_cast<const float*>(hidden_states_scale->data);
  g1.w = static_cast<const uint8_t*>(gemm1_weights->data);
  g1.w_scale = static_cast<const float*>(gemm1_weights_scale->data);
  g1.offsets = b.offsets;
  g1.tiles = b.tiles;
  g1.num_tiles = b.num_tiles;
  g1.row_token = b.row_token;
  g1.row_weight = b.row_weight;
  g1.tokens = tokens;
  g1.k_dim = hidden;
  g1.n_out = inter;
  g1.act = b.act;
  g1.act_scale = b.act_scale;
  launch_gemm<C1, true>(g1, inter / C1::BN, static_cast<int>(max_tiles), stream);

  GemmArgs g2 = g1;
  g2.a = b.act;
  g2.a_scale = b.act_scale;
  g2.w = static_cast<const uint8_t*>(gemm2_weights->data);
  g2.w_scale = static_cast<const float*>(gemm2_weights_scale->data);
  g2.k_dim = inter;
  g2.n_out = hidden;
  // GEMM2's free fields (moe_fp8_gemm.cuh's GemmArgs): with kCastLast, the bf16 output and the counters.
  g2.act = C2::kCastLast ? static_cast<uint8_t*>(output->data) : nullptr;
  g2.act_scale = C2::kCastLast ? reinterpret_cast<float*>(b.arrived) : nullptr;
  g2.sum = b.sum;
  launch_gemm<C2, false>(g2, hidden / C2::BN, static_cast<int>(max_tiles), stream);

  if constexpr (!C2::kCastLast)
    launch_to_bf16(b.sum, outputs, output, stream);  // else GEMM2's last blocks cast
  cudaFreeAsync(scratch, stream);
  return 0;
}

// fp8wg's configurations (its candidate's notes say why): mma.sync for T <= 128, wgmma above.
struct Fp8wgPlan {
  //                   BM   BN  halves WM WN stages minBlocks wgmma
  using G1Small = Cfg<16, 64, 2, 1, 4, 6, 2>;
  using G2Small = Cfg<16, 64, 1, 1, 4, 6, 3>;
  using G1Mid = Cfg<64, 64, 2, 4, 1, 4, 2, true>;      // one warpgroup: wgmma m64n64k32 x2
  using G2Mid = Cfg<64, 128, 1, 4, 1, 4, 2, true>;     // wgmma m64n128k32
  using G1Large = Cfg<128, 64, 2, 8, 1, 4, 1, true>;   // wgmma m64n64k32 x2 (X1, X2)
  using G2Large = Cfg<128, 128, 1, 8, 1, 4, 1, true>;  // wgmma m64n128k32
};

// The entry's body. Plan: the GEMM1 / GEMM2 configurations for T <= 128 (G1Small, G2Small),
// T <= 2048 (G1Mid, G2Mid) and above (G1Large, G2Large). kLeanSmall: the small calls plan their rows
// with launch_routing's lean path. 1 for shapes these kernels are not for.
template <class Plan, bool kLeanSmall = false>
int run(const DLTensor* routing_logits, const DLTensor* routing_bias, const DLTensor* hidden_states,
        const DLTensor* hidden_states_scale, const DLTensor* gemm1_weights,
        const DLTensor* gemm1_weights_scale, const DLTensor* gemm2_weights,
        const DLTensor* gemm2_weights_scale, int32_t local_expert_offset, float routed_scaling_factor,
        DLTensor* output, cudaStream_t stream) {
  const int tokens = static_cast<int>(routing_logits->shape[0]);
  if (tokens == 0) return 0;
  // Shapes this kernel is written for (H, I multiples of 128, 256 experts).
  if (routing_logits->shape[1] != 256 || hidden_states->shape[1] != kH || gemm2_weights->shape[2] != kI ||
      gemm1_weights->shape[1] != 2 * kI)
    return 1;
#define KH_MOE_ARGS                                                                                     \
  routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale, \
      gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output, stream
  if (tokens <= 128) return run_moe<typename Plan::G1Small, typename Plan::G2Small, kLeanSmall>(KH_MOE_ARGS);
  if (tokens <= 2048) return run_moe<typename Plan::G1Mid, typename Plan::G2Mid>(KH_MOE_ARGS);
  return run_moe<typename Plan::G1Large, typename Plan::G2Large>(KH_MOE_ARGS);
#undef KH_MOE_ARGS
}

}  // namespace moe_fp8_grouped
