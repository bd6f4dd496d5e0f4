// Tensors in a backend's memory, and the kernel-ABI arguments that point at them.
#pragma once

#include <kharness/entry.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "device/backend.h"
#include "eval/wire/worker_payload.h"
#include "tensor/host_tensor.h"

namespace kh {

// One allocation from a Backend. Move-only: two owners would release it twice.
class DeviceBuffer {
 public:
  DeviceBuffer(Backend& backend, std::size_t bytes);
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();

  [[nodiscard]] void* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

 private:
  Backend* backend_ = nullptr;
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

// A tensor on the device (or a scalar, which stays on the host and is passed by value).
// Tensors made together share one allocation (`storage`), each at its own 256-byte
// aligned offset: one cudaMalloc and one cudaFree per batch instead of one per tensor,
// which with a set per timed iteration was milliseconds per request.
struct DeviceTensor {
  DType dtype = DType::float32;
  std::vector<std::int64_t> shape;
  bool scalar = false;
  double scalar_value = 0;
  std::shared_ptr<DeviceBuffer> storage;
  void* data = nullptr;
  std::size_t bytes = 0;
  DLTensor view{};  // points at data and shape; rebuilt by make_view()

  void make_view(const Backend& backend);
};

// Bytes a tensor of `bytes` takes in a shared allocation: rounded up to the 256-byte
// alignment every tensor gets, and at least one step, so even an empty tensor has an
// address of its own (kernels may compare pointers).
[[nodiscard]] std::size_t arena_bytes(std::size_t bytes) noexcept;

// Copies host tensors to fresh device buffers (scalars are kept as values).
[[nodiscard]] std::vector<DeviceTensor> upload(Backend& backend, const std::vector<HostTensor>& host);
// The same for many input sets, with one synchronisation for all of them.
[[nodiscard]] std::vector<std::vector<DeviceTensor>> upload_sets(
    Backend& backend, const std::vector<std::vector<HostTensor>>& host);
// Device buffers for outputs laid out as `layouts` (output_layouts()), in one block, not
// filled. Made from the layouts alone: a host tensor as a template cost a memset of each
// output's size on every request (64 MB for gemm at M = 8192).
[[nodiscard]] std::vector<DeviceTensor> allocate_outputs(Backend& backend,
                                                         const std::vector<TensorLayout>& layouts);
void poison(Backend& backend, std::vector<DeviceTensor>& tensors, std::uint8_t pattern);
// Copies device tensors back one after another into one buffer laid out as `layouts`
// says (a reply's payload): the bytes are written once on the host, not into a tensor
// each and then joined. A scalar has no device copy; its bytes are zeros.
[[nodiscard]] std::vector<std::byte> download_concatenated(Backend& backend,
                                                           const std::vector<DeviceTensor>& device,
                                                           const std::vector<TensorLayout>& layouts);
// The same into `out`, which must hold concatenated_bytes(layouts) bytes exactly (a
// reply's place in the shared reply region).
void download_concatenated_into(Backend& backend, const std::vector<DeviceTensor>& device,
                                const std::vector<TensorLayout>& layouts, std::span<std::byte> out);
[[nodiscard]] std::size_t concatenated_bytes(const std::vector<TensorLayout>& layouts);

// kh_args in ABI order: inputs, then outputs. The result points into the tensors'
// views, so it is valid while they live.
[[nodiscard]] std::vector<kh_arg> make_args(std::vector<DeviceTensor>& inputs,
                                            std::vector<DeviceTensor>& outputs);

}  // namespace kh
