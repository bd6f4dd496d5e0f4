// ClockMonitor: reads the GPU's SM clock through NVML, never changes it.
//
// The robust protocol reads the clock around each sample and discards samples taken
// while the GPU was throttled (nvbench's rule: below 75% of the nominal clock). NVML
// is loaded at run time; where it is missing the monitor is unavailable, which is
// not an error: the trace then says that clocks were not read, and why.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "timing/detail/nvml_abi.h"

namespace kh {

namespace detail {
class NvmlLibrary;
}

class ClockMonitor {
 public:
  // A sample below this fraction of the nominal clock is throttled.
  static constexpr double kThrottleFraction = 0.75;

  // pci_bus_id as cudaDeviceGetPCIBusId writes it ("0000:3b:00.0"), so the NVML
  // device is exactly the CUDA device whatever CUDA_DEVICE_ORDER says. An empty
  // id selects NVML device 0.
  explicit ClockMonitor(const std::string& pci_bus_id);
  ~ClockMonitor();
  ClockMonitor(const ClockMonitor&) = delete;  // owns the NVML library handle
  ClockMonitor& operator=(const ClockMonitor&) = delete;

  [[nodiscard]] bool available() const { return nvml_ != nullptr; }
  // Why clocks are not read ("libnvidia-ml.so.1 not loaded: ..."); "" when available.
  [[nodiscard]] const std::string& unavailable_reason() const { return unavailable_reason_; }

  // Current SM clock in MHz; nullopt when unavailable. Throws kh::Error when NVML
  // is loaded but the query fails.
  [[nodiscard]] std::optional<double> sm_clock_mhz();
  // Maximum SM clock (nvmlDeviceGetMaxClockInfo), read once; nullopt when unavailable.
  [[nodiscard]] std::optional<double> nominal_sm_clock_mhz() const { return nominal_mhz_; }
  // NVML's driver version ("570.133.20"), or "" when unavailable.
  [[nodiscard]] const std::string& driver_version() const { return driver_version_; }

  // True when sample_mhz is below kThrottleFraction of nominal_mhz. An unknown
  // nominal clock (<= 0) never marks a sample throttled.
  [[nodiscard]] static bool throttled(double sample_mhz, double nominal_mhz);

 private:
  void open(const std::string& pci_bus_id);

  std::unique_ptr<detail::NvmlLibrary> nvml_;
  detail::nvml::Device device_ = nullptr;
  std::optional<double> nominal_mhz_;
  std::string driver_version_;
  std::string unavailable_reason_;
};

}  // namespace kh
