// The host half of the warp-specialised fp8 MoE path (moe_fp8_ws.cuh holds its kernels): the
// launches of the GEMM kernels (grid, cluster and shared-memory size per instantiation), the large
// call's scratch, tensor maps and kernel sequence, and the entry every fp8ws candidate calls.
//
// Why a header of its own: the kernels are what the loop measured and what same_ptx.py compares;
// the launch code changes for other reasons (a new candidate's flags, a new grid), and reads whole
// apart from the device code.
#pragma once

#include "moe_fp8_ws.cuh"

namespace moe_fp8_grouped::ws {

inline int sm_count() {
  static const int sms = [] {
    int device = 0, n = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device);
    return n < 1 ? 1 : n;
  }();
  return sms;
}

// The launch of one of the warp-specialised GEMM kernels: kThreads threads a block, smem bytes of
// dynamic shared memory, clusters of cluster_x blocks along x. Not copyable: config points at cluster.
struct ClusterLaunch {
  cudaLaunchAttribute cluster{};
  cudaLaunchConfig_t config{};
  ClusterLaunch(dim3 grid, int smem, unsigned cluster_x, cudaStream_t stream) {
    config.gridDim = grid;
    config.blockDim = dim3(kThreads);
    config.dynamicSmemBytes = smem;
    config.stream = stream;
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = cluster_x;
    cluster.val.clusterDim.y = 1;
    cluster.val.clusterDim.z = 1;
    config.attrs = &cluster;
    config.numAttrs = 1;
  }
  ClusterLaunch(const ClusterLaunch&) = delete;
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;
};

template <class... Params, class... Values>
void launch_gemm(void (*kernel)(Params...), dim3 grid, int smem, unsigned cluster_x, cudaStream_t stream,
                 const Values&... values) {
  const ClusterLaunch launch(grid, smem, cluster_x, stream);
  cudaLaunchKernelEx(&launch.config, kernel, values...);
}

template <bool kGemm1, bool kPersistent, bool kPair, bool kPrefetch>
void launch_ws(const CUtensorMap& map_a, const CUtensorMap& map_w, const Args& a, int max_tiles,
               cudaStream_t stream) {
  constexpr auto kernel = fp8_gemm_ws<kGemm1, kPersistent, kPair, kPrefetch>;
  static const bool sized =  // per instantiation, as the attribute
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem) == cudaSuccess;
  (void)sized;
  constexpr unsigned kTilesX = Shape<kGemm1>::kNOut / Shape<kGemm1>::BN;
  const dim3 grid =
      kPersistent ? dim3(static_cast<unsigned>(sm_count())) : dim3(kTilesX, static_cast<unsigned>(max_tiles));
  launch_gemm(kernel, grid, kSmem, kPair ? 2u : 1u, stream, map_a, map_w, a);
}

// Blocks of the persistent grid: one an SM; for pairs, two a cluster that can be resident at once
// (a GPC's odd SM is left out), found once per kernel.
template <class Kernel>
unsigned persistent_blocks(Kernel kernel, bool pair) {
  if (!pair) return static_cast<unsigned>(sm_count());
  const ClusterLaunch launch(dim3(static_cast<unsigned>(sm_count() & ~1)), kSmemTmaScales, 2u, nullptr);
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &launch.config) != cudaSuccess || clusters < 1)
    clusters = 1;
  return 2u * static_cast<unsigned>(clusters);
}

template <bool kGemm1, bool kByColumn = false, bool kPair = false, bool kOverlap = false, bool kRed4 = false>
void launch_ws_tma_scales(const CUtensorMap& map_a, const CUtensorMap& map_w, const CUtensorMap& map_sa,
                          const CUtensorMap& map_sw, const Args& a, cudaStream_t stream) {
  static_assert(!kPair || Shape<kGemm1>::kNOut / Shape<kGemm1>::BN % 2 == 0, "a pair shares a row tile");
  constexpr auto kernel = fp8_gemm_ws_tma_scales<kGemm1, kByColumn, kPair, kOverlap, kRed4>;
  static const bool sized = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                 kSmemTmaScales) == cudaSuccess;
  (void)sized;
  static const unsigned blocks = persistent_blocks(kernel, kPair);
  launch_gemm(kernel, dim3(blocks), kSmemTmaScales, kPair ? 2u : 1u, stream, map_a, map_w, map_sa, map_sw, a);
}

