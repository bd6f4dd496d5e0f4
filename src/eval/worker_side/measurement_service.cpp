#include "eval/worker_side/measurement_service.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <iostream>

#include "error/error.h"
#include "eval/device_inputs.h"
#include "eval/device_peaks_json.h"
#include "eval/input_generator.h"
#include "eval/wire/measurement_protocol.h"
#include "eval/wire/worker_payload.h"
#include "eval/worker_side/kernel_loader.h"
#include "eval/worker_side/profiler_ranges.h"
#include "eval/worker_side/thread_activity_probe.h"
#include "eval/worker_side/timed_loop.h"
#include "tensor/chunked_hash.h"
#include "tensor/element_access.h"
#include "timing/iteration_timer.h"
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

// Content hashes of input sets, set by set in definition order, computed where they lie:
// a tensor's on the device, all sets in one pass with nothing but the hashes read back;
// a scalar's from its value stored in its dtype, since it never leaves the host.
InputSetHashes set_hashes(Backend& backend, const std::vector<std::vector<DeviceTensor>>& sets) {
  std::vector<Backend::Region> regions;
  for (const auto& set : sets)
    for (const DeviceTensor& t : set)
      if (!t.scalar) regions.push_back({t.data, t.bytes});
  const std::vector<std::uint64_t> hashes = backend.hash_all(regions);
  InputSetHashes out;
  out.reserve(sets.size());
  std::size_t next = 0;
  for (const auto& set : sets) {
    std::vector<std::uint64_t>& one = out.emplace_back();
    for (const DeviceTensor& t : set) {
      if (!t.scalar) {
        one.push_back(hashes.at(next++));
        continue;
      }
      HostTensor value = HostTensor::scalar(t.dtype);
      write_from_double(value, 0, t.scalar_value);
      one.push_back(chunked_hash(value.bytes()));
    }
  }
  return out;
}

// The same as JSON, in the hex form the orchestrator compares.
ordered_json hashes_to_json(const InputSetHashes& sets) {
  ordered_json out = ordered_json::array();
  for (const auto& set : sets) {
    ordered_json one = ordered_json::array();
    for (const std::uint64_t h : set) one.push_back(chunked_hash_hex(h));
    out.push_back(std::move(one));
  }
  return out;
}

ordered_json hash_input_sets(Backend& backend, const std::vector<std::vector<DeviceTensor>>& sets) {
  return hashes_to_json(set_hashes(backend, sets));
}

ordered_json hash_inputs(Backend& backend, const std::vector<DeviceTensor>& set) {
  return hash_input_sets(backend, {set}).at(0);
}

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Converts a failure of the candidate (or of the device under it) into reply fields.
void record_failure(Backend& backend, const std::string& what, EvalStatus status, ordered_json& reply) {
  reply["error"] = what;
  if (status != EvalStatus::runtime_error) reply["error_status"] = status_name(status);
  reply["sticky"] = backend.sticky();
}

// The poison byte of each of `count` seeds: `poisons`, one a seed, or `poison` for all.
std::vector<std::uint8_t> seed_poisons(const ordered_json& h, std::size_t count) {
  if (!h.contains("poisons")) return std::vector<std::uint8_t>(count, h.value("poison", std::uint8_t{0xFF}));
  auto poisons = h.at("poisons").get<std::vector<std::uint8_t>>();
  if (poisons.size() != count) {
    throw Error(Location{"", 0, "request.poisons"},
                fmt::format("{} poison bytes for {} seeds", poisons.size(), count));
  }
  return poisons;
}

}  // namespace

MeasurementService::MeasurementService(std::unique_ptr<Backend> backend, std::span<std::byte> reply_region)
    : backend_(std::move(backend)), reply_region_(reply_region) {}

MeasurementService::~MeasurementService() {
  if (pinned_bytes_ > 0) backend_->unpin_host_range(reply_region_.data());
}

std::span<std::byte> MeasurementService::region_for(std::size_t bytes) {
  if (bytes == 0 || bytes > reply_region_.size()) return {};
  if (bytes > pinned_bytes_ && pin_failure_.empty()) {
    // Pinned in powers of two from 1 MiB: a few registrations over a worker's life, each
    // as large as the largest payload so far needs.
    if (pinned_bytes_ > 0) backend_->unpin_host_range(reply_region_.data());
    pinned_bytes_ = 0;
    const std::size_t want =
        std::min(reply_region_.size(), std::bit_ceil(std::max(bytes, std::size_t{1} << 20)));
    pin_failure_ = backend_->pin_host_range(reply_region_.data(), want);
    if (pin_failure_.empty()) {
      pinned_bytes_ = want;
    } else {
      std::cerr << "kharness worker: the reply region stays pageable (" << pin_failure_
                << "); outputs are copied through the driver's staging buffer\n";
    }
  }
  return reply_region_.first(bytes);
}

