#include "tensor/host_tensor.h"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "error/error.h"
#include "tensor/dlpack_codes.h"
#include "tensor/host_block_pool.h"

namespace kh {

namespace {

std::size_t rounded_bytes(std::size_t nbytes) {
  // Always allocate at least one aligned block so data() is never null: DLPack consumers
  // and memcpy-based code should not need an empty-tensor special case.
  return (std::max<std::size_t>(nbytes, 1) + HostTensor::kAlignment - 1) / HostTensor::kAlignment *
         HostTensor::kAlignment;
}

}  // namespace

std::size_t checked_numel(DType dtype, std::span<const std::int64_t> shape) {
  std::size_t n = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) throw Error(fmt::format("shape dimension {} is negative ({})", i, shape[i]));
    const auto d = static_cast<std::size_t>(shape[i]);
    if (d != 0 && n > std::numeric_limits<std::size_t>::max() / d) {
      throw Error("shape element count overflows");
    }
    n *= d;
  }
  // Byte count must fit too (bits * n / 8), and fit in a signed 64-bit for DLPack users.
  if (n > static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max()) / 8) {
    throw Error(fmt::format("shape holds {} elements, too many to store as {}", n, dtype_name(dtype)));
  }
  return n;
}

void HostTensor::FreeAligned::operator()(std::byte* p) const noexcept { release_host_block(p, bytes); }

HostTensor::Storage HostTensor::allocate_zeroed(std::size_t nbytes) {
  const std::size_t rounded = rounded_bytes(nbytes);
  Storage s(acquire_host_block(rounded, kAlignment), FreeAligned{rounded});
  std::memset(s.get(), 0, rounded);  // a recycled block holds the last tensor's data
  return s;
}

HostTensor::Storage HostTensor::allocate_copy(std::span<const std::byte> bytes) {
  const std::size_t rounded = rounded_bytes(bytes.size());
  Storage s(acquire_host_block(rounded, kAlignment), FreeAligned{rounded});
  if (!bytes.empty()) std::memcpy(s.get(), bytes.data(), bytes.size());
  std::memset(s.get() + bytes.size(), 0, rounded - bytes.size());
  return s;
}

HostTensor HostTensor::copy_of(DType dtype, std::vector<std::int64_t> shape,
                               std::span<const std::byte> bytes) {
  HostTensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.numel_ = checked_numel(dtype, t.shape_);
  t.nbytes_ = dtype_storage_bytes(dtype, t.numel_);
  if (bytes.size() != t.nbytes_) {
    throw Error(fmt::format("{} bytes cannot be a {} tensor of {} bytes", bytes.size(), dtype_name(dtype),
                            t.nbytes_));
  }
  t.data_ = allocate_copy(bytes);
  return t;
}

HostTensor::HostTensor(DType dtype, std::vector<std::int64_t> shape)
    : dtype_(dtype), shape_(std::move(shape)) {
  numel_ = checked_numel(dtype_, shape_);
  nbytes_ = dtype_storage_bytes(dtype_, numel_);
  data_ = allocate_zeroed(nbytes_);
}

HostTensor HostTensor::scalar(DType dtype) {
  HostTensor t(dtype, {});
  t.scalar_ = true;
  return t;
}

HostTensor HostTensor::clone() const {
  HostTensor out(dtype_, shape_);
  out.scalar_ = scalar_;
  if (nbytes_ != 0) std::memcpy(out.data_.get(), data_.get(), nbytes_);
  return out;
}

void HostTensor::check_view(std::size_t element_size) const {
  if (dtype_bits(dtype_) != element_size * 8) {
    throw Error(
        fmt::format("cannot view a {} tensor as elements of {} bytes", dtype_name(dtype_), element_size));
  }
}

DLTensor HostTensor::dlpack_view() {
  if (!data_) data_ = allocate_zeroed(0);  // a default-constructed tensor
  DLTensor t{};
  t.data = data_.get();
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = static_cast<int>(shape_.size());
  t.dtype = to_dlpack(dtype_);
  t.shape = shape_.data();
  t.strides = nullptr;
  t.byte_offset = 0;
  return t;
}

}  // namespace kh
