// The split-K tensor-core sparse attention of the loop's candidates tc_split, tc_ldsm and
// tc_ldsm_pdl (their notes: loop/candidates/<name>/kernel.cu): each warp scores its own 8 rows of
// a 32-row tile over all 576 key dims and the softmax max goes through a block round, the shape
// tc_ksplit replaced. Tiles, gathers and mma primitives are sparse_tc_ksplit.cuh's. The kernels
// are device bodies: each candidate names its own __global__ kernels (the names the loop measured).
#pragma once

#ifndef MIN_CHUNK
#define MIN_CHUNK 64  // before sparse_tc_ksplit.cuh, whose default is tc_ksplit's 32
#endif

#include "sparse_tc_ksplit_run.cuh"

namespace dsa_tc_split {

using namespace dsa_tc_ksplit;

constexpr int kWalkMaxSplits = kCombineThreads;  // the walking combine takes one split a thread

__device__ __forceinline__ uint32_t lds32(const __nv_bfloat16* p) {
  return *reinterpret_cast<const uint32_t*>(p);
}

size_t split_shared_bytes(int chunk) {
  return 2 * kTileBytes + kQBytes + 2 * kPBytes + sizeof(int32_t) * chunk;
}

// kLdmatrix: fragments from ldmatrix.x4 (Q, K, P) and ldmatrix.x4.trans (V) (tc_ldsm), else from
// 32-bit shared loads and, for V, 16-bit loads packed in pairs (tc_split). kPdl: the combine grid
// may launch once every split block has compacted its list.
template <bool kLdmatrix, bool kPdl>
__device__ __forceinline__ void split_blocks(const Args& a) {
  extern __shared__ __align__(16) unsigned char smem[];
  auto* tiles = reinterpret_cast<__nv_bfloat16*>(smem);  // two buffers of kTile rows
  auto* qs = reinterpret_cast<__nv_bfloat16*>(smem + 2 * kTileBytes);
  auto* p_hi = reinterpret_cast<__nv_bfloat16*>(smem + 2 * kTileBytes + kQBytes);
  auto* p_lo = reinterpret_cast<__nv_bfloat16*>(smem + 2 * kTileBytes + kQBytes + kPBytes);
  auto* rows = reinterpret_cast<int32_t*>(smem + 2 * kTileBytes + kQBytes + 2 * kPBytes);
  __shared__ float red[kWarps][kHeads];
  __shared__ int warp_counts[kWarps];

  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int g = lane >> 2;  // groupID
  const int tg = lane & 3;  // threadID_in_group

  const int64_t t = blockIdx.x / a.splits;
  const int split = static_cast<int>(blockIdx.x % a.splits);
  const int n_valid = stage_query_and_list(a, t, split, qs, rows, warp_counts);
  // The combine still waits for this grid's completion (griddepcontrol.wait) before any read.
  if constexpr (kPdl) asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");

  float o[kNTiles][4];
#pragma unroll
  for (int j = 0; j < kNTiles; ++j) o[j][0] = o[j][1] = o[j][2] = o[j][3] = 0.f;
  float m0 = -INFINITY, m1 = -INFINITY;  // running max of heads g and g+8 (same in every warp)
  float l0 = 0.f, l1 = 0.f;              // partial sums over this thread's columns

  if (n_valid > 0) stage_tile(a, rows, n_valid < kTile ? n_valid : kTile, tiles);
  for (int base = 0, buffer = 0; base < n_valid; base += kTile, buffer ^= 1) {
    const int n = n_valid - base < kTile ? n_valid - base : kTile;
    const __nv_bfloat16* tile = tiles + buffer * kTile * kStride;
    if (base + kTile < n_valid) {
      const int next = n_valid - base - kTile < kTile ? n_valid - base - kTile : kTile;
      stage_tile(a, rows + base + kTile, next, tiles + (buffer ^ 1) * kTile * kStride);
      wait_async<1>();
    } else {
      wait_async<0>();
    }
    __syncthreads();

    // S[16 x 8] for tile rows 8*warp .. 8*warp+7.
    float s[4];
    {
      float acc[4][4];
      if constexpr (kLdmatrix) {
        // Row addresses of this lane for ldmatrix: matrix i = lane / 8, row lane % 8.
        const int mi = lane >> 3;
        const int mr = lane & 7;
        const __nv_bfloat16* qa = qs + (mr + 8 * (mi & 1)) * kStride + 8 * (mi >> 1);
        const __nv_bfloat16* kb = tile + (8 * warp + mr) * kStride + 8 * mi;
#pragma unroll
        for (int i = 0; i < 4; ++i) acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.f;
#pragma unroll
        for (int kk = 0; kk < kKSteps; kk += 2) {
          uint32_t bf[4];  // b0,b1 of k-step kk, then of kk+1
          ldsm_x4(bf, kb + 16 * kk);
          uint32_t af[4];
          ldsm_x4(af, qa + 16 * kk);
          mma_bf16(acc[kk & 3], af, bf[0], bf[1]);
          ldsm_x4(af, qa + 16 * (kk + 1));
          mma_bf16(acc[(kk + 1) & 3], af, bf[2], bf[3]);
        }
      } else {
        const __nv_bfloat16* qa = qs + g * kStride + 2 * tg;
        const __nv_bfloat16* kb = tile + (8 * warp + g) * kStride + 2 * tg;
#pragma unroll
        for (int i = 0; i < 4; ++i) acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.f;
#pragma unroll
        for (int kk = 0; kk < kKSteps; ++kk) {
          uint32_t af[4];
          af[0] = lds32(qa + 16 * kk);                    // (row g,   k 2t..2t+1)
          af[1] = lds32(qa + 8 * kStride + 16 * kk);      // (row g+8, k 2t..2t+1)
          af[2] = lds32(qa + 16 * kk + 8);                // (row g,   k 2t+8..)
          af[3] = lds32(qa + 8 * kStride + 16 * kk + 8);  // (row g+8, k 2t+8..)
          const uint32_t b0 = lds32(kb + 16 * kk);        // (k 2t..2t+1, n g)
          const uint32_t b1 = lds32(kb + 16 * kk + 8);    // (k 2t+8..,   n g)
          mma_bf16(acc[kk & 3], af, b0, b1);
        }
      }
#pragma unroll
      for (int i = 0; i < 4; ++i) s[i] = (acc[0][i] + acc[1][i] + acc[2][i] + acc[3][i]) * a.scale2;
    }
    const int r0 = 8 * warp + 2 * tg;  // tile row of s[0] and s[2]; r0 + 1 for s[1], s[3]
    if (r0 >= n) s[0] = s[2] = -INFINITY;
    if (r0 + 1 >= n) s[1] = s[3] = -INFINITY;

    float mx0 = fmaxf(s[0], s[1]);
    float mx1 = fmaxf(s[2], s[3]);
    mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffffu, mx0, 1));
    mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffffu, mx1, 1));
    mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffffu, mx0, 2));
    mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffffu, mx1, 2));
    if (tg == 0) {
      red[warp][g] = mx0;
      red[warp][g + 8] = mx1;
    }
    __syncthreads();
    float tm0 = red[0][g], tm1 = red[0][g + 8];
