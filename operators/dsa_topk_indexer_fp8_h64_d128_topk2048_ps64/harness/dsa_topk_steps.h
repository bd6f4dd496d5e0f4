// The device-side steps of the DSA top-k indexer's generator (dsa_topk_inputs.h), shared
// by the host twin and the kernels: fp8 codes looked up in a normal-quantile table, and
// the per-token scales of the key cache.
#pragma once

#include <cstdint>

#include "tensor/counter_rng.h"
#include "tensor/fp8_normal_codes.h"
#include "tensor/portable/normal_steps.h"
#include "tensor/portable/portable_math.h"

namespace kh::dsa_topk_inputs {

inline constexpr std::uint64_t kPageTokens = 64;
inline constexpr std::uint64_t kHeadDim = 128;
inline constexpr std::uint64_t kPageBytes = kPageTokens * (kHeadDim + 4);
inline constexpr std::uint64_t kWordsPerPage = kPageTokens * kHeadDim / 4;  // 4 codes a word
inline constexpr double kCodeStd = 448.0 / 3.0;  // e4m3 values spread over the whole range
inline constexpr double kScaleSpread = 0.35;     // log-normal spread of the per-token scales

// Item k of the key cache: one of a page's 2048 words of four codes, or one of its 64
// float32 scales exp(0.35 z) / 149 (items 2048..2111 of the page).
struct KeyCacheStep {
  unsigned char* cache;
  const std::uint8_t* table;
  std::uint64_t code_key;
  std::uint64_t normal_key;
  std::uint64_t retry_key;
  const detail::ZigguratTables* tables;
  KH_PORTABLE void operator()(std::uint64_t k) const {
    const std::uint64_t p = k / (kWordsPerPage + kPageTokens);
    const std::uint64_t r = k % (kWordsPerPage + kPageTokens);
    unsigned char* page = cache + p * kPageBytes;
    if (r < kWordsPerPage) {
      const std::uint32_t four = detail::four_codes(table, random_word(code_key, p * kWordsPerPage + r));
      *reinterpret_cast<std::uint32_t*>(page + 4 * r) = four;  // pages and words are 4-byte aligned
      return;
    }
    const std::uint64_t t = r - kWordsPerPage;
    const double z = detail::normal_at(*tables, normal_key, retry_key, p * kPageTokens + t);
    *reinterpret_cast<float*>(page + kPageTokens * kHeadDim + 4 * t) =
        static_cast<float>(detail::portable_exp(kScaleSpread * z) / kCodeStd);
  }
};

// Word k of `bytes` bytes of fp8 codes (the last word may be partial).
struct CodeStep {
  unsigned char* out;
  std::uint64_t bytes;
  const std::uint8_t* table;
  std::uint64_t key;
  KH_PORTABLE void operator()(std::uint64_t k) const {
    const std::uint32_t four = detail::four_codes(table, random_word(key, k));
    for (std::uint64_t b = 0; b < 4 && 4 * k + b < bytes; ++b)
      out[4 * k + b] = static_cast<unsigned char>(four >> (8 * b));
  }
};

// The device launches of the steps above (dsa_topk_inputs.cu), on a cudaStream_t.
void launch_key_cache(const KeyCacheStep& step, std::uint64_t items, void* stream);
void launch_codes(const CodeStep& step, std::uint64_t words, void* stream);

}  // namespace kh::dsa_topk_inputs
