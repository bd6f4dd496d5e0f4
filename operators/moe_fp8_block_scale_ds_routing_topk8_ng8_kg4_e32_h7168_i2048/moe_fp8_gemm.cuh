// The fp8 grouped GEMM of the loop's MoE candidates (fp8mma, fp8wg): both expert GEMMs straight on
// the e4m3 codes over moe_routing.cuh's tile list, the block scales folded into fp32 accumulators
// every 64 k, SwiGLU fused into GEMM1 with its output re-quantised to e4m3 per (row, 64 columns),
// GEMM2 scatter-added into an fp32 [T, H] buffer (to_bf16 casts it). A configuration (Cfg) picks the
// tile and the MMA: mma.sync m16n8k32 fed by ld.shared, or (kWg) Hopper's wgmma reading both
// operands from 128-byte swizzled shared memory. The candidates' notes say why each is shaped so.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <type_traits>

namespace moe_fp8_grouped {

constexpr int kBlock = 128;  // weight / hidden quantisation block
constexpr int kQuant = 64;   // columns per scale of the re-quantised SwiGLU output
constexpr int kStepK = 128;  // k per pipeline stage (one weight scale block)
constexpr int kH = 7168;     // hidden size (fixed by the definition; checked at the entry)
constexpr int kI = 2048;     // intermediate size

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
__device__ __forceinline__ void wgmma_m64n64k32(float (&d)[32], uint64_t desc_a, uint64_t desc_b,
                                                int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%"
      "27,%28,%29,%30,%31}, %32, %33, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]),
        "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
        "+f"(d[30]), "+f"(d[31])
      : "l"(desc_a), "l"(desc_b), "r"(accumulate));
}

// D (64 x 128, fp32, 64 registers a thread) (+)= A (64 x 32 e4m3, smem) * B (128 x 32 e4m3, smem, K-major).
__device__ __forceinline__ void wgmma_m64n128k32(float (&d)[64], uint64_t desc_a, uint64_t desc_b,
                                                 int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%"
      "27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%"
      "52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]),
        "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
        "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),
        "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
        "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]),
        "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]),
        "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(accumulate));
}

__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wg_wait0() {
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
}
// All but the newest committed group complete.
__device__ __forceinline__ void wg_wait1() {
  asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
}
// Keeps the compiler from reading a wgmma result register before wgmma.wait_group.
__device__ __forceinline__ void reg_fence(float& r) { asm volatile("" : "+f"(r)::"memory"); }
// Generic-proxy smem writes (cp.async) made visible to the async proxy (wgmma operand reads).
__device__ __forceinline__ void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

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
__device__ __forceinline__ int swz_t(int r, int c) {
  return kWg ? swz128(r, c) : swz(r, c);
}

template <int BM_, int BN_, int kHalves_, int WM_, int WN_, int STAGES_, int MINB_, bool WG_ = false,
          bool FOLD128_ = false, bool CAST_ = false>
