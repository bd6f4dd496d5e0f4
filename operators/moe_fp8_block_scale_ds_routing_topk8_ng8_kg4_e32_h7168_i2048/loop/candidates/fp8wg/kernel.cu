// fp8 MoE, fp8mma + Hopper warpgroup MMA (wgmma) for the compute-bound sizes (fp8wg).
//
// What: identical to the fp8mma candidate (routing and row grouping as the baseline, a
// device-side (expert, row-tile) list, fp8 GEMMs straight on the e4m3 codes with the
// block scales folded into fp32 accumulators every 64 k, SwiGLU fused into GEMM1 and its
// output re-quantised to e4m3 per (row, 64 columns), GEMM2 scatter-added with float2
// atomics into an fp32 [T, H] buffer, cast to bf16), except that for T > 2048 both GEMMs
// use `wgmma.mma_async.m64nNk32.f32.e4m3.e4m3` (SASS: QGMMA) with both operands read by the tensor cores
// from shared memory (128-byte swizzled K-major tiles written by cp.async, BM = 128 = two
// m64 warpgroups, GEMM1 two n64 instructions for matching X1/X2 columns, GEMM2 one n128),
// instead of mma.sync fed by ld.shared (which sm_90 runs as fp8->f16 unpacks + HMMA.16816,
// checked in the SASS: no native fp8 mma.sync on Hopper). 128 < T <= 2048 uses the same
// wgmma kernel with BM = 64 (one warpgroup). T <= 128 runs exactly fp8mma's mma.sync
// kernels (bandwidth-bound there, the unpacks cost nothing).
//
// Why faster: at T = 11948 / 14107 (2.0 / 2.4 TFLOP, ~60% of the baseline's mean) the
// mma.sync kernel is bound by ld.shared bandwidth (~190 B per m16n8k32) and by mma.sync's
// fp8 rate on Hopper; wgmma reads operands without register staging and runs at the
// Hopper fp8 rate. Expected T=14107: ~2-3 ms (vs ~4-6 ms fp8mma, 30.6 ms baseline), T=901
// ~0.35-0.45 ms; T <= 128 as fp8mma (T=1 ~50 us, T=16 ~300 us, T=52-80 ~400-500 us).
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <kharness/kernel.h>

#include <cstdint>
#include <type_traits>

