#include "eval/workload_evaluation.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <kharness/entry.h>

#include <algorithm>
#include <future>
#include <memory>
#include <random>
#include <utility>

#include "error/error.h"
#include "eval/input_generator.h"
#include "eval/input_reuse_check.h"
#include "eval/timer_agreement.h"
#include "eval/wire/worker_payload.h"
#include "eval/workload_shapes.h"
#include "tensor/chunked_hash.h"
#include "timing/sample_statistics.h"
#include "trace/json_io.h"

namespace kh {

namespace {

// A value-returning entry's shim names an output of the wrong dtype or shape
// (kharness/entry.h); any other error of the call is a runtime error.
EvalStatus candidate_error_status(const std::string& message) {
  if (message.find(KH_WRONG_OUTPUT_SHAPE) != std::string::npos) return EvalStatus::incorrect_shape;
  if (message.find(KH_WRONG_OUTPUT_DTYPE) != std::string::npos) return EvalStatus::incorrect_dtype;
  return EvalStatus::runtime_error;
}

// Device bytes a workload's input sets (and its reference checks) may take at once.
std::size_t budget_bytes(const EvalOptions& o) {
  if (o.input_set_budget_bytes) return o.input_set_budget_bytes;
  return o.backend == "cuda" ? (std::size_t{2} << 30) : (std::size_t{256} << 20);
}

}  // namespace

SeedStream::SeedStream(std::optional<std::uint64_t> base)
    : engine_(base ? *base : (std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}()) {}

WorkloadEvaluation::WorkloadEvaluation(WorkloadContext context, MeasurementClient& candidate,
                                       MeasurementClient& reference, SeedStream& seeds)
    : ctx_(std::move(context)), candidate_(candidate), reference_(reference), seeds_(seeds) {}

WorkloadResult WorkloadEvaluation::run() {
  result_.workload = ctx_.workload;
  result_.status = EvalStatus::passed;
  const auto started = std::chrono::steady_clock::now();
  const std::size_t restarts_before = candidate_.restarts();
  const nlohmann::ordered_json candidate_before = candidate_.ledger().totals();
  const nlohmann::ordered_json reference_before = reference_.ledger().totals();
  auto since = std::chrono::steady_clock::now();
  bool checked = check_correctness();
  checked = check_no_gpu_handoff("after the correctness trials") && checked;
  account("correctness", since);
  if (checked && ctx_.options.time_candidate && nothing_to_time()) {
    result_.log += "not timed: the outputs have no elements (an axis is 0), so a call has no work to time\n";
  } else if (checked && ctx_.options.time_candidate) {
    since = std::chrono::steady_clock::now();
    const bool timed = measure(candidate_, true, result_.latency, seeds_) &&
                       check_no_gpu_handoff("after the timed iterations");
    account("timing", since);
    since = std::chrono::steady_clock::now();
    if (timed && ctx_.options.time_reference) reference_latency();
    account("reference_timing", since);
  }
  result_.worker_restarts = candidate_.restarts() - restarts_before;
  result_.requests = {{"candidate", candidate_.ledger().since(candidate_before)},
                      {"reference", reference_.ledger().since(reference_before)}};
  account("workload", started);
  return std::move(result_);
}

// A workload with an axis of 0 (upstream allows them) gives outputs of no elements. A
// correct call may then launch nothing, and every timed window would be empty: that is
// not work hidden from the timer, and there is no latency to measure.
bool WorkloadEvaluation::nothing_to_time() const {
  return tensor_bytes(ctx_.definition.outputs, resolve_axes(ctx_.definition, ctx_.workload)) == 0;
}

void WorkloadEvaluation::account(const char* step, std::chrono::steady_clock::time_point since) {
  account(step, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count());
}

void WorkloadEvaluation::account(const char* step, double ms) {
  result_.orchestrator_ms[step] = result_.orchestrator_ms.value(step, 0.0) + ms;
}

void WorkloadEvaluation::fail(EvalStatus status, std::string log) {
  result_.status = status;
  result_.log = std::move(log);
}

void WorkloadEvaluation::reference_latency() {
  const EvalOptions& o = ctx_.options;
  nlohmann::ordered_json parts = ctx_.reference_key;
  parts["workload"] = to_json(ctx_.workload);
  parts["protocol"] = protocol_fields();
  parts["protocol"]["input_sets"] = input_sets();
  parts["protocol"]["throttle_ratio"] = o.throttle_ratio;
  const std::string key = ReferenceLatencyCache::key(parts);
  const ReferenceLatencyCache* cache = ctx_.reference_latencies;
  // One draw whether the latency is cached or measured, so that what follows draws the
  // same seeds either way (a rerun repeats the run it reruns, cache or not).
  SeedStream timing_seeds(seeds_.next());
  if (cache != nullptr && !o.remeasure_reference) {
    result_.reference_latency = cache->find(key, result_.latency ? result_.latency->mean_sm_clock_mhz : 0.0);
    if (result_.reference_latency) return;
  }
  if (!measure(reference_, false, result_.reference_latency, timing_seeds)) {
    result_.reference_latency.reset();
    return;
  }
  if (cache != nullptr) cache->store(key, parts, *result_.reference_latency);
}

void WorkloadEvaluation::fail_call(const CallFailure& f, const std::string& when) {
  // A hung or dead worker: a candidate that does it on every workload is not worth running on.
  result_.fatal = f.kind == CallFailure::Kind::timeout || f.kind == CallFailure::Kind::crashed ||
                  (f.kind == CallFailure::Kind::candidate_error && f.sticky);
  switch (f.kind) {
    case CallFailure::Kind::timeout:
      fail(EvalStatus::timeout, fmt::format("{}: timed out ({})", when, f.message));
      return;
    case CallFailure::Kind::protocol_violation:
      fail(EvalStatus::reward_hack, fmt::format("{}: corrupted the harness channel: {}", when, f.message));
      return;
    case CallFailure::Kind::crashed:
      fail(EvalStatus::runtime_error, fmt::format("{}: worker {}", when, f.message));
      return;
    case CallFailure::Kind::candidate_error:
      fail(f.status.value_or(candidate_error_status(f.message)),
           fmt::format("{}: {}{}", when, f.message,
                       f.sticky ? " (sticky device error; worker replaced)" : ""));
      return;
    case CallFailure::Kind::harness_error:
      fail(EvalStatus::runtime_error, fmt::format("{}: worker error: {}", when, f.message));
      return;
  }
}

void WorkloadEvaluation::expect_host_twin(const std::vector<HostTensor>& inputs,
                                          const std::vector<std::string>& worker_hashes,
                                          std::uint64_t seed) const {
  std::size_t i = 0;
  for (const auto& [name, spec] : ctx_.definition.inputs) {
    const std::string hash = chunked_hash_hex(chunked_hash(inputs.at(i).bytes()));
    if (i >= worker_hashes.size() || worker_hashes[i] != hash) {
      throw Error(fmt::format(
          "harness error: workload {}, seed {}: the host twin of input '{}' (hash {}) differs "
          "from the set the reference worker generated (hash {})",
          ctx_.workload.uuid, seed, name, hash, i < worker_hashes.size() ? worker_hashes[i] : "?"));
    }
    ++i;
  }
}

WorkloadEvaluation::ReferenceChecks WorkloadEvaluation::start_reference_checks(
    std::vector<std::uint64_t> seeds, bool together) {
  auto promises = std::make_shared<std::vector<std::promise<Outcome<CheckResult>>>>(seeds.size());
  ReferenceChecks r;
  for (auto& p : *promises) r.results.push_back(p.get_future());
  r.done = std::async(std::launch::async, [this, promises, stop = r.stop, seeds = std::move(seeds),
                                           together] {
    std::size_t next = 0;
    try {
      while (next < seeds.size() && !stop->load()) {
        const std::size_t count = together ? seeds.size() : 1;
        const auto first = seeds.begin() + static_cast<std::ptrdiff_t>(next);
        for (Outcome<CheckResult>& o : reference_checks({first, first + static_cast<std::ptrdiff_t>(count)}))
          (*promises)[next++].set_value(std::move(o));
      }
    } catch (...) {
      // Not swallowed: each seed still waiting is handed the error (a harness error, a
      // malformed reply of the reference), which its get() throws on the main thread.
      const std::exception_ptr error = std::current_exception();
      for (; next < seeds.size(); ++next) (*promises)[next].set_exception(error);
    }
  });
  return r;
}

bool WorkloadEvaluation::keep_references(const std::vector<std::uint64_t>& seeds,
                                         std::vector<Outcome<CheckResult>> results) {
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    if (keep_reference(seeds[i], std::move(results.at(i))) == nullptr) return false;
  }
  return true;
}

