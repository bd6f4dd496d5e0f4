#include "eval/measurement_client.h"

#include <fmt/format.h>

#include "error/error.h"
#include "eval/device_peaks_json.h"
#include "eval/input_generator.h"
#include "eval/measurement_protocol.h"
#include "eval/worker_payload.h"
#include "trace/json_io.h"

namespace kh {

namespace {

using Clock = std::chrono::steady_clock;

SpawnOptions spawn_options(const WorkerConfig& c) {
  SpawnOptions o;
  o.argv = {c.executable.string(), "__worker", "--backend", c.backend};
  o.work_dir = c.work_dir;
  o.limits.open_files = 1024;
  o.limits.file_size_bytes = std::uint64_t{1} << 30;  // logs and scratch files
  o.limits.core_dumps = false;
  o.limits.processes = 4096;  // fork bombs; the kernel does not enforce this for root
  if (c.backend == "cpu") {
    // CUDA reserves far more address space than it uses, so only CPU workers get a cap.
    o.limits.address_space_bytes = std::uint64_t{16} << 30;
  }
  // OpenMP pools in CPU candidates sleep instead of spinning once a region ends, so
  // the lingering-work probe sees only real work.
  o.env_add = {{"OMP_WAIT_POLICY", "passive"}};
  o.env_add.insert(o.env_add.end(), c.env.begin(), c.env.end());
  return o;
}

std::vector<std::string> strings(const nlohmann::ordered_json& j) {
  std::vector<std::string> out;
  if (j.is_array()) {
    for (const auto& v : j) out.push_back(v.is_string() ? v.get<std::string>() : v.dump());
  }
  return out;
}

nlohmann::ordered_json workload_fields(const Definition& d, const Workload& w,
                                       const std::filesystem::path& root) {
  return {{"definition", to_json(d)}, {"workload", to_json(w)}, {"root", root.string()}};
}

}  // namespace

MeasurementClient::MeasurementClient(WorkerConfig config)
    : config_(std::move(config)), session_(spawn_options(config_)) {
  start();
}

void MeasurementClient::load(std::string library, std::string signature) {
  library_ = std::move(library);
  signature_ = std::move(signature);
  start();
}

void MeasurementClient::start() {
  Message reply;
  if (auto f = raw_request(measurement::kHello, nullptr, std::chrono::seconds(120), reply)) {
    throw Error(
        fmt::format("measurement worker ({} backend) did not start: {}", config_.backend, f->message));
  }
  device_ = reply.header.value("device", nlohmann::ordered_json::object());
  if (library_.empty()) return;
  if (auto f = raw_request(measurement::kLoad, {{"library", library_}, {"signature", signature_}},
                           std::chrono::seconds(120), reply)) {
    throw Error(Location{library_, 0, ""}, "cannot load the built library: " + f->message);
  }
}

std::optional<CallFailure> MeasurementClient::raw_request(std::string_view kind,
                                                          nlohmann::ordered_json fields,
                                                          std::chrono::milliseconds timeout, Message& reply) {
  CallOutcome outcome = session_.call(kind, std::move(fields), {}, timeout);
  switch (outcome.kind) {
    case CallOutcome::Kind::reply:
      if (outcome.reply->kind() == "error") {
        return CallFailure{CallFailure::Kind::harness_error,
                           outcome.reply->header.value("message", std::string("worker error")), false};
      }
      reply = std::move(*outcome.reply);
      return std::nullopt;
    case CallOutcome::Kind::timeout:
      return CallFailure{CallFailure::Kind::timeout, outcome.describe(), false};
    case CallOutcome::Kind::crashed:
      return CallFailure{CallFailure::Kind::crashed, outcome.describe() + "\n" + outcome.stderr_tail, false};
    case CallOutcome::Kind::protocol_violation:
      return CallFailure{CallFailure::Kind::protocol_violation, outcome.describe(), false};
  }
  return CallFailure{CallFailure::Kind::harness_error, "unknown call outcome", false};
}

void MeasurementClient::recover() {
  // The worker is dead or its device context is unusable: replace it so the remaining
  // workloads still run. If even that fails, later requests report why.
  try {
    session_.restart();
    start();
    broken_.clear();
  } catch (const Error& e) {
    broken_ = e.what();
  }
}

std::optional<CallFailure> MeasurementClient::request(std::string_view kind, nlohmann::ordered_json fields,
                                                      std::chrono::milliseconds timeout, Message& reply) {
  if (!broken_.empty()) {
    return CallFailure{CallFailure::Kind::crashed, "the worker could not be restarted: " + broken_, false};
  }
  auto failure = raw_request(kind, std::move(fields), timeout, reply);
  if (failure && failure->kind != CallFailure::Kind::harness_error) recover();
  return failure;
}

std::optional<CallFailure> MeasurementClient::measure(std::string_view kind, nlohmann::ordered_json fields,
                                                      Message& reply) {
  if (auto f = request(kind, std::move(fields), config_.timeout, reply)) return f;
  const auto& h = reply.header;
  if (!h.contains("error")) return std::nullopt;
  CallFailure f{CallFailure::Kind::candidate_error, h.at("error").get<std::string>(),
                h.value("sticky", false)};
  if (f.sticky) recover();
  return f;
}

DevicePeaks MeasurementClient::peaks() {
  Message reply;
  if (auto f =
          request(measurement::kPeaks, nlohmann::ordered_json::object(), std::chrono::minutes(5), reply)) {
    throw Error("measuring the device's peaks failed: " + f->message);
  }
  return peaks_from_json(reply.header.at("peaks"));
}

Outcome<CheckResult> MeasurementClient::check(const Definition& d, const Workload& w,
                                              const std::filesystem::path& root, std::uint64_t seed,
                                              std::uint8_t poison) {
  auto fields = workload_fields(d, w, root);
  fields["seed"] = seed;
  fields["poison"] = poison;
  fields["probe_lingering"] = config_.candidate;
  fields["candidate"] = config_.candidate;
  Message reply;
  if (auto f = measure(measurement::kCheck, std::move(fields), reply)) return {std::nullopt, f};
  const auto& h = reply.header;
  CheckResult r;
  std::size_t offset = 0;
  r.outputs = split_tensors(h.at("outputs"), reply.payload, offset, make_outputs(d, resolve_axes(d, w)));
  r.input_hashes_before = strings(h.value("input_hashes_before", nlohmann::ordered_json::array()));
  r.input_hashes_after = strings(h.value("input_hashes_after", nlohmann::ordered_json::array()));
  r.lingering = lingering_from_json(h.value("lingering", nlohmann::ordered_json::object()));
  r.call_ms = h.value("call_ms", 0.0);
  return {std::move(r), std::nullopt};
}

Outcome<TimeResult> MeasurementClient::time(const Definition& d, const Workload& w,
                                            const std::filesystem::path& root,
                                            const std::vector<std::uint64_t>& set_seeds,
                                            const nlohmann::ordered_json& protocol_fields) {
  auto fields = workload_fields(d, w, root);
  fields["set_seeds"] = set_seeds;
  for (const auto& [k, v] : protocol_fields.items()) fields[k] = v;
  Message reply;
  const auto start_time = Clock::now();
  if (auto f = measure(measurement::kTime, std::move(fields), reply)) return {std::nullopt, f};
  const auto& h = reply.header;
  TimeResult r;
  r.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start_time).count();
  r.timer = h.value("timer", std::string());
  r.timer_note = h.value("timer_note", std::string());
  r.samples = samples_from_json(h.value("samples", nlohmann::ordered_json::array()));
  r.stop_reason = h.value("stop_reason", std::string());
  r.stray = h.value("stray", std::size_t{0});
  for (const char* group : {"setup_ms", "phases_ms"}) {
    const nlohmann::ordered_json phases = h.value(group, nlohmann::ordered_json::object());
    for (const auto& [k, v] : phases.items()) {
      if (v.is_number()) r.phases_ms[k] = v;
    }
  }
  r.lingering = lingering_from_json(h.value("lingering", nlohmann::ordered_json::object()));
  for (const auto& set : h.value("input_hashes_before", nlohmann::ordered_json::array()))
    r.input_hashes_before.push_back(strings(set));
  for (const auto& set : h.value("input_hashes_after", nlohmann::ordered_json::array()))
    r.input_hashes_after.push_back(strings(set));
  std::size_t offset = 0;
  const std::vector<HostTensor> expected = make_outputs(d, resolve_axes(d, w));
  for (const auto& rc : h.value("recheck", nlohmann::ordered_json::array())) {
    RecheckedOutput o{rc.value("iteration", 0), rc.value("set", 0), {}};
    if (o.input_set < 0 || static_cast<std::size_t>(o.input_set) >= set_seeds.size()) {
      throw Error(Location{"", 0, "reply.recheck.set"},
                  fmt::format("worker named input set {}", o.input_set));
    }
    o.outputs = split_tensors(rc.at("outputs"), reply.payload, offset, expected);
    r.rechecked.push_back(std::move(o));
  }
  return {std::move(r), std::nullopt};
}

}  // namespace kh
