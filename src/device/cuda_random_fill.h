// The device half of tensor/random_fill.h: one kernel per dtype stores
// generate_element<dtype>(rule, tables, i) at every element i (tensor/portable/fill_steps.h),
// the function the host fill calls, so a tensor filled here equals its host twin.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tensor/portable/fill_steps.h"

namespace kh {

struct DeviceFill {
  void* data;
  std::uint8_t dtype_code;  // detail::dtype_code
  std::size_t numel;
  detail::FillRule rule;
};

// Queues the fills on `stream`; `tables` is a device copy of detail::ziggurat_tables().
// Throws kh::Error naming the launch that failed.
void fill_on_device(const std::vector<DeviceFill>& fills, const detail::ZigguratTables* tables,
                    cudaStream_t stream);

}  // namespace kh
