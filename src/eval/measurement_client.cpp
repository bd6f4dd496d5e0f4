#include "eval/measurement_client.h"

#include <fmt/format.h>

#include <cstdlib>

#include "base/jail/sandbox_mode.h"
#include "error/error.h"
#include "eval/device_peaks_json.h"
#include "eval/input_generator.h"
#include "eval/wire/kernel_rejected.h"
#include "eval/wire/measurement_protocol.h"
#include "eval/wire/worker_entry.h"
#include "eval/wire/worker_payload.h"
#include "tensor/chunked_hash.h"
#include "trace/json_io.h"
#include "worker/payload_buffers.h"

namespace kh {

namespace {

using Clock = std::chrono::steady_clock;

// The read-only folder beside the worker's scratch where the libraries it loads are
// copied: the worker sees that folder, not the build cache.
std::filesystem::path library_dir(const WorkerConfig& c) {
  std::filesystem::path dir = std::filesystem::absolute(c.work_dir).lexically_normal();
  return dir.parent_path() / (dir.filename().string() + ".lib");
}

// The jailed worker runs as another user: it must be able to read the copy (a staged
// Python package's folders are made private, 0700, by mkdtemp).
void show_to_worker(const std::filesystem::path& copy) {
  namespace fs = std::filesystem;
  const auto readable = [](const fs::path& p, bool folder) {
    std::error_code ec;
    fs::permissions(p,
                    fs::perms::group_read | fs::perms::others_read |
                        (folder ? fs::perms::group_exec | fs::perms::others_exec : fs::perms::none),
                    fs::perm_options::add, ec);
  };
  readable(copy, fs::is_directory(copy));
  std::error_code ec;
  for (fs::recursive_directory_iterator it(copy, ec), end; !ec && it != end; it.increment(ec))
    readable(it->path(), it->is_directory());
}

JailSpec worker_jail(const WorkerConfig& c) {
  JailSpec jail;
  jail.read_only = {c.executable, library_dir(c)};
  // tvm-ffi solutions link libtvm_ffi.so by rpath: from beside the executable, or where
  // KHARNESS_TVM_FFI_ROOT says (compile/tvm_ffi_runtime.h).
  jail.read_only.push_back(c.executable.parent_path() / "tvm-ffi");
  if (const char* root = std::getenv("KHARNESS_TVM_FFI_ROOT"); root != nullptr && *root != '\0')
    jail.read_only.emplace_back(root);
  jail.read_only.insert(jail.read_only.end(), c.inputs.begin(), c.inputs.end());
  jail.gpu = c.backend == "cuda";
  // Private, in memory, bounded: a candidate that fills it fills nothing of the host.
  jail.scratch_bytes = std::uint64_t{512} << 20;
  return jail;
}

SpawnOptions spawn_options(const WorkerConfig& c) {
  SpawnOptions o;
  o.argv = {c.executable.string(), kWorkerSubcommand, "--backend", c.backend};
  o.work_dir = c.work_dir;
  o.limits.open_files = 1024;
  o.limits.file_size_bytes = std::uint64_t{1} << 30;  // logs and scratch files
  o.limits.core_dumps = false;
  // Fork bombs (threads count too). In a jail it counts the jail's processes only (its
  // user namespace's) and binds root's workers too, which run as an unprivileged user
  // there (docs/worker.md); unjailed it counts every process of the user, and the kernel
  // ignores it for root.
  const bool jailed = c.jailed && sandbox_mode() != SandboxMode::off;
  o.limits.processes = jailed ? 1024 : 4096;
  if (c.backend == "cpu") {
    // CUDA reserves far more address space than it uses, so only CPU workers get a cap.
    o.limits.address_space_bytes = std::uint64_t{16} << 30;
  }
  // Outputs travel through memory both processes map, not through the socket
  // (worker/shared_region.h); larger payloads than this fall back to the socket.
  o.reply_region_bytes = std::size_t{1} << 30;
  // OpenMP pools in CPU candidates sleep instead of spinning once a region ends, so
  // the lingering-work probe sees only real work.
  o.env_add = {{"OMP_WAIT_POLICY", "passive"}};
  // The Python a Python solution's worker embeds is chosen by the orchestrator's
  // environment; the jail's allow-list would otherwise drop the choice.
  if (const char* python = std::getenv("KHARNESS_PYTHON"); python != nullptr && *python != '\0')
    o.env_add.emplace_back("KHARNESS_PYTHON", python);
  o.env_add.insert(o.env_add.end(), c.env.begin(), c.env.end());
  if (jailed) {
    std::filesystem::create_directories(library_dir(c));
    o.jail = worker_jail(c);
  }
  return o;
}

std::vector<std::string> strings(const nlohmann::ordered_json& j) {
  std::vector<std::string> out;
  if (j.is_array()) {
    for (const auto& v : j) out.push_back(v.is_string() ? v.get<std::string>() : v.dump());
  }
  return out;
}

// Runs `read` over a reply. A reply whose fields do not have the protocol's types (a
// string where an array belongs, an element that is not an object) is a kh::Error, which
// the evaluator reports as a malformed reply; it must not end the run as a stray exception.
template <class Read>
auto read_reply(std::string_view kind, Read&& read) {
  try {
    return read();
  } catch (const nlohmann::json::exception& e) {
    throw Error(Location{"", 0, "reply." + std::string(kind)}, std::string("malformed reply: ") + e.what());
  }
}

// The typed results of replies. A field of the wrong type throws nlohmann's exception,
// which read_reply turns into kh::Error; a reply that does not fit the request is kh::Error.
// One check's fields `h`, its outputs read from `payload` at `offset` (moved past them).
CheckResult read_check_fields(const nlohmann::ordered_json& h, std::span<const std::byte> payload,
                              std::size_t& offset, const std::vector<TensorLayout>& layouts) {
  CheckResult r;
  r.outputs = split_tensors(h.at("outputs"), payload, offset, layouts);
  r.input_hashes_before = strings(h.value("input_hashes_before", nlohmann::ordered_json::array()));
  r.input_hashes_after = strings(h.value("input_hashes_after", nlohmann::ordered_json::array()));
  r.lingering = lingering_from_json(h.value("lingering", nlohmann::ordered_json::object()));
  r.call_ms = h.value("call_ms", 0.0);
  return r;
}

CheckResult read_check(const Definition& d, const Workload& w, const Message& reply) {
  std::size_t offset = 0;
  return read_check_fields(reply.header, reply.payload, offset, output_layouts(d, resolve_axes(d, w)));
}

std::vector<CheckResult> read_check_sets(const Definition& d, const Workload& w, const Message& reply,
                                         std::size_t seed_count) {
  const auto& checks = reply.header.at("checks");
  if (!checks.is_array() || checks.size() != seed_count) {
    throw Error(Location{"", 0, "reply.checks"},
                fmt::format("worker returned {} checks for {} seeds", checks.is_array() ? checks.size() : 0,
                            seed_count));
  }
  const std::vector<TensorLayout> layouts = output_layouts(d, resolve_axes(d, w));
  std::vector<CheckResult> out;
  std::size_t offset = 0;
  for (const auto& one : checks) out.push_back(read_check_fields(one, reply.payload, offset, layouts));
  return out;
}

// The member `key` of `h`, or an empty value of its kind: read in place, since value()
// would deep-copy it.
const nlohmann::ordered_json& member_or(const nlohmann::ordered_json& h, const char* key,
                                        const nlohmann::ordered_json& empty) {
  const auto it = h.find(key);
  return it == h.end() ? empty : *it;
}

std::vector<std::string> hex_strings(const std::vector<std::uint64_t>& hashes) {
  std::vector<std::string> out;
  out.reserve(hashes.size());
  for (const std::uint64_t h : hashes) out.push_back(chunked_hash_hex(h));
  return out;
}

TimeResult read_time(const Definition& d, const Message& reply, std::size_t set_count, double wall_ms) {
  static const nlohmann::ordered_json kNoObject = nlohmann::ordered_json::object();
  static const nlohmann::ordered_json kNoArray = nlohmann::ordered_json::array();
  const auto& h = reply.header;
  TimeResult r;
  r.wall_ms = wall_ms;
  r.timer = h.value("timer", std::string());
  r.timer_note = h.value("timer_note", std::string());
  r.stop_reason = h.value("stop_reason", std::string());
  r.stray = h.value("stray", std::size_t{0});
  for (const char* group : {"setup_ms", "phases_ms"}) {
    const nlohmann::ordered_json& phases = member_or(h, group, kNoObject);
    if (!phases.is_object()) continue;
    for (const auto& [k, v] : phases.items()) {
      if (v.is_number()) r.phases_ms[k] = v;
    }
  }
  r.lingering = lingering_from_json(member_or(h, "lingering", kNoObject));
  TimedReplyBulk bulk = read_timed_bulk(reply, set_count, d.inputs.size());
  r.samples = std::move(bulk.samples);
  for (const auto& set : bulk.before) r.input_hashes_before.push_back(hex_strings(set));
  for (const auto& set : bulk.after) r.input_hashes_after.push_back(hex_strings(set));
  const std::size_t output_count = d.outputs.size();
  const nlohmann::ordered_json& slots = member_or(h, "slots", kNoArray);
  if (!slots.is_array()) throw Error(Location{"", 0, "reply.slots"}, "not an array");
  for (const auto& j : slots) {
    TimedOutputSlot o{j.value("slot", -1), j.value("iteration", 0), j.value("set", -1),
                      strings(j.value("hashes", nlohmann::ordered_json::array()))};
    if (o.input_set < 0 || static_cast<std::size_t>(o.input_set) >= set_count) {
      throw Error(Location{"", 0, "reply.slots.set"}, fmt::format("worker named input set {}", o.input_set));
    }
    if (o.slot != static_cast<int>(r.slots.size()) || o.hashes.size() != output_count) {
      throw Error(Location{"", 0, "reply.slots"},
                  fmt::format("worker described slot {} with {} output hashes; expected slot {} with {}",
                              o.slot, o.hashes.size(), r.slots.size(), output_count));
    }
    r.slots.push_back(std::move(o));
  }
  return r;
}

std::vector<std::vector<HostTensor>> read_timed_outputs(const Definition& d, const Workload& w,
                                                        const Message& reply, const std::vector<int>& slots) {
  const auto& described = reply.header.value("slots", nlohmann::ordered_json::array());
  if (described.size() != slots.size()) {
    throw Error(
        Location{"", 0, "reply.slots"},
        fmt::format("worker returned {} output slots, {} were asked for", described.size(), slots.size()));
  }
  const std::vector<TensorLayout> expected = output_layouts(d, resolve_axes(d, w));
  std::vector<std::vector<HostTensor>> out;
  std::size_t offset = 0;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (described[i].value("slot", -1) != slots[i]) {
      throw Error(Location{"", 0, "reply.slots"},
                  fmt::format("worker returned slot {} where slot {} was asked for",
                              described[i].value("slot", -1), slots[i]));
    }
    out.push_back(split_tensors(described[i].at("outputs"), reply.payload, offset, expected));
  }
  return out;
}

nlohmann::ordered_json workload_fields(const Definition& d, const Workload& w,
                                       const std::filesystem::path& root) {
  return {{"definition", to_json(d)}, {"workload", to_json(w)}, {"root", root.string()}};
}

}  // namespace

