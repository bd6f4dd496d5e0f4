// L2Flush: evicts the GPU's L2 before each timed iteration, as the contest does, by
// zeroing a buffer twice the L2 size.
//
// The buffer is allocated once here and freed once in the destructor (nvbench's
// l2flush), so no iteration pays for an allocation or can flush a stale pointer.
// Twice the L2 size, because the L2's replacement policy is not strict LRU: one
// L2-sized write can leave lines of the previous data resident.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace kh {

class L2Flush {
 public:
  // l2_bytes: cudaDeviceProp::l2CacheSize of the current device.
  explicit L2Flush(std::size_t l2_bytes);
  ~L2Flush();
  // Owns device memory: a copy would free it twice.
  L2Flush(const L2Flush&) = delete;
  L2Flush& operator=(const L2Flush&) = delete;

  // One cudaMemsetAsync of the whole buffer on stream, then a synchronisation of
  // that stream, so the flush is complete before the next window begins.
  void flush(cudaStream_t stream);
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }

 private:
  std::size_t bytes_ = 0;
  void* buffer_ = nullptr;
};

}  // namespace kh
