// The fixed shape of the indexer and the byte layout of one page of the key cache,
// shared by the CPU and CUDA references and baselines (plain constants: valid for g++
// and nvcc, host and device code).
//
// A page is 64 * 132 = 8448 bytes: first the 64 tokens' 128 fp8 e4m3 values, token
// after token (8192 bytes), then the 64 tokens' float32 scales (256 bytes). The
// definition's [num_pages, 64, 1, 132] shape is only a view of those bytes.
#pragma once

#include <stdint.h>

constexpr int kIndexHeads = 64;     // num_index_heads
constexpr int kIndexHeadDim = 128;  // index_head_dim: fp8 values per token
constexpr int kPageTokens = 64;     // page_size
constexpr int kTopK = 2048;
constexpr int kTokenBytes = kIndexHeadDim + 4;                           // 132: values + one float32 scale
constexpr int64_t kPageBytes = int64_t{kPageTokens} * kTokenBytes;       // 8448
constexpr int64_t kScalesOffset = int64_t{kPageTokens} * kIndexHeadDim;  // 8192: scales follow the values