// Calls this path is for: above 2048 tokens (below, the weights' streaming bounds the call and
// fp8wg's kernels serve), in the shapes the kernels are written for.
inline bool is_large(const DLTensor* routing_logits, const DLTensor* hidden_states,
                     const DLTensor* gemm1_weights, const DLTensor* gemm2_weights) {
  return routing_logits->shape[0] > 2048 && routing_logits->shape[1] == 256 &&
         hidden_states->shape[1] == kH && gemm2_weights->shape[2] == kI && gemm1_weights->shape[1] == 2 * kI;
}

// What a candidate's large-call path is made of: the template argument of run and run_large, a set of
// these combined with |. None of them: fp8ws (one block an output tile).
struct Ws {
  static constexpr unsigned persistent = 1u << 0;  // one block an SM walks the output tiles
  static constexpr unsigned pair = 1u << 1;        // clusters of two share their A tiles (multicast)
  static constexpr unsigned prefetch = 1u << 2;    // the consumers load the scales a k block ahead
  static constexpr unsigned tma_scales = 1u << 3;  // the stages carry their block scales (persistent)
  static constexpr unsigned by_column = 1u << 4;   // an expert's row tiles fastest (item_at)
  static constexpr unsigned overlap = 1u << 5;     // two accumulator sets a consumer (consume_overlap)
  static constexpr unsigned red4 = 1u << 6;        // GEMM2's scatter-add in float4 (scatter_add4)
};

