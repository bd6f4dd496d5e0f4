// Tensor-core split-K DSA sparse attention (mma.sync m16n8k16 bf16 -> fp32) with ldmatrix
// fragment loads and an ordinary (stream-ordered, no PDL) combine launch whose loads are all
// issued up front.
//
// = tc_split (promoted: 11.5/12.6/16.9/16.2/17.8 us on T1P317/T3P788/T6P824/T5P4096/T7P4096)
// with two changes, both already checked on the H200 or trivially equivalent:
//  - The split kernel is tc_ldsm_pdl's, verbatim minus griddepcontrol (tc_ldsm_pdl passed
//    correctness on all loop workloads and was 7-15% faster; it was rejected only for the
//    PDL launch's strays). Fragments come from ldmatrix.x4 (Q, K, P) and ldmatrix.x4.trans
//    (V): per warp and 32-row tile 74 ldmatrix (296 shared wavefronts) instead of 232
//    LDS.32 + 256 LDS.U16 (488 wavefronts) plus 128 byte permutes, so the compute phase of
//    a tile (on the critical path after the last gather lands) is ~1.6-2x shorter.
//  - The combine issues every global load (m, l and its <= 8 float4 partials) before its
//    first block reduction: one dependent L2 round trip instead of three (m -> l -> O),
//    ~0.5-1 us less per call at every T.
//  Expected: ~5-10% below tc_split at every T (T1 ~10.5 us, T7 P4096 ~16.5 us); the PDL part
//  of tc_ldsm_pdl's gain is not claimed.
//
// ldmatrix (PTX ISA): lanes 8i..8i+7 give the 8 row addresses (16 contiguous bytes each) of
// matrix i; without .trans lane l receives row l/4, columns 2(l%4), 2(l%4)+1 of matrix i in
// register i; with .trans it receives rows 2(l%4), 2(l%4)+1 of column l/4.
//  - A (Q or P, 16x16 at k0): matrix i = rows 8(i&1).., columns k0 + 8(i>>1)  -> a0..a3.
//  - B of QK (K rows n0..n0+7): matrix i = columns k0 + 8i -> b0,b1 of k-step k0 and k0+16.
//  - B of PV (.trans, V rows k0.., dims n0..): matrix i = rows k0 + 8(i&1), dims n0 + 8(i>>1)
//    -> b0,b1 of n tile n0 and of n tile n0+8.
//
// Numerics (unchanged from tc_split): P split into hi = bf16(p), lo = bf16(p - hi), P.V done
// for both; logits scaled by sm_scale*log2(e) in fp32 after the mma; lse = m + log2(l).
//
// Split block (token t, split s), 4 warps, tiles of 32 compacted rows, double-buffered
// cp.async gathers. Per tile:
//   QK: warp w owns tile rows 8w..8w+7 (one n8 tile) over 36 k16 steps (4 independent
//       accumulators), S frag: c0,c1 = S[head g][row 8w+2t,+1], c2,c3 = S[head g+8][...].
//   softmax: per-warp max over its 8 rows, block max through shared memory; each thread
//       keeps m (identical in every warp) and a partial l over its own columns.
//   PV: P (hi, lo) written to shared memory as bf16 [16][32+8]; warp w owns output dims
//       128w..128w+127 (16 n8 tiles), V B-fragments from ldmatrix.trans.
// Invalid rows: the list is compacted first (ordered ballot, deterministic); rows past n in
// the last tile are zero-filled in shared memory and their logits masked to -inf (p = 0).
//
// kh:param MIN_CHUNK in {32,64,128}  fewest list entries per split
// kh:param BLOCKS_TARGET in {132,264,528}  split blocks aimed for over all tokens
#include <cuda_bf16.h>
#include <kharness/kernel.h>

#include <cstdint>

#ifndef MIN_CHUNK
#define MIN_CHUNK 64
#endif
#ifndef BLOCKS_TARGET
#define BLOCKS_TARGET 264
#endif

