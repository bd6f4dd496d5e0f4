// The split-K tensor-core sparse attention of the loop's candidate tc_ksplit, shared by the
// candidates built on it (loop/candidates/tc_ksplit, ksplit_pdl, cluster_reduce, ksplit_h16): a split kernel
// per (token, split of its index list) and a combine kernel per (token, head, quarter of the 512
// dims). Their launches are sparse_tc_ksplit_run.cuh's. The algorithm's notes: tc_ksplit/kernel.cu.
// The earlier tc_split, tc_ldsm and tc_ldsm_pdl (sparse_tc_split.cuh) use its tiles, gathers and
// mma primitives; tc_ldsm's combine is combine_splits<false, false>.
#pragma once

#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <kharness/kernel.h>

#include <cstdint>

#include "sparse_split_common.cuh"

#ifndef MIN_CHUNK
#define MIN_CHUNK 32
#endif
#ifndef BLOCKS_TARGET
#define BLOCKS_TARGET 264
#endif

namespace dsa_tc_ksplit {

using namespace dsa_sparse;  // NOLINT(google-build-using-namespace): the shapes, Args, the call's pieces

constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;
constexpr int kTile = 32;                         // rows per tile: 4 n8 tiles in QK
constexpr int kStride = kDimK + 8;                // 584 bf16 = 1168 B = 292 words: rows shift 4 banks
constexpr int kPStride = kTile + 8;               // 40 bf16 = 80 B = 20 words
constexpr int kVecPerRow = kDimK / 8;             // 72 16-byte pieces: 64 of ckv, 8 of kpe
constexpr int kKSteps = kDimK / 16;               // 36
constexpr int kKStepsPerWarp = kKSteps / kWarps;  // 9
constexpr int kSStride = kTile + 8;               // 40 floats: conflict-free float2 writes, float4 reads
static_assert(kKSteps % kWarps == 0 && kThreads == kHeads * 8 && kTile == 4 * 8, "tiling");
constexpr int kDimsPerWarp = kDimV / kWarps;  // 128
constexpr int kNTiles = kDimsPerWarp / 8;     // 16
constexpr int kCombineThreads = 256;
constexpr int kCombineGroups = kCombineThreads / 32;  // 8 groups of 32 threads
constexpr int kMaxSplits = 64;                        // <= kCombineThreads

constexpr size_t kTileBytes = sizeof(__nv_bfloat16) * kTile * kStride;  // 37376
constexpr size_t kQBytes = sizeof(__nv_bfloat16) * kHeads * kStride;    // 18688
constexpr size_t kPBytes = sizeof(__nv_bfloat16) * kHeads * kPStride;   // 1280
constexpr size_t kSBytes = sizeof(float) * kWarps * kHeads * kSStride;  // 10240
static_assert(kTileBytes % 16 == 0 && kQBytes % 16 == 0 && kPBytes % 16 == 0 && kSBytes % 16 == 0,
              "16-byte alignment");

size_t shared_bytes(int chunk) {
  return 2 * kTileBytes + kQBytes + 2 * kPBytes + kSBytes + sizeof(int32_t) * chunk;
}

__device__ __forceinline__ void ldsm_x4(uint32_t (&r)[4], const void* p) {
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}
__device__ __forceinline__ void ldsm_x4_trans(uint32_t (&r)[4], const void* p) {
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}

// D += A B, A 16x16 row-major, B 16x8 "col", fp32 accumulators (PTX ISA m16n8k16 layout).
__device__ __forceinline__ void mma_bf16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void copy_async16(void* shared_dst, const void* global_src) {
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(shared_dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(global_src) : "memory");
}
__device__ __forceinline__ void commit_async() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int pending>
__device__ __forceinline__ void wait_async() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(pending) : "memory");
}

