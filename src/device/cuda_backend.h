// CudaBackend: one CUDA GPU behind the Backend interface.
//
// It owns two streams: the kernel stream handed to candidates, and a housekeeping
// stream for the harness's own uploads, downloads, fills and L2 flushes, so the
// CUPTI timer can tell the harness's activity between windows from a candidate's
// stragglers. No CUDA graphs are used anywhere: every iteration is an ordinary
// launch, as in the contest's protocol.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "device/backend.h"
#include "device/cuda_resident_tables.h"
#include "device/cuda_stream.h"
#include "device/device_block_cache.h"
#include "timing/clock_monitor.h"
#include "timing/cupti_activity.h"
#include "timing/l2_flush.h"

namespace kh {

class CudaBackend final : public Backend {
 public:
  // Throws kh::Error "no CUDA device: <reason>" when there is no usable device.
  explicit CudaBackend(int ordinal = 0);
  ~CudaBackend() override;
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  [[nodiscard]] const DeviceInfo& info() const override { return info_; }
  [[nodiscard]] int dlpack_device_type() const override;
  [[nodiscard]] int device_ordinal() const override { return ordinal_; }

  [[nodiscard]] void* allocate(std::size_t bytes) override;
  void release(void* ptr) noexcept override;
  // upload, download and fill first wait for the whole device, then run on the
  // housekeeping stream and wait for it: they are ordered after everything a
  // candidate submitted, on any stream, and complete when they return.
  void upload(void* dst, const void* src, std::size_t bytes) override;
  void download(void* dst, const void* src, std::size_t bytes) override;
  void fill(void* dst, std::uint8_t byte, std::size_t bytes) override;

  [[nodiscard]] void* stream() override { return kernel_stream_.get(); }
  void synchronize() override;
  // True once the context hit an error that every later call repeats (an illegal
  // address, a trap, ...): the caller must replace the worker process.
  [[nodiscard]] bool sticky() const override;

  void flush_cache() override { flush_.flush(housekeeping_stream_.get()); }
  void upload_all(const std::vector<Copy>& copies) override;
  void download_all(const std::vector<Copy>& copies) override;
  [[nodiscard]] std::string pin_host_range(void* data, std::size_t bytes) override;
  void unpin_host_range(void* data) noexcept override;
  // A kernel on the housekeeping stream hashes every chunk (one warp each); only the
  // chunk hashes come back, and the host mixes them (cuda_chunked_hash.h).
  [[nodiscard]] std::vector<std::uint64_t> hash_all(const std::vector<Region>& regions) override;
  void poison_then_flush(const std::vector<std::pair<void*, std::size_t>>& regions,
                         std::uint8_t byte) override;
  [[nodiscard]] std::optional<double> sm_clock_mhz() override { return clocks_.sm_clock_mhz(); }
  // After a timer drained CUPTI, one 4-byte memset on the housekeeping stream takes the
  // cost CUPTI charges the next recorded call (cupti_activity.h), so that the next
  // request's first copy or launch does not pay it.
  void between_requests() noexcept override;
  // Fills run on the housekeeping stream (cuda_random_fill.h), like every harness copy.
  void fill_random(const std::vector<RandomFill>& fills) override;
  [[nodiscard]] void* harness_stream() override { return housekeeping_stream_.get(); }
  [[nodiscard]] const void* resident(std::string_view name, const void* bytes, std::size_t size) override;

  [[nodiscard]] std::vector<TimerKind> timers() const override;
  [[nodiscard]] std::unique_ptr<IterationTimer> make_timer(TimerKind kind) override;
  [[nodiscard]] DevicePeaks measure_peaks() override;
  void mark_call_begin(const char* name) override;
  void mark_call_end() override;

 private:
  [[nodiscard]] double empty_launch_latency(std::string& how);
  void remember_size(void* ptr, std::size_t size);
  static void free_blocks(const std::vector<void*>& blocks) noexcept;

  int ordinal_;
  cudaDeviceProp properties_;
  CudaStream kernel_stream_;
  CudaStream housekeeping_stream_;
  L2Flush flush_;
  ClockMonitor clocks_;
  DeviceInfo info_;
  CudaResidentTables tables_;
  bool sticky_ = false;
  // Freed blocks kept for the next allocation of their size (device_block_cache.h), and
  // the size of every block handed out, which release() is not told.
  DeviceBlockCache blocks_;
  std::mutex sizes_mutex_;
  std::unordered_map<void*, std::size_t> sizes_;
  // CUPTI's activity subscription, from the first CUPTI timer on; declared last, so it
  // is disabled (and flushed) while the streams and the context are still there.
  std::shared_ptr<CuptiActivity> cupti_;
  void* touch_ = nullptr;  // 4 bytes that between_requests() sets
};

// Whether a CUDA error leaves the context unusable (CUDA runtime documentation:
// "the process must be terminated and relaunched").
[[nodiscard]] bool is_sticky_cuda_error(cudaError_t status);

}  // namespace kh