const CheckResult* WorkloadEvaluation::keep_reference(std::uint64_t seed, Outcome<CheckResult> r) {
  if (!r.value) {
    fail(EvalStatus::runtime_error,
         fmt::format("the reference failed on seed {}: {}", seed, r.failure->message));
    return nullptr;
  }
  return &reference_cache_.emplace(seed, std::move(*r.value)).first->second;
}

CheckVerdict WorkloadEvaluation::run_checker(const std::vector<HostTensor>& candidate,
                                             const CheckResult& reference, std::uint64_t seed,
                                             std::size_t threads) const {
  std::optional<std::vector<HostTensor>> inputs;
  CheckContext c{ctx_.definition,
                 reference.outputs,
                 candidate,
                 ctx_.tolerance,
                 [&]() -> const std::vector<HostTensor>& {
                   if (!inputs) {
                     inputs = make_inputs(ctx_.definition, ctx_.workload, seed, ctx_.root);
                     expect_host_twin(*inputs, reference.input_hashes_before, seed);
                   }
                   return *inputs;
                 },
                 threads};
  return ctx_.checker.check(c);
}

CheckVerdict WorkloadEvaluation::compare(const CheckResult& candidate, const CheckResult& reference,
                                         std::uint64_t seed) {
  const auto since = std::chrono::steady_clock::now();
  CheckVerdict v = run_checker(candidate.outputs, reference, seed, 0);
  account("compare", since);
  return v;
}

