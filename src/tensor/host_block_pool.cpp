#include "tensor/host_block_pool.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <new>

#include "tensor/page_populate.h"

namespace kh {

namespace {

// A quarter of physical memory, at most 16 GiB: enough for every input set of the
// biggest contest workload (an MoE layer, ~1.5 GB a set) to recycle, without starving
// the kernels under test of host memory.
std::size_t pool_cap() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  const std::size_t physical = pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * page : 0;
  return std::min<std::size_t>(physical / 4, std::size_t{16} << 30);
}

struct Pool {
  std::mutex mutex;
  std::multimap<std::size_t, std::byte*> free_blocks;  // by size
  std::size_t held = 0;
  const std::size_t cap = pool_cap();

  ~Pool() {
    for (auto& [bytes, p] : free_blocks) std::free(p);
  }
};

Pool& pool() {
  static Pool instance;
  return instance;
}

}  // namespace

std::byte* acquire_host_block(std::size_t bytes, std::size_t alignment) {
  if (bytes >= kPooledMinBytes) {
    Pool& p = pool();
    const std::lock_guard lock(p.mutex);
    auto it = p.free_blocks.find(bytes);
    if (it != p.free_blocks.end()) {
      std::byte* block = it->second;
      p.free_blocks.erase(it);
      p.held -= bytes;
      return block;
    }
  }
  void* block = std::aligned_alloc(alignment, bytes);
  if (block == nullptr) throw std::bad_alloc();
  (void)populate_pages(block, bytes);  // one request instead of a fault per page
  return static_cast<std::byte*>(block);
}

void release_host_block(std::byte* p, std::size_t bytes) noexcept {
  if (p == nullptr) return;
  if (bytes >= kPooledMinBytes) {
    Pool& pl = pool();
    const std::lock_guard lock(pl.mutex);
    if (pl.held + bytes <= pl.cap) {
      pl.free_blocks.emplace(bytes, p);
      pl.held += bytes;
      return;
    }
  }
  std::free(p);
}

std::size_t pooled_host_bytes() noexcept {
  Pool& p = pool();
  const std::lock_guard lock(p.mutex);
  return p.held;
}

void trim_host_block_pool() noexcept {
  Pool& p = pool();
  const std::lock_guard lock(p.mutex);
  for (auto& [bytes, block] : p.free_blocks) std::free(block);
  p.free_blocks.clear();
  p.held = 0;
}

}  // namespace kh
