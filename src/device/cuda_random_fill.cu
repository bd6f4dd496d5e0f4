#include <cstdint>
#include <type_traits>
#include <vector>

#include "base/cuda_call.h"
#include "device/cuda_random_fill.h"

namespace kh {

namespace {

namespace code = detail::dtype_code;

constexpr unsigned kThreads = 256;
constexpr std::uint64_t kMaxBlocks = 4096;  // grid-stride beyond: enough to fill every SM

// The ziggurat's tables, copied into the block's shared memory: every normal draw reads
// two entries at a random layer, and from global memory a warp's 32 scattered reads
// replay through the L1 several times over.
__device__ const detail::ZigguratTables& stage_tables(detail::ZigguratTables& shared,
                                                      const detail::ZigguratTables* global) {
  constexpr unsigned kWords = sizeof(detail::ZigguratTables) / sizeof(double);
  static_assert(sizeof(detail::ZigguratTables) % sizeof(double) == 0);
  const auto* from = reinterpret_cast<const double*>(global);
  auto* to = reinterpret_cast<double*>(&shared);
  for (unsigned k = threadIdx.x; k < kWords; k += blockDim.x) to[k] = from[k];
  __syncthreads();
  return shared;
}

template <std::uint8_t Code>
__global__ void fill_elements(void* out, std::uint64_t n, detail::FillRule rule,
                              const detail::ZigguratTables* tables) {
  __shared__ detail::ZigguratTables shared_tables;
  const detail::ZigguratTables& t = stage_tables(shared_tables, tables);
  using T = typename detail::Stored<Code>::type;
  T* const o = static_cast<T*>(out);
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride)
    o[i] = detail::generate_element<Code>(rule, t, i);
}

__global__ void fill_fp4_bytes(std::uint8_t* out, std::uint64_t n, detail::FillRule rule,
                               const detail::ZigguratTables* tables) {
  __shared__ detail::ZigguratTables shared_tables;
  const detail::ZigguratTables& t = stage_tables(shared_tables, tables);
  const std::uint64_t bytes = (n + 1) / 2;
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t j = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; j < bytes; j += stride)
    out[j] = detail::generate_fp4_byte(rule, t, j, n);
}

unsigned blocks_for(std::uint64_t n) {
  const std::uint64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < kMaxBlocks ? b : kMaxBlocks);
}

// Small fills of one dtype share a launch: the input sets of a timing request are many
// small tensors (60 sets of rmsnorm's two: 120 launches, most of the generation's time).
// The descriptors travel as the kernel's parameter, inside its classic 4 KiB, so nothing
// is uploaded. blockIdx.y picks the fill; every element is the same generate_element()
// as in fill_elements, so a batched fill equals its host twin too.
struct BatchedFill {
  void* data;
  std::uint64_t numel;
  detail::FillRule rule;
};
struct FillBatch {
  static constexpr unsigned kMaxFills = 48;
  BatchedFill fills[kMaxFills];
};
static_assert(sizeof(FillBatch) <= 4000, "a kernel parameter must stay under 4 KiB");

// A fill this small goes into a batch; larger ones keep their own launch, whose cost
// their work dwarfs.
constexpr std::uint64_t kBatchedMaxNumel = std::uint64_t{kThreads} * 64;

template <std::uint8_t Code>
__global__ void fill_batch(const FillBatch batch, const detail::ZigguratTables* tables) {
  const BatchedFill f = batch.fills[blockIdx.y];
  // A block past its fill's end leaves before the barrier in stage_tables; the
  // condition is the block's, so no thread of it waits there alone.
  if (std::uint64_t{blockIdx.x} * blockDim.x >= f.numel) return;
  __shared__ detail::ZigguratTables shared_tables;
  const detail::ZigguratTables& t = stage_tables(shared_tables, tables);
  using T = typename detail::Stored<Code>::type;
  T* const o = static_cast<T*>(f.data);
  const std::uint64_t stride = std::uint64_t{gridDim.x} * blockDim.x;
  for (std::uint64_t i = std::uint64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < f.numel; i += stride)
    o[i] = detail::generate_element<Code>(f.rule, t, i);
}

