// CpuBackend: the host CPU behind the Backend interface, so the whole pipeline
// (build, isolate, check, time, trace) runs in CI without a GPU. Kernels run on the
// calling thread; there is no stream and nothing to synchronise.
#pragma once

#include "device/backend.h"
#include "device/host_cache_flush.h"

namespace kh {

class CpuBackend final : public Backend {
 public:
  // Memory from allocate() is aligned to a cache line, like cudaMalloc's alignment
  // is at least as large as any vector load a kernel might use.
  static constexpr std::size_t kAlignment = 64;

  CpuBackend();

  [[nodiscard]] const DeviceInfo& info() const override { return info_; }
  [[nodiscard]] int dlpack_device_type() const override;
  [[nodiscard]] int device_ordinal() const override { return 0; }

  [[nodiscard]] void* allocate(std::size_t bytes) override;
  void release(void* ptr) noexcept override;
  void upload(void* dst, const void* src, std::size_t bytes) override;
  void download(void* dst, const void* src, std::size_t bytes) override;
  void fill(void* dst, std::uint8_t byte, std::size_t bytes) override;
  // The host implementation over the buffers themselves: device memory is host memory.
  [[nodiscard]] std::vector<std::uint64_t> hash_all(const std::vector<Region>& regions) override;

  [[nodiscard]] void* stream() override { return nullptr; }
  void synchronize() override {}
  [[nodiscard]] bool sticky() const override { return false; }

  void flush_cache() override { flush_.flush(); }
  void poison_then_flush(const std::vector<std::pair<void*, std::size_t>>& regions,
                         std::uint8_t byte) override;
  [[nodiscard]] std::optional<double> sm_clock_mhz() override { return std::nullopt; }

  [[nodiscard]] std::vector<TimerKind> timers() const override { return {TimerKind::steady_clock}; }
  [[nodiscard]] std::unique_ptr<IterationTimer> make_timer(TimerKind kind) override;
  [[nodiscard]] DevicePeaks measure_peaks() override;

 private:
  DeviceInfo info_;
  HostCacheFlush flush_;
};

}  // namespace kh
