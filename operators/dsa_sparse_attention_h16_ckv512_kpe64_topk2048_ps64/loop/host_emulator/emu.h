// Host emulation of the CUDA features the candidates use: one std::thread per CUDA thread,
// std::barrier for __syncthreads and for warp-synchronous ops, mma/ldmatrix per PTX layout.
#pragma once
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

struct EmuIdx { unsigned x = 0, y = 0, z = 0; };
inline thread_local EmuIdx threadIdx, blockIdx;
alignas(16) inline unsigned char g_smem[232448];

struct EmuWarp {
  std::barrier<> bar{32};
  uint64_t slot[32];
  const void* addr[32];
  uint32_t a[32][4], b[32][2];
  float c[32][4];
};
struct EmuBlock {
  std::barrier<>* bar;
  EmuWarp* warps;
};
inline EmuBlock g_block;

inline void __syncthreads() { g_block.bar->arrive_and_wait(); }
inline EmuWarp& my_warp() { return g_block.warps[threadIdx.x / 32]; }

template <class T>
inline T __shfl_xor_sync(unsigned, T v, int off) {
  EmuWarp& w = my_warp();
  const int lane = threadIdx.x % 32;
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  w.slot[lane] = bits;
  w.bar.arrive_and_wait();
  const uint64_t r = w.slot[lane ^ off];
  w.bar.arrive_and_wait();
  T out;
  std::memcpy(&out, &r, sizeof(T));
  return out;
}
inline unsigned __ballot_sync(unsigned, bool p) {
  EmuWarp& w = my_warp();
  const int lane = threadIdx.x % 32;
  w.slot[lane] = p ? 1 : 0;
  w.bar.arrive_and_wait();
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= static_cast<unsigned>(w.slot[i]) << i;
  w.bar.arrive_and_wait();
  return r;
}
inline int __popc(unsigned x) { return __builtin_popcount(x); }

inline float bf_lo(uint32_t r) { uint32_t u = r << 16; float f; std::memcpy(&f, &u, 4); return f; }
inline float bf_hi(uint32_t r) { uint32_t u = r & 0xffff0000u; float f; std::memcpy(&f, &u, 4); return f; }

// D = A B + C, m16n8k16, layouts of the PTX ISA (A row, B col, fp32 C/D).
inline void mma_bf16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  EmuWarp& w = my_warp();
  const int lane = threadIdx.x % 32;
  for (int i = 0; i < 4; ++i) { w.a[lane][i] = a[i]; w.c[lane][i] = d[i]; }
  w.b[lane][0] = b0;
  w.b[lane][1] = b1;
  w.bar.arrive_and_wait();
  float A[16][16], B[16][8], C[16][8];
  for (int l = 0; l < 32; ++l) {
    const int g = l >> 2, t = l & 3;
    A[g][2 * t] = bf_lo(w.a[l][0]);         A[g][2 * t + 1] = bf_hi(w.a[l][0]);
    A[g + 8][2 * t] = bf_lo(w.a[l][1]);     A[g + 8][2 * t + 1] = bf_hi(w.a[l][1]);
    A[g][2 * t + 8] = bf_lo(w.a[l][2]);     A[g][2 * t + 9] = bf_hi(w.a[l][2]);
    A[g + 8][2 * t + 8] = bf_lo(w.a[l][3]); A[g + 8][2 * t + 9] = bf_hi(w.a[l][3]);
    B[2 * t][g] = bf_lo(w.b[l][0]);     B[2 * t + 1][g] = bf_hi(w.b[l][0]);
    B[2 * t + 8][g] = bf_lo(w.b[l][1]); B[2 * t + 9][g] = bf_hi(w.b[l][1]);
    C[g][2 * t] = w.c[l][0]; C[g][2 * t + 1] = w.c[l][1];
    C[g + 8][2 * t] = w.c[l][2]; C[g + 8][2 * t + 1] = w.c[l][3];
  }
  w.bar.arrive_and_wait();
  const int g = lane >> 2, t = lane & 3;
  auto dot = [&](int m, int n) {
    float s = C[m][n];
    for (int k = 0; k < 16; ++k) s += A[m][k] * B[k][n];
    return s;
  };
  d[0] = dot(g, 2 * t); d[1] = dot(g, 2 * t + 1); d[2] = dot(g + 8, 2 * t); d[3] = dot(g + 8, 2 * t + 1);
}

inline void ldsm_common(uint32_t (&r)[4], const void* p, bool trans) {
  EmuWarp& w = my_warp();
  const int lane = threadIdx.x % 32;
  if ((reinterpret_cast<uintptr_t>(p) & 15) != 0) { std::fprintf(stderr, "ldmatrix misaligned\n"); std::abort(); }
  w.addr[lane] = p;
  w.bar.arrive_and_wait();
  for (int i = 0; i < 4; ++i) {
    if (!trans) {
      const unsigned char* row = static_cast<const unsigned char*>(w.addr[8 * i + lane / 4]);
      std::memcpy(&r[i], row + 4 * (lane % 4), 4);
    } else {
      const unsigned char* r0 = static_cast<const unsigned char*>(w.addr[8 * i + 2 * (lane % 4)]);
      const unsigned char* r1 = static_cast<const unsigned char*>(w.addr[8 * i + 2 * (lane % 4) + 1]);
      uint16_t lo, hi;
      std::memcpy(&lo, r0 + 2 * (lane / 4), 2);
      std::memcpy(&hi, r1 + 2 * (lane / 4), 2);
      r[i] = lo | (static_cast<uint32_t>(hi) << 16);
    }
  }
  w.bar.arrive_and_wait();
}
inline void ldsm_x4(uint32_t (&r)[4], const void* p) { ldsm_common(r, p, false); }
inline void ldsm_x4_trans(uint32_t (&r)[4], const void* p) { ldsm_common(r, p, true); }

inline void copy_async16(void* dst, const void* src) {
  if ((reinterpret_cast<uintptr_t>(dst) & 15) || (reinterpret_cast<uintptr_t>(src) & 15)) { std::fprintf(stderr, "cp.async misaligned\n"); std::abort(); }
  std::memcpy(dst, src, 16);
}
inline void commit_async() {}
template <int pending>
inline void wait_async() {}

// Runs fn() as a grid of `blocks` blocks of `threads` threads, one block at a time.
template <class F>
void emu_launch(unsigned blocks, unsigned threads, F fn) {
  for (unsigned b = 0; b < blocks; ++b) {
    std::barrier<> bar(threads);
    std::vector<EmuWarp> warps(threads / 32);
    g_block.bar = &bar;
    g_block.warps = warps.data();
    std::memset(g_smem, 0xff, sizeof(g_smem));  // NaN-ish poison in shared memory
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < threads; ++t)
      ts.emplace_back([=] { threadIdx.x = t; blockIdx.x = b; fn(); });
    for (auto& t : ts) t.join();
  }
}
inline void* emu_poison_malloc(size_t n) { void* p = std::malloc(n); if (p) std::memset(p, 0xff, n); return p; }