#pragma unroll
    for (int w = 1; w < kWarps; ++w) {
      tm0 = fmaxf(tm0, red[w][g]);
      tm1 = fmaxf(tm1, red[w][g + 8]);
    }
    const float mn0 = fmaxf(m0, tm0);  // finite: the tile has at least one valid row
    const float mn1 = fmaxf(m1, tm1);
    const float alpha0 = exp2f(m0 - mn0);  // 0 on the first tile (m = -inf)
    const float alpha1 = exp2f(m1 - mn1);
    m0 = mn0;
    m1 = mn1;
    const float p0 = exp2f(s[0] - mn0), p1 = exp2f(s[1] - mn0);  // 0 for masked rows
    const float p2 = exp2f(s[2] - mn1), p3 = exp2f(s[3] - mn1);
    l0 = l0 * alpha0 + (p0 + p1);
    l1 = l1 * alpha1 + (p2 + p3);
    {
      const __nv_bfloat162 h01 = __floats2bfloat162_rn(p0, p1);  // .x (low half) = lower row
      const __nv_bfloat162 h23 = __floats2bfloat162_rn(p2, p3);
      const __nv_bfloat162 lo01 = __floats2bfloat162_rn(p0 - __low2float(h01), p1 - __high2float(h01));
      const __nv_bfloat162 lo23 = __floats2bfloat162_rn(p2 - __low2float(h23), p3 - __high2float(h23));
      *reinterpret_cast<__nv_bfloat162*>(p_hi + g * kPStride + r0) = h01;
      *reinterpret_cast<__nv_bfloat162*>(p_hi + (g + 8) * kPStride + r0) = h23;
      *reinterpret_cast<__nv_bfloat162*>(p_lo + g * kPStride + r0) = lo01;
      *reinterpret_cast<__nv_bfloat162*>(p_lo + (g + 8) * kPStride + r0) = lo23;
    }