namespace {

constexpr int kTopK = 8;
constexpr int kGroups = 8;
constexpr int kKeptGroups = 4;
constexpr int kBlock = 128;  // weight / hidden quantisation block
constexpr int kQuant = 64;   // columns per scale of the re-quantised SwiGLU output
constexpr int kStepK = 128;  // k per pipeline stage (one weight scale block)
constexpr int kH = 7168;     // hidden size (fixed by the definition; checked at the entry)
constexpr int kI = 2048;     // intermediate size

// ---------------------------------------------------------------- routing (baseline's)

__device__ __forceinline__ bool better(float v, int i, float bv, int bi) {
  return v > bv || (v == bv && i < bi);
}

__device__ __forceinline__ void warp_best(float& v, int& i) {
  for (int off = 16; off > 0; off >>= 1) {
    const float ov = __shfl_xor_sync(0xffffffffu, v, off);
    const int oi = __shfl_xor_sync(0xffffffffu, i, off);
    if (better(ov, oi, v, i)) {
      v = ov;
      i = oi;
    }
  }
}

// One warp per token; lane l holds experts 8l..8l+7 (a group is 4 lanes).
__global__ void route(const float* __restrict__ logits, const __nv_bfloat16* __restrict__ bias, int tokens,
                      int offset, int local, float scaling, int* __restrict__ pick_local,
                      float* __restrict__ pick_weight, int* __restrict__ counts) {
  const int lane = threadIdx.x % 32;
  const int t = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (t >= tokens) return;
  float s[8], biased[8];
  const float4* row = reinterpret_cast<const float4*>(logits + static_cast<int64_t>(t) * 256 + lane * 8);
  const float4 lo = row[0], hi = row[1];
  const float x[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  float first = -INFINITY, second = -INFINITY;
  for (int j = 0; j < 8; ++j) {
    s[j] = 1.0f / (1.0f + expf(-x[j]));
    biased[j] = s[j] + __bfloat162float(bias[lane * 8 + j]);
    if (biased[j] > first) {
      second = first;
      first = biased[j];
    } else if (biased[j] > second) {
      second = biased[j];
    }
  }
  for (int off = 1; off < 4; off <<= 1) {
    const float of = __shfl_xor_sync(0xffffffffu, first, off);
    const float os = __shfl_xor_sync(0xffffffffu, second, off);
    const float hi_first = fmaxf(first, of);
    second = fmaxf(fminf(first, of), fmaxf(second, os));
    first = hi_first;
  }
  float group_score[kGroups];
  for (int g = 0; g < kGroups; ++g) group_score[g] = __shfl_sync(0xffffffffu, first + second, g * 4);
  uint32_t kept = 0;
  for (int k = 0; k < kKeptGroups; ++k) {
    int best = -1;
    for (int g = 0; g < kGroups; ++g)
      if (!(kept >> g & 1u) && (best < 0 || group_score[g] > group_score[best])) best = g;
    kept |= 1u << best;
  }
  const bool lane_kept = kept >> (lane / 4) & 1u;
  uint32_t taken = 0;
  float chosen_s = 0.0f, sum = 0.0f;
  int chosen_e = -1;
  for (int k = 0; k < kTopK; ++k) {
    float v = -INFINITY;
    int e = 1 << 30;
    for (int j = 0; j < 8; ++j)
      if (lane_kept && !(taken >> j & 1u) && better(biased[j], lane * 8 + j, v, e)) {
        v = biased[j];
        e = lane * 8 + j;
      }
    warp_best(v, e);
    const bool mine = e / 8 == lane;
    float pick_s = mine ? s[e % 8] : 0.0f;
    if (mine) taken |= 1u << (e % 8);
    pick_s = __shfl_sync(0xffffffffu, pick_s, e / 8);
    sum += pick_s;
    if (lane == k) {
      chosen_s = pick_s;
      chosen_e = e;
    }
  }
  if (lane < kTopK) {
    const int le = chosen_e - offset;
    const bool is_local = le >= 0 && le < local;
    pick_local[t * kTopK + lane] = is_local ? le : -1;
    pick_weight[t * kTopK + lane] = chosen_s / (sum + 1e-20f) * scaling;
    if (is_local) atomicAdd(&counts[le], 1);
  }
}

// offsets[e] = rows before expert e; tiles = (expert, first row in expert) per BM rows.
__global__ void plan_tiles(const int* __restrict__ counts, int local, int bm, int cap, int* __restrict__ offsets,
                           int2* __restrict__ tiles, int* __restrict__ num_tiles) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  int off = 0, n = 0;
  for (int e = 0; e < local; ++e) {
    offsets[e] = off;
    const int c = counts[e];
    for (int m0 = 0; m0 < c && n < cap; m0 += bm) tiles[n++] = make_int2(e, m0);
    off += c;
  }
  offsets[local] = off;
  *num_tiles = n;
}

__global__ void assign_rows(const int* __restrict__ pick_local, const float* __restrict__ pick_weight,
                            int tokens, const int* __restrict__ offsets, int* __restrict__ cursor,
                            int* __restrict__ row_token, float* __restrict__ row_weight) {
  const int64_t p = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >= static_cast<int64_t>(tokens) * kTopK) return;
  const int le = pick_local[p];
  if (le < 0) return;
  const int row = offsets[le] + atomicAdd(&cursor[le], 1);
  row_token[row] = static_cast<int>(p / kTopK);
  row_weight[row] = pick_weight[p];
}

// ---------------------------------------------------------------- fp8 grouped GEMM

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// 16 bytes global -> shared, bypassing L1; zero-filled when !valid (src is not read).
__device__ __forceinline__ void cp16(void* dst, const void* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_u32(dst)), "l"(src),
               "r"(valid ? 16 : 0));
}

__device__ __forceinline__ void cp4(void* dst, const void* src, bool valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_u32(dst)), "l"(src),
               "r"(valid ? 4 : 0));
}

__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }

