#include "device/host_cache_flush.h"

#include <cstring>

namespace kh {

namespace {
constexpr std::size_t kCacheLine = 64;
// Keeps the read loop from being optimised away.
volatile unsigned char g_sink = 0;
}  // namespace

HostCacheFlush::HostCacheFlush(std::size_t last_level_cache_bytes)
    : bytes_(2 * last_level_cache_bytes), buffer_(std::make_unique<unsigned char[]>(bytes_)) {}

void HostCacheFlush::flush() {
  // Writing makes the buffer's lines dirty owners of the cache; reading one byte per
  // line afterwards touches every line again, so nothing of the timed data survives.
  std::memset(buffer_.get(), static_cast<int>(g_sink) + 1, bytes_);
  unsigned char acc = 0;
  for (std::size_t i = 0; i < bytes_; i += kCacheLine) acc = static_cast<unsigned char>(acc ^ buffer_[i]);
  g_sink = acc;
}

}  // namespace kh
