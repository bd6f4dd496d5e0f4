// The arithmetic of chunked_hash (tensor/chunked_hash.h), shared word for word by the
// host implementation and the CUDA kernel (device/cuda_chunked_hash.cu), so the two
// cannot drift apart. C++17 and free of the standard library beyond <cstdint>: nvcc
// compiles it for the device, where std::rotl and friends are not available.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define KH_HASH_STEP __host__ __device__ __forceinline__ constexpr
#else
#define KH_HASH_STEP inline constexpr
#endif

namespace kh::detail {

// 256 KiB: a 1.4 GB input set is ~5,600 chunks, enough warps to keep every SM of an
// H200 busy; 1 MiB chunks would leave it at a sixth of its warp slots.
inline constexpr std::size_t kHashChunkBytes = std::size_t{256} << 10;
// One warp: lane k absorbs words k, k+32, ..., so a warp's load is 256 contiguous bytes.
inline constexpr unsigned kHashLanes = 32;

inline constexpr std::uint64_t kHashMul1 = 0x9E3779B97F4A7C15ull;
inline constexpr std::uint64_t kHashMul2 = 0xC6A4A7935BD1E995ull;
inline constexpr std::uint64_t kHashRangeSalt = 0xD1B54A32D192ED03ull;

KH_HASH_STEP std::uint64_t hash_rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// The multiply-rotate absorb, which fast_hash.cpp uses too.
KH_HASH_STEP std::uint64_t hash_absorb(std::uint64_t acc, std::uint64_t word) {
  return hash_rotl(acc + word * kHashMul1, 29) * kHashMul2;
}

// SplitMix64's finalizer: every input bit reaches every output bit.
KH_HASH_STEP std::uint64_t hash_finalize(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

KH_HASH_STEP std::uint64_t hash_lane_seed(unsigned lane) { return hash_finalize(kHashMul2 + lane); }

// The last 1..7 bytes of a range, zero-padded, little-endian: the chunk's length,
// mixed in below, tells them from the same bytes followed by zeros.
KH_HASH_STEP std::uint64_t hash_tail_word(const unsigned char* p, std::size_t n) {
  std::uint64_t w = 0;
  for (std::size_t i = 0; i < n; ++i) w |= std::uint64_t{p[i]} << (8 * i);
  return w;
}

// A chunk's hash: this state absorbs the 32 lanes in lane order, then hash_finalize.
KH_HASH_STEP std::uint64_t hash_chunk_start(std::uint64_t chunk_index, std::uint64_t chunk_bytes) {
  return hash_finalize((chunk_index * kHashMul1) ^ chunk_bytes);
}

// A range's hash: this state absorbs the chunk hashes in order, then hash_finalize.
KH_HASH_STEP std::uint64_t hash_range_start(std::uint64_t total_bytes) {
  return hash_finalize(total_bytes ^ kHashRangeSalt);
}

}  // namespace kh::detail

#undef KH_HASH_STEP