template <int N>
__device__ __forceinline__ void cp_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// D += A * B, A 16x32 e4m3 (row), B 32x8 e4m3 (col), fp32 accumulators.
// PTX ISA fragment layouts (groupID g = lane >> 2, t = lane & 3):
//   A: a0 = row g, k 4t..4t+3; a1 = row g+8, k 4t..; a2 = row g, k 16+4t..; a3 = row g+8, k 16+4t..
//   B: b0 = col g, k 4t..4t+3; b1 = col g, k 16+4t..
//   C: c0,c1 = row g, cols 2t, 2t+1; c2,c3 = row g+8, cols 2t, 2t+1
__device__ __forceinline__ void mma_e4m3(float (&d)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                                         uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// ---- Hopper warpgroup MMA (large-T path only)
// D (64 x 64, fp32, 32 registers a thread) (+)= A (64 x 32 e4m3, smem) * B (64 x 32 e4m3, smem, K-major).
__device__ __forceinline__ void wgmma_m64n64k32(float (&d)[32], uint64_t desc_a, uint64_t desc_b, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(desc_a), "l"(desc_b), "r"(accumulate));
}

// D (64 x 128, fp32, 64 registers a thread) (+)= A (64 x 32 e4m3, smem) * B (128 x 32 e4m3, smem, K-major).
__device__ __forceinline__ void wgmma_m64n128k32(float (&d)[64], uint64_t desc_a, uint64_t desc_b, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(accumulate));
}

__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory"); }
// Keeps the compiler from reading a wgmma result register before wgmma.wait_group.
__device__ __forceinline__ void reg_fence(float& r) { asm volatile("" : "+f"(r)::"memory"); }
// Generic-proxy smem writes (cp.async) made visible to the async proxy (wgmma operand reads).
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

// wgmma shared-memory descriptor of a K-major tile of 128-byte rows in the 128-byte swizzle
// (16-byte chunk c of row r at chunk c ^ (r % 8), 8-row groups 1024 bytes apart, tile base
// 1024-aligned): start address >> 4 in bits 0-13, leading byte offset 0 (unused for swizzled
// K-major), stride byte offset 1024 >> 4 in bits 32-45, base offset 0, swizzle mode 1 (128 B)
// in bits 62-63. Stepping k by 32 inside the 128-byte row adds 32 bytes to the start address.
__device__ __forceinline__ uint64_t make_desc(uint32_t smem_addr) {
  return static_cast<uint64_t>((smem_addr & 0x3FFFFu) >> 4) | (static_cast<uint64_t>(1024 >> 4) << 32) |
         (static_cast<uint64_t>(1) << 62);
}

// Byte offset of 16-byte chunk c (0..7) of 128-byte row r in a staged tile. Rows of
// opposite parity swap halves, so the 8 lanes of a quarter warp (rows g, g+1, chunks
// 4kc..4kc+3) hit 8 distinct 16-byte bank groups.
__device__ __forceinline__ int swz(int r, int c) { return r * 128 + ((c ^ ((r & 1) << 2)) << 4); }
// The wgmma path uses the hardware's 128-byte swizzle instead (see make_desc).
__device__ __forceinline__ int swz128(int r, int c) { return r * 128 + ((c ^ (r & 7)) << 4); }
template <bool kWg>
__device__ __forceinline__ int swz_t(int r, int c) { return kWg ? swz128(r, c) : swz(r, c); }

template <int BM_, int BN_, int kHalves_, int WM_, int WN_, int STAGES_, int MINB_, bool WG_ = false>
struct Cfg {
  static constexpr int BM = BM_, BN = BN_, kHalves = kHalves_, WM = WM_, WN = WN_, STAGES = STAGES_;
  static constexpr bool kWg = WG_;  // warpgroup MMA: BM = 64 * warpgroups, WM = BM / 16, WN = 1
  static constexpr int kMinBlocks = MINB_;
  static constexpr int kThreads = 32 * WM * WN;
  static constexpr int TM = BM / WM, TN = BN / WN;
  static constexpr int MI = TM / 16, NI = TN / 8;
  static constexpr int kBRows = kHalves * BN;
  static constexpr int kTileBytes = (BM + kBRows) * 128;  // one stage: A rows then B rows
  static constexpr int kOffScaleA = STAGES * kTileBytes;             // float [STAGES][2][BM]
  static constexpr int kOffScaleW = kOffScaleA + STAGES * 2 * BM * 4;  // float [STAGES][4]
  static constexpr int kOffRows = kOffScaleW + STAGES * 4 * 4;         // int [BM]
  static constexpr int kOffAmax = kOffRows + BM * 4;                   // uint [BM]
  static constexpr int kSmem = kOffAmax + BM * 4 + (kWg ? 1024 : 0);  // + room to align to 1024
  static_assert(!kWg || (BM == 16 * WM && BM % 64 == 0 && WN == 1 && kHalves * BN == 128 && kTileBytes % 1024 == 0),
                "wgmma tiling: one m64 warpgroup per 64 rows, the whole column tile per warpgroup");
  static_assert(TM % 16 == 0 && TN % 8 == 0 && MI >= 1 && NI >= 1, "warp tile");
  static_assert(kBlock % BN == 0 || BN % kBlock == 0, "column tile vs scale block");
  static_assert(BN <= kBlock, "a column tile must sit inside one weight scale block");
  static_assert(kHalves == 1 || BN == kQuant, "GEMM1 writes one activation scale per block row");
};

