// Backend: the device that runs kernels (CUDA GPU or the host CPU).
//
// The harness's measurement code talks to devices only through this interface, so
// the whole pipeline runs in CI on the CPU backend. Implementations live in
// cuda_backend.cpp and cpu_backend.cpp and are chosen by name in backend_registry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "device/device_peaks.h"
#include "tensor/portable/fill_steps.h"

namespace kh {

class IterationTimer;
enum class DType : std::uint8_t;  // tensor/dtype.h, which device code does not include

// What the trace's `environment` records about the device.
struct DeviceInfo {
  std::string backend;              // "cuda" | "cpu"
  std::string name;                 // "NVIDIA H200", or the CPU model
  std::string uuid;                 // "GPU-..." as nvidia-smi prints it; "" on CPU
  std::string pci_bus_id;           // "0000:3b:00.0"; "" on CPU
  std::string driver;               // driver version, "" on CPU
  std::string runtime;              // CUDA runtime version, "" on CPU
  int compute_capability = 0;       // major*10+minor, e.g. 90; 0 on CPU
  int sm_count = 0;                 // or CPU cores
  std::size_t l2_bytes = 0;         // or last-level cache size
  double nominal_sm_clock_mhz = 0;  // max SM clock (NVML) or 0 when unknown
  // Why SM clocks are not read (e.g. "libnvidia-ml.so.1 not loaded: ..."), so the
  // trace says so instead of silently omitting them; "" when they are read.
  std::string clocks_unavailable_reason;
};

enum class TimerKind { cupti_span, cuda_event, steady_clock };

class Backend {
 public:
  virtual ~Backend() = default;
  Backend() = default;
  Backend(const Backend&) = delete;  // owns device state (context, flush buffer, stream)
  Backend& operator=(const Backend&) = delete;

  [[nodiscard]] virtual const DeviceInfo& info() const = 0;
  // DLPack device of memory from allocate(): kDLCUDA/ordinal or kDLCPU/0.
  [[nodiscard]] virtual int dlpack_device_type() const = 0;
  [[nodiscard]] virtual int device_ordinal() const = 0;

  // Device memory. allocate() never returns nullptr; it throws kh::Error.
  [[nodiscard]] virtual void* allocate(std::size_t bytes) = 0;
  virtual void release(void* ptr) noexcept = 0;
  virtual void upload(void* dst, const void* src, std::size_t bytes) = 0;
  virtual void download(void* dst, const void* src, std::size_t bytes) = 0;
  virtual void fill(void* dst, std::uint8_t byte, std::size_t bytes) = 0;

  // Many copies with one synchronisation, for the rotating input sets of the timed
  // loop; the defaults copy one by one.
  struct Copy {
    void* dst;
    const void* src;
    std::size_t bytes;
  };
  virtual void upload_all(const std::vector<Copy>& copies) {
    for (const Copy& c : copies) upload(c.dst, c.src, c.bytes);
  }
  virtual void download_all(const std::vector<Copy>& copies) {
    for (const Copy& c : copies) download(c.dst, c.src, c.bytes);
  }
  // Readies host memory that downloads will land in again and again (the shared reply
  // region): on CUDA it is page-locked, so copies from the device write it directly
  // instead of through the driver's staging buffer (on the H200 host, about 3 GB/s
  // through the staging, several times that direct). It must stay mapped until
  // unpin_host_range(). Returns why it could not, or an empty string; downloads into
  // the range work either way.
  [[nodiscard]] virtual std::string pin_host_range(void* /*data*/, std::size_t /*bytes*/) { return {}; }
  virtual void unpin_host_range(void* /*data*/) noexcept {}

