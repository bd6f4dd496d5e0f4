#include "device/cuda_backend.h"

#include <dlpack/dlpack.h>
#include <fmt/format.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <cstdint>
#include <span>

#include "base/cuda_call.h"
#include "device/cuda_chunked_hash.h"
#include "device/cuda_device_list.h"
#include "device/cuda_peaks.h"
#include "device/cuda_random_fill.h"
#include "error/error.h"
#include "tensor/chunked_hash.h"
#include "tensor/dtype.h"
#include "tensor/standard_normal.h"
#include "timing/cupti_span_timer.h"
#include "timing/event_timer.h"
#include "timing/sample_statistics.h"

namespace kh {

namespace {

// Kernels that take scratch with cudaMallocAsync each call are ordinary (serving engines
// do it). With the default release threshold of 0, the pool hands its memory back to the
// driver at every synchronisation, so the next call's allocation maps pages again: time
// the CUDA events see but CUPTI records as no activity, which the events-vs-CUPTI check
// would take for hidden work. Keeping freed memory in the pool, as a caching allocator
// does, makes a warmed-up call cost what it costs in a serving process.
void keep_stream_ordered_pool(int ordinal) {
  cudaMemPool_t pool = nullptr;
  KH_CUDA_CALL(cudaDeviceGetDefaultMemPool(&pool, ordinal));
  std::uint64_t keep_all = UINT64_MAX;
  KH_CUDA_CALL(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all));
}

// Checks that the device exists and makes it current; returns its ordinal so it can
// initialise the first member, before any stream or buffer is created on it.
int select_device(int ordinal) {
  const int count = cuda_device_count();
  if (ordinal < 0 || ordinal >= count) {
    throw Error("no CUDA device: ordinal " + std::to_string(ordinal) + " requested, " +
                std::to_string(count) + " present");
  }
  KH_CUDA_CALL(cudaSetDevice(ordinal));
  keep_stream_ordered_pool(ordinal);
  return ordinal;
}

cudaDeviceProp query_properties(int ordinal) {
  cudaDeviceProp properties{};
  KH_CUDA_CALL(cudaGetDeviceProperties(&properties, ordinal));
  return properties;
}

// 13000 -> "13.0", the encoding of cudaDriverGetVersion and cudaRuntimeGetVersion.
std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

DeviceInfo describe(int ordinal, const cudaDeviceProp& properties, const ClockMonitor& clocks) {
  int driver = 0;
  int runtime = 0;
  KH_CUDA_CALL(cudaDriverGetVersion(&driver));
  KH_CUDA_CALL(cudaRuntimeGetVersion(&runtime));
  DeviceInfo info;
  info.backend = "cuda";
  info.name = properties.name;
  info.uuid = gpu_uuid_text(properties.uuid);
  info.pci_bus_id = gpu_pci_bus_id(ordinal);
  // NVML's version names the driver build ("570.133.20"); without NVML the CUDA
  // driver API version is the best available.
  info.driver = clocks.available() ? clocks.driver_version() : "cuda " + cuda_version_text(driver);
  info.runtime = cuda_version_text(runtime);
  info.compute_capability = properties.major * 10 + properties.minor;
  info.sm_count = properties.multiProcessorCount;
  info.l2_bytes = static_cast<std::size_t>(properties.l2CacheSize);
  info.nominal_sm_clock_mhz = clocks.nominal_sm_clock_mhz().value_or(0.0);
  info.clocks_unavailable_reason = clocks.unavailable_reason();
  return info;
}

}  // namespace

bool is_sticky_cuda_error(cudaError_t status) {
  switch (status) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorTensorMemoryLeak:
    case cudaErrorContained:
    case cudaErrorECCUncorrectable:
    case cudaErrorNvlinkUncorrectable:
    case cudaErrorMpsClientTerminated:
    case cudaErrorExternalDevice:
    case cudaErrorContextIsDestroyed:
      return true;
    default:
      return false;
  }
}

CudaBackend::CudaBackend(int ordinal)
    : ordinal_(select_device(ordinal)),
      properties_(query_properties(ordinal_)),
      flush_(static_cast<std::size_t>(properties_.l2CacheSize)),
      clocks_(gpu_pci_bus_id(ordinal_)),
      info_(describe(ordinal_, properties_, clocks_)),
      // Up to a sixteenth of the device, at most 8 GiB: room for a timing trial's input
      // sets at large shapes, little taken from a candidate that allocates its own.
      blocks_(1, std::min(std::size_t{8} << 30, static_cast<std::size_t>(properties_.totalGlobalMem) / 16)) {}

int CudaBackend::dlpack_device_type() const { return kDLCUDA; }

CudaBackend::~CudaBackend() {
  free_blocks(blocks_.drain());
  if (touch_ != nullptr) KH_CUDA_CALL_NOEXCEPT(cudaFree(touch_));
}

