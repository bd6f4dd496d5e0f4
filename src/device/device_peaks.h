// The measured peaks of a device: what the speed-of-light floor of a workload is
// computed from. Datasheet numbers are never used: a memory-bound kernel is judged
// against the bandwidth this very device delivers to a plain copy.
//
// CUDA: a device-to-device copy (bytes read + bytes written per second), an FFMA
// chain kernel (fp32), and cuBLAS / cuBLASLt GEMMs for bf16 and fp8 (e4m3) tensor
// throughput. CPU (the backend runs kernels on one thread): memcpy on one core and a
// vectorisable FMA loop; a CPU has no tensor units, so those equal the fp32 rate.
#pragma once

#include <string>
#include <string_view>

namespace kh {

// The unit an operator's math runs on at best.
enum class ComputeUnit { fp32, bf16_tensor, fp8_tensor };

[[nodiscard]] std::string_view compute_unit_name(ComputeUnit u) noexcept;

struct DevicePeaks {
  double bandwidth = 0;    // bytes/s moved by a large device-memory copy (read + write)
  double fp32 = 0;         // FLOP/s, FFMA (2 FLOPs each)
  double bf16_tensor = 0;  // FLOP/s, dense bf16 GEMM with fp32 accumulation
  double fp8_tensor = 0;   // FLOP/s, dense e4m3 GEMM with fp32 accumulation
  std::string method;      // how each was measured, for the record
  // Seconds: what the harness's own timer reports for one empty kernel, the least any
  // call can show (launch ramp-up and drain, ~1 us on an H200). It is added to every
  // floor, so that a tiny call's speed-of-light fraction can approach 1.
  double launch_latency = 0;

  [[nodiscard]] double compute(ComputeUnit u) const noexcept;
  [[nodiscard]] bool measured() const noexcept { return bandwidth > 0 && fp32 > 0; }
};

}  // namespace kh
