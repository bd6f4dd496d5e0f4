// Recycled large host blocks for tensors.
//
// The harness allocates and frees host tensors of the same few sizes over and over:
// every correctness trial and every timed input set of a workload has the same shapes.
// A fresh multi-megabyte block comes from mmap, so the kernel zeroes each of its pages
// on first touch; on the H200 host that cost more than generating the data (a 119 MB
// rmsnorm input set: ~40 ms of page faults per allocation). Freed blocks of at least
// kPooledMinBytes are kept, up to a cap, and handed to the next request of the same
// size, whose pages are already mapped.
#pragma once

#include <cstddef>

namespace kh {

inline constexpr std::size_t kPooledMinBytes = std::size_t{1} << 20;

// A block of `bytes` (a multiple of `alignment`), aligned to `alignment`, contents
// unspecified. Throws std::bad_alloc when memory is exhausted.
[[nodiscard]] std::byte* acquire_host_block(std::size_t bytes, std::size_t alignment);

// Gives a block from acquire_host_block back: kept for reuse when it is large and the
// pool is under its cap, otherwise freed.
void release_host_block(std::byte* p, std::size_t bytes) noexcept;

// Bytes held in the pool now (for tests and diagnostics).
[[nodiscard]] std::size_t pooled_host_bytes() noexcept;

// Frees every pooled block (before measuring host memory, or at exit of a long run).
void trim_host_block_pool() noexcept;

}  // namespace kh
