#include "eval/worker_side/device_tensors.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "error/error.h"
#include "tensor/dlpack_codes.h"
#include "tensor/element_access.h"
#include "worker/payload_buffers.h"

namespace kh {

DeviceBuffer::DeviceBuffer(Backend& backend, std::size_t bytes)
    // Zero-byte tensors still get a distinct, valid address: kernels may compare pointers.
    : backend_(&backend), data_(backend.allocate(bytes == 0 ? 1 : bytes)), size_(bytes) {}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : backend_(other.backend_),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) backend_->release(data_);
    backend_ = other.backend_;
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (data_ != nullptr) backend_->release(data_);
}

void DeviceTensor::make_view(const Backend& backend) {
  view = DLTensor{};
  view.data = data;
  view.device = DLDevice{static_cast<DLDeviceType>(backend.dlpack_device_type()), backend.device_ordinal()};
  view.ndim = static_cast<int32_t>(shape.size());
  view.dtype = to_dlpack(dtype);
  view.shape = shape.data();
  view.strides = nullptr;
  view.byte_offset = 0;
}

namespace {

constexpr std::size_t kAlignment = 256;  // what cudaMalloc guarantees, kept for each tensor

std::size_t aligned(std::size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

}  // namespace

std::size_t arena_bytes(std::size_t bytes) noexcept { return aligned(std::max<std::size_t>(bytes, 1)); }

namespace {

std::size_t set_bytes(const std::vector<HostTensor>& set) {
  std::size_t total = 0;
  // Zero-byte tensors still get a distinct address: kernels may compare pointers.
  for (const HostTensor& h : set) total += h.is_scalar() ? 0 : aligned(std::max<std::size_t>(h.nbytes(), 1));
  return total;
}

// Places `host`'s tensors in `arena` from `offset` on and stages their uploads in `copies`.
std::vector<DeviceTensor> place(const Backend& backend, const std::shared_ptr<DeviceBuffer>& arena,
                                std::size_t& offset, const std::vector<HostTensor>& host,
                                std::vector<Backend::Copy>& copies) {
  std::vector<DeviceTensor> out;
  out.reserve(host.size());
  for (const HostTensor& h : host) {
    DeviceTensor d{h.dtype(), h.shape(), h.is_scalar(), 0, arena, nullptr, 0, {}};
    if (h.is_scalar()) {
      d.scalar_value = read_as_double(h, 0);
    } else {
      d.data = static_cast<std::byte*>(arena->data()) + offset;
      d.bytes = h.nbytes();
      offset += aligned(std::max<std::size_t>(h.nbytes(), 1));
      if (h.nbytes() > 0) copies.push_back({d.data, h.bytes().data(), h.nbytes()});
    }
    d.make_view(backend);
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace

std::vector<std::vector<DeviceTensor>> upload_sets(Backend& backend,
                                                   const std::vector<std::vector<HostTensor>>& host) {
  std::size_t total = 0;
  for (const auto& set : host) total += set_bytes(set);
  auto arena = std::make_shared<DeviceBuffer>(backend, total);
  std::vector<Backend::Copy> copies;
  std::vector<std::vector<DeviceTensor>> out;
  out.reserve(host.size());
  std::size_t offset = 0;
  for (const auto& set : host) out.push_back(place(backend, arena, offset, set, copies));
  backend.upload_all(copies);
  return out;
}

std::vector<DeviceTensor> upload(Backend& backend, const std::vector<HostTensor>& host) {
  auto arena = std::make_shared<DeviceBuffer>(backend, set_bytes(host));
  std::vector<Backend::Copy> copies;
  std::size_t offset = 0;
  std::vector<DeviceTensor> out = place(backend, arena, offset, host, copies);
  backend.upload_all(copies);
  return out;
}

std::vector<DeviceTensor> allocate_outputs(Backend& backend, const std::vector<TensorLayout>& layouts) {
  std::size_t total = 0;
  for (const TensorLayout& l : layouts) total += l.scalar ? 0 : arena_bytes(l.nbytes);
  auto arena = std::make_shared<DeviceBuffer>(backend, total);
  std::vector<DeviceTensor> out;
  out.reserve(layouts.size());
  std::size_t offset = 0;
  for (const TensorLayout& l : layouts) {
    DeviceTensor d{l.dtype, l.shape, l.scalar, 0, arena, nullptr, 0, {}};
    if (!l.scalar) {
      d.data = static_cast<std::byte*>(arena->data()) + offset;
      d.bytes = l.nbytes;
      offset += arena_bytes(l.nbytes);
    }
    d.make_view(backend);
    out.push_back(std::move(d));
  }
  return out;
}

void poison(Backend& backend, std::vector<DeviceTensor>& tensors, std::uint8_t pattern) {
  for (DeviceTensor& t : tensors) {
    if (!t.scalar && t.bytes > 0) backend.fill(t.data, pattern, t.bytes);
  }
}

std::size_t concatenated_bytes(const std::vector<TensorLayout>& layouts) {
  std::size_t total = 0;
  for (const TensorLayout& l : layouts) total += l.nbytes;
  return total;
}

void download_concatenated_into(Backend& backend, const std::vector<DeviceTensor>& device,
                                const std::vector<TensorLayout>& layouts, std::span<std::byte> out) {
  if (layouts.size() != device.size()) {
    throw Error(fmt::format("{} layouts for {} tensors", layouts.size(), device.size()));
  }
  if (out.size() != concatenated_bytes(layouts))
    throw Error(
        fmt::format("{} bytes of room for {} bytes of tensors", out.size(), concatenated_bytes(layouts)));
  std::vector<Backend::Copy> copies;
  std::size_t offset = 0;
  for (std::size_t i = 0; i < device.size(); ++i) {
    const DeviceTensor& t = device[i];
    if (!t.scalar && t.bytes > 0) {
      if (t.bytes != layouts[i].nbytes) {
        throw Error(fmt::format("device tensor {} holds {} bytes; its layout says {}", i, t.bytes,
                                layouts[i].nbytes));
      }
      copies.push_back({out.data() + offset, t.data, t.bytes});
    } else {
      std::fill_n(out.data() + offset, layouts[i].nbytes, std::byte{0});
    }
    offset += layouts[i].nbytes;
  }
  backend.download_all(copies);
}

std::vector<std::byte> download_concatenated(Backend& backend, const std::vector<DeviceTensor>& device,
                                             const std::vector<TensorLayout>& layouts) {
  std::vector<std::byte> out = take_payload_buffer(concatenated_bytes(layouts));
  out.resize(concatenated_bytes(layouts));
  download_concatenated_into(backend, device, layouts, out);
  return out;
}

namespace {

kh_arg scalar_arg(const DeviceTensor& t, int index) {
  kh_arg a{};
  a.index = index;
  if (t.dtype == DType::boolean) {
    a.kind = KH_ARG_BOOL;
    a.value.b = t.scalar_value != 0;
  } else if (dtype_is_float(t.dtype)) {
    a.kind = KH_ARG_FLOAT64;
    a.value.f64 = t.scalar_value;
  } else {
    a.kind = KH_ARG_INT64;
    a.value.i64 = static_cast<std::int64_t>(t.scalar_value);
  }
  return a;
}

}  // namespace

std::vector<kh_arg> make_args(std::vector<DeviceTensor>& inputs, std::vector<DeviceTensor>& outputs) {
  std::vector<kh_arg> args;
  int index = 0;
  for (auto* group : {&inputs, &outputs}) {
    for (DeviceTensor& t : *group) {
      if (t.scalar) {
        args.push_back(scalar_arg(t, index++));
        continue;
      }
      kh_arg a{};
      a.kind = KH_ARG_TENSOR;
      a.index = index++;
      a.value.tensor = &t.view;
      args.push_back(a);
    }
  }
  return args;
}

}  // namespace kh