MeasurementClient::MeasurementClient(WorkerConfig config, SpawnOnly)
    : config_(std::move(config)), session_(spawn_options(config_)) {}

MeasurementClient::MeasurementClient(WorkerConfig config)
    : MeasurementClient(std::move(config), SpawnOnly{}) {
  await_start();
}

void MeasurementClient::await_start() {
  try {
    start();
  } catch (const Error& e) {
    if (!start_outside_namespaces(e)) throw;
  }
}

bool MeasurementClient::start_outside_namespaces(const Error& why) {
  if (sandbox_mode() != SandboxMode::best ||
      session_.process().isolation().level != IsolationLevel::namespaces)
    return false;
  SpawnOptions options = spawn_options(config_);
  options.jail->allow_namespaces = false;
  session_ = WorkerSession(std::move(options));
  jail_note_ = std::string("the worker did not start inside the full jail, so it runs without namespaces: ") +
               why.what();
  fmt::print(stderr, "note: {}\n", jail_note_);
  start();
  return true;
}

Isolation MeasurementClient::isolation() {
  Isolation iso = session_.process().isolation();
  if (!jail_note_.empty()) iso.notes.push_back(jail_note_);
  return iso;
}

void MeasurementClient::load(nlohmann::ordered_json request) {
  if (config_.jailed && sandbox_mode() != SandboxMode::off && request.contains("library")) {
    // The worker sees a read-only copy beside its scratch, not the build cache: a native
    // library, or a Python solution's staged package folder. Named by its cache entry, so
    // that two never share a name.
    const std::filesystem::path source(request.at("library").get<std::string>());
    const std::filesystem::path copy =
        library_dir(config_) / (source.parent_path().filename().string() + "-" + source.filename().string());
    std::error_code ec;
    std::filesystem::remove_all(copy, ec);
    std::filesystem::copy(
        source, copy,
        std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing, ec);
    if (ec)
      throw Error(Location{source.string(), 0, ""},
                  "cannot copy the built solution for the worker: " + ec.message());
    show_to_worker(copy);
    request["library"] = copy.string();
  }
  load_request_ = std::move(request);
  start();
}

