#include "device/cpu_backend.h"

#include <dlpack/dlpack.h>

#include <cstdlib>
#include <cstring>
#include <thread>

#include "device/host_peaks.h"
#include "device/host_topology.h"
#include "error/error.h"
#include "tensor/chunked_hash.h"
#include "tensor/page_populate.h"
#include "timing/steady_clock_timer.h"

namespace kh {

namespace {

DeviceInfo host_info() {
  DeviceInfo info;
  info.backend = "cpu";
  info.name = cpu_model_name();
  info.sm_count = static_cast<int>(std::thread::hardware_concurrency());
  info.l2_bytes = last_level_cache_bytes();
  info.clocks_unavailable_reason = "the cpu backend does not read clocks";
  return info;
}

}  // namespace

CpuBackend::CpuBackend() : info_(host_info()), flush_(info_.l2_bytes) {}

int CpuBackend::dlpack_device_type() const { return kDLCPU; }

void* CpuBackend::allocate(std::size_t bytes) {
  // aligned_alloc needs a size that is a multiple of the alignment; zero bytes still
  // gets a distinct, valid pointer, as the interface promises never to return null.
  const std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void* ptr = std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded);
  if (ptr == nullptr) throw Error("cpu backend: cannot allocate " + std::to_string(bytes) + " bytes");
  (void)populate_pages(ptr, rounded);  // an upload writes all of it next: fault it in one request
  return ptr;
}

void CpuBackend::release(void* ptr) noexcept { std::free(ptr); }

void CpuBackend::upload(void* dst, const void* src, std::size_t bytes) {
  if (bytes > 0) std::memcpy(dst, src, bytes);
}

void CpuBackend::download(void* dst, const void* src, std::size_t bytes) {
  if (bytes > 0) std::memcpy(dst, src, bytes);
}

void CpuBackend::fill(void* dst, std::uint8_t byte, std::size_t bytes) {
  if (bytes > 0) std::memset(dst, byte, bytes);
}

void CpuBackend::poison_then_flush(const std::vector<std::pair<void*, std::size_t>>& regions,
                                   std::uint8_t byte) {
  for (const auto& [ptr, bytes] : regions) fill(ptr, byte, bytes);
  flush_.evict_then_flush(regions);
}

std::vector<std::uint64_t> CpuBackend::hash_all(const std::vector<Region>& regions) {
  std::vector<std::uint64_t> hashes;
  hashes.reserve(regions.size());
  for (const Region& r : regions)
    hashes.push_back(chunked_hash({static_cast<const std::byte*>(r.data), r.bytes}));
  return hashes;
}

DevicePeaks CpuBackend::measure_peaks() { return measure_host_peaks(); }

std::unique_ptr<IterationTimer> CpuBackend::make_timer(TimerKind kind) {
  if (kind != TimerKind::steady_clock) throw Error("cpu backend: only the steady_clock timer is available");
  return std::make_unique<SteadyClockTimer>();
}

}  // namespace kh