std::optional<std::string> WorkloadEvaluation::inputs_modified(const std::vector<std::string>& before,
                                                               const std::vector<std::string>& after,
                                                               const std::string& when) const {
  std::size_t i = 0;
  for (const auto& [name, spec] : ctx_.definition.inputs) {
    if (i >= before.size() || i >= after.size() || before[i] != after[i]) {
      return fmt::format(
          "{}: input '{}' was modified by the solution (content hash {} "
          "before the call, {} after)",
          when, name, i < before.size() ? before[i] : "?", i < after.size() ? after[i] : "?");
    }
    ++i;
  }
  return std::nullopt;
}

bool WorkloadEvaluation::verify_inputs_untouched(const std::vector<std::string>& before,
                                                 const std::vector<std::string>& after,
                                                 const std::string& when) {
  std::optional<std::string> why = inputs_modified(before, after, when);
  if (why) fail(EvalStatus::reward_hack, std::move(*why));
  return !why;
}

bool WorkloadEvaluation::check_correctness() {
  LingeringWork lingering;  // over the check calls so far
  const auto hidden_work = [&](const std::string& when) {
    fail(EvalStatus::reward_hack,
         fmt::format("{}: work continued after the call returned: {}", when, lingering.describe()));
    return false;
  };
  std::vector<std::uint64_t> seeds(static_cast<std::size_t>(std::max(0, ctx_.options.correctness_trials)));
  for (std::uint64_t& seed : seeds) seed = seeds_.next();
  if (ctx_.options.time_candidate && !nothing_to_time()) draw_timing_plan();
  // The reference's outputs for every trial's seed (nothing is timed here). On CUDA in
  // one request, before the candidate's checks: two processes' work on one GPU is
  // time-sliced, and each check waited on the other's. That request also computes the
  // seeds the timing trials will re-check, so that no re-check waits for the reference.
  // On the CPU beside the checks, on other cores, a request a seed so that each trial's
  // is ready with the candidate's; the re-checked seeds come later, before each loop.
  const bool on_device = ctx_.options.backend == "cuda";
  std::vector<std::uint64_t> reference_seeds = seeds;
  if (on_device) {
    for (const std::uint64_t s : foreseen_recheck_seeds())
      if (std::find(reference_seeds.begin(), reference_seeds.end(), s) == reference_seeds.end())
        reference_seeds.push_back(s);
  }
  ReferenceChecks reference = start_reference_checks(reference_seeds, on_device);
  if (on_device) {
    reference.done.wait();
    std::vector<Outcome<CheckResult>> foreseen;
    for (std::size_t i = seeds.size(); i < reference_seeds.size(); ++i)
      foreseen.push_back(reference.results[i].get());
    if (!keep_references(
            {reference_seeds.begin() + static_cast<std::ptrdiff_t>(seeds.size()), reference_seeds.end()},
            std::move(foreseen)))
      return false;
  }
  std::vector<Outcome<CheckResult>> together;
  if (on_device && seeds.size() > 1) {
    std::optional<std::vector<Outcome<CheckResult>>> r = candidate_checks_together(seeds);
    if (!r) return false;
    together = std::move(*r);
  }
  for (int t = 0; t < ctx_.options.correctness_trials; ++t) {
    const std::uint64_t seed = seeds[static_cast<std::size_t>(t)];
    result_.check_seeds.push_back(seed);
    const std::string when = fmt::format("correctness trial {} (seed {})", t + 1, seed);
    Outcome<CheckResult> out;
    std::optional<std::string> malformed;
    if (!together.empty()) {
      out = std::move(together[static_cast<std::size_t>(t)]);
    } else {
      try {
        out = candidate_.check(ctx_.definition, ctx_.workload, ctx_.root, seed, kPoison[t % 2]);
      } catch (const Error& e) {
        malformed = e.what();
      }
    }
    // A reference that failed is the harness's problem: it is reported before anything
    // the candidate did.
    const CheckResult* ref = keep_reference(seed, reference.results[static_cast<std::size_t>(t)].get());
    if (ref == nullptr) return false;
    if (malformed) {
      fail(EvalStatus::reward_hack, fmt::format("{}: malformed reply from the worker: {}", when, *malformed));
      return false;
    }
    if (!out.value) {
      fail_call(*out.failure, when);
      return false;
    }
    // One call with work after it returned may be a pool going idle late; the same again,
    // on the only trial, or with a wrong answer, is the solution's.
    lingering.add(out.value->lingering);
    const bool lingered = out.value->lingering.work();
    if (lingered && (lingering.periods_with_work >= 2 || ctx_.options.correctness_trials == 1))
      return hidden_work(when);
    if (!verify_inputs_untouched(ref->input_hashes_before, out.value->input_hashes_after, when)) return false;
    CheckVerdict v = compare(*out.value, *ref, seed);
    const bool worse = !result_.correctness || v.max_absolute_error > result_.correctness->max_absolute_error;
    if (worse || !v.passed) result_.correctness = v;
    if (!v.passed) {
      if (lingered) return hidden_work(when);
      fail(EvalStatus::incorrect_numerical, fmt::format("{}: {}", when, v.reason));
      return false;
    }
  }
  return true;
}

