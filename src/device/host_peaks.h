// Peaks of the CPU backend, which runs a kernel on the calling thread: one core's
// memcpy bandwidth and its fp32 FMA rate from a loop the compiler vectorises.
#pragma once

#include "device/device_peaks.h"

namespace kh {

[[nodiscard]] DevicePeaks measure_host_peaks();

}  // namespace kh