void CudaBackend::between_requests() noexcept {
  if (sticky_ || !cupti_ || !cupti_->take_drained()) return;
  cudaError_t status = touch_ != nullptr ? cudaSuccess : cudaMalloc(&touch_, sizeof(std::uint32_t));
  if (status == cudaSuccess)
    status = cudaMemsetAsync(touch_, 0, sizeof(std::uint32_t), housekeeping_stream_.get());
  if (status == cudaSuccess) status = cudaStreamSynchronize(housekeeping_stream_.get());
  if (status == cudaSuccess) return;
  // Nothing waits on this call: a broken context is left for the next request to report,
  // and a passing error must not surface in an unrelated later call.
  if (is_sticky_cuda_error(status)) sticky_ = true;
  static_cast<void>(cudaGetLastError());
}

void* CudaBackend::allocate(std::size_t bytes) {
  // cudaMalloc(0) may return null; one byte keeps allocate()'s never-null promise.
  const std::size_t size = bytes == 0 ? 1 : bytes;
  if (void* kept = blocks_.take(size)) {
    // Work queued before the block was given back may still touch it, as cudaFree would
    // have waited for. A failing wait leaves the block kept, and throws.
    try {
      synchronize();
    } catch (const Error&) {
      free_blocks(blocks_.keep(kept, size));
      throw;
    }
    remember_size(kept, size);
    return kept;
  }
  void* ptr = nullptr;
  cudaError_t status = cudaMalloc(&ptr, size);
  if (status == cudaErrorMemoryAllocation) {
    static_cast<void>(cudaGetLastError());  // not sticky; the retry decides
    free_blocks(blocks_.drain());
    status = cudaMalloc(&ptr, size);
  }
  KH_CUDA_CALL(status);
  remember_size(ptr, size);
  return ptr;
}

void CudaBackend::release(void* ptr) noexcept {
  if (ptr == nullptr) return;
  std::size_t size = 0;
  {
    const std::lock_guard lock(sizes_mutex_);
    if (const auto it = sizes_.find(ptr); it != sizes_.end()) {
      size = it->second;
      sizes_.erase(it);
    }
  }
  free_blocks(size > 0 ? blocks_.keep(ptr, size) : std::vector<void*>{ptr});
}

void CudaBackend::remember_size(void* ptr, std::size_t size) {
  const std::lock_guard lock(sizes_mutex_);
  sizes_[ptr] = size;
}

void CudaBackend::free_blocks(const std::vector<void*>& blocks) noexcept {
  for (void* b : blocks) KH_CUDA_CALL_NOEXCEPT(cudaFree(b));
}

void CudaBackend::upload(void* dst, const void* src, std::size_t bytes) {
  synchronize();
  KH_CUDA_CALL(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, housekeeping_stream_.get()));
  KH_CUDA_CALL(cudaStreamSynchronize(housekeeping_stream_.get()));
}

void CudaBackend::download(void* dst, const void* src, std::size_t bytes) {
  synchronize();
  KH_CUDA_CALL(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, housekeeping_stream_.get()));
  KH_CUDA_CALL(cudaStreamSynchronize(housekeeping_stream_.get()));
}

void CudaBackend::fill(void* dst, std::uint8_t byte, std::size_t bytes) {
  synchronize();
  KH_CUDA_CALL(cudaMemsetAsync(dst, byte, bytes, housekeeping_stream_.get()));
  KH_CUDA_CALL(cudaStreamSynchronize(housekeeping_stream_.get()));
}

void CudaBackend::upload_all(const std::vector<Copy>& copies) {
  synchronize();
  for (const Copy& c : copies) {
    KH_CUDA_CALL(cudaMemcpyAsync(c.dst, c.src, c.bytes, cudaMemcpyHostToDevice, housekeeping_stream_.get()));
  }
  KH_CUDA_CALL(cudaStreamSynchronize(housekeeping_stream_.get()));
}

void CudaBackend::download_all(const std::vector<Copy>& copies) {
  synchronize();
  for (const Copy& c : copies) {
    KH_CUDA_CALL(cudaMemcpyAsync(c.dst, c.src, c.bytes, cudaMemcpyDeviceToHost, housekeeping_stream_.get()));
  }
  KH_CUDA_CALL(cudaStreamSynchronize(housekeeping_stream_.get()));
}

std::string CudaBackend::pin_host_range(void* data, std::size_t bytes) {
  const cudaError_t e = cudaHostRegister(data, bytes, cudaHostRegisterDefault);
  if (e == cudaSuccess) return {};
  (void)cudaGetLastError();  // not a sticky error: later calls must not report it again
  return fmt::format("cudaHostRegister of {} bytes: {}", bytes, cudaGetErrorString(e));
}

void CudaBackend::unpin_host_range(void* data) noexcept {
  if (cudaHostUnregister(data) != cudaSuccess) (void)cudaGetLastError();  // never pinned: nothing to undo
}

std::vector<std::uint64_t> CudaBackend::hash_all(const std::vector<Region>& regions) {
  synchronize();
  const std::vector<std::uint64_t> chunks = hash_chunks_on_device(regions, housekeeping_stream_.get());
  std::vector<std::uint64_t> hashes;
  hashes.reserve(regions.size());
  std::size_t first = 0;
  for (const Region& r : regions) {
    const std::size_t count = hash_chunk_count(r.bytes);
    hashes.push_back(combine_chunk_hashes(std::span(chunks).subspan(first, count), r.bytes));
    first += count;
  }
  return hashes;
}

