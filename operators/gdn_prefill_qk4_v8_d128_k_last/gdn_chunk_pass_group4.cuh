// The four-way pass (kSplit 4, tried and rejected): gdn_chunk_pass.cuh's pass with the state's K
// columns split over a group of four warps, each multiplying over 32 of them; the group adds its
// partial U and O through shared memory in part order, so the four hold the same U to the bit.
// Two builds of one chunk step (bench/results/h100-loop/2026-12-07e):
// - kCopies (loop/candidates/ksplit4_pdl24): the warp's K part a compile-time constant in each of
//   four copies of the step, as the two-way pass has two. A block then runs 53 KB of code against
//   the two-way block's 38 KB; the instruction-cache misses made its pass 1.8x slower than the
//   two-way pass on one 8192-token sequence.
// - one path (ksplit4one_pdl24): the part a run-time value; only the register tiles whose index
//   would depend on it (the warp's own two output tiles) are moved into fixed registers first, by a
//   select. Still 1.17x slower than the two-way pass: a warp's step is ~1000 instructions of which
//   the mma is a tenth, and the rest does not shrink with the K columns a warp holds.
#pragma once

#include "gdn_chunk_pass.cuh"

namespace gdn_chunk_tc {
namespace group4 {

template <int kWarps>
using Smem = PassSmem<kWarps, 4>;
template <int kWarps>
using Stage = PassStage<kWarps, 4>;

// The warp's own output tiles 2 part, 2 part + 1 of o, by selects (no register array indexed at run time).
__device__ __forceinline__ void own_tiles(const float (&o)[8][4], int part, float (&om)[2][4]) {
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      om[i][e] = part == 0 ? o[i][e] : part == 1 ? o[2 + i][e] : part == 2 ? o[4 + i][e] : o[6 + i][e];
}

// U summed in part order 0..3 (the same bits in every warp), the warp's own O tiles likewise into om.
// Slots 0-7 hold a warp's U tiles, 8 + nt its O tile nt for the warp that writes it (its own left out).
template <int kWarps>
__device__ __forceinline__ void swap(Smem<kWarps>& sm, const WarpPos& w, float (&u)[8][4],
                                     const float (&o)[8][4], float (&om)[2][4]) {
  constexpr int kSlots = PassShape<kWarps, 4>::kSwapSlots;
  float4* group =
      &sm.swap[(w.warp - w.part) * kSlots * 32 + w.lane];  // part j's slot i: (j * kSlots + i) * 32
  float4* mine = group + w.part * kSlots * 32;
#pragma unroll
  for (int nt = 0; nt < 8; ++nt) mine[nt * 32] = make_float4(u[nt][0], u[nt][1], u[nt][2], u[nt][3]);
#pragma unroll
  for (int nt = 0; nt < 8; ++nt)
    if (nt / 2 != w.part) mine[(8 + nt) * 32] = make_float4(o[nt][0], o[nt][1], o[nt][2], o[nt][3]);
  float own[2][4];
  own_tiles(o, w.part, own);
  asm volatile("bar.sync %0, 128;\n" ::"r"(1 + w.warp / 4) : "memory");  // the group's barrier
  auto add = [&](float(&x)[4], const float(&self)[4], int slot) {
    float sum[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      float4 y = make_float4(self[0], self[1], self[2], self[3]);
      if (j != w.part) y = group[(j * kSlots + slot) * 32];
      sum[0] += y.x;
      sum[1] += y.y;
      sum[2] += y.z;
      sum[3] += y.w;
    }
#pragma unroll
    for (int e = 0; e < 4; ++e) x[e] = sum[e];
  };
#pragma unroll
  for (int nt = 0; nt < 8; ++nt) add(u[nt], u[nt], nt);
#pragma unroll
  for (int i = 0; i < 2; ++i) add(om[i], own[i], 8 + 2 * w.part + i);
}

// pass_decays for all of U and the warp's own O tiles (tokens 16 part ..).
template <int kWarps>
__device__ __forceinline__ void decays(const Stage<kWarps>& st, const WarpPos& w, const float (&u)[8][4],
                                       float (&om)[2][4], uint32_t (&ua)[4][4], uint32_t (&ud)[4][4]) {
  const float lgL = st.lg[kC - 1];
#pragma unroll
  for (int nt = 0; nt < 8; ++nt) {
    const int t = 8 * nt + 2 * w.tg;
    pack_u(u, nt, expf(lgL - st.lg[t]), expf(lgL - st.lg[t + 1]), ua, ud);
  }
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int t = 16 * w.part + 8 * i + 2 * w.tg;
    const float g0 = expf(st.lg[t]), g1 = expf(st.lg[t + 1]);
    om[i][0] *= g0;
    om[i][1] *= g1;
    om[i][2] *= g0;
    om[i][3] *= g1;
  }
}

// pass_intra for the warp's token pair (np = part): the k steps up to it.
template <int kWarps>
__device__ __forceinline__ void intra(const Stage<kWarps>& st, const WarpPos& w, const uint32_t (&ua)[4][4],
                                      float (&om)[2][4]) {
  const __half* pb = &st.p[8 * (w.mi >> 1) + w.mr + 16 * w.part][8 * (w.mi & 1)];
#pragma unroll
  for (int ks = 0; ks < kC / 16; ++ks) {
    if (ks > w.part) break;
    uint32_t bp[4];
    ldsm_x4(bp, pb + 16 * ks);
    mma_f16(om[0], ua[ks], bp[0], bp[1]);
    mma_f16(om[1], ua[ks], bp[2], bp[3]);
  }
}

// pass_store_output for the warp's 16 tokens.
__device__ __forceinline__ void store_output(const PrefillArgs& p, __nv_bfloat16 (*tile)[kOutRow],
                                             const WarpPos& w, const float (&om)[2][4], float scale,
                                             int64_t tok0, int L, int h, int vw) {
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int t = 8 * i + 2 * w.tg;
    tile[t][w.g] = __float2bfloat16(scale * om[i][0]);
    tile[t + 1][w.g] = __float2bfloat16(scale * om[i][1]);
    tile[t][w.g + 8] = __float2bfloat16(scale * om[i][2]);
    tile[t + 1][w.g + 8] = __float2bfloat16(scale * om[i][3]);
  }
  __syncwarp();
  const int t = w.lane / 2, half = w.lane & 1, t0 = 16 * w.part;
  if (t0 + t < L)
    *reinterpret_cast<uint4*>(p.out + ((tok0 + t0 + t) * GDN_NUM_V_HEADS + h) * kDim + vw + 8 * half) =
        *reinterpret_cast<const uint4*>(&tile[t][8 * half]);
}