std::optional<std::vector<Outcome<CheckResult>>> WorkloadEvaluation::candidate_checks_together(
    const std::vector<std::uint64_t>& seeds) {
  std::vector<std::uint8_t> poisons;
  for (std::size_t t = 0; t < seeds.size(); ++t) poisons.push_back(kPoison[t % 2]);
  const std::string when =
      fmt::format("correctness trials 1-{} (seeds {})", seeds.size(), fmt::join(seeds, ", "));
  Outcome<std::vector<CheckResult>> r;
  try {
    r = candidate_.check_sets(ctx_.definition, ctx_.workload, ctx_.root, seeds, poisons);
  } catch (const Error& e) {
    fail(EvalStatus::reward_hack, fmt::format("{}: malformed reply from the worker: {}", when, e.what()));
    return std::nullopt;
  }
  if (!r.value && r.failure->kind == CallFailure::Kind::timeout) {
    fail_call(*r.failure, when);  // asking each trial alone would wait out the timeout again
    return std::nullopt;
  }
  std::vector<Outcome<CheckResult>> out;
  // A call that failed or crashed: the trials are asked one by one, on a fresh worker
  // where it crashed, so that the verdict is the first trial's that went wrong, as it
  // would have been had they never been asked together.
  if (!r.value) return out;
  for (CheckResult& c : *r.value) out.push_back({std::move(c), std::nullopt});
  return out;
}

void WorkloadEvaluation::draw_timing_plan() {
  plan_.assign(static_cast<std::size_t>(ctx_.options.protocol.trial_count()), {});
  for (TrialPlan& trial : plan_) {
    for (std::size_t k = 0; k < input_sets(); ++k) trial.set_seeds.push_back(seeds_.next());
    trial.pick_seed = seeds_.next();
  }
}

