// HostCacheFlush: the CPU analogue of the GPU's L2 flush. It evicts given regions (the
// outputs the timed loop just poisoned) line by line from every cache level, then
// writes and reads a sweep buffer twice the last-level cache's size, capped at
// kMaxSweepBytes.
//
// Why the cap: a virtual machine reports its socket's whole shared L3 (480 MiB seen on
// a 2-core CI machine), and sweeping twice that took 246 ms an iteration, a thousand
// times the kernel it surrounded. The precise eviction keeps what the flush is for on
// such hosts: the harness's own writes (the poison) are not left warm for the call.
//
// The buffer is allocated once in the constructor and freed by its owner, so a
// timed loop never allocates.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace kh {

class HostCacheFlush {
 public:
  static constexpr std::size_t kMaxSweepBytes = std::size_t{64} << 20;

  explicit HostCacheFlush(std::size_t last_level_cache_bytes);
  void flush();
  // Evicts every cache line of `regions` (x86-64: clflush; elsewhere a no-op), then flush().
  void evict_then_flush(const std::vector<std::pair<void*, std::size_t>>& regions);
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }

 private:
  std::size_t bytes_;
  std::unique_ptr<unsigned char[]> buffer_;
};

}  // namespace kh