struct GemmArgs {
  const uint8_t* a;      // GEMM1: hidden codes [T, H]; GEMM2: activation codes [rows, I]
  const float* a_scale;  // GEMM1: [H/128, T]; GEMM2: [rows, I/64]
  const uint8_t* w;      // [E, kHalves * n_out, K]
  const float* w_scale;  // [E, kHalves * n_out / 128, K / 128]
  const int* offsets;
  const int2* tiles;
  const int* num_tiles;
  const int* row_token;
  const float* row_weight;
  int tokens, k_dim, n_out;  // n_out: output columns (per half for GEMM1)
  uint8_t* act;              // GEMM1 output codes [rows, n_out]
  float* act_scale;          // GEMM1 output scales [rows, n_out / 64]
  float* sum;                // GEMM2 output [T, n_out], fp32, accumulated
};

template <class C, bool kGemm1>
__global__ void __launch_bounds__(C::kThreads, C::kMinBlocks) fp8_gemm(GemmArgs p) {
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  uint8_t* smem = smem_raw;
  if constexpr (C::kWg) smem += (1024u - (smem_u32(smem_raw) & 1023u)) & 1023u;
  if (static_cast<int>(blockIdx.y) >= *p.num_tiles) return;
  const int2 tile = p.tiles[blockIdx.y];
  const int e = tile.x, m0 = tile.y;
  const int first = p.offsets[e];
  const int rows_here = min(C::BM, p.offsets[e + 1] - first - m0);
  const int n0 = blockIdx.x * C::BN;
  // Compile-time K and output width: every address offset inside the k loop is an immediate.
  constexpr int K = kGemm1 ? kH : kI, KT = K / kStepK;
  constexpr int kNOut = kGemm1 ? kI : kH;
  const int tid = threadIdx.x;
  constexpr int64_t w_rows = static_cast<int64_t>(C::kHalves) * kNOut;
  const uint8_t* we = p.w + static_cast<int64_t>(e) * w_rows * K;
  const float* se = p.w_scale + static_cast<int64_t>(e) * (w_rows / kBlock) * KT;

  float* s_sa = reinterpret_cast<float*>(smem + C::kOffScaleA);
  float* s_sw = reinterpret_cast<float*>(smem + C::kOffScaleW);
  int* s_src = reinterpret_cast<int*>(smem + C::kOffRows);  // GEMM1: token; GEMM2: row; -1: none
  unsigned* s_amax = reinterpret_cast<unsigned*>(smem + C::kOffAmax);

  for (int r = tid; r < C::BM; r += C::kThreads) {
    s_src[r] = r < rows_here ? (kGemm1 ? p.row_token[first + m0 + r] : first + m0 + r) : -1;
    s_amax[r] = 0u;
  }
  __syncthreads();

  auto load_stage = [&](int slot, int kb) {
    const int k0 = kb * kStepK;
    uint8_t* sa_tile = smem + slot * C::kTileBytes;
    uint8_t* sb_tile = sa_tile + C::BM * 128;
    for (int i = tid; i < C::BM * 8; i += C::kThreads) {
      const int r = i >> 3, c = i & 7;
      const int src = s_src[r];
      const bool ok = src >= 0;
      const uint8_t* g = ok ? p.a + static_cast<int64_t>(src) * K + k0 + c * 16 : p.a;
      cp16(sa_tile + swz_t<C::kWg>(r, c), g, ok);
    }
    for (int i = tid; i < C::kBRows * 8; i += C::kThreads) {
      const int r = i >> 3, c = i & 7;
      const int64_t wrow = static_cast<int64_t>(r / C::BN) * kNOut + n0 + (r % C::BN);
      cp16(sb_tile + swz_t<C::kWg>(r, c), we + wrow * K + k0 + c * 16, true);
    }
    float* sa = s_sa + slot * 2 * C::BM;
    for (int r = tid; r < C::BM; r += C::kThreads) {
      const int src = s_src[r];
      const bool ok = src >= 0;
      if (kGemm1) {
        const float* g = ok ? p.a_scale + static_cast<int64_t>(kb) * p.tokens + src : p.a_scale;
        cp4(sa + r, g, ok);
        cp4(sa + C::BM + r, g, ok);
      } else {
        const float* g = ok ? p.a_scale + static_cast<int64_t>(src) * (K / kQuant) + 2 * kb : p.a_scale;
        cp4(sa + r, g, ok);
        cp4(sa + C::BM + r, ok ? g + 1 : g, ok);
      }
    }
    if (tid < C::kHalves) {
      const int wrow0 = tid * kNOut + n0;
      cp4(s_sw + slot * 4 + tid, se + static_cast<int64_t>(wrow0 / kBlock) * KT + kb, true);
    }
  };

  const int warp = tid / 32, lane = tid % 32, g = lane >> 2, t = lane & 3;
  const int wm = warp / C::WN, wn = warp % C::WN;

  float acc[C::MI][C::kHalves][C::NI][4];
#pragma unroll
  for (int mi = 0; mi < C::MI; ++mi)
#pragma unroll
    for (int h = 0; h < C::kHalves; ++h)
#pragma unroll
      for (int ni = 0; ni < C::NI; ++ni)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[mi][h][ni][j] = 0.0f;

#pragma unroll
  for (int s = 0; s < C::STAGES - 1; ++s) {
    if (s < KT) load_stage(s, s);
    cp_commit();
  }

  for (int kt = 0; kt < KT; ++kt) {
    cp_wait<C::STAGES - 2>();
    if constexpr (C::kWg) fence_proxy_async();
    __syncthreads();  // stage kt landed for all threads; slot (kt-1) % STAGES is free
    {
      const int nk = kt + C::STAGES - 1;
      if (nk < KT) load_stage(nk % C::STAGES, nk);
      cp_commit();
    }
    const int slot = kt % C::STAGES;
    const uint8_t* sa_tile = smem + slot * C::kTileBytes;
    const uint8_t* sb_tile = sa_tile + C::BM * 128;
    const float* sa = s_sa + slot * 2 * C::BM;
    float sw[C::kHalves];
#pragma unroll
    for (int h = 0; h < C::kHalves; ++h) sw[h] = s_sw[slot * 4 + h];
    if constexpr (C::kWg) {
      // Warpgroup wg (warps 4wg..4wg+3) owns rows 64wg..64wg+63; warp w of it rows 16w..16w+15,
      // so a thread's rows are 16 * warp + g and + 8 (the m16n8 C layout per 8-column group).
      const uint32_t a_base = smem_u32(sa_tile) + (warp / 4) * 64 * 128;
      const uint32_t b_base = smem_u32(sb_tile);
      const int r0 = 16 * warp + g;
#pragma unroll
      for (int kc = 0; kc < 2; ++kc) {  // one activation scale per 64 k: fold twice a stage
        float tmp[C::kHalves][C::BN / 2];
#pragma unroll
        for (int h = 0; h < C::kHalves; ++h)
#pragma unroll
          for (int i = 0; i < C::BN / 2; ++i) tmp[h][i] = 0.0f;
        wg_fence();
#pragma unroll
        for (int kk = 0; kk < 2; ++kk) {
          const int k32 = 2 * kc + kk;
          const uint64_t da = make_desc(a_base + k32 * 32);
#pragma unroll
          for (int h = 0; h < C::kHalves; ++h) {
            const uint64_t db = make_desc(b_base + h * C::BN * 128 + k32 * 32);
            if constexpr (C::BN == 64)
              wgmma_m64n64k32(tmp[h], da, db, kk);
            else
              wgmma_m64n128k32(tmp[h], da, db, kk);
          }
        }
        wg_commit();
        wg_wait0();
#pragma unroll
        for (int h = 0; h < C::kHalves; ++h)
#pragma unroll
          for (int i = 0; i < C::BN / 2; ++i) reg_fence(tmp[h][i]);
        const float s0 = sa[kc * C::BM + r0], s1 = sa[kc * C::BM + r0 + 8];
#pragma unroll
        for (int h = 0; h < C::kHalves; ++h) {
          const float f0 = s0 * sw[h], f1 = s1 * sw[h];
#pragma unroll
          for (int ni = 0; ni < C::NI; ++ni) {
            acc[0][h][ni][0] = fmaf(tmp[h][4 * ni + 0], f0, acc[0][h][ni][0]);
            acc[0][h][ni][1] = fmaf(tmp[h][4 * ni + 1], f0, acc[0][h][ni][1]);
            acc[0][h][ni][2] = fmaf(tmp[h][4 * ni + 2], f1, acc[0][h][ni][2]);
            acc[0][h][ni][3] = fmaf(tmp[h][4 * ni + 3], f1, acc[0][h][ni][3]);
          }
        }
      }
    } else {
#pragma unroll 1
    for (int kc = 0; kc < 2; ++kc) {
      // Lane (g, t) takes the 16 bytes at k = 64 kc + 16 t of its rows for both operands:
      // bytes 0-7 feed the first m16n8k32 (a0/a1/b0 <- bytes 0-3, a2/a3/b1 <- bytes 4-7),
      // bytes 8-15 the second. A and B use the same k permutation, so the dot product over
      // the 64-k chunk is exact.
      uint4 alo[C::MI], ahi[C::MI];
      float f0[C::MI][C::kHalves], f1[C::MI][C::kHalves];
#pragma unroll
      for (int mi = 0; mi < C::MI; ++mi) {
        const int r0 = wm * C::TM + mi * 16 + g;
        alo[mi] = *reinterpret_cast<const uint4*>(sa_tile + swz(r0, 4 * kc + t));
        ahi[mi] = *reinterpret_cast<const uint4*>(sa_tile + swz(r0 + 8, 4 * kc + t));
        const float s0 = sa[kc * C::BM + r0], s1 = sa[kc * C::BM + r0 + 8];
#pragma unroll
        for (int h = 0; h < C::kHalves; ++h) {
          f0[mi][h] = s0 * sw[h];
          f1[mi][h] = s1 * sw[h];
        }
      }
#pragma unroll
      for (int h = 0; h < C::kHalves; ++h)
#pragma unroll
        for (int ni = 0; ni < C::NI; ++ni) {
          const int r = h * C::BN + wn * C::TN + ni * 8 + g;
          const uint4 bf = *reinterpret_cast<const uint4*>(sb_tile + swz(r, 4 * kc + t));
#pragma unroll
          for (int mi = 0; mi < C::MI; ++mi) {
            float tmp[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            mma_e4m3(tmp, alo[mi].x, ahi[mi].x, alo[mi].y, ahi[mi].y, bf.x, bf.y);
            mma_e4m3(tmp, alo[mi].z, ahi[mi].z, alo[mi].w, ahi[mi].w, bf.z, bf.w);
            acc[mi][h][ni][0] = fmaf(tmp[0], f0[mi][h], acc[mi][h][ni][0]);
            acc[mi][h][ni][1] = fmaf(tmp[1], f0[mi][h], acc[mi][h][ni][1]);
            acc[mi][h][ni][2] = fmaf(tmp[2], f1[mi][h], acc[mi][h][ni][2]);
            acc[mi][h][ni][3] = fmaf(tmp[3], f1[mi][h], acc[mi][h][ni][3]);
          }
        }
    }
    }
  }
  cp_wait<0>();

  if constexpr (kGemm1) {
    // C = silu(X2) * X1, then per-row amax over this block's 64 columns.
    float amax_lo[C::MI], amax_hi[C::MI];
#pragma unroll
    for (int mi = 0; mi < C::MI; ++mi) {
      amax_lo[mi] = 0.0f;
      amax_hi[mi] = 0.0f;
#pragma unroll
      for (int ni = 0; ni < C::NI; ++ni)
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const float x1 = acc[mi][0][ni][j], x2 = acc[mi][C::kHalves - 1][ni][j];
          const float c = x2 / (1.0f + __expf(-x2)) * x1;
          acc[mi][0][ni][j] = c;
          if (j < 2)
            amax_lo[mi] = fmaxf(amax_lo[mi], fabsf(c));
          else
            amax_hi[mi] = fmaxf(amax_hi[mi], fabsf(c));
        }
#pragma unroll
      for (int off = 1; off < 4; off <<= 1) {
        amax_lo[mi] = fmaxf(amax_lo[mi], __shfl_xor_sync(0xffffffffu, amax_lo[mi], off));
        amax_hi[mi] = fmaxf(amax_hi[mi], __shfl_xor_sync(0xffffffffu, amax_hi[mi], off));
      }
      if (t == 0) {  // non-negative floats order like their bit patterns
        const int r0 = wm * C::TM + mi * 16 + g;
        atomicMax(&s_amax[r0], __float_as_uint(amax_lo[mi]));
        atomicMax(&s_amax[r0 + 8], __float_as_uint(amax_hi[mi]));
      }
    }
    __syncthreads();
    constexpr int I = kNOut;
#pragma unroll
    for (int mi = 0; mi < C::MI; ++mi)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int r = wm * C::TM + mi * 16 + g + 8 * half;
        if (r >= rows_here) continue;
        const float amax = __uint_as_float(s_amax[r]);
        const float inv = amax > 0.0f ? 448.0f / amax : 0.0f;
        const int64_t row = first + m0 + r;
#pragma unroll
        for (int ni = 0; ni < C::NI; ++ni) {
          const int col = n0 + wn * C::TN + ni * 8 + 2 * t;
          const float2 v = make_float2(acc[mi][0][ni][2 * half] * inv, acc[mi][0][ni][2 * half + 1] * inv);
          const __nv_fp8x2_storage_t q = __nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, __NV_E4M3);
          *reinterpret_cast<__nv_fp8x2_storage_t*>(p.act + row * I + col) = q;
        }
        if (wn == 0 && t == 0) p.act_scale[row * (I / kQuant) + n0 / kQuant] = amax > 0.0f ? amax / 448.0f : 0.0f;
      }
  } else {
    constexpr int H = kNOut;
#pragma unroll
    for (int mi = 0; mi < C::MI; ++mi)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int r = wm * C::TM + mi * 16 + g + 8 * half;
        if (r >= rows_here) continue;
        const int row = first + m0 + r;
        const int token = p.row_token[row];
        const float wgt = p.row_weight[row];
        float* out = p.sum + static_cast<int64_t>(token) * H;
#pragma unroll
        for (int ni = 0; ni < C::NI; ++ni) {
          const int col = n0 + wn * C::TN + ni * 8 + 2 * t;
          atomicAdd(reinterpret_cast<float2*>(out + col),
                    make_float2(acc[mi][0][ni][2 * half] * wgt, acc[mi][0][ni][2 * half + 1] * wgt));
        }
      }
  }
}

