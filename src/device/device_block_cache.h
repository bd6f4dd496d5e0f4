// DeviceBlockCache: freed device blocks kept for the next allocation of the same size.
//
// An evaluation allocates the same large arenas again and again: the 60 input sets of each
// timing trial (about 2 GB for gemm_n4096_k4096, one block), the outputs of every check.
// cudaMalloc and cudaFree of gigabytes map and unmap pages and synchronise the device,
// milliseconds each, three times a workload. Only exact sizes are reused, so a block never
// hands out more than was asked for; what is kept is bounded, and the oldest goes first.
// Contents are not cleared: every user fills its block (inputs are generated over a
// pattern, outputs are poisoned) before anything reads it.
#pragma once

#include <cstddef>
#include <deque>
#include <mutex>
#include <vector>

namespace kh {

class DeviceBlockCache {
 public:
  // Blocks below `min_bytes` are not kept (cheap to allocate); at most `max_bytes` are.
  DeviceBlockCache(std::size_t min_bytes, std::size_t max_bytes)
      : min_bytes_(min_bytes), max_bytes_(max_bytes) {}

  // A kept block of exactly `bytes`, no longer kept; nullptr when there is none.
  [[nodiscard]] void* take(std::size_t bytes);
  // Keeps `block` of `bytes` when it is worth keeping. Returns the blocks the caller must
  // free now: `block` itself when it is not kept, and the oldest kept ones pushed out.
  [[nodiscard]] std::vector<void*> keep(void* block, std::size_t bytes);
  // Every kept block, for the caller to free (before the device goes, or on an
  // allocation that failed for want of memory).
  [[nodiscard]] std::vector<void*> drain();

  [[nodiscard]] std::size_t kept_bytes() const;

 private:
  struct Block {
    void* data;
    std::size_t bytes;
  };
  std::size_t min_bytes_;
  std::size_t max_bytes_;
  mutable std::mutex mutex_;
  std::deque<Block> kept_;  // oldest first
  std::size_t kept_bytes_ = 0;
};

}  // namespace kh