// Copies the valid entries of list[begin, end) to out in order; returns their count.
__device__ int compact_indices(const int32_t* list, int64_t begin, int64_t end, int64_t rows, int32_t* out,
                               int* warp_counts) {
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  int total = 0;
  for (int64_t start = begin; start < end; start += kThreads) {
    const int64_t i = start + threadIdx.x;
    const int32_t row = i < end ? list[i] : -1;
    const bool valid = row >= 0 && row < rows;  // -1 is padding
    const unsigned ballot = __ballot_sync(0xffffffffu, valid);
    if (lane == 0) warp_counts[warp] = __popc(ballot);
    __syncthreads();
    int offset = total;
    for (int w = 0; w < warp; ++w) offset += warp_counts[w];
    if (valid) out[offset + __popc(ballot & ((1u << lane) - 1u))] = row;
    for (int w = 0; w < kWarps; ++w) total += warp_counts[w];
    __syncthreads();  // warp_counts is rewritten by the next round; out is read after
  }
  return total;
}

// A split block's start: the query [16 x 576] copied to shared memory (it lands with the first
// tile's cp.async group) and the valid entries of its share of token t's list compacted into
// `rows`; returns their count.
__device__ __forceinline__ int stage_query_and_list(const Args& a, int64_t t, int split, __nv_bfloat16* qs,
                                                    int32_t* rows, int* warp_counts) {
  const int64_t begin = static_cast<int64_t>(split) * a.chunk;
  const int64_t end = begin + a.chunk < a.topk ? begin + a.chunk : a.topk;
  for (int e = threadIdx.x; e < kHeads * kVecPerRow; e += kThreads) {
    const int h = e / kVecPerRow;
    const int c = e % kVecPerRow;
    const int64_t th = t * kHeads + h;
    const __nv_bfloat16* src =
        c < kDimV / 8 ? a.q_nope + th * kDimV + 8 * c : a.q_pe + th * kDimPe + 8 * (c - kDimV / 8);
    copy_async16(qs + h * kStride + 8 * c, src);
  }
  return compact_indices(a.indices + t * a.topk, begin, end, a.rows, rows, warp_counts);
}

// Starts the copies of n (<= kTile) rows [ckv | kpe] into a tile buffer as one cp.async
// group; rows n..kTile-1 are zero-filled so that P.V never multiplies 0 by stale NaNs.
__device__ void stage_tile(const Args& a, const int32_t* rows, int n, __nv_bfloat16* tile) {
  for (int e = threadIdx.x; e < kTile * kVecPerRow; e += kThreads) {
    const int r = e / kVecPerRow;
    const int c = e % kVecPerRow;
    __nv_bfloat16* dst = tile + r * kStride + 8 * c;
    if (r < n) {
      const int64_t row = rows[r];
      const __nv_bfloat16* src =
          c < kDimV / 8 ? a.ckv + row * kDimV + 8 * c : a.kpe + row * kDimPe + 8 * (c - kDimV / 8);
      copy_async16(dst, src);
    } else {
      *reinterpret_cast<uint4*>(dst) = make_uint4(0u, 0u, 0u, 0u);
    }
  }
  commit_async();
}

// kClusterSplits consecutive splits of a token form a thread-block cluster when kClusterReduce:
// they merge their partials through distributed shared memory before any goes to global memory
// (cluster_reduce_partials below).
constexpr int kClusterSplits = 8;
constexpr int kClusterDims = kDimV / kClusterSplits;  // 64: each block of a cluster merges these
static_assert(kHeads * kDimV * sizeof(float) <= 2 * kTileBytes, "the partial O fits in the tile buffers");