Message MeasurementService::reply_with_outputs(std::string_view kind, std::uint64_t request_id,
                                               ordered_json fields, const std::vector<DeviceTensor>& device,
                                               const std::vector<TensorLayout>& layouts,
                                               double& download_ms) {
  const auto start = Clock::now();
  const std::size_t bytes = concatenated_bytes(layouts);
  const std::span<std::byte> region = region_for(bytes);
  if (region.empty()) {
    std::vector<std::byte> payload = download_concatenated(*backend_, device, layouts);
    download_ms += ms_since(start);
    return Message::make(kind, request_id, std::move(fields), std::move(payload));
  }
  download_concatenated_into(*backend_, device, layouts, region);
  download_ms += ms_since(start);
  Message reply = Message::make(kind, request_id, std::move(fields));
  reply.payload_in_region = bytes;
  return reply;
}

Message MeasurementService::handle(const Message& request) {
  const auto start = Clock::now();
  Message reply = dispatch(request);
  // The request as the worker saw it: the orchestrator's wall time less this is the
  // transport (and the time the request waited for the worker).
  if (reply.header.is_object()) reply.header["handled_ms"] = ms_since(start);
  return reply;
}

Message MeasurementService::dispatch(const Message& request) {
  const std::string& kind = request.kind();
  if (kind == measurement::kHello) return hello(request);
  if (kind == measurement::kLoad) return load(request);
  if (kind == measurement::kCheck) return check(request);
  if (kind == measurement::kCheckSets) return check_sets(request);
  if (kind == measurement::kTime) return time(request);
  if (kind == measurement::kTimedOutputs) return timed_outputs(request);
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
  try {
    kernel_ = load_kernel(request.header, *backend_);
  } catch (const KernelRejected& e) {
    return Message::make("load", request.request_id, {{"rejected", e.what()}});
  }
  return Message::make("load", request.request_id);
}

const Kernel& MeasurementService::kernel() const {
  if (!kernel_) throw Error("no solution loaded: send 'load' first");
  return *kernel_;
}

CallResult MeasurementService::named_call(const Workload& workload, bool candidate,
                                          std::vector<DeviceTensor>& inputs,
                                          std::vector<DeviceTensor>& outputs, double& call_ms) {
  std::vector<kh_arg> args = make_args(inputs, outputs);
  const std::unique_ptr<PreparedCall> prepared = kernel().prepare(args, backend_->stream());
  const auto start = Clock::now();
  // The profiler (kharness profile) selects the candidate's launches by these ranges.
  if (workload.uuid != ranged_workload_) {
    ranged_workload_ = workload.uuid;
    calls_on_workload_ = 0;
  }
  const std::string call_range = call_range_name(candidate, ++calls_on_workload_);
  const std::string workload_range = workload_range_name(workload.uuid);
  backend_->mark_call_begin(call_range.c_str());
  backend_->mark_call_begin(workload_range.c_str());
  CallResult outcome = prepared->run();
  backend_->mark_call_end();
  backend_->mark_call_end();
  try {
    backend_->synchronize();
  } catch (const Error& e) {
    outcome.message += (outcome.message.empty() ? "" : "; ") + std::string(e.what());
    outcome.status = EvalStatus::runtime_error;
  }
  call_ms = ms_since(start);
  return outcome;
}

Message MeasurementService::check(const Message& request) {
  static_cast<void>(kernel());  // a request before `load` is malformed
  kept_outputs_.clear();
  RequestedWorkload w = parse_workload_request(request.header);
  const auto seed = request.header.at("seed").get<std::uint64_t>();
  const AxisValues axes = resolve_axes(w.definition, w.workload);
  // The replies' layout: the one the orchestrator checks them against.
  const std::vector<TensorLayout> layouts = output_layouts(w.definition, axes);
  ordered_json phases = ordered_json::object();  // the worker's account, for the trace
  auto t = Clock::now();
  std::vector<DeviceTensor> device_in =
      std::move(generate_input_sets(*backend_, w.definition, w.workload, w.root, {seed}).front());
  phases["generate"] = ms_since(t);
  t = Clock::now();
  ordered_json reply = {{"input_hashes_before", hash_inputs(*backend_, device_in)}, {"sticky", false}};
  phases["hash"] = ms_since(t);
  t = Clock::now();
  std::vector<DeviceTensor> device_out = allocate_outputs(*backend_, layouts);
  poison(*backend_, device_out, request.header.value("poison", std::uint8_t{0xFF}));
  backend_->synchronize();
  phases["poison"] = ms_since(t);
  double call_ms = 0;
  const CallResult outcome =
      named_call(w.workload, request.header.value("candidate", true), device_in, device_out, call_ms);
  reply["call_ms"] = call_ms;
  if (backend_->info().backend == "cpu" && request.header.value("probe_lingering", true)) {
    reply["lingering"] = lingering_to_json(ThreadActivityProbe::after_call(std::chrono::milliseconds(20)));
  }
  phases["call"] = call_ms;
  if (!outcome.ok()) {
    record_failure(*backend_, outcome.message, outcome.status, reply);
    return Message::make(measurement::kCheck, request.request_id, reply);
  }
  t = Clock::now();
  reply["input_hashes_after"] = hash_inputs(*backend_, device_in);
  phases["hash"] = phases["hash"].get<double>() + ms_since(t);
  reply["outputs"] = describe_tensors(w.definition.outputs, layouts);
  double download_ms = 0;
  Message m =
      reply_with_outputs(measurement::kCheck, request.request_id, reply, device_out, layouts, download_ms);
  m.header["phases_ms"] = std::move(phases);
  m.header["phases_ms"]["download"] = download_ms;
  return m;
}