namespace {

constexpr int kHeads = 16;
constexpr int kDimV = 512;
constexpr int kDimPe = 64;
constexpr int kDimK = kDimV + kDimPe;  // 576
constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;
constexpr int kTile = 8 * kWarps;      // 32 rows: one n8 tile per warp in QK
constexpr int kStride = kDimK + 8;     // 584 bf16 = 1168 B = 292 words: rows shift 4 banks
constexpr int kPStride = kTile + 8;    // 40 bf16 = 80 B = 20 words
constexpr int kVecPerRow = kDimK / 8;  // 72 16-byte pieces: 64 of ckv, 8 of kpe
constexpr int kKSteps = kDimK / 16;    // 36
constexpr int kDimsPerWarp = kDimV / kWarps;  // 128
constexpr int kNTiles = kDimsPerWarp / 8;     // 16
constexpr int kCombineThreads = 256;
constexpr int kCombineGroups = kCombineThreads / 32;  // 8 groups of 32 threads
constexpr int kMaxSplits = 64;                          // <= kCombineThreads
constexpr int kSplitsPerGroup = kMaxSplits / kCombineGroups;  // 8 float4 loads per thread at most
static_assert(kMaxSplits <= kCombineThreads && kMaxSplits % kCombineGroups == 0, "combine shape");
constexpr float kLog2e = 1.4426950408889634f;

constexpr size_t kTileBytes = sizeof(__nv_bfloat16) * kTile * kStride;  // 37376
constexpr size_t kQBytes = sizeof(__nv_bfloat16) * kHeads * kStride;    // 18688
constexpr size_t kPBytes = sizeof(__nv_bfloat16) * kHeads * kPStride;   // 1280
static_assert(kTileBytes % 16 == 0 && kQBytes % 16 == 0 && kPBytes % 16 == 0, "16-byte alignment");

size_t shared_bytes(int chunk) { return 2 * kTileBytes + kQBytes + 2 * kPBytes + sizeof(int32_t) * chunk; }

struct Args {
  const __nv_bfloat16* q_nope;
  const __nv_bfloat16* q_pe;
  const __nv_bfloat16* ckv;
  const __nv_bfloat16* kpe;
  const int32_t* indices;
  float* part_o;  // [tokens, splits, heads, kDimV], unnormalised
  float* part_m;  // [tokens, splits, heads], running max (base 2)
  float* part_l;  // [tokens, splits, heads], running sum
  int64_t topk, rows;
  int splits, chunk;
  float scale2;  // sm_scale * log2(e)
};

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

__global__ void __launch_bounds__(kThreads, 2) dsa_tcs_split_kernel(Args a) {
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
  const int64_t begin = static_cast<int64_t>(split) * a.chunk;
  const int64_t end = begin + a.chunk < a.topk ? begin + a.chunk : a.topk;

  // Query [16 x 576] to shared memory; it lands with the first tile's cp.async group.
  for (int e = threadIdx.x; e < kHeads * kVecPerRow; e += kThreads) {
    const int h = e / kVecPerRow;
    const int c = e % kVecPerRow;
    const int64_t th = t * kHeads + h;
    const __nv_bfloat16* src = c < kDimV / 8 ? a.q_nope + th * kDimV + 8 * c : a.q_pe + th * kDimPe + 8 * (c - kDimV / 8);
    copy_async16(qs + h * kStride + 8 * c, src);
  }
  const int n_valid = compact_indices(a.indices + t * a.topk, begin, end, a.rows, rows, warp_counts);

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
      // Row addresses of this lane for ldmatrix: matrix i = lane / 8, row lane % 8.
      const int mi = lane >> 3;
      const int mr = lane & 7;
      const __nv_bfloat16* qa = qs + (mr + 8 * (mi & 1)) * kStride + 8 * (mi >> 1);
      const __nv_bfloat16* kb = tile + (8 * warp + mr) * kStride + 8 * mi;
      float acc[4][4];
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
    {
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

template <class Op>
__device__ float combine_reduce(float v, float* scratch, Op op) {
  for (int offset = 16; offset > 0; offset >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
  __syncthreads();
  float r = scratch[0];
  for (int w = 1; w < kCombineThreads / 32; ++w) r = op(r, scratch[w]);
  __syncthreads();
  return r;
}

// One block per (token, head, quarter of the 512 dims): 8 groups of 32 threads take the
// splits (group sg takes splits sg, sg+8, ...), each thread 4 dims with a float4 load per
// split; then the 8 groups are summed through shared memory. Every global load (m, l, the
// partials) is issued before the first reduction, so the block waits for L2 only once.
__global__ void __launch_bounds__(kCombineThreads)
    dsa_tcs_combine_kernel(const float* part_o, const float* part_m, const float* part_l, int splits,
                           __nv_bfloat16* output, float* lse) {
  __shared__ float weight[kCombineThreads];
  __shared__ float scratch[kCombineGroups];
  __shared__ float4 partial[kCombineGroups][32];
  const int64_t th = blockIdx.x / 4;
  const int quarter = static_cast<int>(blockIdx.x % 4);
  const int64_t t = th / kHeads;
  const int h = static_cast<int>(th % kHeads);
  const int s = threadIdx.x;
  const int sg = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int dim = quarter * (kDimV / 4) + 4 * lane;
  const int64_t my = (t * splits + s) * kHeads + h;
  const float m_s = s < splits ? part_m[my] : -INFINITY;
  const float l_s = s < splits ? part_l[my] : 0.f;
  float4 po[kSplitsPerGroup];
#pragma unroll
  for (int i = 0; i < kSplitsPerGroup; ++i) {
    const int k = sg + kCombineGroups * i;
    po[i] = k < splits ? *reinterpret_cast<const float4*>(part_o + ((t * splits + k) * kHeads + h) * kDimV + dim)
                       : make_float4(0.f, 0.f, 0.f, 0.f);
  }
  // probe waits for every load of this thread; the max reduction takes m_s through it, so
  // ptxas cannot start the shuffles (and stall on m) before the partial loads are issued.
  // probe == probe holds for finite partials (always: finite inputs give finite sums).
  float probe = 0.f;
#pragma unroll
  for (int i = 0; i < kSplitsPerGroup; ++i) probe += po[i].x;
  const float m_in = probe == probe ? m_s : probe;
  const float m = combine_reduce(m_in, scratch, [](float x, float y) { return fmaxf(x, y); });
  const float w = m_s == -INFINITY ? 0.f : exp2f(m_s - m);  // empty splits weigh 0, never NaN
  weight[s] = w;
  const float l = combine_reduce(w * l_s, scratch, [](float x, float y) { return x + y; });
  // weight[] is visible: combine_reduce synchronises the block.
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
  for (int i = 0; i < kSplitsPerGroup; ++i) {
    const int k = sg + kCombineGroups * i;
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
    for (int k = 1; k < kCombineGroups; ++k) {
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

// Keeps the stream-ordered pool's memory mapped so each call's cudaMallocAsync is a cheap
// reuse (as the baseline does).
void keep_pool_memory_mapped() {
  static const bool done = [] {
    int device = 0;
    cudaMemPool_t pool;
    if (cudaGetDevice(&device) == cudaSuccess && cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess) {
      uint64_t keep = UINT64_MAX;
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
    return true;
  }();
  (void)done;
}

}  // namespace

int dsa_sparse_attention_tc_ldsm(const DLTensor* q_nope, const DLTensor* q_pe, const DLTensor* ckv_cache,
                                  const DLTensor* kpe_cache, const DLTensor* sparse_indices, float sm_scale,
                                  DLTensor* output, DLTensor* lse, kh_stream_t stream) {
  if (q_nope->shape[1] != kHeads || q_nope->shape[2] != kDimV || q_pe->shape[2] != kDimPe) return 1;
  const int64_t tokens = q_nope->shape[0];
  if (tokens == 0) return 0;
  Args a;
  a.q_nope = static_cast<const __nv_bfloat16*>(q_nope->data);
  a.q_pe = static_cast<const __nv_bfloat16*>(q_pe->data);
  a.ckv = static_cast<const __nv_bfloat16*>(ckv_cache->data);
  a.kpe = static_cast<const __nv_bfloat16*>(kpe_cache->data);
  a.indices = static_cast<const int32_t*>(sparse_indices->data);
  a.topk = sparse_indices->shape[1];
  a.rows = ckv_cache->shape[0] * ckv_cache->shape[1];
  a.scale2 = sm_scale * kLog2e;
  if (a.topk <= 0) return 1;

  // One wave of 2 blocks per SM, at least MIN_CHUNK list entries per split, chunks a
  // multiple of the tile so full lists make full tiles.
  int64_t max_splits = (a.topk + MIN_CHUNK - 1) / MIN_CHUNK;
  if (max_splits > kMaxSplits) max_splits = kMaxSplits;
  int64_t splits = (BLOCKS_TARGET + tokens - 1) / tokens;
  splits = splits < 1 ? 1 : (splits > max_splits ? max_splits : splits);
  int64_t chunk = (a.topk + splits - 1) / splits;
  chunk = (chunk + kTile - 1) / kTile * kTile;
  splits = (a.topk + chunk - 1) / chunk;
  a.splits = static_cast<int>(splits);
  a.chunk = static_cast<int>(chunk);

  const size_t partials = static_cast<size_t>(tokens * splits * kHeads);
  keep_pool_memory_mapped();
  void* scratch = nullptr;
  if (cudaMallocAsync(&scratch, partials * (kDimV + 2) * sizeof(float), stream) != cudaSuccess) return 2;
  a.part_o = static_cast<float*>(scratch);
  a.part_m = a.part_o + partials * kDimV;
  a.part_l = a.part_m + partials;

  const size_t smem = shared_bytes(a.chunk);
  cudaFuncSetAttribute(dsa_tcs_split_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  dsa_tcs_split_kernel<<<static_cast<unsigned>(tokens * splits), kThreads, smem, stream>>>(a);
  dsa_tcs_combine_kernel<<<static_cast<unsigned>(tokens * kHeads * 4), kCombineThreads, 0, stream>>>(
      a.part_o, a.part_m, a.part_l, a.splits, static_cast<__nv_bfloat16*>(output->data),
      static_cast<float*>(lse->data));
  cudaFreeAsync(scratch, stream);
  return cudaGetLastError() == cudaSuccess ? 0 : 3;
}