template <int kWarps>
__device__ __forceinline__ void chunk_step(const PrefillArgs& p, Smem<kWarps>& sm, const Stage<kWarps>& st,
                                           const WarpPos& w, float (&s)[4][4], float scale, int64_t tok0,
                                           int L, int h, int vw) {
  uint32_t sa[2][4];
#pragma unroll
  for (int ks = 0; ks < 2; ++ks) {
    sa[ks][0] = half2_bits(s[2 * ks][0], s[2 * ks][1]);
    sa[ks][1] = half2_bits(s[2 * ks][2], s[2 * ks][3]);
    sa[ks][2] = half2_bits(s[2 * ks + 1][0], s[2 * ks + 1][1]);
    sa[ks][3] = half2_bits(s[2 * ks + 1][2], s[2 * ks + 1][3]);
  }
  float u[8][4], o[8][4], om[2][4];
  uint32_t ua[4][4], ud[4][4];
  pass_products(st, w, sa, u, o);
  swap(sm, w, u, o, om);
  decays(st, w, u, om, ua, ud);
  intra(st, w, ua, om);
  pass_state(st, w, ud, s);
  store_output(p, sm.out[w.warp], w, om, scale, tok0, L, h, vw);
}

// The step of a warp whose part is the compile-time kPart: the copy kCopies builds.
template <int kWarps, int kPart>
__device__ __forceinline__ void chunk_step_copy(const PrefillArgs& p, Smem<kWarps>& sm,
                                                const Stage<kWarps>& st, const WarpPos& w, float (&s)[4][4],
                                                float scale, int64_t tok0, int L, int h, int vw) {
  WarpPos at = w;
  at.part = kPart;
  chunk_step(p, sm, st, at, s, scale, tok0, L, h, vw);
}