__global__ void to_bf16(const float4* __restrict__ in, int64_t n4, uint2* __restrict__ out) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n4;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float4 v = in[i];
    const __nv_bfloat162 lo = __floats2bfloat162_rn(v.x, v.y), hi = __floats2bfloat162_rn(v.z, v.w);
    uint2 o;
    o.x = *reinterpret_cast<const uint32_t*>(&lo);
    o.y = *reinterpret_cast<const uint32_t*>(&hi);
    out[i] = o;
  }
}

struct Scratch {
  int *counts, *cursors, *offsets, *pick_local, *row_token, *num_tiles;
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
    carve(counts, 2 * local);  // counts and cursors side by side: one memset
    cursors = base == nullptr ? nullptr : counts + local;
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

//                   BM   BN  halves WM WN stages minBlocks
using G1Small = Cfg<16, 64, 2, 1, 4, 6, 2>;
using G2Small = Cfg<16, 64, 1, 1, 4, 6, 3>;
using G1Mid = Cfg<64, 64, 2, 4, 1, 4, 2, true>;   // one warpgroup: wgmma m64n64k32 x2
using G2Mid = Cfg<64, 128, 1, 4, 1, 4, 2, true>;  // wgmma m64n128k32
using G1Large = Cfg<128, 64, 2, 8, 1, 4, 1, true>;   // wgmma m64n64k32 x2 (X1, X2)
using G2Large = Cfg<128, 128, 1, 8, 1, 4, 1, true>;  // wgmma m64n128k32

template <class C1, class C2>
int run_moe(const DLTensor* routing_logits, const DLTensor* routing_bias, const DLTensor* hidden_states,
            const DLTensor* hidden_states_scale, const DLTensor* gemm1_weights, const DLTensor* gemm1_weights_scale,
            const DLTensor* gemm2_weights, const DLTensor* gemm2_weights_scale, int32_t local_expert_offset,
            float routed_scaling_factor, DLTensor* output, cudaStream_t stream) {
  static_assert(C1::BM == C2::BM, "one tile list serves both GEMMs");
  constexpr int BM = C1::BM;
  const int tokens = static_cast<int>(routing_logits->shape[0]);
  const int hidden = static_cast<int>(hidden_states->shape[1]);
  const int local = static_cast<int>(gemm1_weights->shape[0]);
  const int inter = static_cast<int>(gemm2_weights->shape[2]);
  const int64_t picks = static_cast<int64_t>(tokens) * kTopK;
  const int64_t max_rows = static_cast<int64_t>(tokens) * (local < kTopK ? local : kTopK);
  const int64_t outputs = static_cast<int64_t>(tokens) * hidden;
  // sum over experts of ceil(c_e / BM) <= (rows + nonempty * (BM - 1)) / BM, nonempty <= min(local, rows)
  const int64_t nonempty = max_rows < local ? max_rows : local;
  int64_t max_tiles = (max_rows + nonempty * (BM - 1)) / BM;
  const int64_t per_expert = static_cast<int64_t>(local) * ((tokens + BM - 1) / BM);
  if (per_expert < max_tiles) max_tiles = per_expert;
  if (max_tiles < 1) max_tiles = 1;
  if (max_tiles > 65535) return 1;

  Scratch b{};
  char* scratch = nullptr;
  if (cudaMallocAsync(&scratch, b.layout(nullptr, local, picks, max_rows, inter, outputs, max_tiles), stream) !=
      cudaSuccess)
    return 1;
  b.layout(scratch, local, picks, max_rows, inter, outputs, max_tiles);
  cudaMemsetAsync(b.counts, 0, 2 * local * sizeof(int), stream);
  cudaMemsetAsync(b.sum, 0, outputs * sizeof(float), stream);

  route<<<(tokens + 3) / 4, 128, 0, stream>>>(
      static_cast<const float*>(routing_logits->data), static_cast<const __nv_bfloat16*>(routing_bias->data),
      tokens, local_expert_offset, local, routed_scaling_factor, b.pick_local, b.pick_weight, b.counts);
  plan_tiles<<<1, 32, 0, stream>>>(b.counts, local, BM, static_cast<int>(max_tiles), b.offsets, b.tiles,
                                   b.num_tiles);
  assign_rows<<<static_cast<unsigned>((picks + 255) / 256), 256, 0, stream>>>(
      b.pick_local, b.pick_weight, tokens, b.offsets, b.cursors, b.row_token, b.row_weight);

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
  g2.act = nullptr;
  g2.act_scale = nullptr;
  g2.sum = b.sum;
  launch_gemm<C2, false>(g2, hidden / C2::BN, static_cast<int>(max_tiles), stream);

  const int64_t n4 = outputs / 4;  // H = 7168 is a multiple of 4
  int64_t blocks = (n4 + 255) / 256;
  if (blocks > 4096) blocks = 4096;
  to_bf16<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(reinterpret_cast<const float4*>(b.sum), n4,
                                                              static_cast<uint2*>(output->data));
  cudaFreeAsync(scratch, stream);
  return 0;
}

}  // namespace

