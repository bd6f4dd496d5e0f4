// Input sets generated where the kernels read them. All sets of a request share one
// allocation, each tensor at its own address, and each set is generated in place from
// its seed (input_generator.h): on the CUDA backend nothing is built on the host or
// copied over but a few kilobytes of page tables and sequence lengths, so the 60 sets
// of a timing trial cost milliseconds.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "device/backend.h"
#include "eval/worker_side/device_tensors.h"
#include "trace/definition.h"
#include "trace/workload.h"

namespace kh {

// One set per seed, in order. Waits for the generation to finish; throws kh::Error
// naming the workload and input when an input cannot be made, or a generation kernel fails.
[[nodiscard]] std::vector<std::vector<DeviceTensor>> generate_input_sets(
    Backend& backend, const Definition& definition, const Workload& workload,
    const std::filesystem::path& root, const std::vector<std::uint64_t>& seeds);

}  // namespace kh