std::vector<std::uint64_t> WorkloadEvaluation::foreseen_recheck_seeds() const {
  const TimingProtocol& p = ctx_.options.protocol;
  if (!p.fixed_count()) return {};  // how many calls a robust loop makes is known only after it
  const LoopShape shape{p.warmup, p.iterations, output_slots(), input_sets()};
  std::vector<std::uint64_t> seeds;
  for (const TrialPlan& trial : plan_) {
    for (const std::size_t set : rechecked_sets(shape, trial, ctx_.options.recheck))
      seeds.push_back(trial.set_seeds.at(set));
  }
  return seeds;
}

nlohmann::ordered_json WorkloadEvaluation::protocol_fields() const {
  const EvalOptions& o = ctx_.options;
  nlohmann::ordered_json f = {{"recheck", output_slots()}, {"poison", kPoison[0]}};
  write_protocol(f, o.protocol);
  return f;
}

// As many distinct input sets as the budget allows, up to one per iteration: then no
// two timed iterations see the same data at the same address, and a cache keyed on
// pointers or contents never hits.
std::size_t WorkloadEvaluation::input_sets() const {
  const EvalOptions& o = ctx_.options;
  const std::size_t budget = budget_bytes(o);
  const std::size_t set_bytes = std::max<std::size_t>(
      1, tensor_bytes(ctx_.definition.inputs, resolve_axes(ctx_.definition, ctx_.workload)));
  const std::size_t iterations =
      static_cast<std::size_t>(o.protocol.warmup) + o.protocol.planned_iterations();
  return std::clamp<std::size_t>(budget / set_bytes, 2, std::max<std::size_t>(2, iterations));
}

std::vector<Outcome<CheckResult>> WorkloadEvaluation::reference_checks(
    const std::vector<std::uint64_t>& seeds) {
  const EvalOptions& o = ctx_.options;
  const std::size_t budget = budget_bytes(o);
  const AxisValues axes = resolve_axes(ctx_.definition, ctx_.workload);
  const std::size_t per_seed = std::max<std::size_t>(
      1, tensor_bytes(ctx_.definition.inputs, axes) + tensor_bytes(ctx_.definition.outputs, axes));
  const std::size_t batch = std::max<std::size_t>(1, budget / per_seed);
  std::vector<Outcome<CheckResult>> out;
  out.reserve(seeds.size());
  for (std::size_t first = 0; first < seeds.size(); first += batch) {
    const std::vector<std::uint64_t> some(
        seeds.begin() + static_cast<std::ptrdiff_t>(first),
        seeds.begin() + static_cast<std::ptrdiff_t>(std::min(seeds.size(), first + batch)));
    Outcome<std::vector<CheckResult>> r =
        reference_.check_sets(ctx_.definition, ctx_.workload, ctx_.root, some, kPoison[0]);
    for (std::size_t i = 0; i < some.size(); ++i) {
      if (r.value)
        out.push_back({std::move(r.value->at(i)), std::nullopt});
      else
        out.push_back({std::nullopt, r.failure});
    }
  }
  return out;
}

// One output slot per timed iteration where the budget allows, so every timed output
// survives the loop and the orchestrator can re-check any of them: re-checking only the
// last few let a solution that cached answers for most iterations pass.
int WorkloadEvaluation::output_slots() const {
  const EvalOptions& o = ctx_.options;
  const std::size_t budget = budget_bytes(o);
  const std::size_t out_bytes = std::max<std::size_t>(
      1, tensor_bytes(ctx_.definition.outputs, resolve_axes(ctx_.definition, ctx_.workload)));
  const std::size_t iterations = o.protocol.planned_iterations();
  return static_cast<int>(
      std::clamp<std::size_t>(budget / 4 / out_bytes, static_cast<std::size_t>(o.recheck),
                              std::max<std::size_t>(iterations, static_cast<std::size_t>(o.recheck))));
}

