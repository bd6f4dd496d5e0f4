// One workload's evaluation: correctness trials, then timing trials with re-checks.
// Every verdict is made here, in the orchestrator, from raw facts the workers report.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <random>
#include <utility>

#include "eval/check/output_checker.h"
#include "eval/eval_options.h"
#include "eval/measurement_client.h"
#include "eval/reference_latency_cache.h"
#include "eval/workload_result.h"

namespace kh {

// Seeds for trials and input sets: fresh from the OS unless a base seed is given,
// so a run can be repeated exactly when asked to.
class SeedStream {
 public:
  explicit SeedStream(std::optional<std::uint64_t> base);
  [[nodiscard]] std::uint64_t next() { return engine_(); }

 private:
  std::mt19937_64 engine_;
};

struct WorkloadContext {
  const Definition& definition;
  const Workload& workload;
  const std::filesystem::path& root;
  const OutputChecker& checker;
  Tolerance tolerance;
  const EvalOptions& options;
  double nominal_clock_mhz = 0;  // from the candidate's device report
  // Where the reference's latency is reused from (null: always measured), and the parts
  // of its key this evaluation fixes (reference build, device, backend).
  const ReferenceLatencyCache* reference_latencies = nullptr;
  nlohmann::ordered_json reference_key = nlohmann::ordered_json::object();
  // The candidate runs in the embedded Python interpreter: the host time of its own
  // calls (interpreter dispatch before its first kernel) may show in the CUDA events.
  bool interpreted = false;
};

class WorkloadEvaluation {
 public:
  WorkloadEvaluation(WorkloadContext context, MeasurementClient& candidate, MeasurementClient& reference,
                     SeedStream& seeds);
  [[nodiscard]] WorkloadResult run();

 private:
  bool check_correctness();
  // The timed input sets' seeds come from `stream`.
  bool measure(MeasurementClient& who, bool is_candidate, std::optional<LatencyMeasurement>& out,
               SeedStream& stream);
  // The reference's latency: from the cache when fresh, else measured (and cached).
  void reference_latency();
  bool verify_timed_run(const TimeResult& r, const std::vector<std::uint64_t>& seeds);
  [[nodiscard]] bool nothing_to_time() const;
  bool verify_inputs_untouched(const std::vector<std::string>& before, const std::vector<std::string>& after,
                               const std::string& when);
  [[nodiscard]] const CheckResult* reference_outputs(std::uint64_t seed);
  // Inputs regenerated here (the host twin) must hash as the worker's did: a drift
  // between host and device generation is a harness error (kh::Error), not a verdict.
  void expect_host_twin(const std::vector<HostTensor>& inputs, const std::vector<std::string>& worker_hashes,
                        std::uint64_t seed) const;
  // Caches the reference's check of `seed`, or records its failure and returns null.
  [[nodiscard]] const CheckResult* keep_reference(std::uint64_t seed, Outcome<CheckResult> r);
  [[nodiscard]] CheckVerdict compare(const CheckResult& candidate, const CheckResult& reference,
                                     std::uint64_t seed);
  [[nodiscard]] nlohmann::ordered_json protocol_fields() const;
  [[nodiscard]] std::size_t input_sets() const;
  [[nodiscard]] int output_slots() const;
  [[nodiscard]] std::vector<const TimedOutputSlot*> pick_rechecks(const TimeResult& r);
  // Draws `recheck` of the kept slots, fetches them and checks each (recheck_slot).
  bool recheck_timed_outputs(const TimeResult& r, const std::vector<std::uint64_t>& seeds);
  [[nodiscard]] std::optional<std::vector<std::vector<HostTensor>>> fetch_rechecks(
      const std::vector<const TimedOutputSlot*>& picked, const std::vector<std::uint64_t>& seeds);
  bool recheck_slot(const TimedOutputSlot& o, std::vector<HostTensor> outputs, const TimeResult& r,
                    const std::vector<std::uint64_t>& seeds);
  // Adds the wall time since `since` to `step` of the result's orchestrator_ms.
  void account(const char* step, std::chrono::steady_clock::time_point since);
  void fail(EvalStatus status, std::string log);
  void fail_call(const CallFailure& f, const std::string& when);

  WorkloadContext ctx_;
  MeasurementClient& candidate_;
  MeasurementClient& reference_;
  SeedStream& seeds_;
  WorkloadResult result_;
  std::map<std::uint64_t, CheckResult> reference_cache_;  // per seed, for this workload
};

}  // namespace kh