void MeasurementClient::load(const std::string& library, const std::string& signature) {
  load({{"library", library}, {"signature", signature}});
}

void MeasurementClient::start() {
  Message reply;
  if (auto f = raw_request(measurement::kHello, nullptr, std::chrono::seconds(120), reply)) {
    throw Error(
        fmt::format("measurement worker ({} backend) did not start: {}", config_.backend, f->message));
  }
  device_ = reply.header.value("device", nlohmann::ordered_json::object());
  if (load_request_.is_null()) return;
  const std::string library = load_request_.value("library", std::string());
  // A Python solution imports torch (and Triton) on load: seconds, not milliseconds.
  if (auto f = raw_request(measurement::kLoad, load_request_, std::chrono::seconds(300), reply)) {
    throw Error(Location{library, 0, ""}, "cannot load the built solution: " + f->message);
  }
  if (reply.header.contains("rejected")) {
    throw KernelRejected(Location{library, 0, ""}, reply.header.at("rejected").get<std::string>());
  }
}

std::optional<CallFailure> MeasurementClient::raw_request(std::string_view kind,
                                                          nlohmann::ordered_json fields,
                                                          std::chrono::milliseconds timeout, Message& reply) {
  const auto start = Clock::now();
  CallOutcome outcome = session_.call(kind, std::move(fields), {}, timeout);
  const double wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  switch (outcome.kind) {
    case CallOutcome::Kind::reply:
      ledger_.add(kind, wall_ms, outcome.reply->payload.size(), outcome.reply->header);
      if (outcome.reply->kind() == "error") {
        return CallFailure{CallFailure::Kind::harness_error,
                           outcome.reply->header.value("message", std::string("worker error")),
                           false,
                           {}};
      }
      reply = std::move(*outcome.reply);
      return std::nullopt;
    case CallOutcome::Kind::timeout:
      ledger_.add(kind, wall_ms, 0, nullptr);
      return CallFailure{CallFailure::Kind::timeout, outcome.describe(), false, {}};
    case CallOutcome::Kind::crashed:
      return CallFailure{
          CallFailure::Kind::crashed, outcome.describe() + "\n" + outcome.stderr_tail, false, {}};
    case CallOutcome::Kind::protocol_violation:
      return CallFailure{CallFailure::Kind::protocol_violation, outcome.describe(), false, {}};
  }
  return CallFailure{CallFailure::Kind::harness_error, "unknown call outcome", false, {}};
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
    return CallFailure{
        CallFailure::Kind::crashed, "the worker could not be restarted: " + broken_, false, {}};
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
                h.value("sticky", false), std::nullopt};
  if (h.contains("error_status")) {
    const auto status = parse_status(h.at("error_status").get<std::string>());
    // Only verdicts against the candidate are taken from its worker: claiming one can only
    // fail it. reward_hack: CUPTI lost records during its timed calls (TimerRecordsLost).
    if (status && (*status == EvalStatus::incorrect_shape || *status == EvalStatus::incorrect_dtype ||
                   *status == EvalStatus::reward_hack))
      f.status = status;
  }
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
  return read_reply(measurement::kCheck, [&]() -> Outcome<CheckResult> {
    Message reply;
    if (auto f = measure(measurement::kCheck, std::move(fields), reply)) return {std::nullopt, f};
    CheckResult r = read_check(d, w, reply);
    give_back_payload_buffer(std::move(reply.payload));
    return {std::move(r), std::nullopt};
  });
}

