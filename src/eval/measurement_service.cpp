#include "eval/measurement_service.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "error/error.h"
#include "eval/device_peaks_json.h"
#include "eval/input_generator.h"
#include "eval/measurement_protocol.h"
#include "eval/profiler_ranges.h"
#include "eval/thread_activity_probe.h"
#include "eval/timed_loop.h"
#include "eval/worker_payload.h"
#include "tensor/chunked_hash.h"
#include "trace/json_io.h"
#include "worker/worker_endpoint.h"

namespace kh {

namespace {

using Clock = std::chrono::steady_clock;

struct RequestedWorkload {
  Definition definition;
  Workload workload;
  std::filesystem::path root;
};

RequestedWorkload parse_workload_request(const ordered_json& h) {
  return {read_definition(h.at("definition"), Location{"", 0, "request.definition"}),
          read_workload(h.at("workload"), Location{"", 0, "request.workload"}),
          h.at("root").get<std::string>()};
}

std::string hex(std::uint64_t v) { return fmt::format("{:016x}", v); }

// Content hashes of one input set, in definition order, computed where they lie: a
// tensor's on the device, with nothing read back; a scalar's from its host value, since
// it never leaves the host.
ordered_json hash_inputs(Backend& backend, const std::vector<DeviceTensor>& device,
                         const std::vector<HostTensor>& host) {
  std::vector<Backend::Region> regions;
  for (const DeviceTensor& t : device) {
    if (!t.scalar) regions.push_back({t.data, t.bytes});
  }
  const std::vector<std::uint64_t> hashes = backend.hash_all(regions);
  ordered_json out = ordered_json::array();
  std::size_t next = 0;
  for (std::size_t i = 0; i < device.size(); ++i) {
    out.push_back(hex(device[i].scalar ? chunked_hash(host[i].bytes()) : hashes.at(next++)));
  }
  return out;
}

// The same for every input set of a timed request, set by set.
ordered_json hash_input_sets(Backend& backend, const std::vector<std::vector<DeviceTensor>>& device,
                             const std::vector<std::vector<HostTensor>>& host) {
  ordered_json out = ordered_json::array();
  for (std::size_t s = 0; s < device.size(); ++s) out.push_back(hash_inputs(backend, device[s], host[s]));
  return out;
}

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Input sets are independent, so they are generated side by side: with one set per timed
// iteration, generation would otherwise dominate the harness's own time.
std::vector<std::vector<HostTensor>> generate_sets(const RequestedWorkload& w,
                                                   const std::vector<std::uint64_t>& seeds) {
  std::vector<std::vector<HostTensor>> sets(seeds.size());
  const std::size_t lanes = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < seeds.size(); i = next++) {
      sets[i] = make_inputs(w.definition, w.workload, seeds[i], w.root);
    }
  };
  std::vector<std::future<void>> running;
  for (std::size_t l = 1; l < std::min(lanes, seeds.size()); ++l)
    running.push_back(std::async(std::launch::async, work));
  work();
  for (auto& f : running) f.get();  // rethrows a generator's kh::Error here
  return sets;
}

// Converts a failure of the candidate (or of the device under it) into reply fields.
void record_failure(Backend& backend, const std::string& what, ordered_json& reply) {
  reply["error"] = what;
  reply["sticky"] = backend.sticky();
}

}  // namespace

MeasurementService::MeasurementService(std::unique_ptr<Backend> backend) : backend_(std::move(backend)) {}

Message MeasurementService::handle(const Message& request) {
  const std::string& kind = request.kind();
  if (kind == measurement::kHello) return hello(request);
  if (kind == measurement::kLoad) return load(request);
  if (kind == measurement::kCheck) return check(request);
  if (kind == measurement::kTime) return time(request);
  if (kind == measurement::kPeaks) return peaks(request);
  throw Error(Location{"", 0, "kind"}, fmt::format("unknown request kind '{}'", kind));
}

Message MeasurementService::hello(const Message& request) const {
  const DeviceInfo& d = backend_->info();
  ordered_json device = {{"backend", d.backend},
                         {"name", d.name},
                         {"uuid", d.uuid},
                         {"pci_bus_id", d.pci_bus_id},
                         {"driver", d.driver},
                         {"runtime", d.runtime},
                         {"compute_capability", d.compute_capability},
                         {"sm_count", d.sm_count},
                         {"l2_bytes", d.l2_bytes},
                         {"nominal_sm_clock_mhz", d.nominal_sm_clock_mhz}};
  return Message::make("hello", request.request_id, {{"device", device}});
}

Message MeasurementService::peaks(const Message& request) {
  return Message::make("peaks", request.request_id, {{"peaks", peaks_json(backend_->measure_peaks())}});
}

Message MeasurementService::load(const Message& request) {
  library_ = KernelLibrary::open(request.header.at("library").get<std::string>(),
                                 request.header.at("signature").get<std::string>());
  return Message::make("load", request.request_id);
}

const KernelLibrary& MeasurementService::library() const {
  if (!library_) throw Error("no library loaded: send 'load' first");
  return *library_;
}

