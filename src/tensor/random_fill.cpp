#include "tensor/random_fill.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <thread>
#include <vector>

#include "error/error.h"
#include "tensor/counter_rng.h"
#include "tensor/standard_normal.h"

namespace kh {

namespace {

namespace code = detail::dtype_code;
static_assert(static_cast<std::uint8_t>(DType::float32) == code::float32 &&
                  static_cast<std::uint8_t>(DType::float16) == code::float16 &&
                  static_cast<std::uint8_t>(DType::bfloat16) == code::bfloat16 &&
                  static_cast<std::uint8_t>(DType::float8_e4m3fn) == code::float8_e4m3fn &&
                  static_cast<std::uint8_t>(DType::float8_e5m2) == code::float8_e5m2 &&
                  static_cast<std::uint8_t>(DType::float4_e2m1) == code::float4_e2m1 &&
                  static_cast<std::uint8_t>(DType::int64) == code::int64 &&
                  static_cast<std::uint8_t>(DType::int32) == code::int32 &&
                  static_cast<std::uint8_t>(DType::int16) == code::int16 &&
                  static_cast<std::uint8_t>(DType::int8) == code::int8 &&
                  static_cast<std::uint8_t>(DType::uint8) == code::uint8 &&
                  static_cast<std::uint8_t>(DType::boolean) == code::boolean,
              "detail::dtype_code must mirror DType");

// Stream numbers, so that normal, integer and bool fills of one seed are unrelated.
constexpr std::uint64_t kNormalStream = 1;
constexpr std::uint64_t kNormalRetryStream = 2;
constexpr std::uint64_t kIntStream = 3;
constexpr std::uint64_t kBoolStream = 4;

constexpr std::size_t kMinPerThread = std::size_t{1} << 20;
constexpr std::size_t kChunkGranule = 64;

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

template <std::uint8_t Code>
void fill_typed(std::byte* data, std::size_t numel, const FillRule& rule, unsigned threads) {
  using T = typename detail::Stored<Code>::type;
  T* const out = reinterpret_cast<T*>(data);
  const detail::ZigguratTables* tables = &detail::ziggurat_tables();
  parallel_for(numel, threads, [out, rule, tables](std::size_t begin, std::size_t end) {
    // Local copies: the rule then lives in registers instead of being reloaded through
    // references on every element.
    const FillRule r = rule;
    const detail::ZigguratTables& t = *tables;
    for (std::size_t i = begin; i < end; ++i) out[i] = detail::generate_element<Code>(r, t, i);
  });
}

void fill_fp4(std::byte* data, std::size_t numel, const FillRule& rule, unsigned threads) {
  const detail::ZigguratTables* tables = &detail::ziggurat_tables();
  const std::size_t pairs = (numel + 1) / 2;
  parallel_for(pairs, threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t j = begin; j < end; ++j)
      data[j] = static_cast<std::byte>(detail::generate_fp4_byte(rule, *tables, j, numel));
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

}  // namespace

FillRule normal_rule(DType dtype, std::uint64_t seed, double mean, double std) {
  if (!dtype_is_float(dtype))
    throw Error(fmt::format("normal fill needs a float dtype, not {}", dtype_name(dtype)));
  FillRule r;
  r.kind = detail::FillKind::normal;
  r.key = stream_key(seed, kNormalStream);
  r.retry_key = stream_key(seed, kNormalRetryStream);
  r.mean = mean;
  r.std = std;
  return r;
}

FillRule uniform_int_rule(DType dtype, std::uint64_t seed, std::int64_t lo, std::int64_t hi) {
  if (lo >= hi) throw Error(fmt::format("integer fill range [{}, {}) is empty", lo, hi));
  if (dtype == DType::boolean) throw Error("integer fill does not apply to bool; use fill_bool");
  const Range range = dtype_range(dtype);
  if (dtype_is_integer(dtype) && (lo < range.lo || hi > range.hi)) {
    throw Error(fmt::format("integer fill range [{}, {}) exceeds {}", lo, hi, dtype_name(dtype)));
  }
  FillRule r;
  r.kind = detail::FillKind::uniform_int;
  r.key = stream_key(seed, kIntStream);
  r.lo = lo;
  r.span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  return r;
}

FillRule bool_rule(DType dtype, std::uint64_t seed) {
  if (dtype != DType::boolean)
    throw Error(fmt::format("bool fill needs a bool tensor, not {}", dtype_name(dtype)));
  FillRule r;
  r.kind = detail::FillKind::boolean;
  r.key = stream_key(seed, kBoolStream);
  return r;
}

FillRule default_rule(DType dtype, std::uint64_t seed) {
  if (dtype == DType::boolean) return bool_rule(dtype, seed);
  if (dtype_is_float(dtype)) return normal_rule(dtype, seed);
  const Range r = dtype_range(dtype);
  return uniform_int_rule(dtype, seed, std::max<std::int64_t>(-128, r.lo), std::min<std::int64_t>(128, r.hi));
}

void fill_bytes(std::span<std::byte> bytes, DType dtype, std::size_t numel, const FillRule& rule,
                unsigned threads) {
  if (bytes.size() < dtype_storage_bytes(dtype, numel))
    throw Error(fmt::format("fill of {} {} elements into {} bytes", numel, dtype_name(dtype), bytes.size()));
  std::byte* const d = bytes.data();
  switch (dtype) {
    case DType::float32:
      return fill_typed<code::float32>(d, numel, rule, threads);
    case DType::float16:
      return fill_typed<code::float16>(d, numel, rule, threads);
    case DType::bfloat16:
      return fill_typed<code::bfloat16>(d, numel, rule, threads);
    case DType::float8_e4m3fn:
      return fill_typed<code::float8_e4m3fn>(d, numel, rule, threads);
    case DType::float8_e5m2:
      return fill_typed<code::float8_e5m2>(d, numel, rule, threads);
    case DType::float4_e2m1:
      return fill_fp4(d, numel, rule, threads);
    case DType::int64:
      return fill_typed<code::int64>(d, numel, rule, threads);
    case DType::int32:
      return fill_typed<code::int32>(d, numel, rule, threads);
    case DType::int16:
      return fill_typed<code::int16>(d, numel, rule, threads);
    case DType::int8:
      return fill_typed<code::int8>(d, numel, rule, threads);
    case DType::uint8:
      return fill_typed<code::uint8>(d, numel, rule, threads);
    case DType::boolean:
      return fill_typed<code::boolean>(d, numel, rule, threads);
  }
}

void fill_normal(HostTensor& t, std::uint64_t seed, double mean, double std, unsigned threads) {
  fill_bytes(t.bytes(), t.dtype(), t.numel(), normal_rule(t.dtype(), seed, mean, std), threads);
}

void fill_uniform_int(HostTensor& t, std::uint64_t seed, std::int64_t lo, std::int64_t hi, unsigned threads) {
  fill_bytes(t.bytes(), t.dtype(), t.numel(), uniform_int_rule(t.dtype(), seed, lo, hi), threads);
}

void fill_bool(HostTensor& t, std::uint64_t seed, unsigned threads) {
  fill_bytes(t.bytes(), t.dtype(), t.numel(), bool_rule(t.dtype(), seed), threads);
}

void fill_random(HostTensor& t, std::uint64_t seed, unsigned threads) {
  fill_bytes(t.bytes(), t.dtype(), t.numel(), default_rule(t.dtype(), seed), threads);
}

}  // namespace kh