// The large call: routing as fp8wg's (tiles of kBM rows), the gather, both GEMMs warp-specialised,
// the cast. 1 where a tensor map cannot be made or the tile list would not fit the grid.
template <unsigned kPlan>
int run_large(const DLTensor* routing_logits, const DLTensor* routing_bias, const DLTensor* hidden_states,
              const DLTensor* hidden_states_scale, const DLTensor* gemm1_weights,
              const DLTensor* gemm1_weights_scale, const DLTensor* gemm2_weights,
              const DLTensor* gemm2_weights_scale, int32_t local_expert_offset, float routed_scaling_factor,
              DLTensor* output, cudaStream_t stream) {
  constexpr bool kPersistent = kPlan & Ws::persistent, kPair = kPlan & Ws::pair,
                 kPrefetch = kPlan & Ws::prefetch;
  constexpr bool kTmaScales = kPlan & Ws::tma_scales, kByColumn = kPlan & Ws::by_column;
  constexpr bool kOverlap = kPlan & Ws::overlap, kRed4 = kPlan & Ws::red4;
  static_assert(!kTmaScales || kPersistent, "the TMA-scales kernels are persistent");
  static_assert(!kByColumn || kTmaScales, "the column order is written for the TMA-scales kernels");
  static_assert(!kByColumn || !kPair, "a pair walks neighbouring column tiles of one row tile");
  static_assert(!kOverlap || kTmaScales, "the overlapped consumers read the scales the stages carry");
  static_assert(!kRed4 || kOverlap, "the 16-byte epilogue is the overlapped consumers'");
  const CallSize n = call_size(routing_logits, gemm1_weights, kBM);
  if (n.max_tiles > 65535) return 1;
  Scratch b{};
  const int64_t used = b.layout(nullptr, n.local, n.picks, n.max_rows, kI, n.outputs, n.max_tiles);
  char* scratch = nullptr;
  const int64_t rows_pad = (n.max_rows + 3) / 4 * 4;  // the gathered scales' row stride: 16-byte multiple
  const int64_t scales_bytes = kTmaScales ? (kH / kBlock) * rows_pad * 4 : 0;
  if (cudaMallocAsync(&scratch, used + n.max_rows * kH + scales_bytes, stream) != cudaSuccess) return 1;
  b.layout(scratch, n.local, n.picks, n.max_rows, kI, n.outputs, n.max_tiles);
  auto* rows = reinterpret_cast<uint8_t*>(scratch + used);  // used is a multiple of 256
  auto* gathered_scales = reinterpret_cast<float*>(scratch + used + n.max_rows * kH);  // 256-byte aligned

  CUtensorMap a1, w1, a2, w2;
  if (!byte_map(&a1, rows, n.max_rows, kH, kPair ? 64 : kBM) ||
      !byte_map(&w1, gemm1_weights->data, static_cast<uint64_t>(n.local) * 2 * kI, kH, 64) ||
      !byte_map(&a2, b.act, n.max_rows, kI, kPair ? 64 : kBM) ||
      !byte_map(&w2, gemm2_weights->data, static_cast<uint64_t>(n.local) * kH, kI, 128)) {
    cudaFreeAsync(scratch, stream);
    return 1;
  }
  CUtensorMap sa1, sw1, sa2, sw2;
  if (kTmaScales &&
      (!float_map(&sa1, gathered_scales, kH / kBlock, static_cast<uint64_t>(rows_pad), 1, kBM + 4) ||
       !float_map(&sw1, gemm1_weights_scale->data, static_cast<uint64_t>(n.local) * 2 * kI / kBlock,
                  kH / kBlock, 1, 4) ||
       !float_map(&sa2, b.act_scale, static_cast<uint64_t>(n.max_rows), kI / kQuant, kBM, 4) ||
       !float_map(&sw2, gemm2_weights_scale->data, static_cast<uint64_t>(n.local) * kH / kBlock, kI / kBlock,
                  1, 4))) {
    cudaFreeAsync(scratch, stream);
    return 1;
  }
  launch_routing<false>(routing_logits, routing_bias, n.tokens, local_expert_offset, n.local,
                        routed_scaling_factor, kBM, n.max_tiles, n.outputs, 0, b, stream);
  const int64_t gather_blocks = n.max_rows < 132 * 16 ? n.max_rows : 132 * 16;
  gather_rows<<<static_cast<unsigned>(gather_blocks), 224, 0, stream>>>(
      static_cast<const uint4*>(hidden_states->data), b.row_token, b.offsets, n.local,
      reinterpret_cast<uint4*>(rows));
  if constexpr (kTmaScales)
    gather_scales<<<132 * 4, 256, 0, stream>>>(static_cast<const float*>(hidden_states_scale->data),
                                               b.row_token, b.offsets, n.local, static_cast<int>(n.tokens),
                                               rows_pad, gathered_scales);

  Args g1{static_cast<const float*>(hidden_states_scale->data),
          static_cast<const float*>(gemm1_weights_scale->data),
          b.offsets,
          b.tiles,
          b.num_tiles,
          b.row_token,
          b.row_weight,
          n.tokens,
          b.act,
          b.act_scale,
          b.sum};
  Args g2 = g1;
  g2.a_scale = b.act_scale;
  g2.w_scale = static_cast<const float*>(gemm2_weights_scale->data);
  if constexpr (kTmaScales) {
    launch_ws_tma_scales<true, kByColumn, kPair, kOverlap, kRed4>(a1, w1, sa1, sw1, g1, stream);
    launch_ws_tma_scales<false, kByColumn, kPair, kOverlap, kRed4>(a2, w2, sa2, sw2, g2, stream);
  } else {
    launch_ws<true, kPersistent, kPair, kPrefetch>(a1, w1, g1, static_cast<int>(n.max_tiles), stream);
    launch_ws<false, kPersistent, kPair, kPrefetch>(a2, w2, g2, static_cast<int>(n.max_tiles), stream);
  }
  launch_to_bf16(b.sum, n.outputs, output, stream);
  cudaFreeAsync(scratch, stream);
  return 0;
}

// The fp8ws candidates' entry: the large calls here, the others as fp8wg.
template <unsigned kPlan>
int run(const DLTensor* routing_logits, const DLTensor* routing_bias, const DLTensor* hidden_states,
        const DLTensor* hidden_states_scale, const DLTensor* gemm1_weights,
        const DLTensor* gemm1_weights_scale, const DLTensor* gemm2_weights,
        const DLTensor* gemm2_weights_scale, int32_t local_expert_offset, float routed_scaling_factor,
        DLTensor* output, cudaStream_t stream) {
  if (!is_large(routing_logits, hidden_states, gemm1_weights, gemm2_weights))
    return moe_fp8_grouped::run<Fp8wgPlan>(
        routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,
        gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output, stream);
  return run_large<kPlan>(routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights,
                          gemm1_weights_scale, gemm2_weights, gemm2_weights_scale, local_expert_offset,
                          routed_scaling_factor, output, stream);
}

}  // namespace moe_fp8_grouped::ws