int moe_fp8wg(const DLTensor* routing_logits, const DLTensor* routing_bias, const DLTensor* hidden_states,
               const DLTensor* hidden_states_scale, const DLTensor* gemm1_weights,
               const DLTensor* gemm1_weights_scale, const DLTensor* gemm2_weights,
               const DLTensor* gemm2_weights_scale, int32_t local_expert_offset, float routed_scaling_factor,
               DLTensor* output, kh_stream_t stream) {
  const int tokens = static_cast<int>(routing_logits->shape[0]);
  if (tokens == 0) return 0;
  // Shapes this kernel is written for (H, I multiples of 128, 256 experts).
  if (routing_logits->shape[1] != 256 || hidden_states->shape[1] != kH || gemm2_weights->shape[2] != kI ||
      gemm1_weights->shape[1] != 2 * kI)
    return 1;
#define KH_MOE_ARGS                                                                                              \
  routing_logits, routing_bias, hidden_states, hidden_states_scale, gemm1_weights, gemm1_weights_scale,         \
      gemm2_weights, gemm2_weights_scale, local_expert_offset, routed_scaling_factor, output, stream
  if (tokens <= 128) return run_moe<G1Small, G2Small>(KH_MOE_ARGS);
  if (tokens <= 2048) return run_moe<G1Mid, G2Mid>(KH_MOE_ARGS);
  return run_moe<G1Large, G2Large>(KH_MOE_ARGS);
#undef KH_MOE_ARGS
}