  // Input generation where the kernels read the inputs (eval/input_generator.h). A fill
  // applies its rule (tensor/random_fill.h) to `numel` elements at `data` with the same
  // per-element steps as the host (tensor/portable/fill_steps.h), so the bytes equal the
  // host twin's. On CUDA the fills are queued on harness_stream() and synchronize() waits
  // for them; the default, for host memory, fills in place before it returns.
  struct RandomFill {
    void* data;
    DType dtype;
    std::size_t numel;
    detail::FillRule rule;
  };
  virtual void fill_random(const std::vector<RandomFill>& fills) { fill_random_on_host(fills); }
  static void fill_random_on_host(const std::vector<RandomFill>& fills);
  // The stream of the harness's own device work (copies, fills, generation), apart from
  // the kernel stream; nullptr on the CPU.
  [[nodiscard]] virtual void* harness_stream() { return nullptr; }
  // A read-only copy of `bytes` where kernels can read it, made once per `name` for the
  // backend's life: the generators' tables. The default, for host memory, returns
  // `bytes` itself, which must then outlive every use.
  [[nodiscard]] virtual const void* resident(std::string_view name, const void* bytes, std::size_t size);

  // Content hashes (tensor/chunked_hash.h) of device memory, one per region in order,
  // computed where the bytes lie: the input-tamper check hashes gigabytes per request,
  // and copying them to the host to hash took seconds. Like download, it first waits for
  // the whole device, so work a candidate left in flight cannot race the reads.
  struct Region {
    const void* data;
    std::size_t bytes;
  };
  [[nodiscard]] virtual std::vector<std::uint64_t> hash_all(const std::vector<Region>& regions) = 0;

  // The stream handed to kernels (cudaStream_t, or nullptr on CPU).
  [[nodiscard]] virtual void* stream() = 0;
  // Waits for all work on the whole device, every stream. Throws kh::Error carrying the
  // CUDA error on failure; sticky() then tells whether the context is unusable.
  virtual void synchronize() = 0;
  [[nodiscard]] virtual bool sticky() const = 0;

  // Evicts the last-level cache; the buffer is allocated once, in the constructor.
  virtual void flush_cache() = 0;
  // Fills `regions` with `byte`, then evicts the cache: the per-iteration preparation
  // of the timed loop (poison the outputs, then flush so the poison is not cached).
  // Backends may do both with one synchronisation; this default does them in turn.
  virtual void poison_then_flush(const std::vector<std::pair<void*, std::size_t>>& regions,
                                 std::uint8_t byte) {
    for (const auto& [ptr, bytes] : regions) fill(ptr, byte, bytes);
    flush_cache();
  }
  // Called by a worker after it sent a reply, while the orchestrator reads it: costs the
  // backend would otherwise charge to the next request are paid here. Never throws; an
  // error it meets resurfaces in the next call.
  virtual void between_requests() noexcept {}
  // Current SM clock in MHz (NVML), or nullopt where it cannot be read.
  [[nodiscard]] virtual std::optional<double> sm_clock_mhz() = 0;

  // Timers this backend supports, best first; make_timer(kind) for one of them.
  [[nodiscard]] virtual std::vector<TimerKind> timers() const = 0;
  [[nodiscard]] virtual std::unique_ptr<IterationTimer> make_timer(TimerKind kind) = 0;
  // The best timer that can be made now (CUPTI can be taken by a profiler): null when
  // none can. Why each better one could not be made is appended to `refused`, for the
  // record, never swallowed.
  [[nodiscard]] std::unique_ptr<IterationTimer> make_best_timer(std::string& refused);

  // Names the span of one kernel call for profilers (an NVTX range on CUDA, so ncu can
  // select exactly the candidate's launches); a no-op elsewhere and when no tool listens.
  virtual void mark_call_begin(const char* /*name*/) {}
  virtual void mark_call_end() {}

  // Measures bandwidth and compute peaks (device_peaks.h); seconds of work, so callers
  // cache the result per device.
  [[nodiscard]] virtual DevicePeaks measure_peaks() = 0;
};

// "cpu", "cuda" (device 0) or "cuda:N" (device N). Throws kh::Error naming the backend when it is unknown or
// unavailable (e.g. "cuda" in a build without CUDA, or with no GPU present).
[[nodiscard]] std::unique_ptr<Backend> make_backend(std::string_view name);
// Names of the backends compiled into this binary.
[[nodiscard]] std::vector<std::string> compiled_backends();

}  // namespace kh
