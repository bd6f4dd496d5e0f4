// HostTensor: an owning, move-only, 64-byte aligned block of host memory with a dtype
// and a row-major shape.
//
// Scalars: a FlashInfer-Trace input whose shape is null is a Python scalar, not a tensor.
// It is stored here as a 0-d tensor (empty shape, one element) with is_scalar() true, so
// the same storage, generation and comparison code serves both; is_scalar() only tells a
// launcher to pass a value rather than a pointer. A genuine 0-d tensor has is_scalar() false.
#pragma once

#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "tensor/dtype.h"

namespace kh {

class HostTensor {
 public:
  // Storage alignment: enough for any SIMD load and for pinned-copy friendly addresses.
  static constexpr std::size_t kAlignment = 64;

  HostTensor() = default;  // empty float32 tensor of shape [0]
  // Zero-filled. Throws kh::Error on a negative dimension or a size that overflows.
  HostTensor(DType dtype, std::vector<std::int64_t> shape);
  static HostTensor scalar(DType dtype);  // 0-d, is_scalar() true, zeroed

  HostTensor(HostTensor&&) noexcept = default;
  HostTensor& operator=(HostTensor&&) noexcept = default;
  HostTensor(const HostTensor&) = delete;
  HostTensor& operator=(const HostTensor&) = delete;
  ~HostTensor() = default;

  [[nodiscard]] HostTensor clone() const;  // deep copy, explicit because it can be large
  // A tensor holding a copy of `bytes`, which must be exactly its size (kh::Error
  // otherwise): written once, not zero-filled first.
  [[nodiscard]] static HostTensor copy_of(DType dtype, std::vector<std::int64_t> shape,
                                          std::span<const std::byte> bytes);

  [[nodiscard]] DType dtype() const noexcept { return dtype_; }
  [[nodiscard]] const std::vector<std::int64_t>& shape() const noexcept { return shape_; }
  [[nodiscard]] bool is_scalar() const noexcept { return scalar_; }
  [[nodiscard]] std::size_t numel() const noexcept { return numel_; }
  [[nodiscard]] std::size_t nbytes() const noexcept { return nbytes_; }

  [[nodiscard]] std::span<std::byte> bytes() noexcept { return {data_.get(), nbytes_}; }
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return {data_.get(), nbytes_}; }

  // Typed views. Throws kh::Error unless sizeof(T) matches the dtype's element size, so a
  // float view of a bfloat16 tensor is refused rather than silently reinterpreted.
  // (fp4 has no typed view: use the packed bytes or element_access.h.)
  template <class T>
  [[nodiscard]] std::span<T> as() {
    check_view(sizeof(T));
    return {reinterpret_cast<T*>(data_.get()), numel_};
  }
  template <class T>
  [[nodiscard]] std::span<const T> as() const {
    check_view(sizeof(T));
    return {reinterpret_cast<const T*>(data_.get()), numel_};
  }

  // Non-owning DLPack view: kDLCPU, compact row-major (strides nullptr), byte_offset 0.
  // Valid while this tensor lives and is not moved from. Throws kh::Error for a dtype
  // DLPack cannot name (none today; see dlpack_codes.h).
  [[nodiscard]] DLTensor dlpack_view();

 private:
  struct FreeAligned {
    // A constructor rather than a member initialiser: GCC does not see a nested class
    // with one as default-constructible inside the enclosing class.
    FreeAligned() noexcept : bytes(0) {}
    explicit FreeAligned(std::size_t allocated) noexcept : bytes(allocated) {}
    std::size_t bytes;  // as allocated (rounded up), so the block can be recycled
    void operator()(std::byte* p) const noexcept;
  };
  using Storage = std::unique_ptr<std::byte[], FreeAligned>;

  [[nodiscard]] static Storage allocate_zeroed(std::size_t nbytes);
  // `bytes` at the start, zeros in the alignment tail.
  [[nodiscard]] static Storage allocate_copy(std::span<const std::byte> bytes);

  void check_view(std::size_t element_size) const;

  DType dtype_ = DType::float32;
  std::vector<std::int64_t> shape_{0};
  bool scalar_ = false;
  std::size_t numel_ = 0;
  std::size_t nbytes_ = 0;
  Storage data_;
};

// Number of elements of a shape; throws kh::Error on a negative dimension or overflow
// past what can be addressed in bytes for `dtype`.
[[nodiscard]] std::size_t checked_numel(DType dtype, std::span<const std::int64_t> shape);

}  // namespace kh
