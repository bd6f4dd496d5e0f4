// One workload's evaluation: correctness trials, then timing trials with re-checks.
// Every verdict is made here, in the orchestrator, from raw facts the workers report.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <random>
#include <utility>

#include "eval/check/output_checker.h"
#include "eval/eval_options.h"
#include "eval/measurement_client.h"
#include "eval/reference_latency_cache.h"
#include "eval/timing_plan.h"
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
  // Poison patterns alternate between trials: 0xFF is NaN in every float format with a
  // NaN, 0xA5 is an implausible integer, so no output left unwritten can match twice.
  static constexpr std::uint8_t kPoison[2] = {0xFF, 0xA5};

  bool check_correctness();
  // On CUDA, fails the workload as a reward hack where a process the candidate's worker
  // started holds a CUDA context of its own (gpu_handoff_check.h); `when` says after what.
  bool check_no_gpu_handoff(const char* when);
  // On CUDA, a candidate's correctness trials in one request (check_sets): asked one by
  // one, each cost a round trip and its synchronisations, 0.4-0.5 ms on the H200. Their
  // results in trial order; none when a call failed (the trials are then asked one by
  // one); nullopt after recording a timeout or a malformed reply.
  [[nodiscard]] std::optional<std::vector<Outcome<CheckResult>>> candidate_checks_together(
      const std::vector<std::uint64_t>& seeds);
  // The timed input sets' seeds come from `stream`.
  bool measure(MeasurementClient& who, bool is_candidate, std::optional<LatencyMeasurement>& out,
               SeedStream& stream);
  // The reference's latency: from the cache when fresh, else measured (and cached).
  void reference_latency();
  // A finding against the candidate, made off the main thread and recorded on it.
  struct Finding {
    EvalStatus status = EvalStatus::passed;
    std::string log;
    // A timed output the checker refused: its seed, for confirm_wrong_while_timed().
    std::optional<std::uint64_t> wrong_seed;
  };
  struct RecheckOutcome {
    std::optional<Finding> finding;
    double ms = 0;  // host time the checks took
  };
  // One trial's re-checks, running while the next trial's loop runs (timed_output_recheck.cpp).
  using PendingRechecks = std::future<RecheckOutcome>;
  // Verifies a timing trial and starts checking its drawn outputs into `rechecks`;
  // false after recording a failure found on the way.
  bool verify_timed_run(const TimeResult& r, const TrialPlan& trial, PendingRechecks& rechecks);
  [[nodiscard]] bool nothing_to_time() const;
  bool verify_inputs_untouched(const std::vector<std::string>& before, const std::vector<std::string>& after,
                               const std::string& when);
  // Why the inputs count as modified, or nothing (any thread).
  [[nodiscard]] std::optional<std::string> inputs_modified(const std::vector<std::string>& before,
                                                           const std::vector<std::string>& after,
                                                           const std::string& when) const;
  // Inputs regenerated here (the host twin) must hash as the worker's did: a drift
  // between host and device generation is a harness error (kh::Error), not a verdict.
  void expect_host_twin(const std::vector<HostTensor>& inputs, const std::vector<std::string>& worker_hashes,
                        std::uint64_t seed) const;
  // Caches the reference's check of `seed`, or records its failure and returns null.
  [[nodiscard]] const CheckResult* keep_reference(std::uint64_t seed, Outcome<CheckResult> r);
  // The reference's checks of some seeds, running on another thread: one future a seed.
  struct ReferenceChecks {
    ReferenceChecks() = default;
    ReferenceChecks(ReferenceChecks&&) = default;
    ReferenceChecks& operator=(ReferenceChecks&&) = delete;
    // An evaluation that stopped early wants no more: the thread ends after the
    // request in flight (a CPU reference of a large workload can take seconds a seed).
    ~ReferenceChecks() {
      if (stop) stop->store(true);
    }
    std::vector<std::future<Outcome<CheckResult>>> results;
    std::shared_ptr<std::atomic<bool>> stop = std::make_shared<std::atomic<bool>>(false);
    std::future<void> done;  // declared last, destroyed first: waits for the thread
  };
  // Starts the reference's checks of `seeds`: in one request when `together` (each result
  // ready when all are), else a request a seed (each ready as soon as it is computed).
  [[nodiscard]] ReferenceChecks start_reference_checks(std::vector<std::uint64_t> seeds, bool together);
  // keep_reference() for each seed in turn; false at the first failure.
  [[nodiscard]] bool keep_references(const std::vector<std::uint64_t>& seeds,
                                     std::vector<Outcome<CheckResult>> results);
  [[nodiscard]] CheckVerdict compare(const CheckResult& candidate, const CheckResult& reference,
                                     std::uint64_t seed);
  [[nodiscard]] nlohmann::ordered_json protocol_fields() const;
  [[nodiscard]] std::size_t input_sets() const;
  // The reference's checks of `seeds`, in their order: as few requests as the input-set
  // budget allows (check_sets), since each request costs the reference round trips and
  // synchronisations that a re-check waits for.
  [[nodiscard]] std::vector<Outcome<CheckResult>> reference_checks(const std::vector<std::uint64_t>& seeds);
  [[nodiscard]] int output_slots() const;
  [[nodiscard]] std::vector<const TimedOutputSlot*> pick_rechecks(const TimeResult& r,
                                                                  std::uint64_t pick_seed) const;
  // The candidate's timing trials, drawn before the correctness trials (timing_plan.h).
  void draw_timing_plan();
  // The seeds whose outputs the plan's re-checks will compare, where a fixed-count loop
  // makes them known in advance (else none).
  [[nodiscard]] std::vector<std::uint64_t> foreseen_recheck_seeds() const;
  // A drawn slot, fetched, with everything its check needs, owned: the check runs on
  // another thread while the next trial's loop runs on the device.
  struct SlotRecheck {
    TimedOutputSlot slot;
    std::vector<HostTensor> outputs;
    std::uint64_t seed = 0;
    const CheckResult* reference = nullptr;  // an entry of reference_cache_ (a std::map: it stays put)
    std::vector<std::string> inputs_after;   // the slot's input set, hashed after the loop
  };
  // Draws `recheck` of the kept slots and fetches them while the reference computes their
  // seeds' outputs; null after recording why either failed.
  [[nodiscard]] std::optional<std::vector<SlotRecheck>> fetch_rechecks(const TimeResult& r,
                                                                       const TrialPlan& trial);
  // On the CUDA backend a trial's checks run on the host beside the next trial's loop on
  // the device; on the CPU backend the loop is host work, and they run before it.
  [[nodiscard]] bool checks_beside_the_loop() const;
  // Starts the checks of `slots`, on another thread where they run beside the loop (the
  // main thread waits for them in settle(), before it looks at anything of the next trial).
  void start_rechecks(std::vector<SlotRecheck> slots, PendingRechecks& pending) const;
  // The first finding in the slots, in draw order: a slot must hold what the worker
  // committed to as the loop ended, and match the reference on the same input set.
  // Touches nothing but ctx_ and the slots, so it may run beside the main thread.
  [[nodiscard]] std::optional<Finding> check_slots(const std::vector<SlotRecheck>& slots) const;
  // Waits for checks started earlier, if any, and records their finding: false when there was one.
  bool settle(PendingRechecks& pending);
  // A timed output was wrong on `seed`. Untimed calls tell a kernel that computes differently
  // while timed (REWARD_HACK) from one that is imprecise on that input (INCORRECT_NUMERICAL): the
  // latter is wrong on `seed` untimed as well while still right on its first correctness seed.
  // Records the verdict with `log`; the worker must be idle (no loop in flight).
  void confirm_wrong_while_timed(std::uint64_t seed, const std::string& log);
  // The checker on two outputs of one seed, without accounting (any thread).
  [[nodiscard]] CheckVerdict run_checker(const std::vector<HostTensor>& candidate,
                                         const CheckResult& reference, std::uint64_t seed,
                                         std::size_t threads) const;
  // Adds the wall time since `since`, or `ms`, to `step` of the result's orchestrator_ms.
  void account(const char* step, std::chrono::steady_clock::time_point since);
  void account(const char* step, double ms);
  void fail(EvalStatus status, std::string log);
  void fail_call(const CallFailure& f, const std::string& when);

  WorkloadContext ctx_;
  MeasurementClient& candidate_;
  MeasurementClient& reference_;
  SeedStream& seeds_;
  WorkloadResult result_;
  std::map<std::uint64_t, CheckResult> reference_cache_;  // per seed, for this workload
  std::vector<TrialPlan> plan_;                           // the candidate's timing trials
};

}  // namespace kh
