// CUDA reference for dsa_topk_indexer_fp8_h64_d128_topk2048_ps64, in two plain kernels:
//  1. scores: one thread per token; the key is dequantised like the Python reference
//     (e4m3 value * scale, float32), each head's dot product accumulated over the 128
//     dimensions in order, relu, times the weight, summed over heads in order;
//  2. selection: one block per request; a radix select over the scores' order-preserving
//     32-bit keys (4 passes of 8 bits) finds the k-th largest key T, an ordered
//     compaction takes every key > T and the first keys == T by position, and a bitonic
//     sort orders the k picks by (score descending, position ascending), so the output
//     equals the CPU reference's wherever the float32 scores agree.
// Scores go through a scratch buffer allocated on the stream.
#include <cuda_fp8.h>
#include <kharness/kernel.h>

#include <cub/block/block_scan.cuh>

#include "indexer_layout.h"

namespace {

constexpr int kScoreThreads = 128;
constexpr int kSelectThreads = 1024;
static_assert(2 * kSelectThreads == kTopK, "the bitonic sort gives each thread one pair");

__device__ float e4m3_value(uint8_t code) {
  __nv_fp8_e4m3 v;
  v.__x = code;
  return static_cast<float>(v);
}

__device__ int64_t clamped_len(const int32_t* seq_lens, int b, int64_t capacity) {
  const int64_t n = seq_lens[b];
  return n < 0 ? 0 : (n > capacity ? capacity : n);
}

__global__ void __launch_bounds__(kScoreThreads)
    score_kernel(const uint8_t* q, const uint8_t* cache, const float* weights, const int32_t* seq_lens,
                 const int32_t* block_table, int max_pages, float* scores) {
  const int b = blockIdx.y;
  const int64_t capacity = int64_t{max_pages} * kPageTokens;
  const int64_t seq_len = clamped_len(seq_lens, b, capacity);
  const int64_t pos = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (int64_t{blockIdx.x} * blockDim.x >= seq_len) return;  // the whole block is past the request

  __shared__ float qs[kIndexHeads * kIndexHeadDim];
  __shared__ float ws[kIndexHeads];
  for (int i = threadIdx.x; i < kIndexHeads * kIndexHeadDim; i += blockDim.x)
    qs[i] = e4m3_value(q[int64_t{b} * kIndexHeads * kIndexHeadDim + i]);
  for (int h = threadIdx.x; h < kIndexHeads; h += blockDim.x) ws[h] = weights[b * kIndexHeads + h];
  __syncthreads();
  if (pos >= seq_len) return;

  const int64_t page = block_table[int64_t{b} * max_pages + pos / kPageTokens];
  const int offset = static_cast<int>(pos % kPageTokens);
  const uint8_t* page_bytes = cache + page * kPageBytes;
  const float scale = *reinterpret_cast<const float*>(page_bytes + kScalesOffset + offset * 4);
  const uint8_t* values = page_bytes + offset * kIndexHeadDim;
  float dots[kIndexHeads];
  for (int h = 0; h < kIndexHeads; ++h) dots[h] = 0.f;
  for (int d = 0; d < kIndexHeadDim; ++d) {
    const float key = e4m3_value(values[d]) * scale;
#pragma unroll
    for (int h = 0; h < kIndexHeads; ++h) dots[h] += qs[h * kIndexHeadDim + d] * key;
  }
  float score = 0.f;
#pragma unroll
  for (int h = 0; h < kIndexHeads; ++h) score += fmaxf(dots[h], 0.f) * ws[h];
  scores[int64_t{b} * capacity + pos] = score;
}

// Unsigned key whose order is the float order; -0 is folded into +0 so that the two
// compare equal, as floats do.
__device__ uint32_t order_key(float x) {
  uint32_t bits = __float_as_uint(x);
  if (bits == 0x80000000u) bits = 0;
  return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

// The k-th largest key of row[0, n) (1 <= k <= n) and how many keys equal to it belong
// to the top k.
__device__ void radix_select(const float* row, int64_t n, int k, uint32_t* threshold, int* take_equal) {
  __shared__ unsigned histogram[256];
  __shared__ uint32_t prefix;
  __shared__ int remaining;
  if (threadIdx.x == 0) {
    prefix = 0;
    remaining = k;
  }
  uint32_t mask = 0;
  for (int shift = 24; shift >= 0; shift -= 8) {
    for (int i = threadIdx.x; i < 256; i += blockDim.x) histogram[i] = 0;
    __syncthreads();
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
      const uint32_t key = order_key(row[i]);
      if ((key & mask) == prefix) atomicAdd(&histogram[(key >> shift) & 0xFFu], 1u);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      // From the largest digit down: the digit where the count reaches `remaining`.
      unsigned above = 0;
      int digit = 255;
      while (above + histogram[digit] < static_cast<unsigned>(remaining)) above += histogram[digit--];
      prefix |= static_cast<uint32_t>(digit) << shift;
      remaining -= static_cast<int>(above);
    }
    mask |= 0xFFu << shift;
    __syncthreads();
  }
  *threshold = prefix;
  *take_equal = remaining;
}

// Sort keys: score key high, inverted position low, so descending order is (score
// descending, position ascending). 0 is the padding sentinel and sorts last.
__device__ uint64_t sort_key(uint32_t key, int64_t pos) {
  return (uint64_t{key} << 32) | (0xFFFFFFFFu - static_cast<uint32_t>(pos));
}

// Appends, in position order, the positions whose key passes `pick` to picks[*count...].
template <class Pick>
__device__ void compact(const float* row, int64_t n, Pick pick, uint64_t* picks, int* count) {
  using Scan = cub::BlockScan<int, kSelectThreads>;
  __shared__ typename Scan::TempStorage scan;
  __shared__ int base;
  if (threadIdx.x == 0) base = *count;
  __syncthreads();
  for (int64_t start = 0; start < n; start += kSelectThreads) {
    const int64_t i = start + threadIdx.x;
    const uint32_t key = i < n ? order_key(row[i]) : 0;
    const int flag = i < n && pick(key) ? 1 : 0;
    int slot, total;
    Scan(scan).ExclusiveSum(flag, slot, total);
    if (flag && base + slot < kTopK) picks[base + slot] = sort_key(key, i);
    __syncthreads();
    if (threadIdx.x == 0) base += total;
    __syncthreads();
  }
  if (threadIdx.x == 0) *count = base;
  __syncthreads();
}

__device__ void bitonic_sort_descending(uint64_t* keys) {
  for (int size = 2; size <= kTopK; size <<= 1) {
    for (int stride = size / 2; stride > 0; stride >>= 1) {
      const int i = threadIdx.x;
      const int lo = 2 * i - (i & (stride - 1));
      const int hi = lo + stride;
      const bool descending = (lo & size) == 0;
      if ((keys[lo] < keys[hi]) == descending) {
        const uint64_t t = keys[lo];
        keys[lo] = keys[hi];
        keys[hi] = t;
      }
      __syncthreads();
    }
  }
}

__global__ void __launch_bounds__(kSelectThreads)
    select_kernel(const float* scores, const int32_t* seq_lens, const int32_t* block_table, int max_pages,
                  int32_t* out) {
  const int b = blockIdx.x;
  const int64_t capacity = int64_t{max_pages} * kPageTokens;
  const int64_t n = clamped_len(seq_lens, b, capacity);
  const int k = n < kTopK ? static_cast<int>(n) : kTopK;
  int32_t* out_row = out + int64_t{b} * kTopK;
  if (k == 0) {
    for (int i = threadIdx.x; i < kTopK; i += blockDim.x) out_row[i] = -1;
    return;
  }
  const float* row = scores + int64_t{b} * capacity;
  __shared__ uint64_t picks[kTopK];
  __shared__ int count;
  uint32_t threshold;
  int take_equal;
  radix_select(row, n, k, &threshold, &take_equal);
  for (int i = threadIdx.x; i < kTopK; i += blockDim.x) picks[i] = 0;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  compact(
      row, n, [threshold](uint32_t key) { return key > threshold; }, picks, &count);
  // The first take_equal keys equal to the threshold: cap the count so later ones drop.
  int equal_end = count + take_equal;
  compact(
      row, n, [threshold](uint32_t key) { return key == threshold; }, picks, &count);
  for (int i = threadIdx.x; i < kTopK; i += blockDim.x)
    if (i >= equal_end) picks[i] = 0;
  __syncthreads();
  bitonic_sort_descending(picks);
  const int32_t* table_row = block_table + int64_t{b} * max_pages;
  for (int i = threadIdx.x; i < kTopK; i += blockDim.x) {
    if (i >= k) {
      out_row[i] = -1;
      continue;
    }
    const int64_t pos = 0xFFFFFFFFu - static_cast<uint32_t>(picks[i] & 0xFFFFFFFFu);
    out_row[i] =
        static_cast<int32_t>(int64_t{table_row[pos / kPageTokens]} * kPageTokens + pos % kPageTokens);
  }
}

}  // namespace