// The cluster's kClusterSplits partials (o: this block's, in the mma C layout; m, l: head sh's
// running max and this thread's share of its sum) merged into one: block r of the cluster writes
// dims [64 r, 64 r + 64) of every head of partial t * (splits / 8) + split / 8, block 0 its m and l.
// Every block first puts its O into its (now idle) tile buffers and its m, l beside them; the
// reads of other blocks' shared memory lie between two cluster barriers, so no block leaves while
// another may still read it.
__device__ void cluster_reduce_partials(const Args& a, int64_t t, int split, const float (&o)[kNTiles][4],
                                        float m, float l, unsigned char* smem, float (&head_ml)[2][kHeads]) {
  namespace cg = cooperative_groups;
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int g = lane >> 2;
  const int tg = lane & 3;
  const int sh = threadIdx.x >> 3;
  l += __shfl_xor_sync(0xffffffffu, l, 1);
  l += __shfl_xor_sync(0xffffffffu, l, 2);
  l += __shfl_xor_sync(0xffffffffu, l, 4);
  auto* so = reinterpret_cast<float*>(smem);  // [kHeads][kDimV]
  __syncthreads();                            // every warp is past its last read of the tiles
#pragma unroll
  for (int j = 0; j < kNTiles; ++j) {
    const int d = kDimsPerWarp * warp + 8 * j + 2 * tg;
    *reinterpret_cast<float2*>(so + g * kDimV + d) = make_float2(o[j][0], o[j][1]);
    *reinterpret_cast<float2*>(so + (g + 8) * kDimV + d) = make_float2(o[j][2], o[j][3]);
  }
  if ((threadIdx.x & 7) == 0) {
    head_ml[0][sh] = m;
    head_ml[1][sh] = l;
  }
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();
  const int r = static_cast<int>(cluster.block_rank());
  const int64_t merged = t * (a.splits / kClusterSplits) + split / kClusterSplits;
  for (int e = threadIdx.x; e < kHeads * (kClusterDims / 4); e += kThreads) {
    const int h = e / (kClusterDims / 4);
    const int d = kClusterDims * r + 4 * (e % (kClusterDims / 4));
    float mq[kClusterSplits];
    float mx = -INFINITY;
#pragma unroll
    for (int q = 0; q < kClusterSplits; ++q) {
      mq[q] = cluster.map_shared_rank(&head_ml[0][0], q)[h];
      mx = fmaxf(mx, mq[q]);
    }
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    float sum = 0.f;
#pragma unroll
    for (int q = 0; q < kClusterSplits; ++q) {
      const float w = mq[q] == -INFINITY ? 0.f : exp2f(mq[q] - mx);  // empty splits weigh 0, never NaN
      sum += w * cluster.map_shared_rank(&head_ml[1][0], q)[h];
      const float4 v = *reinterpret_cast<const float4*>(cluster.map_shared_rank(so, q) + h * kDimV + d);
      acc.x += w * v.x;
      acc.y += w * v.y;
      acc.z += w * v.z;
      acc.w += w * v.w;
    }
    *reinterpret_cast<float4*>(a.part_o + (merged * kHeads + h) * kDimV + d) = acc;
    if (r == 0 && e % (kClusterDims / 4) == 0) {
      a.part_m[merged * kHeads + h] = mx;
      a.part_l[merged * kHeads + h] = sum;
    }
  }
  cluster.sync();
}

// The fp16 partials of one split (dsa_tck_split_kernel<.., .., true>): l of each head is summed
// over its 8 threads and shared, each thread scales its accumulators by 1 / l of their heads (g,
// g + 8), and stores them as half2; m and l as in the fp32 path.
__device__ __forceinline__ void store_half_partials(const Args& a, int64_t ts, const float (&o)[kNTiles][4],
                                                    float m, float l, int sh, int sc, int warp, int g,
                                                    int tg) {
  __shared__ float head_l[kHeads];
  l += __shfl_xor_sync(0xffffffffu, l, 1);
  l += __shfl_xor_sync(0xffffffffu, l, 2);
  l += __shfl_xor_sync(0xffffffffu, l, 4);
  if (sc == 0) {
    head_l[sh] = l;
    a.part_m[ts * kHeads + sh] = m;
    a.part_l[ts * kHeads + sh] = l;
  }
  __syncthreads();
  const float inv_lo = head_l[g] > 0.f ? 1.f / head_l[g] : 0.f;  // no valid entry: o is 0 too
  const float inv_hi = head_l[g + 8] > 0.f ? 1.f / head_l[g + 8] : 0.f;
  auto* po = reinterpret_cast<__half2*>(a.part_o);  // [tokens, splits, heads, kDimV] fp16
#pragma unroll
  for (int j = 0; j < kNTiles; ++j) {
    const int d = kDimsPerWarp * warp + 8 * j + 2 * tg;
    po[((ts * kHeads + g) * kDimV + d) / 2] = __floats2half2_rn(o[j][0] * inv_lo, o[j][1] * inv_lo);
    po[((ts * kHeads + g + 8) * kDimV + d) / 2] = __floats2half2_rn(o[j][2] * inv_hi, o[j][3] * inv_hi);
  }
}