#pragma unroll
    for (int j = 0; j < kNTiles; ++j) {
      o[j][0] *= alpha0;
      o[j][1] *= alpha0;
      o[j][2] *= alpha1;
      o[j][3] *= alpha1;
    }
    __syncthreads();

    // O[16 x 128 dims of this warp] += P[16 x 32] V[32 x 128].
    if constexpr (kLdmatrix) {
      const int mi = lane >> 3;
      const int mr = lane & 7;
      const __nv_bfloat16* pa_hi = p_hi + (mr + 8 * (mi & 1)) * kPStride + 8 * (mi >> 1);
      const __nv_bfloat16* pa_lo = p_lo + (mr + 8 * (mi & 1)) * kPStride + 8 * (mi >> 1);
      const __nv_bfloat16* vb = tile + (mr + 8 * (mi & 1)) * kStride + kDimsPerWarp * warp + 8 * (mi >> 1);
#pragma unroll
      for (int kk = 0; kk < kTile / 16; ++kk) {
        const int k0 = 16 * kk;
        uint32_t ah[4], al[4];
        ldsm_x4(ah, pa_hi + k0);
        ldsm_x4(al, pa_lo + k0);
#pragma unroll
        for (int j = 0; j < kNTiles; j += 2) {
          uint32_t bv[4];  // b0,b1 of n tile j, then of n tile j+1
          ldsm_x4_trans(bv, vb + k0 * kStride + 8 * j);
          mma_bf16(o[j], ah, bv[0], bv[1]);
          mma_bf16(o[j], al, bv[0], bv[1]);
          mma_bf16(o[j + 1], ah, bv[2], bv[3]);
          mma_bf16(o[j + 1], al, bv[2], bv[3]);
        }
      }
    } else {
      const unsigned short* v =
          reinterpret_cast<const unsigned short*>(tile) + (2 * tg) * kStride + kDimsPerWarp * warp + g;
#pragma unroll
      for (int kk = 0; kk < kTile / 16; ++kk) {
        const int k0 = 16 * kk;
        uint32_t ah[4], al[4];
        ah[0] = lds32(p_hi + g * kPStride + k0 + 2 * tg);
        ah[1] = lds32(p_hi + (g + 8) * kPStride + k0 + 2 * tg);
        ah[2] = lds32(p_hi + g * kPStride + k0 + 2 * tg + 8);
        ah[3] = lds32(p_hi + (g + 8) * kPStride + k0 + 2 * tg + 8);
        al[0] = lds32(p_lo + g * kPStride + k0 + 2 * tg);
        al[1] = lds32(p_lo + (g + 8) * kPStride + k0 + 2 * tg);
        al[2] = lds32(p_lo + g * kPStride + k0 + 2 * tg + 8);
        al[3] = lds32(p_lo + (g + 8) * kPStride + k0 + 2 * tg + 8);
        const unsigned short* vk = v + k0 * kStride;  // row k0 + 2t, dim 128w + g
#pragma unroll
        for (int j = 0; j < kNTiles; ++j) {
          // b0 = (V[k0+2t][n], V[k0+2t+1][n]), b1 = (V[k0+2t+8][n], V[k0+2t+9][n]), n = 8j + g
          const uint32_t b0 =
              static_cast<uint32_t>(vk[8 * j]) | (static_cast<uint32_t>(vk[kStride + 8 * j]) << 16);
          const uint32_t b1 = static_cast<uint32_t>(vk[8 * kStride + 8 * j]) |
                              (static_cast<uint32_t>(vk[9 * kStride + 8 * j]) << 16);
          mma_bf16(o[j], ah, b0, b1);
          mma_bf16(o[j], al, b0, b1);
        }
      }
    }
    __syncthreads();  // the next iteration rewrites red, P and (by prefetch) this buffer
  }
  wait_async<0>();  // the query copies when the split had no valid entry

  // Partial sums of l over this warp's columns, then over the warps.
  l0 += __shfl_xor_sync(0xffffffffu, l0, 1);
  l1 += __shfl_xor_sync(0xffffffffu, l1, 1);
  l0 += __shfl_xor_sync(0xffffffffu, l0, 2);
  l1 += __shfl_xor_sync(0xffffffffu, l1, 2);
  if (tg == 0) {
    red[warp][g] = l0;
    red[warp][g + 8] = l1;
  }
  const int64_t ts = t * a.splits + split;
