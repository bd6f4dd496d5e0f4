#include "cli/peaks_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "cli/backend_choice.h"
#include "cli/guarded_run.h"
#include "compile/build_cache.h"
#include "error/error.h"
#include "eval/device_peaks_json.h"
#include "eval/measurement_client.h"
#include "worker/self_executable.h"

namespace kh::cli {

namespace {

struct PeaksArgs {
  std::string backend = "auto";
  bool json = false;
  bool refresh = false;
};

int run_peaks(const PeaksArgs& a) {
  const std::string backend = pick_backend(a.backend);
  const auto scratch =
      std::filesystem::temp_directory_path() / ("kharness-peaks-" + std::to_string(::getpid()));
  DevicePeaks p;
  nlohmann::ordered_json device;
  {
    WorkerConfig config;
    config.executable = self_executable();
    config.backend = backend;
    config.work_dir = scratch;
    config.timeout = std::chrono::minutes(5);
    config.candidate = false;  // the peaks kernels are kharness's own
    MeasurementClient worker(config);
    device = worker.device();
    p = cached_device_peaks(worker, BuildCache::default_dir(), a.refresh);
  }
  std::error_code ignored;  // a leftover scratch folder is not worth a failure
  std::filesystem::remove_all(scratch, ignored);
  if (a.json) {
    fmt::print("{}\n", nlohmann::ordered_json{{"device", device}, {"peaks", peaks_json(p)}}.dump(2));
    return 0;
  }
  fmt::print("{} ({} backend)\n", device.value("name", std::string("?")), backend);
  fmt::print("  bandwidth    {:10.1f} GB/s\n", p.bandwidth / 1e9);
  fmt::print("  fp32         {:10.4g} TFLOP/s\n", p.fp32 / 1e12);
  fmt::print("  bf16 tensor  {:10.4g} TFLOP/s\n", p.bf16_tensor / 1e12);
  fmt::print("  fp8 tensor   {:10.4g} TFLOP/s\n", p.fp8_tensor / 1e12);
  fmt::print("  launch       {:10.3f} us (an empty kernel; added to every floor)\n", p.launch_latency * 1e6);
  fmt::print("  method: {}\n", p.method);
  return 0;
}

}  // namespace

void register_peaks(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<PeaksArgs>();
  CLI::App* cmd = app.add_subcommand(
      "peaks", "Measured bandwidth and compute peaks of the device (cached per device), for speed of light");
  cmd->add_option("--backend", args->backend, "cuda, cpu, or auto (cuda where a GPU is present)")
      ->check(CLI::IsMember({"auto", "cuda", "cpu"}));
  cmd->add_flag("--json", args->json, "Print the device and its peaks as JSON");
  cmd->add_flag("--refresh", args->refresh, "Measure again even when cached");
  cmd->callback([args, &exit_code] { guarded_run(exit_code, [&] { return run_peaks(*args); }); });
}

}  // namespace kh::cli