// One split block's work, the body of dsa_tck_split_kernel and of dsa_tck_grid_kernel.
// kHalfPartials: each split's partial O is stored normalised (O / l, so |value| <= max |v|) in fp16,
// half the bytes the split writes and the combine reads; m and l stay fp32.
template <bool kPdl, bool kClusterReduce, bool kHalfPartials>
__device__ __forceinline__ void split_block(Args a) {
  extern __shared__ __align__(16) unsigned char smem[];
  auto* tiles = reinterpret_cast<__nv_bfloat16*>(smem);  // two buffers of kTile rows
  auto* qs = reinterpret_cast<__nv_bfloat16*>(smem + 2 * kTileBytes);
  auto* p_hi = reinterpret_cast<__nv_bfloat16*>(smem + 2 * kTileBytes + kQBytes);
  auto* p_lo = reinterpret_cast<__nv_bfloat16*>(smem + 2 * kTileBytes + kQBytes + kPBytes);
  auto* s_part =
      reinterpret_cast<float*>(smem + 2 * kTileBytes + kQBytes + 2 * kPBytes);  // [warp][head][kSStride]
  auto* rows = reinterpret_cast<int32_t*>(smem + 2 * kTileBytes + kQBytes + 2 * kPBytes + kSBytes);
  __shared__ float alpha_s[kHeads];
  __shared__ int warp_counts[kWarps];

  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int g = lane >> 2;   // groupID
  const int tg = lane & 3;   // threadID_in_group
  const int mi = lane >> 3;  // ldmatrix: this lane's row address is row mr of matrix mi
  const int mr = lane & 7;
  // Softmax role: head sh, tile rows sc..sc+3 (the 8 threads of a head are 8 adjacent lanes).
  const int sh = threadIdx.x >> 3;
  const int sc = 4 * (threadIdx.x & 7);

  const int64_t t = blockIdx.x / a.splits;
  const int split = static_cast<int>(blockIdx.x % a.splits);
  const int n_valid = stage_query_and_list(a, t, split, qs, rows, warp_counts);
  // PDL: the combine grid may launch once every split block got here; it still waits for this
  // grid's completion (griddepcontrol.wait) before it reads any partial.
  if constexpr (kPdl) asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");

  float o[kNTiles][4];
#pragma unroll
  for (int j = 0; j < kNTiles; ++j) o[j][0] = o[j][1] = o[j][2] = o[j][3] = 0.f;
  float m = -INFINITY;  // running max of head sh (same in its 8 threads)
  float l = 0.f;        // partial sum of head sh over this thread's rows sc..sc+3

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

    // Partial S[16 x 32] over key dims 144*warp .. 144*warp+143, all 32 tile rows.
    {
      const __nv_bfloat16* qa = qs + (mr + 8 * (mi & 1)) * kStride + 8 * (mi >> 1);
      const __nv_bfloat16* kb = tile + (8 * (mi >> 1) + mr) * kStride + 8 * (mi & 1);  // n tiles 0,1
      float acc[4][4];
#pragma unroll
      for (int j = 0; j < 4; ++j) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.f;
#pragma unroll
      for (int kq = 0; kq < kKStepsPerWarp; ++kq) {
        const int k0 = 16 * (kKStepsPerWarp * warp + kq);
        uint32_t af[4], b01[4], b23[4];
        ldsm_x4(af, qa + k0);
        ldsm_x4(b01, kb + k0);                 // b0,b1 of n tile 0 (rows 0-7), then n tile 1 (rows 8-15)
        ldsm_x4(b23, kb + 16 * kStride + k0);  // n tiles 2 (rows 16-23) and 3 (rows 24-31)
        mma_bf16(acc[0], af, b01[0], b01[1]);
        mma_bf16(acc[1], af, b01[2], b01[3]);
        mma_bf16(acc[2], af, b23[0], b23[1]);
        mma_bf16(acc[3], af, b23[2], b23[3]);
      }
      float* sp = s_part + warp * kHeads * kSStride;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        *reinterpret_cast<float2*>(sp + g * kSStride + 8 * j + 2 * tg) = make_float2(acc[j][0], acc[j][1]);
        *reinterpret_cast<float2*>(sp + (g + 8) * kSStride + 8 * j + 2 * tg) =
            make_float2(acc[j][2], acc[j][3]);
      }
    }
    __syncthreads();

    // Softmax of head sh over tile rows sc..sc+3 (the 8 threads of the head cover all 32).
    {
      float s[4];
      {
        float4 v = *reinterpret_cast<const float4*>(s_part + sh * kSStride + sc);
#pragma unroll
        for (int w = 1; w < kWarps; ++w) {
          const float4 u = *reinterpret_cast<const float4*>(s_part + (w * kHeads + sh) * kSStride + sc);
          v.x += u.x;
          v.y += u.y;
          v.z += u.z;
          v.w += u.w;
        }
        s[0] = v.x * a.scale2;
        s[1] = v.y * a.scale2;
        s[2] = v.z * a.scale2;
        s[3] = v.w * a.scale2;
      }
#pragma unroll
      for (int i = 0; i < 4; ++i)
        if (sc + i >= n) s[i] = -INFINITY;
      float mx = fmaxf(fmaxf(s[0], s[1]), fmaxf(s[2], s[3]));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 4));
      const float mn = fmaxf(m, mx);      // finite: tile row 0 is valid (n >= 1)
      const float alpha = exp2f(m - mn);  // 0 on the first tile (m = -inf)
      m = mn;
      float p[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) p[i] = exp2f(s[i] - mn);  // 0 for masked rows
      l = l * alpha + ((p[0] + p[1]) + (p[2] + p[3]));
      const __nv_bfloat162 h01 = __floats2bfloat162_rn(p[0], p[1]);  // .x (low half) = lower row
      const __nv_bfloat162 h23 = __floats2bfloat162_rn(p[2], p[3]);
      const __nv_bfloat162 lo01 = __floats2bfloat162_rn(p[0] - __low2float(h01), p[1] - __high2float(h01));
      const __nv_bfloat162 lo23 = __floats2bfloat162_rn(p[2] - __low2float(h23), p[3] - __high2float(h23));
      *reinterpret_cast<uint2*>(p_hi + sh * kPStride + sc) =
          make_uint2(*reinterpret_cast<const uint32_t*>(&h01), *reinterpret_cast<const uint32_t*>(&h23));
      *reinterpret_cast<uint2*>(p_lo + sh * kPStride + sc) =
          make_uint2(*reinterpret_cast<const uint32_t*>(&lo01), *reinterpret_cast<const uint32_t*>(&lo23));
      if (sc == 0) alpha_s[sh] = alpha;
    }
    __syncthreads();

    // O[16 x 128 dims of this warp] = alpha O + P[16 x 32] V[32 x 128].
    {
      const float alpha0 = alpha_s[g], alpha1 = alpha_s[g + 8];
#pragma unroll
      for (int j = 0; j < kNTiles; ++j) {
        o[j][0] *= alpha0;
        o[j][1] *= alpha0;
        o[j][2] *= alpha1;
        o[j][3] *= alpha1;
      }
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
    }
    __syncthreads();  // the next iteration rewrites s_part, P, alpha_s and (by prefetch) this buffer
  }
  wait_async<0>();  // the query copies when the split had no valid entry
  if constexpr (kClusterReduce) {
    __shared__ float head_ml[2][kHeads];
    cluster_reduce_partials(a, t, split, o, m, l, smem, head_ml);
    return;
  }

  const int64_t ts = t * a.splits + split;
  if constexpr (kHalfPartials) {
    store_half_partials(a, ts, o, m, l, sh, sc, warp, g, tg);
    return;
  }
