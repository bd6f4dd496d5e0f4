#include <cstdint>
#include <vector>

#include "base/cuda_call.h"
#include "device/cuda_chunked_hash.h"
#include "tensor/portable/chunked_hash_steps.h"

namespace kh {

namespace {

using detail::kHashChunkBytes;
using detail::kHashLanes;

constexpr unsigned kWarpsPerBlock = 8;
// Loads a lane issues before it absorbs them: the absorb chain is serial, so without a
// batch each warp would wait out one memory latency per 256 bytes.
constexpr int kLoadsInFlight = 8;

struct ChunkedRegion {
  const unsigned char* data;
  std::uint64_t bytes;
  std::uint64_t first_chunk;  // its first chunk's position among all regions' chunks
};

// Owns the stream-ordered scratch of one pass (region table and chunk hashes), so it is
// freed however the pass ends. Not copyable: a second owner would free it twice.
class PassScratch {
 public:
  PassScratch(std::size_t bytes, cudaStream_t stream) : stream_(stream) {
    KH_CUDA_CALL(cudaMallocAsync(&data_, bytes, stream));
  }
  ~PassScratch() { KH_CUDA_CALL_NOEXCEPT(cudaFreeAsync(data_, stream_)); }
  PassScratch(const PassScratch&) = delete;
  PassScratch& operator=(const PassScratch&) = delete;

  [[nodiscard]] unsigned char* get() const noexcept { return static_cast<unsigned char*>(data_); }

 private:
  void* data_ = nullptr;
  cudaStream_t stream_;
};

// The last region whose first chunk is at or before `chunk` (empty regions are not in
// the table, so first chunks strictly increase).
__device__ int find_region(const ChunkedRegion* regions, int count, std::uint64_t chunk) {
  int lo = 0;
  int hi = count - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (regions[mid].first_chunk <= chunk) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

template <bool Aligned>
__device__ __forceinline__ std::uint64_t load_word(const unsigned char* p, std::uint64_t j) {
  if constexpr (Aligned) {
    return __ldg(reinterpret_cast<const std::uint64_t*>(p) + j);  // read-only for the whole kernel
  } else {
    return detail::hash_tail_word(p + 8 * j, 8);
  }
}

// Lane `lane`'s state after words lane, lane+32, ... of a chunk of `words` whole words.
template <bool Aligned>
__device__ std::uint64_t absorb_lane(const unsigned char* p, std::uint64_t words, unsigned lane) {
  std::uint64_t acc = detail::hash_lane_seed(lane);
  std::uint64_t j = lane;
  for (; j + (kLoadsInFlight - 1) * kHashLanes < words; j += kLoadsInFlight * kHashLanes) {
    std::uint64_t w[kLoadsInFlight];
#pragma unroll
    for (int u = 0; u < kLoadsInFlight; ++u) w[u] = load_word<Aligned>(p, j + u * kHashLanes);
#pragma unroll
    for (int u = 0; u < kLoadsInFlight; ++u) acc = detail::hash_absorb(acc, w[u]);
  }
  for (; j < words; j += kHashLanes) acc = detail::hash_absorb(acc, load_word<Aligned>(p, j));
  return acc;
}

// One warp per chunk; the chunk index is uniform across a warp, so whole warps leave
// together and the shuffles below see all 32 lanes.
__global__ void chunk_hashes(const ChunkedRegion* regions, int count, std::uint64_t total_chunks,
                             std::uint64_t* out) {
  const std::uint64_t chunk = (std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x) / kHashLanes;
  if (chunk >= total_chunks) return;
  const unsigned lane = threadIdx.x % kHashLanes;
  const ChunkedRegion r = regions[find_region(regions, count, chunk)];
  const std::uint64_t index = chunk - r.first_chunk;
  const std::uint64_t begin = index * kHashChunkBytes;
  const std::uint64_t bytes = r.bytes - begin < kHashChunkBytes ? r.bytes - begin : kHashChunkBytes;
  const unsigned char* p = r.data + begin;
  const std::uint64_t words = bytes / 8;
  std::uint64_t acc = reinterpret_cast<std::uintptr_t>(r.data) % 8 == 0 ? absorb_lane<true>(p, words, lane)
                                                                        : absorb_lane<false>(p, words, lane);
  if (bytes % 8 != 0 && lane == words % kHashLanes) {
    acc = detail::hash_absorb(acc, detail::hash_tail_word(p + 8 * words, bytes % 8));
  }
  std::uint64_t h = detail::hash_chunk_start(index, bytes);
  for (unsigned k = 0; k < kHashLanes; ++k) h = detail::hash_absorb(h, __shfl_sync(0xFFFFFFFFu, acc, k));
  if (lane == 0) out[chunk] = detail::hash_finalize(h);
}

}  // namespace

std::vector<std::uint64_t> hash_chunks_on_device(const std::vector<Backend::Region>& regions,
                                                 cudaStream_t stream) {
  std::vector<ChunkedRegion> table;
  std::uint64_t total = 0;
  for (const Backend::Region& r : regions) {
    if (r.bytes == 0) continue;
    table.push_back({static_cast<const unsigned char*>(r.data), r.bytes, total});
    total += (r.bytes + kHashChunkBytes - 1) / kHashChunkBytes;  // hash_chunk_count, whose header is C++20
  }
  std::vector<std::uint64_t> hashes(total);
  if (total == 0) return hashes;
  const std::size_t table_bytes = table.size() * sizeof(ChunkedRegion);  // a multiple of 8
  PassScratch scratch(table_bytes + total * sizeof(std::uint64_t), stream);
  auto* device_table = reinterpret_cast<ChunkedRegion*>(scratch.get());
  auto* device_hashes = reinterpret_cast<std::uint64_t*>(scratch.get() + table_bytes);
  KH_CUDA_CALL(cudaMemcpyAsync(device_table, table.data(), table_bytes, cudaMemcpyHostToDevice, stream));
  const auto blocks = static_cast<unsigned>((total + kWarpsPerBlock - 1) / kWarpsPerBlock);
  chunk_hashes<<<blocks, kWarpsPerBlock * kHashLanes, 0, stream>>>(
      device_table, static_cast<int>(table.size()), total, device_hashes);
  KH_CUDA_CALL(cudaGetLastError());
  KH_CUDA_CALL(cudaMemcpyAsync(hashes.data(), device_hashes, total * sizeof(std::uint64_t),
                               cudaMemcpyDeviceToHost, stream));
  KH_CUDA_CALL(cudaStreamSynchronize(stream));
  return hashes;
}

}  // namespace kh
