// GenerationSite: where a set of inputs is generated, the host or a backend's device,
// and the few things a generator needs there. An operator's generator (its folder's
// harness/, see eval/input_generator.h) asks on_device() and either launches its
// kernels on stream() or runs its host twin over the same memory; both compute every
// byte with the same portable steps (tensor/portable/portable.h), so they agree.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string_view>
#include <vector>

#include "device/backend.h"
#include "eval/worker_side/device_tensors.h"

namespace kh {

class GenerationSite {
 public:
  // Host memory (the orchestrator's make_inputs, the CPU backend's worker).
  GenerationSite() = default;
  // The backend's memory: the device's for CUDA, host memory for the CPU backend.
  explicit GenerationSite(Backend& backend);

  [[nodiscard]] bool on_device() const noexcept { return on_device_; }
  // The stream a generator's kernels go on (cudaStream_t); nullptr on the host. The
  // fills queued so far are launched first, since those kernels may read what they fill.
  [[nodiscard]] void* stream();

  // The default rule's fills, where the data lies (Backend::fill_random). On a device
  // they are queued and launched together at the site's next other use: the sets of a
  // request then cost a few batched launches, not one or two a set (each launch costs
  // microseconds more while CUPTI records activity).
  void fill(const std::vector<Backend::RandomFill>& fills);
  // Copies bytes made on the host (a page table, sequence lengths) to `dst`, ordered
  // after the work queued so far; complete when it returns.
  void upload(void* dst, const void* src, std::size_t bytes);
  // Copies `bytes` from the site to the host (an input the workload loaded, which a
  // generator must read); waits for the queued work first.
  void download(void* dst, const void* src, std::size_t bytes);
  // A copy of a generator's table where its kernels read it (Backend::resident);
  // `bytes` must live as long as the process (a function-local static).
  [[nodiscard]] const void* table(std::string_view name, const void* bytes, std::size_t size);
  // Zeroed scratch memory at the site (a routing mask), valid until the site is destroyed,
  // which waits for the queued work first.
  [[nodiscard]] void* scratch(std::size_t bytes);
  // Waits for the queued generation; throws kh::Error when a kernel failed.
  void finish();

  GenerationSite(const GenerationSite&) = delete;  // owns scratch memory
  GenerationSite& operator=(const GenerationSite&) = delete;
  ~GenerationSite();

 private:
  [[nodiscard]] bool overlaps_queued(const Backend::RandomFill& fill) const;
  void launch_queued_fills();

  Backend* backend_ = nullptr;
  bool on_device_ = false;
  void* stream_ = nullptr;
  std::vector<Backend::RandomFill> queued_fills_;
  std::map<const std::byte*, const std::byte*> queued_ranges_;  // begin -> end of each queued fill
  std::vector<DeviceBuffer> device_scratch_;
  std::vector<std::unique_ptr<std::byte[]>> host_scratch_;
};

}  // namespace kh