// chunk_pass_kernel<kWarps, 4, true, kPdl> with the four-way step, in four copies or one path.
template <int kWarps, bool kPdl, bool kCopies>
__global__ void __launch_bounds__(32 * kWarps, 1) pass_kernel(PrefillArgs p, int num_seqs, char* scratch) {
  extern __shared__ float4 group4_smem[];
  Smem<kWarps>& sm = *reinterpret_cast<Smem<kWarps>*>(group4_smem);
  const WarpPos w = warp_pos<4>();
  const PassBlock b = pass_block<kWarps, 4>(p, w);
  float s[PassShape<kWarps, 4>::kKTiles][4];
  load_state(p.state, b.head * kDim + b.vw, b.k0, w, b.nchunks == 0, s);
  if constexpr (kPdl) asm volatile("griddepcontrol.wait;\n" ::: "memory");
  if (b.nchunks > 0) pass_stage_lean(sm.stage[0], chunk_parts(scratch, b.base, b.h), b.v0);
  cp_async_commit();
  for (int ci = 0; ci < b.nchunks; ++ci) {
    if (ci + 1 < b.nchunks) {
      pass_stage_lean(sm.stage[(ci + 1) & 1], chunk_parts(scratch, b.base + ci + 1, b.h), b.v0);
      cp_async_commit();
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();
    const int64_t tok0 = b.start + static_cast<int64_t>(ci) * kC;
    const int L = static_cast<int>(b.end - tok0 < kC ? b.end - tok0 : kC);
    const Stage<kWarps>& st = sm.stage[ci & 1];
    if constexpr (kCopies) {
      switch (w.part) {
        case 0:
          chunk_step_copy<kWarps, 0>(p, sm, st, w, s, b.scale, tok0, L, b.h, b.vw);
          break;
        case 1:
          chunk_step_copy<kWarps, 1>(p, sm, st, w, s, b.scale, tok0, L, b.h, b.vw);
          break;
        case 2:
          chunk_step_copy<kWarps, 2>(p, sm, st, w, s, b.scale, tok0, L, b.h, b.vw);
          break;
        default:
          chunk_step_copy<kWarps, 3>(p, sm, st, w, s, b.scale, tok0, L, b.h, b.vw);
      }
    } else {
      chunk_step(p, sm, st, w, s, b.scale, tok0, L, b.h, b.vw);
    }
    __syncthreads();
  }
  store_state(p.new_state, b.head * kDim + b.vw, b.k0, w, s);
}

template <int kWarps, bool kPdl, bool kCopies>
void launch(const PrefillArgs& args, int64_t num_seqs, char* scratch, cudaStream_t stream) {
  constexpr auto kernel = pass_kernel<kWarps, kPdl, kCopies>;
  static const bool allowed = allow_smem(kernel, sizeof(Smem<kWarps>));
  (void)allowed;
  const auto blocks = static_cast<unsigned>(num_seqs * GDN_NUM_V_HEADS * PassShape<kWarps, 4>::kSlices);
  if constexpr (kPdl) {
    launch_pass_dependent(kernel, blocks, 32 * kWarps, sizeof(Smem<kWarps>), args, num_seqs, scratch, stream);
  } else {
    kernel<<<blocks, 32 * kWarps, sizeof(Smem<kWarps>), stream>>>(args, static_cast<int>(num_seqs), scratch);
  }
}

// 16 V rows a block of four warps, or 32 of eight, while one wave covers the SMs, and the two-way
// pass beyond (64 rows of sixteen warps would need 285 KB of shared memory).
template <bool kPdl, bool kCopies>
void launch_for(const PrefillArgs& args, int64_t num_seqs, char* scratch, cudaStream_t stream) {
  const int64_t heads = num_seqs * GDN_NUM_V_HEADS;
  const int sms = launch_config().sms;
  if (heads * (kDim / 16) <= sms) {
    launch<4, kPdl, kCopies>(args, num_seqs, scratch, stream);
  } else if (heads * (kDim / 32) <= sms) {
    launch<8, kPdl, kCopies>(args, num_seqs, scratch, stream);
  } else {
    launch_pass_for<2, true, kPdl>(args, num_seqs, scratch, stream);
  }
}

}  // namespace group4
}  // namespace gdn_chunk_tc
