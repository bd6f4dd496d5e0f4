#include "timing/clock_monitor.h"

#include <array>
#include <utility>

#include "error/error.h"
#include "timing/detail/nvml_call.h"
#include "timing/detail/nvml_library.h"

namespace kh {

ClockMonitor::ClockMonitor(const std::string& pci_bus_id) {
  try {
    open(pci_bus_id);
  } catch (const Error& e) {
    // Not swallowed: a monitor without NVML is a documented state, and the reason
    // travels into the trace through unavailable_reason().
    nvml_.reset();
    device_ = nullptr;
    nominal_mhz_.reset();
    driver_version_.clear();
    unavailable_reason_ = e.what();
  }
}

ClockMonitor::~ClockMonitor() = default;

void ClockMonitor::open(const std::string& pci_bus_id) {
  nvml_ = std::make_unique<detail::NvmlLibrary>();
  if (pci_bus_id.empty()) {
    KH_NVML_CALL(nvml_->handle_by_index(0, &device_));
  } else {
    KH_NVML_CALL(nvml_->handle_by_pci_bus_id(pci_bus_id.c_str(), &device_));
  }
  unsigned max_mhz = 0;
  KH_NVML_CALL(nvml_->max_clock_info(device_, detail::nvml::kClockSm, &max_mhz));
  nominal_mhz_ = static_cast<double>(max_mhz);
  std::array<char, detail::nvml::kDriverVersionBufferSize> version{};
  KH_NVML_CALL(nvml_->driver_version(version.data(), static_cast<unsigned>(version.size())));
  driver_version_ = version.data();
}

std::optional<double> ClockMonitor::sm_clock_mhz() {
  if (!available()) return std::nullopt;
  unsigned mhz = 0;
  KH_NVML_CALL(nvml_->clock_info(device_, detail::nvml::kClockSm, &mhz));
  return static_cast<double>(mhz);
}

bool ClockMonitor::throttled(double sample_mhz, double nominal_mhz) {
  if (nominal_mhz <= 0) return false;
  return sample_mhz < kThrottleFraction * nominal_mhz;
}

}  // namespace kh
