#include "device/device_block_cache.h"

#include <algorithm>

namespace kh {

void* DeviceBlockCache::take(std::size_t bytes) {
  std::lock_guard lock(mutex_);
  // The most recently kept first: the likeliest to be the one just given back.
  const auto it =
      std::find_if(kept_.rbegin(), kept_.rend(), [&](const Block& b) { return b.bytes == bytes; });
  if (it == kept_.rend()) return nullptr;
  void* data = it->data;
  kept_bytes_ -= it->bytes;
  kept_.erase(std::next(it).base());
  return data;
}

std::vector<void*> DeviceBlockCache::keep(void* block, std::size_t bytes) {
  std::lock_guard lock(mutex_);
  if (block == nullptr) return {};
  if (bytes < min_bytes_ || bytes > max_bytes_) return {block};
  std::vector<void*> freed;
  while (kept_bytes_ + bytes > max_bytes_ && !kept_.empty()) {
    freed.push_back(kept_.front().data);
    kept_bytes_ -= kept_.front().bytes;
    kept_.pop_front();
  }
  kept_.push_back({block, bytes});
  kept_bytes_ += bytes;
  return freed;
}

std::vector<void*> DeviceBlockCache::drain() {
  std::lock_guard lock(mutex_);
  std::vector<void*> all;
  for (const Block& b : kept_) all.push_back(b.data);
  kept_.clear();
  kept_bytes_ = 0;
  return all;
}

std::size_t DeviceBlockCache::kept_bytes() const {
  std::lock_guard lock(mutex_);
  return kept_bytes_;
}

}  // namespace kh