#pragma unroll
  for (int j = 0; j < kNTiles; ++j) {
    const int d = kDimsPerWarp * warp + 8 * j + 2 * tg;
    *reinterpret_cast<float2*>(a.part_o + (ts * kHeads + g) * kDimV + d) = make_float2(o[j][0], o[j][1]);
    *reinterpret_cast<float2*>(a.part_o + (ts * kHeads + g + 8) * kDimV + d) = make_float2(o[j][2], o[j][3]);
  }
  __syncthreads();
  if (warp == 0 && tg == 0) {
    float s0 = 0.f, s1 = 0.f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      s0 += red[w][g];
      s1 += red[w][g + 8];
    }
    a.part_m[ts * kHeads + g] = m0;
    a.part_m[ts * kHeads + g + 8] = m1;
    a.part_l[ts * kHeads + g] = s0;
    a.part_l[ts * kHeads + g + 8] = s1;
  }
}

// One block per (token, head, quarter of the 512 dims): 8 groups of 32 threads walk the
// splits (group sg takes splits sg, sg+8, ...), each thread 4 dims with a float4 load per
// split, then the 8 groups are summed through shared memory. kPdl: launched as the split grid's
// programmatic dependent, so it waits for that grid's completion and writes first.
template <bool kPdl>
__device__ __forceinline__ void walk_combine(const float* part_o, const float* part_m, const float* part_l,
                                             int splits, __nv_bfloat16* output, float* lse) {
  __shared__ float weight[kWalkMaxSplits];
  __shared__ float scratch[kCombineThreads / 32];
  __shared__ float4 partial[kCombineThreads / 32][32];
  if constexpr (kPdl) asm volatile("griddepcontrol.wait;\n" ::: "memory");
  const int64_t th = blockIdx.x / 4;
  const int quarter = static_cast<int>(blockIdx.x % 4);
  const int64_t t = th / kHeads;
  const int h = static_cast<int>(th % kHeads);
  const int s = threadIdx.x;
  const int64_t my = (t * splits + s) * kHeads + h;
  const float m_s = s < splits ? part_m[my] : -INFINITY;
  const float m = combine_reduce<kCombineThreads>(m_s, scratch, [](float x, float y) { return fmaxf(x, y); });
  const float w = m_s == -INFINITY ? 0.f : exp2f(m_s - m);  // empty splits weigh 0, never NaN
  weight[s] = w;
  const float l = combine_reduce<kCombineThreads>(s < splits ? w * part_l[my] : 0.f, scratch,
                                                  [](float x, float y) { return x + y; });
  // weight[] is visible: combine_reduce synchronises the block.
  const int sg = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int dim = quarter * (kDimV / 4) + 4 * lane;
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 4
  for (int k = sg; k < splits; k += kCombineThreads / 32) {
    const float wk = weight[k];
    const float4 po =
        *reinterpret_cast<const float4*>(part_o + ((t * splits + k) * kHeads + h) * kDimV + dim);
    acc.x += wk * po.x;
    acc.y += wk * po.y;
    acc.z += wk * po.z;
    acc.w += wk * po.w;
  }
  partial[sg][lane] = acc;
  __syncthreads();
  if (sg == 0) {
    float4 o = partial[0][lane];
#pragma unroll
    for (int k = 1; k < kCombineThreads / 32; ++k) {
      const float4 p = partial[k][lane];
      o.x += p.x;
      o.y += p.y;
      o.z += p.z;
      o.w += p.w;
    }
    const float inv = l > 0.f ? 1.f / l : 0.f;  // no valid index: output 0
    __nv_bfloat162* dst = reinterpret_cast<__nv_bfloat162*>(output + th * kDimV + dim);
    dst[0] = __floats2bfloat162_rn(o.x * inv, o.y * inv);
    dst[1] = __floats2bfloat162_rn(o.z * inv, o.w * inv);
  }
  if (threadIdx.x == 0 && quarter == 0) lse[th] = l > 0.f ? m + log2f(l) : -INFINITY;
}

