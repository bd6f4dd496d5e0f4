#include "tensor/random_fill.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

#include "error/error.h"
#include "tensor/counter_rng.h"
#include "tensor/element_access.h"
#include "tensor/float_formats.h"
#include "tensor/standard_normal.h"

namespace kh {

namespace {

// Stream numbers, so that normal, integer and bool fills of one seed are unrelated.
constexpr std::uint64_t kNormalStream = 1;
constexpr std::uint64_t kNormalRetryStream = 2;
constexpr std::uint64_t kIntStream = 3;
constexpr std::uint64_t kBoolStream = 4;

constexpr std::size_t kMinPerThread = std::size_t{1} << 20;
constexpr std::size_t kChunkGranule = 64;  // even, so fp4 chunks never share a byte

// Runs body(begin, end) over [0, n) split across threads. The split only changes who
// computes an element, never its value.
template <class Body>
void parallel_for(std::size_t n, unsigned threads, const Body& body) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t by_size = std::max<std::size_t>(1, n / kMinPerThread);
  const auto count = static_cast<std::size_t>(std::min<std::size_t>(threads, by_size));
  if (count <= 1) {
    body(std::size_t{0}, n);
    return;
  }
  std::size_t chunk = (n + count - 1) / count;
  chunk = (chunk + kChunkGranule - 1) / kChunkGranule * kChunkGranule;
  std::vector<std::jthread> workers;
  workers.reserve(count);
  for (std::size_t begin = 0; begin < n; begin += chunk) {
    workers.emplace_back([&body, begin, end = std::min(n, begin + chunk)] { body(begin, end); });
  }
}

template <class T, class Make>
void fill_typed(HostTensor& t, unsigned threads, const Make& make) {
  T* const out = reinterpret_cast<T*>(t.bytes().data());
  parallel_for(t.numel(), threads, [out, make](std::size_t begin, std::size_t end) {
    // Local copies: the generator state then lives in registers instead of being
    // reloaded through references on every element.
    const Make local = make;
    T* const dst = out;
    for (std::size_t i = begin; i < end; ++i) dst[i] = local(i);
  });
}

template <class Make>
void fill_fp4(HostTensor& t, unsigned threads, const Make& make) {
  std::span<std::byte> bytes = t.bytes();
  parallel_for(t.numel(), threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; i += 2) {
      const std::uint8_t lo = make(i);
      const std::uint8_t hi = i + 1 < end ? make(i + 1) : 0;
      bytes[i / 2] = static_cast<std::byte>((lo & 0x0Fu) | ((hi & 0x0Fu) << 4));
    }
  });
}

struct Range {
  std::int64_t lo;
  std::int64_t hi;  // exclusive
};

Range dtype_range(DType t) {
  switch (t) {
    case DType::int8:
      return {-128, 128};
    case DType::uint8:
      return {0, 256};
    case DType::int16:
      return {-32768, 32768};
    case DType::int32:
      return {std::numeric_limits<std::int32_t>::min(), std::int64_t{1} << 31};
    default:
      return {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()};
  }
}

__extension__ typedef unsigned __int128 U128;  // GCC and Clang; no standard 128-bit type

// Lemire's multiply-shift: maps a 64-bit word onto [0, span) with bias below span/2^64.
std::int64_t uniform_in(std::uint64_t w, std::int64_t lo, std::uint64_t span) {
  const auto offset = static_cast<std::uint64_t>((static_cast<U128>(w) * span) >> 64);
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + offset);
}

}  // namespace

