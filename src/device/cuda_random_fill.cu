#include <cstdint>
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

template <std::uint8_t Code>
void launch(const DeviceFill& f, const detail::ZigguratTables* tables, cudaStream_t stream) {
  fill_elements<Code><<<blocks_for(f.numel), kThreads, 0, stream>>>(f.data, f.numel, f.rule, tables);
}

}  // namespace

void fill_on_device(const std::vector<DeviceFill>& fills, const detail::ZigguratTables* tables,
                    cudaStream_t stream) {
  for (const DeviceFill& f : fills) {
    if (f.numel == 0) continue;
    switch (f.dtype_code) {
      case code::float32:
        launch<code::float32>(f, tables, stream);
        break;
      case code::float16:
        launch<code::float16>(f, tables, stream);
        break;
      case code::bfloat16:
        launch<code::bfloat16>(f, tables, stream);
        break;
      case code::float8_e4m3fn:
        launch<code::float8_e4m3fn>(f, tables, stream);
        break;
      case code::float8_e5m2:
        launch<code::float8_e5m2>(f, tables, stream);
        break;
      case code::float4_e2m1:
        fill_fp4_bytes<<<blocks_for((f.numel + 1) / 2), kThreads, 0, stream>>>(
            static_cast<std::uint8_t*>(f.data), f.numel, f.rule, tables);
        break;
      case code::int64:
        launch<code::int64>(f, tables, stream);
        break;
      case code::int32:
        launch<code::int32>(f, tables, stream);
        break;
      case code::int16:
        launch<code::int16>(f, tables, stream);
        break;
      case code::int8:
        launch<code::int8>(f, tables, stream);
        break;
      case code::uint8:
        launch<code::uint8>(f, tables, stream);
        break;
      case code::boolean:
        launch<code::boolean>(f, tables, stream);
        break;
      default:
        KH_CUDA_CALL(cudaErrorInvalidValue);  // an unknown dtype code: a harness bug
    }
    KH_CUDA_CALL(cudaGetLastError());
  }
}

}  // namespace kh
