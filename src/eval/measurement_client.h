// MeasurementClient: the orchestrator's handle on one measurement worker, which has
// one built library loaded (a candidate or a reference).
//
// It turns the worker's raw replies into typed results and every misbehaviour into
// a CallFailure the evaluator maps to a status. It never decides a verdict.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/process_tree.h"
#include "device/device_peaks.h"
#include "error/error.h"
#include "eval/request_ledger.h"
#include "eval/wire/timed_result.h"
#include "trace/definition.h"
#include "trace/workload.h"
#include "worker/worker_session.h"

namespace kh {

struct WorkerConfig {
  std::filesystem::path executable;  // the kharness binary, run as `kharness __worker`
  std::string backend = "cpu";
  std::filesystem::path work_dir;
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};  // per request
  // Candidates' calls are followed by the lingering-work probe; the reference's need not be.
  bool candidate = true;
  // Files the worker reads besides the library (safetensors inputs): shown read-only in
  // its jail. The worker runs jailed (docs/worker.md) unless `jailed` is false.
  std::vector<std::filesystem::path> inputs;
  bool jailed = true;
  // Added to the worker's environment: the device lane's (CUDA_VISIBLE_DEVICES).
  std::vector<std::pair<std::string, std::string>> env;
};

// Why a request produced no usable answer.
struct CallFailure {
  enum class Kind { timeout, crashed, protocol_violation, candidate_error, harness_error } kind;
  std::string message;
  bool sticky = false;  // the device context is unusable; the worker was replaced
  // A candidate_error's status when it is not RUNTIME_ERROR: INCORRECT_SHAPE or
  // INCORRECT_DTYPE for returned values that do not fit the definition.
  std::optional<EvalStatus> status;
};

struct CheckResult {
  std::vector<HostTensor> outputs;
  std::vector<std::string> input_hashes_before;
  std::vector<std::string> input_hashes_after;
  LingeringWork lingering;
  double call_ms = 0;
};

struct TimeResult {
  std::string timer;
  std::string timer_note;
  std::vector<TimedSample> samples;
  std::string stop_reason;
  std::size_t stray = 0;
  LingeringWork lingering;
  std::vector<TimedOutputSlot> slots;  // kept on the worker: fetch with timed_outputs()
  std::vector<std::vector<std::string>> input_hashes_before;  // per set, per input
  std::vector<std::vector<std::string>> input_hashes_after;
  double wall_ms = 0;  // measured here, around the whole request
  nlohmann::ordered_json phases_ms = nlohmann::ordered_json::object();  // the worker's account of its time
};

template <class T>
struct Outcome {
  std::optional<T> value;
  std::optional<CallFailure> failure;
};

class MeasurementClient {
 public:
  // Starts the worker and reads the device. Throws kh::Error when the worker cannot
  // start (e.g. no CUDA device).
  explicit MeasurementClient(WorkerConfig config);
  // Only spawns the worker: its start (a CUDA context, a few hundred milliseconds)
  // overlaps whatever the caller does until await_start(), which must come first.
  struct SpawnOnly {};
  MeasurementClient(WorkerConfig config, SpawnOnly);
  // Waits for a worker spawned with SpawnOnly to start, as the first constructor does.
  void await_start();

  // Loads a built solution; it is loaded again whenever the worker is replaced. `request`
  // is what solution_build's load_request() gives. Throws KernelRejected when the
  // solution itself is at fault (a Python import error), kh::Error when it cannot be
  // loaded for another reason.
  void load(nlohmann::ordered_json request);
  // The native runtime's request: a built library and the signature it must carry.
  void load(const std::string& library, const std::string& signature);

  [[nodiscard]] const nlohmann::ordered_json& device() const noexcept { return device_; }
  [[nodiscard]] std::size_t restarts() const noexcept { return session_.restarts(); }
  // The worker's processes (its latest start), in this process's PID namespace: the one
  // started (in a jail, its init) and the one running the worker's program.
  [[nodiscard]] SpawnedProcess worker_processes() noexcept {
    return {session_.process().pid(), session_.process().program_pid()};
  }
  // Every request so far, by kind: wall time, reply bytes, the worker's phases.
  [[nodiscard]] const RequestLedger& ledger() const noexcept { return ledger_; }
  // What the worker's jail achieved (its latest start).
  [[nodiscard]] Isolation isolation();

  // Measures the device's peaks (seconds of work; cache them: device_peaks_json.h).
  // Throws kh::Error when the worker fails.
  [[nodiscard]] DevicePeaks peaks();

  [[nodiscard]] Outcome<CheckResult> check(const Definition& d, const Workload& w,
                                           const std::filesystem::path& root, std::uint64_t seed,
                                           std::uint8_t poison);
  // check() for several seeds in one request, their results in the seeds' order; one
  // failing call fails them all (its message names the seed). For the reference, whose
  // outputs for the re-checked timed sets are wanted together, and for a candidate's
  // correctness trials on CUDA. `poisons` holds one byte a seed.
  [[nodiscard]] Outcome<std::vector<CheckResult>> check_sets(const Definition& d, const Workload& w,
                                                             const std::filesystem::path& root,
                                                             const std::vector<std::uint64_t>& seeds,
                                                             const std::vector<std::uint8_t>& poisons);
  [[nodiscard]] Outcome<std::vector<CheckResult>> check_sets(const Definition& d, const Workload& w,
                                                             const std::filesystem::path& root,
                                                             const std::vector<std::uint64_t>& seeds,
                                                             std::uint8_t poison) {
    return check_sets(d, w, root, seeds, std::vector<std::uint8_t>(seeds.size(), poison));
  }
  [[nodiscard]] Outcome<TimeResult> time(const Definition& d, const Workload& w,
                                         const std::filesystem::path& root,
                                         const std::vector<std::uint64_t>& set_seeds,
                                         const nlohmann::ordered_json& protocol_fields);
  // The outputs of the named slots of the latest time() on this workload, in that order.
  // Throws kh::Error when the reply does not fit the definition (a forged reply).
  [[nodiscard]] Outcome<std::vector<std::vector<HostTensor>>> timed_outputs(const Definition& d,
                                                                            const Workload& w,
                                                                            const std::vector<int>& slots);

 private:
  // request() replaces a worker that died; raw_request() does not (start() uses it).
  [[nodiscard]] std::optional<CallFailure> request(std::string_view kind, nlohmann::ordered_json fields,
                                                   std::chrono::milliseconds timeout, Message& reply);
  [[nodiscard]] std::optional<CallFailure> raw_request(std::string_view kind, nlohmann::ordered_json fields,
                                                       std::chrono::milliseconds timeout, Message& reply);
  // request() plus the candidate's own failures: an "error" field in the reply, and
  // the replacement of the worker after a sticky device error.
  [[nodiscard]] std::optional<CallFailure> measure(std::string_view kind, nlohmann::ordered_json fields,
                                                   Message& reply);
  void start();
  void recover();
  // Best mode: a worker that does not start inside the full jail (a GPU stack that needs
  // more than the jail shows) is started again without namespaces, and the trace says why.
  [[nodiscard]] bool start_outside_namespaces(const Error& why);

  WorkerConfig config_;
  nlohmann::ordered_json load_request_;  // null until load()
  WorkerSession session_;
  nlohmann::ordered_json device_;
  std::string broken_;     // why the last restart failed; empty while healthy
  std::string jail_note_;  // why the worker left the full jail, if it did
  RequestLedger ledger_;
};

}  // namespace kh