void fill_normal(HostTensor& t, std::uint64_t seed, double mean, double std, unsigned threads) {
  const NormalStream normal(stream_key(seed, kNormalStream), stream_key(seed, kNormalRetryStream));
  auto value = [normal, mean, std](std::size_t i) { return static_cast<float>(mean + std * normal(i)); };
  auto clamped_z = [normal, mean, std](std::size_t i) {
    return static_cast<float>(mean + std * std::clamp(normal(i), -2.0, 2.0));
  };
  switch (t.dtype()) {
    case DType::float32:
      return fill_typed<float>(t, threads, value);
    case DType::float16:
      return fill_typed<std::uint16_t>(t, threads, [value](std::size_t i) { return float_to_f16(value(i)); });
    case DType::bfloat16:
      return fill_typed<std::uint16_t>(t, threads,
                                       [value](std::size_t i) { return float_to_bf16(value(i)); });
    case DType::float8_e4m3fn:
      return fill_typed<std::uint8_t>(
          t, threads, [clamped_z](std::size_t i) { return float_to_e4m3fn_saturating(clamped_z(i)); });
    case DType::float8_e5m2:
      return fill_typed<std::uint8_t>(
          t, threads, [clamped_z](std::size_t i) { return float_to_e5m2_saturating(clamped_z(i)); });
    case DType::float4_e2m1:
      return fill_fp4(t, threads,
                      [&](std::size_t i) { return float_to_e2m1(std::clamp(value(i), -6.0f, 6.0f)); });
    default:
      throw Error(fmt::format("normal fill needs a float dtype, not {}", dtype_name(t.dtype())));
  }
}

void fill_uniform_int(HostTensor& t, std::uint64_t seed, std::int64_t lo, std::int64_t hi, unsigned threads) {
  if (lo >= hi) throw Error(fmt::format("integer fill range [{}, {}) is empty", lo, hi));
  if (t.dtype() == DType::boolean) throw Error("integer fill does not apply to bool; use fill_bool");
  const Range r = dtype_range(t.dtype());
  if (dtype_is_integer(t.dtype()) && (lo < r.lo || hi > r.hi)) {
    throw Error(fmt::format("integer fill range [{}, {}) exceeds {}", lo, hi, dtype_name(t.dtype())));
  }
  const std::uint64_t key = stream_key(seed, kIntStream);
  const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  auto value = [=](std::size_t i) { return uniform_in(random_word(key, i), lo, span); };
  switch (t.dtype()) {
    case DType::int64:
      return fill_typed<std::int64_t>(t, threads, value);
    case DType::int32:
      return fill_typed<std::int32_t>(t, threads,
                                      [&](std::size_t i) { return static_cast<std::int32_t>(value(i)); });
    case DType::int16:
      return fill_typed<std::int16_t>(t, threads,
                                      [&](std::size_t i) { return static_cast<std::int16_t>(value(i)); });
    case DType::int8:
      return fill_typed<std::int8_t>(t, threads,
                                     [&](std::size_t i) { return static_cast<std::int8_t>(value(i)); });
    case DType::uint8:
      return fill_typed<std::uint8_t>(t, threads,
                                      [&](std::size_t i) { return static_cast<std::uint8_t>(value(i)); });
    default: {
      // Float dtypes: slow path through the generic writer is fine, integer-valued float
      // inputs are small (masks, positions) and rare.
      std::span<std::byte> bytes = t.bytes();
      const DType d = t.dtype();
      if (d == DType::float4_e2m1) {
        return fill_fp4(t, threads,
                        [&](std::size_t i) { return float_to_e2m1(static_cast<float>(value(i))); });
      }
      parallel_for(t.numel(), threads, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) write_element(d, bytes, i, static_cast<double>(value(i)));
      });
      return;
    }
  }
}

void fill_bool(HostTensor& t, std::uint64_t seed, unsigned threads) {
  if (t.dtype() != DType::boolean)
    throw Error(fmt::format("bool fill needs a bool tensor, not {}", dtype_name(t.dtype())));
  const std::uint64_t key = stream_key(seed, kBoolStream);
  fill_typed<std::uint8_t>(
      t, threads, [=](std::size_t i) { return static_cast<std::uint8_t>(random_word(key, i) >> 63); });
}

void fill_random(HostTensor& t, std::uint64_t seed, unsigned threads) {
  const DType d = t.dtype();
  if (d == DType::boolean) return fill_bool(t, seed, threads);
  if (dtype_is_float(d)) return fill_normal(t, seed, 0.0, 1.0, threads);
  const Range r = dtype_range(d);
  fill_uniform_int(t, seed, std::max<std::int64_t>(-128, r.lo), std::min<std::int64_t>(128, r.hi), threads);
}

}  // namespace kh
