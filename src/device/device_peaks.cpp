#include "device/device_peaks.h"

namespace kh {

std::string_view compute_unit_name(ComputeUnit u) noexcept {
  switch (u) {
    case ComputeUnit::fp32:
      return "fp32";
    case ComputeUnit::bf16_tensor:
      return "bf16_tensor";
    case ComputeUnit::fp8_tensor:
      return "fp8_tensor";
  }
  return "fp32";
}

double DevicePeaks::compute(ComputeUnit u) const noexcept {
  switch (u) {
    case ComputeUnit::fp32:
      return fp32;
    case ComputeUnit::bf16_tensor:
      return bf16_tensor;
    case ComputeUnit::fp8_tensor:
      return fp8_tensor;
  }
  return 0;
}

}  // namespace kh