bool WorkloadEvaluation::measure(MeasurementClient& who, bool is_candidate,
                                 std::optional<LatencyMeasurement>& out, SeedStream& stream) {
  const EvalOptions& o = ctx_.options;
  const int trials = o.protocol.trial_count();
  LatencyMeasurement m;
  std::vector<double> pool;
  // The last trial's re-checks, compared on the host while this trial runs on the device.
  PendingRechecks rechecks;
  InputReuseCheck reuse;
  for (int t = 0; t < trials; ++t) {
    // The candidate's trials were drawn with its correctness trials; the reference's come
    // from its own stream as it goes.
    const bool planned = is_candidate && static_cast<std::size_t>(t) < plan_.size();
    TrialPlan drawn;
    if (!planned) {
      for (std::size_t k = 0; k < input_sets(); ++k) drawn.set_seeds.push_back(stream.next());
      if (is_candidate) drawn.pick_seed = stream.next();
    }
    const TrialPlan& trial = planned ? plan_[static_cast<std::size_t>(t)] : drawn;
    const std::vector<std::uint64_t>& seeds = trial.set_seeds;
    m.set_seeds.push_back(seeds);
    Outcome<TimeResult> r;
    std::optional<std::string> malformed;
    try {
      r = who.time(ctx_.definition, ctx_.workload, ctx_.root, seeds, protocol_fields());
    } catch (const Error& e) {
      if (!is_candidate) throw;
      malformed = e.what();
    }
    // What the last trial's outputs showed comes before anything of this trial.
    if (!settle(rechecks)) return false;
    if (malformed) {
      fail(EvalStatus::reward_hack,
           fmt::format("timing trial {}: malformed reply from the worker: {}", t + 1, *malformed));
      return false;
    }
    if (!r.value) {
      if (is_candidate) {
        fail_call(*r.failure, fmt::format("timing trial {}", t + 1));
      } else {
        result_.log += fmt::format("reference timing failed: {}\n", r.failure->message);
      }
      return false;
    }
    if (is_candidate && !verify_timed_run(*r.value, trial, rechecks)) return false;
    // On CUDA only: on the CPU backend an honest call's later visits of a set took 73% of
    // its first visit's time (CpuEndToEnd.RobustProtocolReportsNoiseAndStops: 65 sets, 2
    // loaded cores), a first-touch cost the cache sweep between calls does not even out.
    if (is_candidate && o.backend == "cuda")
      reuse.add_trial(r.value->samples, o.protocol.warmup > 0 ? std::optional<int>(0) : std::nullopt);
    for (const auto& [k, v] : r.value->phases_ms.items()) {
      m.phases_ms[k] = m.phases_ms.value(k, 0.0) + v.get<double>();
    }
    m.request_wall_ms += r.value->wall_ms;
    m.timer = r.value->timer;
    m.timer_note = r.value->timer_note;
    m.stop_reason = r.value->stop_reason;
    std::vector<double> accepted;
    double clock_sum = 0;
    for (const TimedSample& s : r.value->samples) {
      const bool throttled = ctx_.nominal_clock_mhz > 0 && s.clock_mhz > 0 &&
                             s.clock_mhz < o.throttle_ratio * ctx_.nominal_clock_mhz;
      if (throttled) ++m.throttled;
      // A candidate's iterations whose events exceeded CUPTI's span (verify_timed_run: fewer than
      // half) do not count: hiding work in them cannot make the call look faster.
      const bool blind = is_candidate && events_exceed_cupti(s, ctx_.interpreted);
      if (s.valid && !throttled && !blind) {
        accepted.push_back(s.ms);
        clock_sum += s.clock_mhz;
      }
    }
    if (accepted.empty()) {
      if (!settle(rechecks)) return false;  // what the outputs showed comes first, as it would in order
      const std::string why =
          fmt::format("timing trial {}: no usable sample ({} throttled)", t + 1, m.throttled);
      if (is_candidate)
        fail(EvalStatus::runtime_error, why);
      else
        result_.log += "reference " + why + "\n";
      return false;
    }
    m.trial_medians_ms.push_back(median(accepted));
    m.samples_ms.push_back(accepted);
    m.mean_sm_clock_mhz += clock_sum / static_cast<double>(accepted.size()) / trials;
    pool.insert(pool.end(), accepted.begin(), accepted.end());
  }
  if (!settle(rechecks)) return false;
  if (const std::optional<std::string> cached = reuse.verdict()) {
    fail(EvalStatus::reward_hack, "timing: " + *cached);
    return false;
  }
  m.stats = summarize(pool);
  m.latency_ms = o.protocol.latency_ms(m.trial_medians_ms, m.stats.median);
  out = std::move(m);
  return true;
}

}  // namespace kh
