#include "eval/device_peaks_json.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <mutex>
#include <span>

#include "error/error.h"
#include "eval/measurement_client.h"
#include "tensor/fast_hash.h"

namespace kh {

namespace {

double number(const nlohmann::ordered_json& j, const char* field) {
  if (!j.contains(field) || !j[field].is_number()) {
    throw Error(Location{"", 0, std::string("peaks.") + field}, "missing or not a number");
  }
  return j[field].get<double>();
}

// What identifies a device for its peaks: its model, SM count and driver, and on CUDA the
// GPU itself (its UUID). Two GPUs of one model differ by a few percent in what they
// deliver (clocks under power limits, memory), and a degraded one by more, so each GPU
// of a host or a cluster is measured once and judged against its own ceilings.
std::string device_key(const nlohmann::ordered_json& device) {
  std::string identity =
      fmt::format("{}|{}|{}|{}", device.value("backend", std::string()), device.value("name", std::string()),
                  device.value("sm_count", 0), device.value("driver", std::string()));
  if (const std::string uuid = device.value("uuid", std::string()); !uuid.empty()) identity += "|" + uuid;
  return fmt::format("{:016x}", hash_bytes(std::as_bytes(std::span(identity.data(), identity.size()))));
}

}  // namespace

nlohmann::ordered_json peaks_json(const DevicePeaks& p) {
  return {{"bandwidth_bytes_per_s", p.bandwidth}, {"fp32_flops", p.fp32},
          {"bf16_tensor_flops", p.bf16_tensor},   {"fp8_tensor_flops", p.fp8_tensor},
          {"launch_latency_s", p.launch_latency}, {"method", p.method}};
}

DevicePeaks peaks_from_json(const nlohmann::ordered_json& j) {
  DevicePeaks p;
  p.bandwidth = number(j, "bandwidth_bytes_per_s");
  p.fp32 = number(j, "fp32_flops");
  p.bf16_tensor = number(j, "bf16_tensor_flops");
  p.fp8_tensor = number(j, "fp8_tensor_flops");
  // Absent from peaks measured before it was: their floors carry no launch latency.
  if (j.contains("launch_latency_s")) p.launch_latency = number(j, "launch_latency_s");
  p.method = j.value("method", std::string());
  return p;
}

DevicePeaks cached_device_peaks(MeasurementClient& worker, const std::filesystem::path& cache_dir,
                                bool refresh) {
  // Lanes of one evaluation start together: one measures while the others wait, then
  // read its entry (CPU lanes share one device key; measuring side by side would halve
  // what each saw).
  static std::mutex measuring;
  const std::lock_guard lock(measuring);
  const std::filesystem::path path = cache_dir / "peaks" / (device_key(worker.device()) + ".json");
  if (std::ifstream in(path); in && !refresh) {
    try {
      const auto cached = nlohmann::ordered_json::parse(in);
      if (!cached.at("peaks").contains("launch_latency_s"))
        throw Error("the entry predates the launch latency, which every floor now includes");
      return peaks_from_json(cached.at("peaks"));
    } catch (const std::exception& e) {
      // A damaged cache entry is re-measured, and the reason shown once.
      fmt::print(stderr, "note: re-measuring device peaks: {}: {}\n", path.string(), e.what());
    }
  }
  fmt::print(stderr, "measuring the peaks of {} (once per device) ...\n",
             worker.device().value("name", std::string("the device")));
  DevicePeaks p = worker.peaks();
  std::filesystem::create_directories(path.parent_path());
  const std::filesystem::path temporary = path.string() + "." + std::to_string(::getpid());
  {
    std::ofstream out(temporary);
    out << nlohmann::ordered_json{{"device", worker.device()}, {"peaks", peaks_json(p)}}.dump(2) << "\n";
  }
  std::filesystem::rename(temporary, path);
  return p;
}

}  // namespace kh