Outcome<std::vector<CheckResult>> MeasurementClient::check_sets(const Definition& d, const Workload& w,
                                                                const std::filesystem::path& root,
                                                                const std::vector<std::uint64_t>& seeds,
                                                                const std::vector<std::uint8_t>& poisons) {
  auto fields = workload_fields(d, w, root);
  fields["seeds"] = seeds;
  fields["poisons"] = poisons;
  fields["candidate"] = config_.candidate;
  return read_reply(measurement::kCheckSets, [&]() -> Outcome<std::vector<CheckResult>> {
    Message reply;
    if (auto f = measure(measurement::kCheckSets, std::move(fields), reply)) return {std::nullopt, f};
    std::vector<CheckResult> r = read_check_sets(d, w, reply, seeds.size());
    give_back_payload_buffer(std::move(reply.payload));
    return {std::move(r), std::nullopt};
  });
}

Outcome<TimeResult> MeasurementClient::time(const Definition& d, const Workload& w,
                                            const std::filesystem::path& root,
                                            const std::vector<std::uint64_t>& set_seeds,
                                            const nlohmann::ordered_json& protocol_fields) {
  auto fields = workload_fields(d, w, root);
  fields["set_seeds"] = set_seeds;
  for (const auto& [k, v] : protocol_fields.items()) fields[k] = v;
  return read_reply(measurement::kTime, [&]() -> Outcome<TimeResult> {
    Message reply;
    const auto start_time = Clock::now();
    if (auto f = measure(measurement::kTime, std::move(fields), reply)) return {std::nullopt, f};
    const double wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start_time).count();
    return {read_time(d, reply, set_seeds.size(), wall_ms), std::nullopt};
  });
}

Outcome<std::vector<std::vector<HostTensor>>> MeasurementClient::timed_outputs(
    const Definition& d, const Workload& w, const std::vector<int>& slots) {
  return read_reply(measurement::kTimedOutputs, [&]() -> Outcome<std::vector<std::vector<HostTensor>>> {
    Message reply;
    if (auto f = measure(measurement::kTimedOutputs, {{"slots", slots}}, reply)) return {std::nullopt, f};
    std::vector<std::vector<HostTensor>> outputs = read_timed_outputs(d, w, reply, slots);
    give_back_payload_buffer(std::move(reply.payload));
    return {std::move(outputs), std::nullopt};
  });
}

}  // namespace kh
