#include "worker/payload_buffers.h"

#include <map>
#include <mutex>

namespace kh {

namespace {

// Below this the allocator serves from its own heap without fresh pages.
constexpr std::size_t kWorthKeeping = std::size_t{1} << 20;
// The largest replies (a re-check of four 256 MiB MoE outputs) fit, twice.
constexpr std::size_t kMostKept = std::size_t{2} << 30;

struct Kept {
  std::mutex mutex;
  std::multimap<std::size_t, std::vector<std::byte>> by_capacity;
  std::size_t bytes = 0;
};

Kept& kept() {
  static Kept instance;
  return instance;
}

}  // namespace

std::vector<std::byte> take_payload_buffer(std::size_t bytes) {
  if (bytes >= kWorthKeeping) {
    Kept& k = kept();
    const std::lock_guard lock(k.mutex);
    auto it = k.by_capacity.lower_bound(bytes);
    if (it != k.by_capacity.end()) {
      std::vector<std::byte> buffer = std::move(it->second);
      k.bytes -= it->first;
      k.by_capacity.erase(it);
      buffer.clear();
      return buffer;
    }
  }
  std::vector<std::byte> fresh;
  fresh.reserve(bytes);
  return fresh;
}

void give_back_payload_buffer(std::vector<std::byte>&& buffer) noexcept {
  const std::size_t capacity = buffer.capacity();
  if (capacity < kWorthKeeping) return;
  Kept& k = kept();
  const std::lock_guard lock(k.mutex);
  // Make room by dropping the smallest kept buffers; a buffer that alone exceeds the
  // bound is freed with the caller's vector.
  while (k.bytes + capacity > kMostKept && !k.by_capacity.empty()) {
    k.bytes -= k.by_capacity.begin()->first;
    k.by_capacity.erase(k.by_capacity.begin());
  }
  if (k.bytes + capacity > kMostKept) return;
  k.bytes += capacity;
  k.by_capacity.emplace(capacity, std::move(buffer));
}

std::size_t kept_payload_bytes() noexcept {
  Kept& k = kept();
  const std::lock_guard lock(k.mutex);
  return k.bytes;
}

}  // namespace kh