struct Cfg {
  static constexpr int BM = BM_, BN = BN_, kHalves = kHalves_, WM = WM_, WN = WN_, STAGES = STAGES_;
  static constexpr bool kWg = WG_;  // warpgroup MMA: BM = 64 * warpgroups, WM = BM / 16, WN = 1
  // wgmma only: GEMM1 folds its stage's products into the accumulators once, not twice (its
  // activation scale is one per 128 k; GEMM2's, of the re-quantised codes, one per 64 k).
  static constexpr bool kFold128 = FOLD128_;
  static_assert(!FOLD128_ || WG_, "the single fold is a wgmma path");
  // GEMM2 only: the last block of each column tile casts that tile of the sum to bf16 (no to_bf16
  // launch after it; cast_when_last).
  static constexpr bool kCastLast = CAST_;
  static_assert(!CAST_ || kHalves_ == 1, "the cast follows GEMM2");
  static constexpr int kMinBlocks = MINB_;
  static constexpr int kThreads = 32 * WM * WN;
  static constexpr int TM = BM / WM, TN = BN / WN;
  static constexpr int MI = TM / 16, NI = TN / 8;
  static constexpr int kBRows = kHalves * BN;
  static constexpr int kTileBytes = (BM + kBRows) * 128;               // one stage: A rows then B rows
  static constexpr int kOffScaleA = STAGES * kTileBytes;               // float [STAGES][2][BM]
  static constexpr int kOffScaleW = kOffScaleA + STAGES * 2 * BM * 4;  // float [STAGES][4]
  static constexpr int kOffRows = kOffScaleW + STAGES * 4 * 4;         // int [BM]
  static constexpr int kOffAmax = kOffRows + BM * 4;                   // uint [BM]
  static constexpr int kSmem = kOffAmax + BM * 4 + (kWg ? 1024 : 0);   // + room to align to 1024
  static_assert(!kWg || (BM == 16 * WM && BM % 64 == 0 && WN == 1 && kHalves * BN == 128 &&
                         kTileBytes % 1024 == 0),
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
  // GEMM1: its output codes [rows, n_out] and scales [rows, n_out / 64]. GEMM2 (kCastLast): act
  // is the bf16 output [T, n_out] and act_scale the column tiles' arrival counters (unsigned,
  // zeroed before the call); unused otherwise. (New fields would change every kernel's parameter
  // block, and with it the PTX that the shipped candidates were measured with.)
  uint8_t* act;
  float* act_scale;
  float* sum;  // GEMM2 output [T, n_out], fp32, accumulated
};

// Columns [n0, n0 + BN) of every token's fp32 sum as bf16 into act (GEMM2's kCastLast).
template <class C>
__device__ void cast_tile(const GemmArgs& p, int n0) {
  constexpr int kPairs = C::BN / 2;
  auto* out = reinterpret_cast<__nv_bfloat162*>(p.act);
  for (int i = threadIdx.x; i < p.tokens * kPairs; i += C::kThreads) {
    const int64_t at = static_cast<int64_t>(i / kPairs) * kH + n0 + 2 * (i % kPairs);
    const float2 v = __ldcg(reinterpret_cast<const float2*>(p.sum + at));  // the atomics' values, in L2
    out[at / 2] = __floats2bfloat162_rn(v.x, v.y);
  }
}

// GEMM2's kCastLast epilogue: every block of column tile blockIdx.x arrives once its atomics on
// the sum are done; the last of the *num_tiles casts the tile.
template <class C>
__device__ void cast_when_last(const GemmArgs& p, int n0) {
  __shared__ bool last;
  __threadfence();  // this block's additions before its arrival
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned* arrived = reinterpret_cast<unsigned*>(p.act_scale);
    last = atomicAdd(&arrived[blockIdx.x], 1u) + 1u == static_cast<unsigned>(*p.num_tiles);
  }
  __syncthreads();
  if (!last) return;
  __threadfence();  // the other blocks' additions, seen through their arrivals
  cast_tile<C>(p, n0);
}

template <class C, bool kGemm1>
__global__ void __launch_bounds__(C::kThreads, C::kMinBlocks) fp8_gemm(GemmArgs p) {
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  uint8_t* smem = smem_raw;
  if constexpr (C::kWg) smem += (1024u - (smem_u32(smem_raw) & 1023u)) & 1023u;
  if (static_cast<int>(blockIdx.y) >= *p.num_tiles) {
    // No tile at all (no local pick): the sum's zeros are the output, cast by the first row of blocks.
    if constexpr (C::kCastLast)
      if (blockIdx.y == 0) cast_tile<C>(p, static_cast<int>(blockIdx.x) * C::BN);
    return;
  }
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
      // One activation scale per 64 k: fold twice a stage (once with kFold128 in GEMM1).
      constexpr int kFolds = C::kFold128 && kGemm1 ? 1 : 2;
      constexpr int kSteps = 4 / kFolds;  // k32 steps a fold
#pragma unroll
      for (int kc = 0; kc < kFolds; ++kc) {
        float tmp[C::kHalves][C::BN / 2];
#pragma unroll
        for (int h = 0; h < C::kHalves; ++h)
#pragma unroll
          for (int i = 0; i < C::BN / 2; ++i) tmp[h][i] = 0.0f;
        wg_fence();
#pragma unroll
        for (int kk = 0; kk < kSteps; ++kk) {
          const int k32 = kSteps * kc + kk;
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
        if (wn == 0 && t == 0)
          p.act_scale[row * (I / kQuant) + n0 / kQuant] = amax > 0.0f ? amax / 448.0f : 0.0f;
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
    if constexpr (C::kCastLast) cast_when_last<C>(p, n0);
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

}  // namespace moe_fp8_grouped