using SplitKernel = void (*)(Args);
using CombineKernel = void (*)(const float*, const float*, const float*, int, __nv_bfloat16*, float*);

// The call: at most kMaxSplits splits a token, the split grid, then the combine, with kPdl as
// the split grid's programmatic dependent (a refused launch returns 4).
template <int kMaxSplits, bool kPdl>
int run_tc_split(SplitKernel split_kernel, CombineKernel combine_kernel, const DLTensor* q_nope,
                 const DLTensor* q_pe, const DLTensor* ckv_cache, const DLTensor* kpe_cache,
                 const DLTensor* sparse_indices, float sm_scale, DLTensor* output, DLTensor* lse,
                 kh_stream_t stream) {
  const int64_t tokens = q_nope->shape[0];
  Args a;
  int result = 0;
  if (!plan_call(q_nope, q_pe, ckv_cache, kpe_cache, sparse_indices, sm_scale, a, result, kMaxSplits))
    return result;
  const int64_t splits = a.splits;
  void* scratch = nullptr;
  if (!allocate_partials(static_cast<size_t>(tokens * splits * kHeads), stream, a, scratch)) return 2;

  const size_t smem = split_shared_bytes(a.chunk);
  cudaFuncSetAttribute(split_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  split_kernel<<<static_cast<unsigned>(tokens * splits), kThreads, smem, stream>>>(a);
  const unsigned combine_blocks = static_cast<unsigned>(tokens * kHeads * 4);
  auto* out = static_cast<__nv_bfloat16*>(output->data);
  auto* lse_out = static_cast<float*>(lse->data);
  if constexpr (kPdl) {
    cudaLaunchAttribute attribute = pdl_attribute();
    const cudaLaunchConfig_t config =
        one_attribute_config(combine_blocks, kCombineThreads, 0, stream, attribute);
    const float* part_o = a.part_o;
    const float* part_m = a.part_m;
    const float* part_l = a.part_l;
    if (cudaLaunchKernelEx(&config, combine_kernel, part_o, part_m, part_l, a.splits, out, lse_out) !=
        cudaSuccess) {
      cudaFreeAsync(scratch, stream);
      return 4;
    }
  } else {
    combine_kernel<<<combine_blocks, kCombineThreads, 0, stream>>>(a.part_o, a.part_m, a.part_l, a.splits,
                                                                   out, lse_out);
  }
  cudaFreeAsync(scratch, stream);
  return cudaGetLastError() == cudaSuccess ? 0 : 3;
}

}  // namespace dsa_tc_split