void dsa_topk_indexer_reference(const DLTensor* q_index_fp8, const DLTensor* k_index_cache_fp8,
                                const DLTensor* weights, const DLTensor* seq_lens,
                                const DLTensor* block_table, DLTensor* topk_indices, kh_stream_t stream) {
  const int batch = static_cast<int>(q_index_fp8->shape[0]);
  const int max_pages = static_cast<int>(block_table->shape[1]);
  if (batch == 0) return;
  const int64_t capacity = int64_t{max_pages} * kPageTokens;
  float* scores = nullptr;
  if (capacity > 0) {
    cudaMallocAsync(reinterpret_cast<void**>(&scores), sizeof(float) * batch * capacity, stream);
    const dim3 grid(static_cast<unsigned>((capacity + kScoreThreads - 1) / kScoreThreads),
                    static_cast<unsigned>(batch));
    score_kernel<<<grid, kScoreThreads, 0, stream>>>(
        static_cast<const uint8_t*>(q_index_fp8->data), static_cast<const uint8_t*>(k_index_cache_fp8->data),
        static_cast<const float*>(weights->data), static_cast<const int32_t*>(seq_lens->data),
        static_cast<const int32_t*>(block_table->data), max_pages, scores);
  }
  select_kernel<<<batch, kSelectThreads, 0, stream>>>(scores, static_cast<const int32_t*>(seq_lens->data),
                                                      static_cast<const int32_t*>(block_table->data),
                                                      max_pages, static_cast<int32_t*>(topk_indices->data));
  if (scores != nullptr) cudaFreeAsync(scores, stream);
}