// `check` for several seeds in one request: the sets are generated, hashed, poisoned and
// read back together, so the per-request costs (round trip, synchronisations, launches
// of the generators) are paid once. Each call still ends in its own synchronisation, so
// that a failure is the call's. No lingering-work probe: the orchestrator asks this of
// the reference, and of a candidate only on the CUDA backend, where there is none.
Message MeasurementService::check_sets(const Message& request) {
  static_cast<void>(kernel());
  kept_outputs_.clear();
  RequestedWorkload w = parse_workload_request(request.header);
  const auto seeds = request.header.at("seeds").get<std::vector<std::uint64_t>>();
  const std::vector<TensorLayout> layouts =
      output_layouts(w.definition, resolve_axes(w.definition, w.workload));
  const bool candidate = request.header.value("candidate", true);
  ordered_json phases = ordered_json::object();
  auto t = Clock::now();
  std::vector<std::vector<DeviceTensor>> sets =
      generate_input_sets(*backend_, w.definition, w.workload, w.root, seeds);
  phases["generate"] = ms_since(t);
  t = Clock::now();
  const ordered_json before = hash_input_sets(*backend_, sets);
  phases["hash"] = ms_since(t);
  t = Clock::now();
  const std::vector<std::uint8_t> poisons = seed_poisons(request.header, sets.size());
  std::vector<std::vector<DeviceTensor>> outputs;
  for (std::size_t i = 0; i < sets.size(); ++i) {
    outputs.push_back(allocate_outputs(*backend_, layouts));
    poison(*backend_, outputs.back(), poisons[i]);
  }
  backend_->synchronize();
  phases["poison"] = ms_since(t);
  ordered_json checks = ordered_json::array();
  double calls_ms = 0;
  for (std::size_t i = 0; i < sets.size(); ++i) {
    double call_ms = 0;
    const CallResult outcome = named_call(w.workload, candidate, sets[i], outputs[i], call_ms);
    calls_ms += call_ms;
    if (!outcome.ok()) {
      ordered_json reply = {{"sticky", false}, {"failed_seed", seeds[i]}};
      record_failure(*backend_, fmt::format("seed {}: {}", seeds[i], outcome.message), outcome.status, reply);
      return Message::make(measurement::kCheckSets, request.request_id, reply);
    }
    checks.push_back({{"call_ms", call_ms}});
  }
  phases["call"] = calls_ms;
  t = Clock::now();
  const ordered_json after = hash_input_sets(*backend_, sets);
  phases["hash"] = phases["hash"].get<double>() + ms_since(t);
  const ordered_json described = describe_tensors(w.definition.outputs, layouts);
  std::vector<DeviceTensor> all;
  std::vector<TensorLayout> all_layouts;
  for (std::size_t i = 0; i < sets.size(); ++i) {
    checks[i]["outputs"] = described;
    checks[i]["input_hashes_before"] = before.at(i);
    checks[i]["input_hashes_after"] = after.at(i);
    all.insert(all.end(), outputs[i].begin(), outputs[i].end());
    all_layouts.insert(all_layouts.end(), layouts.begin(), layouts.end());
  }
  double download_ms = 0;
  Message m =
      reply_with_outputs(measurement::kCheckSets, request.request_id,
                         {{"checks", std::move(checks)}, {"sticky", false}}, all, all_layouts, download_ms);
  m.header["phases_ms"] = std::move(phases);
  m.header["phases_ms"]["download"] = download_ms;
  return m;
}