#pragma unroll
  for (int j = 0; j < kNTiles; ++j) {
    const int d = kDimsPerWarp * warp + 8 * j + 2 * tg;
    *reinterpret_cast<float2*>(a.part_o + (ts * kHeads + g) * kDimV + d) = make_float2(o[j][0], o[j][1]);
    *reinterpret_cast<float2*>(a.part_o + (ts * kHeads + g + 8) * kDimV + d) = make_float2(o[j][2], o[j][3]);
  }
  // l over the head's 32 rows: the 8 threads of head sh are lanes 8k..8k+7 of one warp.
  l += __shfl_xor_sync(0xffffffffu, l, 1);
  l += __shfl_xor_sync(0xffffffffu, l, 2);
  l += __shfl_xor_sync(0xffffffffu, l, 4);
  if (sc == 0) {
    a.part_m[ts * kHeads + sh] = m;
    a.part_l[ts * kHeads + sh] = l;
  }
}

template <bool kPdl, bool kClusterReduce = false, bool kHalfPartials = false>
__global__ void __launch_bounds__(kThreads, 2) dsa_tck_split_kernel(Args a) {
  split_block<kPdl, kClusterReduce, kHalfPartials>(a);
}

// One block per (token, head, quarter of the 512 dims): 8 groups of 32 threads take the
// splits (group sg takes splits sg, sg+8, ...), each thread 4 dims with a float4 load per
// split; then the 8 groups are summed through shared memory. Every global load (m, l, the
// partials) is issued before the first reduction, so the block waits for L2 only once.
// 4 dims of one split's partial O as fp32: a float4, or (kHalfPartials) 4 halves, normalised.
template <bool kHalfPartials>
__device__ __forceinline__ float4 load_partial(const float* part_o, int64_t at) {
  if constexpr (kHalfPartials) {
    const uint2 raw = *reinterpret_cast<const uint2*>(reinterpret_cast<const __half*>(part_o) + at);
    const float2 lo = __half22float2(*reinterpret_cast<const __half2*>(&raw.x));
    const float2 hi = __half22float2(*reinterpret_cast<const __half2*>(&raw.y));
    return make_float4(lo.x, lo.y, hi.x, hi.y);
  } else {
    return *reinterpret_cast<const float4*>(part_o + at);
  }
}

