// The device half of chunked_hash (tensor/chunked_hash.h): a kernel with one warp per
// 256 KiB chunk writes each chunk's hash to a small device buffer, and only those
// hashes (8 bytes per chunk) travel to the host, which mixes them per region.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "device/backend.h"

namespace kh {

// The hashes of every chunk of every region: region after region, each region's chunks
// in order (an empty region has none). Runs on `stream` and waits for it.
[[nodiscard]] std::vector<std::uint64_t> hash_chunks_on_device(const std::vector<Backend::Region>& regions,
                                                               cudaStream_t stream);

}  // namespace kh
