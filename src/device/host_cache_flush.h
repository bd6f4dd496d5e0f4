// HostCacheFlush: evicts the CPU's last-level cache by writing and then reading a
// buffer twice its size, the CPU analogue of the GPU's L2 flush.
//
// The buffer is allocated once in the constructor and freed by its owner, so a
// timed loop never allocates.
#pragma once

#include <cstddef>
#include <memory>

namespace kh {

class HostCacheFlush {
 public:
  explicit HostCacheFlush(std::size_t last_level_cache_bytes);
  void flush();
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }

 private:
  std::size_t bytes_;
  std::unique_ptr<unsigned char[]> buffer_;
};

}  // namespace kh