Message MeasurementService::check(const Message& request) {
  const KernelLibrary& lib = library();
  RequestedWorkload w = parse_workload_request(request.header);
  const auto seed = request.header.at("seed").get<std::uint64_t>();
  std::vector<HostTensor> inputs = make_inputs(w.definition, w.workload, seed, w.root);
  std::vector<HostTensor> outputs = make_outputs(w.definition, resolve_axes(w.definition, w.workload));
  std::vector<DeviceTensor> device_in = upload(*backend_, inputs);
  ordered_json reply = {{"input_hashes_before", hash_inputs(*backend_, device_in, inputs)},
                        {"sticky", false}};
  std::vector<DeviceTensor> device_out = allocate_like(*backend_, outputs);
  poison(*backend_, device_out, request.header.value("poison", std::uint8_t{0xFF}));
  backend_->synchronize();
  std::vector<kh_arg> args = make_args(device_in, device_out);
  const auto start = Clock::now();
  // The profiler (kharness profile) selects the candidate's launches by these ranges.
  if (w.workload.uuid != ranged_workload_) {
    ranged_workload_ = w.workload.uuid;
    calls_on_workload_ = 0;
  }
  const std::string call_range =
      call_range_name(request.header.value("candidate", true), ++calls_on_workload_);
  const std::string workload_range = workload_range_name(w.workload.uuid);
  backend_->mark_call_begin(call_range.c_str());
  backend_->mark_call_begin(workload_range.c_str());
  std::string error = lib.call(args, backend_->stream());
  backend_->mark_call_end();
  backend_->mark_call_end();
  try {
    backend_->synchronize();
  } catch (const Error& e) {
    error += (error.empty() ? "" : "; ") + std::string(e.what());
  }
  reply["call_ms"] = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  if (backend_->info().backend == "cpu" && request.header.value("probe_lingering", true)) {
    reply["lingering"] = lingering_to_json(ThreadActivityProbe::after_call(std::chrono::milliseconds(20)));
  }
  if (!error.empty()) {
    record_failure(*backend_, error, reply);
    return Message::make(measurement::kCheck, request.request_id, reply);
  }
  download(*backend_, device_out, outputs);
  reply["input_hashes_after"] = hash_inputs(*backend_, device_in, inputs);
  reply["outputs"] = describe_tensors(w.definition.outputs, outputs);
  return Message::make(measurement::kCheck, request.request_id, reply, concatenate(outputs));
}

Message MeasurementService::time(const Message& request) {
  const KernelLibrary& lib = library();
  RequestedWorkload w = parse_workload_request(request.header);
  const ordered_json& h = request.header;
  std::vector<std::vector<HostTensor>> host_sets;
  std::vector<std::vector<DeviceTensor>> device_sets;
  auto t = Clock::now();
  host_sets = generate_sets(w, h.at("set_seeds").get<std::vector<std::uint64_t>>());
  const double generate_ms = ms_since(t);
  t = Clock::now();
  device_sets = upload_sets(*backend_, host_sets);
  const double upload_ms = ms_since(t);
  t = Clock::now();
  ordered_json before = hash_input_sets(*backend_, device_sets, host_sets);
  double hash_ms = ms_since(t);
  const std::vector<HostTensor> templates =
      make_outputs(w.definition, resolve_axes(w.definition, w.workload));
  TimedLoopConfig config;
  config.warmup = h.value("warmup", 10);
  config.iterations = h.value("iterations", 50);
  config.recheck = h.value("recheck", 4);
  config.poison = h.value("poison", std::uint8_t{0xFF});
  if (h.contains("robust")) config.robust = stop_parameters_from_json(h.at("robust"));
  backend_->synchronize();

  ordered_json reply = {{"sticky", false}};
  TimedLoopResult r;
  try {
    r = run_timed_loop(*backend_, lib, device_sets, templates, config);
  } catch (const Error& e) {
    r.error = e.what();
  }
  if (!r.error.empty()) {
    record_failure(*backend_, r.error, reply);
    return Message::make(measurement::kTime, request.request_id, reply);
  }
  t = Clock::now();
  reply["input_hashes_before"] = std::move(before);
  reply["input_hashes_after"] = hash_input_sets(*backend_, device_sets, host_sets);
  hash_ms += ms_since(t);
  reply["setup_ms"] = {{"generate", generate_ms}, {"upload", upload_ms}, {"hash", hash_ms}};
  return timed_reply(request.request_id, w.definition, r, reply);
}

int run_measurement_worker(const std::string& backend_name) {
  Channel channel = open_inherited_channel();
  std::unique_ptr<MeasurementService> service;
  std::string startup_error;
  try {
    service = std::make_unique<MeasurementService>(make_backend(backend_name));
  } catch (const Error& e) {
    startup_error = e.what();  // answered to every request below, so the orchestrator sees why
  }
  serve(channel, [&](const Message& request) -> Message {
    if (!service) throw Error("worker could not start backend '" + backend_name + "': " + startup_error);
    return service->handle(request);
  });
  return 0;
}

}  // namespace kh
