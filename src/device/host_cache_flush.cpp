#include "device/host_cache_flush.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace kh {

namespace {
constexpr std::size_t kCacheLine = 64;
// Keeps the read loop from being optimised away.
volatile unsigned char g_sink = 0;
}  // namespace

HostCacheFlush::HostCacheFlush(std::size_t last_level_cache_bytes)
    : bytes_(std::clamp<std::size_t>(2 * last_level_cache_bytes, kCacheLine, kMaxSweepBytes)),
      buffer_(std::make_unique<unsigned char[]>(bytes_)) {}

void HostCacheFlush::flush() {
  // Writing makes the buffer's lines dirty owners of the cache; reading one byte per
  // line afterwards touches every line again, so nothing of the timed data survives.
  std::memset(buffer_.get(), static_cast<int>(g_sink) + 1, bytes_);
  unsigned char acc = 0;
  for (std::size_t i = 0; i < bytes_; i += kCacheLine) acc = static_cast<unsigned char>(acc ^ buffer_[i]);
  g_sink = acc;
}

void HostCacheFlush::evict_then_flush(const std::vector<std::pair<void*, std::size_t>>& regions) {
#if defined(__x86_64__)
  for (const auto& [ptr, bytes] : regions) {
    auto* p = static_cast<unsigned char*>(ptr);
    const auto first = reinterpret_cast<std::uintptr_t>(p) & ~(std::uintptr_t{kCacheLine} - 1);
    const auto end = reinterpret_cast<std::uintptr_t>(p) + bytes;
    for (std::uintptr_t line = first; line < end; line += kCacheLine)
      _mm_clflush(reinterpret_cast<const void*>(line));  // NOLINT(performance-no-int-to-ptr)
  }
  _mm_mfence();
#else
  (void)regions;
#endif
  flush();
}

}  // namespace kh