// The combine's body for work item `item` (token, head, quarter) by kGroups groups of 32 threads:
// the combine kernel's (item = its block), tc_ldsm's combine kernel (under that candidate's own
// name), and the split kernel's own after its grid barrier (grid_combine: 4 groups, items strided
// over the split blocks). Its shared arrays may be reused by the next item: every write to them
// follows a barrier that comes after the last read of the item before.
template <bool kPdl, bool kHalfPartials, int kGroups = kCombineGroups>
__device__ __forceinline__ void combine_splits(const float* part_o, const float* part_m, const float* part_l,
                                               int splits, __nv_bfloat16* output, float* lse, unsigned item) {
  constexpr int kPerGroup = kMaxSplits / kGroups;  // float4 loads per thread at most
  static_assert(kMaxSplits % kGroups == 0 && kMaxSplits <= 32 * kGroups, "combine shape");
  __shared__ float weight[32 * kGroups];
  __shared__ float scratch[kGroups];
  __shared__ float4 partial[kGroups][32];
  // PDL: wait for the split grid's completion and the visibility of its writes first.
  if constexpr (kPdl) asm volatile("griddepcontrol.wait;\n" ::: "memory");
  const int64_t th = item / 4;
  const int quarter = static_cast<int>(item % 4);
  const int64_t t = th / kHeads;
  const int h = static_cast<int>(th % kHeads);
  const int s = threadIdx.x;
  const int sg = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int dim = quarter * (kDimV / 4) + 4 * lane;
  const int64_t my = (t * splits + s) * kHeads + h;
  const float m_s = s < splits ? part_m[my] : -INFINITY;
  const float l_s = s < splits ? part_l[my] : 0.f;
  float4 po[kPerGroup];
#pragma unroll
  for (int i = 0; i < kPerGroup; ++i) {
    const int k = sg + kGroups * i;
    po[i] = k < splits ? load_partial<kHalfPartials>(part_o, ((t * splits + k) * kHeads + h) * kDimV + dim)
                       : make_float4(0.f, 0.f, 0.f, 0.f);
  }
  // probe waits for every load of this thread; the max reduction takes m_s through it, so
  // ptxas cannot start the shuffles (and stall on m) before the partial loads are issued.
  // probe == probe holds for finite partials (always: finite inputs give finite sums).
  float probe = 0.f;
#pragma unroll
  for (int i = 0; i < kPerGroup; ++i) probe += po[i].x;
  const float m_in = probe == probe ? m_s : probe;
  const float m = combine_reduce<32 * kGroups>(m_in, scratch, [](float x, float y) { return fmaxf(x, y); });
  const float w = m_s == -INFINITY ? 0.f : exp2f(m_s - m);  // empty splits weigh 0, never NaN
  weight[s] = kHalfPartials ? w * l_s : w;                  // normalised partials weigh their sums back in
  const float l = combine_reduce<32 * kGroups>(w * l_s, scratch, [](float x, float y) { return x + y; });
  // weight[] is visible: combine_reduce synchronises the block.
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
  for (int i = 0; i < kPerGroup; ++i) {
    const int k = sg + kGroups * i;
    const float wk = k < splits ? weight[k] : 0.f;  // po[i] is 0 there as well
    acc.x += wk * po[i].x;
    acc.y += wk * po[i].y;
    acc.z += wk * po[i].z;
    acc.w += wk * po[i].w;
  }
  partial[sg][lane] = acc;
  __syncthreads();
  if (sg == 0) {
    float4 o = partial[0][lane];
#pragma unroll
    for (int k = 1; k < kGroups; ++k) {
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

// grid_combine: the split grid as one cooperative launch (all its blocks resident): after its
// partials every block waits at a grid barrier, then combines the items blockIdx.x, + gridDim.x,
// ... of (token, head, quarter). One kernel a call: no second launch and no gap between two grids.
// (A template, so that only the candidates that launch it compile it.)
template <int kGroups = kWarps>
__global__ void __launch_bounds__(kThreads, 2)
    dsa_tck_grid_kernel(Args a, __nv_bfloat16* output, float* lse) {
  split_block<false, false, false>(a);
  cooperative_groups::this_grid().sync();  // every split's partial is written and visible
  const unsigned items = gridDim.x / a.splits * kHeads * 4;
  for (unsigned item = blockIdx.x; item < items; item += gridDim.x)
    combine_splits<false, false, kGroups>(a.part_o, a.part_m, a.part_l, a.splits, output, lse, item);
}

template <bool kPdl, bool kHalfPartials = false>
__global__ void __launch_bounds__(kCombineThreads)
    dsa_tck_combine_kernel(const float* part_o, const float* part_m, const float* part_l, int splits,
                           __nv_bfloat16* output, float* lse) {
  combine_splits<kPdl, kHalfPartials>(part_o, part_m, part_l, splits, output, lse, blockIdx.x);
}

}  // namespace dsa_tc_ksplit