// One device synchronisation for the whole preparation: the memsets and the flush are
// ordered on the housekeeping stream, and the flush waits for its own stream.
void CudaBackend::poison_then_flush(const std::vector<std::pair<void*, std::size_t>>& regions,
                                    std::uint8_t byte) {
  synchronize();
  for (const auto& [ptr, bytes] : regions) {
    KH_CUDA_CALL(cudaMemsetAsync(ptr, byte, bytes, housekeeping_stream_.get()));
  }
  flush_cache();
}

void CudaBackend::fill_random(const std::vector<RandomFill>& fills) {
  const detail::ZigguratTables& host_tables = detail::ziggurat_tables();
  const auto* tables =
      static_cast<const detail::ZigguratTables*>(resident("ziggurat", &host_tables, sizeof host_tables));
  std::vector<DeviceFill> device;
  device.reserve(fills.size());
  for (const RandomFill& f : fills)
    device.push_back({f.data, static_cast<std::uint8_t>(f.dtype), f.numel, f.rule});
  fill_on_device(device, tables, housekeeping_stream_.get());
}

const void* CudaBackend::resident(std::string_view name, const void* bytes, std::size_t size) {
  return tables_.get(name, bytes, size, housekeeping_stream_.get());
}

void CudaBackend::synchronize() {
  const cudaError_t status = cudaDeviceSynchronize();
  if (status == cudaSuccess) return;
  if (is_sticky_cuda_error(status)) sticky_ = true;
  // Reset the thread's last-error slot: a non-sticky error must not resurface in an
  // unrelated later call. For a sticky error it changes nothing; the context stays
  // broken, which sticky() reports.
  static_cast<void>(cudaGetLastError());
  detail::throw_call_error("cudaDeviceSynchronize()", __FILE__, __LINE__, cudaGetErrorName(status),
                           cudaGetErrorString(status));
}

bool CudaBackend::sticky() const {
  // The error may have surfaced in a timer's synchronisation rather than in
  // synchronize(); a broken context repeats it on any call, so ask once more.
  return sticky_ || is_sticky_cuda_error(cudaStreamQuery(kernel_stream_.get()));
}

std::vector<TimerKind> CudaBackend::timers() const { return {TimerKind::cupti_span, TimerKind::cuda_event}; }

void CudaBackend::mark_call_begin(const char* name) { nvtxRangePushA(name); }

void CudaBackend::mark_call_end() { nvtxRangePop(); }

DevicePeaks CudaBackend::measure_peaks() {
  DevicePeaks p = measure_cuda_peaks(housekeeping_stream_.get());
  synchronize();
  std::string how;
  p.launch_latency = empty_launch_latency(how);
  p.method += "; launch latency: " + how;
  return p;
}

// Measured as candidates are: the kernel on the kernel stream after an L2 flush,
// bracketed by the first timer this backend offers (CUPTI's span where it works), so
// the floor's constant is the same quantity the latencies are.
double CudaBackend::empty_launch_latency(std::string& how) {
  constexpr int kLaunches = 200;
  std::string refused;
  const std::unique_ptr<IterationTimer> timer = make_best_timer(refused);
  if (!timer) {
    how = "not measured (no timer: " + refused + ")";
    return 0;
  }
  for (int i = 0; i < kLaunches; ++i) {
    flush_cache();  // as before every timed call: an empty kernel after a flush takes longer
    timer->start();
    detail::launch_empty_kernel(kernel_stream_.get());
    timer->stop();
  }
  std::vector<double> spans;
  for (const IterationSample& s : timer->finish()) {
    if (s.valid) spans.push_back(s.span_ms / 1e3);
  }
  how = fmt::format("median {} span of {} empty one-thread kernels, each after an L2 flush ({} seen)",
                    timer->name(), kLaunches, spans.size());
  return spans.empty() ? 0 : median(spans);
}

std::unique_ptr<IterationTimer> CudaBackend::make_timer(TimerKind kind) {
  switch (kind) {
    case TimerKind::cupti_span:
      // Enabled at the first timer and kept for the worker's life: CUPTI's set-up after
      // each enable cost the next CUDA call 0.55-0.8 ms on the H200, three times a
      // workload (docs/timing.md).
      if (!cupti_) cupti_ = std::make_shared<CuptiActivity>();
      return std::make_unique<CuptiSpanTimer>(cupti_, std::vector<cudaStream_t>{housekeeping_stream_.get()});
    case TimerKind::cuda_event:
      return std::make_unique<EventTimer>(kernel_stream_.get());
    case TimerKind::steady_clock:
      break;
  }
  throw Error(
      "cuda backend: the steady_clock timer would time kernel launches, not kernels; use cupti_span or "
      "cuda_event");
}

}  // namespace kh
