// MeasurementService: the worker side of the harness. It owns the backend and the
// loaded candidate, and answers the requests of measurement_protocol.h.
//
// Nothing it says is trusted: it runs in the same process as the candidate. It
// reports raw facts (output bytes, input hashes, samples) and the orchestrator
// decides every verdict.
#pragma once

#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "device/backend.h"
#include "eval/worker_side/device_tensors.h"
#include "eval/worker_side/kernel.h"
#include "trace/definition.h"
#include "worker/message.h"

namespace kh {

class MeasurementService {
 public:
  // `reply_region`: the channel's shared reply region (worker/shared_region.h), where
  // output payloads are written in place; empty to send them through the socket.
  explicit MeasurementService(std::unique_ptr<Backend> backend, std::span<std::byte> reply_region = {});
  ~MeasurementService();
  MeasurementService(const MeasurementService&) = delete;
  MeasurementService& operator=(const MeasurementService&) = delete;

  // Answers one request; throws kh::Error for a malformed request. The reply carries
  // `handled_ms`, the worker's time on it.
  [[nodiscard]] Message handle(const Message& request);
  // After a reply went out: the backend pays here what the next request would (a
  // CUPTI flush's cost to the next recorded call), while the orchestrator reads it.
  void between_requests() noexcept { backend_->between_requests(); }

 private:
  [[nodiscard]] Message dispatch(const Message& request);
  [[nodiscard]] Message hello(const Message& request) const;
  [[nodiscard]] Message load(const Message& request);
  [[nodiscard]] Message peaks(const Message& request);
  [[nodiscard]] Message check(const Message& request);
  [[nodiscard]] Message check_sets(const Message& request);
  [[nodiscard]] Message time(const Message& request);
  [[nodiscard]] Message timed_outputs(const Message& request);
  [[nodiscard]] const Kernel& kernel() const;
  // One call of the loaded solution, inside the profiler's ranges for the workload, up
  // to its synchronisation (a device error there is the call's). Sets `call_ms`.
  [[nodiscard]] CallResult named_call(const Workload& workload, bool candidate,
                                      std::vector<DeviceTensor>& inputs, std::vector<DeviceTensor>& outputs,
                                      double& call_ms);
  // A reply whose payload is `device` laid out as `layouts`: downloaded in place into the
  // reply region when it fits there, else into a payload buffer. Adds the download's
  // milliseconds to `download_ms`.
  [[nodiscard]] Message reply_with_outputs(std::string_view kind, std::uint64_t request_id,
                                           nlohmann::ordered_json fields,
                                           const std::vector<DeviceTensor>& device,
                                           const std::vector<TensorLayout>& layouts, double& download_ms);
  // The first `bytes` of the reply region, page-locked as far as the backend can.
  [[nodiscard]] std::span<std::byte> region_for(std::size_t bytes);

  std::unique_ptr<Backend> backend_;
  std::span<std::byte> reply_region_;
  std::size_t pinned_bytes_ = 0;  // of reply_region_, from its start
  std::string pin_failure_;       // once pinning failed, it is not tried again
  // Check calls served on the current workload, to name profiler ranges (profiler_ranges.h).
  std::string ranged_workload_;
  std::uint64_t calls_on_workload_ = 0;
  std::unique_ptr<Kernel> kernel_;
  // The output slots of the latest timed loop and their outputs' names, until the next
  // check or time request: the orchestrator fetches the ones it draws.
  std::vector<std::vector<DeviceTensor>> kept_outputs_;
  NamedList<TensorSpec> kept_specs_;
  std::vector<TensorLayout> kept_layouts_;
};

// The `kharness __worker` entry point: serves requests on the inherited channel
// until shutdown. Returns the process exit code.
int run_measurement_worker(const std::string& backend_name);

}  // namespace kh
