// DevicePeaks as JSON (the worker's reply, the peaks cache, traces), and the cache:
// peaks take seconds to measure, so they are measured once per device and kept under
// the build cache's folder, keyed by what identifies the device.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

#include "device/device_peaks.h"

namespace kh {

class MeasurementClient;

[[nodiscard]] nlohmann::ordered_json peaks_json(const DevicePeaks& p);
// Throws kh::Error naming the field when a value is missing or not a number.
[[nodiscard]] DevicePeaks peaks_from_json(const nlohmann::ordered_json& j);

// The cached peaks of the worker's device, measured through it on a miss (and then
// written atomically); `refresh` measures even on a hit. Throws kh::Error when the
// worker cannot measure them.
[[nodiscard]] DevicePeaks cached_device_peaks(MeasurementClient& worker,
                                              const std::filesystem::path& cache_dir, bool refresh = false);

}  // namespace kh