template <std::uint8_t Code>
void launch(const DeviceFill& f, const detail::ZigguratTables* tables, cudaStream_t stream) {
  fill_elements<Code><<<blocks_for(f.numel), kThreads, 0, stream>>>(f.data, f.numel, f.rule, tables);
}

template <std::uint8_t Code>
void launch_batch(const std::vector<const DeviceFill*>& fills, const detail::ZigguratTables* tables,
                  cudaStream_t stream) {
  for (std::size_t first = 0; first < fills.size(); first += FillBatch::kMaxFills) {
    FillBatch batch{};
    std::uint64_t largest = 0;
    unsigned count = 0;
    for (std::size_t k = first; k < fills.size() && count < FillBatch::kMaxFills; ++k, ++count) {
      batch.fills[count] = {fills[k]->data, fills[k]->numel, fills[k]->rule};
      largest = largest > fills[k]->numel ? largest : fills[k]->numel;
    }
    fill_batch<Code><<<dim3(blocks_for(largest), count), kThreads, 0, stream>>>(batch, tables);
    KH_CUDA_CALL(cudaGetLastError());
  }
}

// Calls run(std::integral_constant<std::uint8_t, Code>{}) for the dtype code.
template <class Run>
void for_dtype(std::uint8_t dtype_code, Run&& run) {
  switch (dtype_code) {
    case code::float32:
      return run(std::integral_constant<std::uint8_t, code::float32>{});
    case code::float16:
      return run(std::integral_constant<std::uint8_t, code::float16>{});
    case code::bfloat16:
      return run(std::integral_constant<std::uint8_t, code::bfloat16>{});
    case code::float8_e4m3fn:
      return run(std::integral_constant<std::uint8_t, code::float8_e4m3fn>{});
    case code::float8_e5m2:
      return run(std::integral_constant<std::uint8_t, code::float8_e5m2>{});
    case code::int64:
      return run(std::integral_constant<std::uint8_t, code::int64>{});
    case code::int32:
      return run(std::integral_constant<std::uint8_t, code::int32>{});
    case code::int16:
      return run(std::integral_constant<std::uint8_t, code::int16>{});
    case code::int8:
      return run(std::integral_constant<std::uint8_t, code::int8>{});
    case code::uint8:
      return run(std::integral_constant<std::uint8_t, code::uint8>{});
    case code::boolean:
      return run(std::integral_constant<std::uint8_t, code::boolean>{});
    default:
      KH_CUDA_CALL(cudaErrorInvalidValue);  // an unknown dtype code: a harness bug
  }
}

}  // namespace

void fill_on_device(const std::vector<DeviceFill>& fills, const detail::ZigguratTables* tables,
                    cudaStream_t stream) {
  std::vector<std::vector<const DeviceFill*>> small(256);  // by dtype code
  for (const DeviceFill& f : fills) {
    if (f.numel == 0) continue;
    if (f.dtype_code == code::float4_e2m1) {
      fill_fp4_bytes<<<blocks_for((f.numel + 1) / 2), kThreads, 0, stream>>>(
          static_cast<std::uint8_t*>(f.data), f.numel, f.rule, tables);
    } else if (f.numel <= kBatchedMaxNumel) {
      small[f.dtype_code].push_back(&f);
      continue;
    } else {
      for_dtype(f.dtype_code, [&](auto dtype) { launch<decltype(dtype)::value>(f, tables, stream); });
    }
    KH_CUDA_CALL(cudaGetLastError());
  }
  for (std::size_t c = 0; c < small.size(); ++c) {
    if (small[c].empty()) continue;
    for_dtype(static_cast<std::uint8_t>(c),
              [&](auto dtype) { launch_batch<decltype(dtype)::value>(small[c], tables, stream); });
  }
}

}  // namespace kh
