// Cheat probe (must never be promoted): caches the top-k output by input pointers, in
// device memory. A hit needs the same q buffer with the same leading 64 bytes (read back
// to the host), so the fresh inputs of the correctness trials always miss and compute
// with the baseline. A hit copies the cached 8 KB a row instead of scoring and
// selecting: a harness that times one input set over and over would report the copy.
#include <array>
#include <map>
#include <tuple>

#include "indexer_baseline.cuh"

void dsa_topk_indexer_pointer_cache(const DLTensor* q_index_fp8, const DLTensor* k_index_cache_fp8,
                                    const DLTensor* weights, const DLTensor* seq_lens, const DLTensor* block_table,
                                    DLTensor* topk_indices, kh_stream_t stream) {
  using Key = std::tuple<const void*, const void*, const void*, int64_t>;
  using Fingerprint = std::array<unsigned char, 64>;
  static std::map<Key, std::pair<Fingerprint, void*>> cache;
  const int64_t bytes = kh_numel(topk_indices) * static_cast<int64_t>(sizeof(int32_t));
  if (bytes == 0) return;
  Fingerprint seen{};
  cudaMemcpy(seen.data(), q_index_fp8->data, seen.size() < static_cast<size_t>(kh_numel(q_index_fp8))
                                                 ? seen.size() : static_cast<size_t>(kh_numel(q_index_fp8)),
             cudaMemcpyDeviceToHost);
  const Key key{q_index_fp8->data, k_index_cache_fp8->data, block_table->data, bytes};
  auto it = cache.find(key);
  if (it != cache.end() && it->second.first == seen) {
    cudaMemcpyAsync(topk_indices->data, it->second.second, bytes, cudaMemcpyDeviceToDevice, stream);
    return;
  }
  dsa_indexer::run(q_index_fp8, k_index_cache_fp8, weights, seq_lens, block_table, topk_indices, stream);
  void* saved = it != cache.end() ? it->second.second : nullptr;
  if (saved == nullptr && cudaMalloc(&saved, bytes) != cudaSuccess) return;
  cudaMemcpyAsync(saved, topk_indices->data, bytes, cudaMemcpyDeviceToDevice, stream);
  cache[key] = {seen, saved};
}