Message MeasurementService::time(const Message& request) {
  const Kernel& solution = kernel();
  auto t = Clock::now();
  kept_outputs_.clear();
  RequestedWorkload w = parse_workload_request(request.header);
  const ordered_json& h = request.header;
  const std::vector<TensorLayout> layouts =
      output_layouts(w.definition, resolve_axes(w.definition, w.workload));
  TimedLoopConfig config;
  config.protocol = read_protocol(h, "time request");
  config.recheck = h.value("recheck", 4);
  config.poison = h.value("poison", std::uint8_t{0xFF});
  ordered_json setup = {{"prepare", ms_since(t)}};
  t = Clock::now();
  std::vector<std::vector<DeviceTensor>> device_sets = generate_input_sets(
      *backend_, w.definition, w.workload, w.root, h.at("set_seeds").get<std::vector<std::uint64_t>>());
  setup["generate"] = ms_since(t);
  t = Clock::now();
  const InputSetHashes before = set_hashes(*backend_, device_sets);
  backend_->synchronize();
  setup["hash"] = ms_since(t);

  // The input sets after the loop and the kept output slots, hashed in one pass (one
  // launch, one read-back) before CUPTI's records are collected, whose forced flush
  // costs the next device work a few hundred microseconds.
  InputSetHashes after;
  double hash_after_ms = 0;
  config.after_last_call = [&](const KeptOutputs& slots) {
    const auto start = Clock::now();
    std::vector<std::vector<DeviceTensor>> hashed = device_sets;
    hashed.insert(hashed.end(), slots.begin(), slots.end());
    after = set_hashes(*backend_, hashed);
    hash_after_ms = ms_since(start);
  };
  ordered_json reply = {{"sticky", false}};
  TimedLoopResult r;
  KeptOutputs kept;
  try {
    r = run_timed_loop(*backend_, solution, device_sets, layouts, config, kept);
  } catch (const TimerRecordsLost& e) {
    r.error = std::string("CUPTI records are missing: ") + e.what() +
              " during the timed calls (recording switched off around work? timer tampering)";
    r.error_status = EvalStatus::reward_hack;
  } catch (const Error& e) {
    r.error = e.what();
  }
  if (r.error.empty() && after.size() != device_sets.size() + kept.size())
    r.error = "the timed loop ended without hashing its input sets and kept outputs";
  if (!r.error.empty()) {
    record_failure(*backend_, r.error, r.error_status, reply);
    return Message::make(measurement::kTime, request.request_id, reply);
  }
  const std::size_t set_count = device_sets.size();
  for (std::size_t s = 0; s < r.slots.size(); ++s)
    r.slots[s].hashes = hashes_to_json({after.at(set_count + s)}).at(0);
  after.resize(set_count);
  setup["hash_after"] = hash_after_ms;
  t = Clock::now();
  device_sets.clear();  // the input sets' memory goes back before the reply is built
  kept_outputs_ = std::move(kept);
  kept_specs_ = w.definition.outputs;
  kept_layouts_ = layouts;
  setup["release"] = ms_since(t);
  t = Clock::now();
  reply["setup_ms"] = std::move(setup);
  Message m = timed_reply(request.request_id, r, before, after, std::move(reply));
  m.header["setup_ms"]["reply"] = ms_since(t);
  return m;
}

Message MeasurementService::timed_outputs(const Message& request) {
  const auto slots = request.header.at("slots").get<std::vector<std::size_t>>();
  ordered_json described = ordered_json::array();
  std::vector<DeviceTensor> all;
  std::vector<TensorLayout> layouts;
  for (const std::size_t s : slots) {
    if (s >= kept_outputs_.size()) {
      throw Error(Location{"", 0, "request.slots"},
                  fmt::format("no output slot {}: the latest timed loop kept {}", s, kept_outputs_.size()));
    }
    described.push_back({{"slot", s}, {"outputs", describe_tensors(kept_specs_, kept_layouts_)}});
    all.insert(all.end(), kept_outputs_[s].begin(), kept_outputs_[s].end());
    layouts.insert(layouts.end(), kept_layouts_.begin(), kept_layouts_.end());
  }
  double download_ms = 0;
  Message m = reply_with_outputs(measurement::kTimedOutputs, request.request_id, {{"slots", described}}, all,
                                 layouts, download_ms);
  m.header["phases_ms"] = {{"download", download_ms}};
  return m;
}

int run_measurement_worker(const std::string& backend_name) {
  Channel channel = open_inherited_channel();
  if (backend_name == "cpu") ThreadActivityProbe::adopt_orphans();
  std::unique_ptr<MeasurementService> service;
  std::string startup_error;
  try {
    service = std::make_unique<MeasurementService>(make_backend(backend_name), channel.reply_region());
  } catch (const Error& e) {
    startup_error = e.what();  // answered to every request below, so the orchestrator sees why
  }
  serve(
      channel,
      [&](const Message& request) -> Message {
        if (!service) throw Error("worker could not start backend '" + backend_name + "': " + startup_error);
        return service->handle(request);
      },
      [&] {
        if (service) service->between_requests();
      });
  return 0;
}

}  // namespace kh
