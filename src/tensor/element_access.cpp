#include "tensor/element_access.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "error/error.h"
#include "tensor/float_formats.h"

namespace kh {

namespace {

template <class T>
T load(std::span<const std::byte> bytes, std::size_t i) noexcept {
  T v;
  std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
  return v;
}

template <class T>
void store(std::span<std::byte> bytes, std::size_t i, T v) noexcept {
  std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
}

// Clamp then truncate: a plain cast of an out-of-range double to an integer is UB.
template <class T>
T to_integer(double v) noexcept {
  if (std::isnan(v)) return 0;
  constexpr auto lo = static_cast<double>(std::numeric_limits<T>::min());
  // For 64-bit types max() is not a double; 2^63 is the first double past it.
  constexpr double hi_exclusive = static_cast<double>(std::numeric_limits<T>::max()) + 1.0;
  if (v <= lo) return std::numeric_limits<T>::min();
  if (v >= hi_exclusive) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}

std::uint8_t nibble(std::span<const std::byte> bytes, std::size_t i) noexcept {
  const auto b = static_cast<std::uint8_t>(bytes[i / 2]);
  return (i % 2 == 0) ? (b & 0x0Fu) : static_cast<std::uint8_t>(b >> 4);
}

void set_nibble(std::span<std::byte> bytes, std::size_t i, std::uint8_t code) noexcept {
  auto b = static_cast<std::uint8_t>(bytes[i / 2]);
  b = (i % 2 == 0) ? static_cast<std::uint8_t>((b & 0xF0u) | (code & 0x0Fu))
                   : static_cast<std::uint8_t>((b & 0x0Fu) | ((code & 0x0Fu) << 4));
  bytes[i / 2] = static_cast<std::byte>(b);
}

void check_index(const HostTensor& t, std::size_t i) {
  if (i >= t.numel()) throw Error(fmt::format("element index {} out of range for {} elements", i, t.numel()));
}

}  // namespace

double read_element(DType dtype, std::span<const std::byte> bytes, std::size_t i) noexcept {
  switch (dtype) {
    case DType::float32:
      return load<float>(bytes, i);
    case DType::float16:
      return f16_to_float(load<std::uint16_t>(bytes, i));
    case DType::bfloat16:
      return bf16_to_float(load<std::uint16_t>(bytes, i));
    case DType::float8_e4m3fn:
      return e4m3fn_to_float(load<std::uint8_t>(bytes, i));
    case DType::float8_e5m2:
      return e5m2_to_float(load<std::uint8_t>(bytes, i));
    case DType::float4_e2m1:
      return e2m1_to_float(nibble(bytes, i));
    case DType::int64:
      return static_cast<double>(load<std::int64_t>(bytes, i));
    case DType::int32:
      return load<std::int32_t>(bytes, i);
    case DType::int16:
      return load<std::int16_t>(bytes, i);
    case DType::int8:
      return load<std::int8_t>(bytes, i);
    case DType::uint8:
      return load<std::uint8_t>(bytes, i);
    case DType::boolean:
      return load<std::uint8_t>(bytes, i) != 0 ? 1.0 : 0.0;
  }
  return 0.0;
}

void write_element(DType dtype, std::span<std::byte> bytes, std::size_t i, double value) noexcept {
  const auto f = static_cast<float>(value);
  switch (dtype) {
    case DType::float32:
      store(bytes, i, f);
      return;
    case DType::float16:
      store(bytes, i, float_to_f16(f));
      return;
    case DType::bfloat16:
      store(bytes, i, float_to_bf16(f));
      return;
    case DType::float8_e4m3fn:
      store(bytes, i, float_to_e4m3fn(f));
      return;
    case DType::float8_e5m2:
      store(bytes, i, float_to_e5m2(f));
      return;
    case DType::float4_e2m1:
      set_nibble(bytes, i, float_to_e2m1(f));
      return;
    case DType::int64:
      store(bytes, i, to_integer<std::int64_t>(value));
      return;
    case DType::int32:
      store(bytes, i, to_integer<std::int32_t>(value));
      return;
    case DType::int16:
      store(bytes, i, to_integer<std::int16_t>(value));
      return;
    case DType::int8:
      store(bytes, i, to_integer<std::int8_t>(value));
      return;
    case DType::uint8:
      store(bytes, i, to_integer<std::uint8_t>(value));
      return;
    case DType::boolean:
      store(bytes, i, static_cast<std::uint8_t>(value != 0.0 ? 1 : 0));
      return;
  }
}

double read_as_double(const HostTensor& t, std::size_t i) {
  check_index(t, i);
  return read_element(t.dtype(), t.bytes(), i);
}

void write_from_double(HostTensor& t, std::size_t i, double value) {
  check_index(t, i);
  write_element(t.dtype(), t.bytes(), i, value);
}

namespace {

// One dtype's loop, so the switch runs once per range rather than once per element.
template <class Read>
void widen(std::size_t begin, std::span<double> out, const Read& read) noexcept {
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = read(begin + k);
}

}  // namespace

void to_float64(const HostTensor& t, std::size_t begin, std::span<double> out) {
  if (begin > t.numel() || out.size() > t.numel() - begin) {
    throw Error(
        fmt::format("elements [{}, {}) out of range for {} elements", begin, begin + out.size(), t.numel()));
  }
  const std::span<const std::byte> b = t.bytes();
  switch (t.dtype()) {
    case DType::float32:
      return widen(begin, out, [b](std::size_t i) { return static_cast<double>(load<float>(b, i)); });
    case DType::bfloat16:
      return widen(begin, out, [b](std::size_t i) {
        return static_cast<double>(bf16_to_float(load<std::uint16_t>(b, i)));
      });
    case DType::float16:
      return widen(begin, out, [b](std::size_t i) {
        return static_cast<double>(f16_to_float(load<std::uint16_t>(b, i)));
      });
    default:
      return widen(begin, out, [b, d = t.dtype()](std::size_t i) { return read_element(d, b, i); });
  }
}

std::vector<double> to_float64(const HostTensor& t) {
  std::vector<double> out(t.numel());
  to_float64(t, 0, out);
  return out;
}

}  // namespace kh
