#include "eval/worker_side/timed_loop.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>

#include "error/error.h"
#include "eval/timing_plan.h"
#include "eval/worker_side/thread_activity_probe.h"
#include "timing/iteration_timer.h"

namespace kh {

namespace {

using Clock = std::chrono::steady_clock;

// The timers of one loop: the best the backend has, plus CUDA events beside CUPTI.
// Made per request; CUPTI's activity API under them stays enabled for the worker's life
// (the CUDA backend holds it), since enabling it per request cost the next CUDA call
// 0.55-0.8 ms on the H200 (docs/timing.md).
struct TimerPair {
  std::unique_ptr<IterationTimer> primary;
  std::unique_ptr<IterationTimer> secondary;
  std::string note;
};

TimerPair make_timers(Backend& backend) {
  TimerPair t;
  t.primary = backend.make_best_timer(t.note);  // the note goes into the trace
  if (!t.primary) throw Error("no timer could be created on backend " + backend.info().backend);
  if (t.primary->name() == "cupti_span") t.secondary = backend.make_timer(TimerKind::cuda_event);
  return t;
}

// Output slots rotate; the contents of each slot after the loop belong to the last
// iteration that wrote it.
struct OutputSlots {
  std::vector<std::vector<DeviceTensor>> slots;
  std::vector<int> last_iteration;
  std::vector<int> last_set;
};

OutputSlots make_slots(Backend& backend, const std::vector<TensorLayout>& layouts, int count) {
  OutputSlots s;
  for (int i = 0; i < count; ++i) {
    s.slots.push_back(allocate_outputs(backend, layouts));
    s.last_iteration.push_back(-1);
    s.last_set.push_back(-1);
  }
  return s;
}

class Loop {
 public:
  Loop(Backend& backend, const Kernel& kernel, std::vector<std::vector<DeviceTensor>>& sets,
       const std::vector<TensorLayout>& layouts, const TimedLoopConfig& config)
      : backend_(backend), kernel_(kernel), sets_(sets), layouts_(layouts), config_(config) {}

  TimedLoopResult run() {
    auto t = Clock::now();
    slots_ = make_slots(backend_, layouts_, std::max(1, config_.recheck));
    TimerPair timers = make_timers(backend_);
    lap(t, result_.phases.setup_ms);
    result_.timer = std::string(timers.primary->name());
    result_.timer_note = timers.note;
    if (warm_up()) {
      if (config_.protocol.fixed_count()) {
        run_batch(timers, config_.protocol.iterations, /*last=*/true);
        result_.stop_reason = std::to_string(config_.protocol.iterations) + " iterations (official protocol)";
      } else if (run_robust(timers)) {
        end_calls();
      }
    }
    t = Clock::now();
    timers = {};  // the timers' events and windows go; CUPTI's subscription stays with the backend
    lap(t, result_.phases.teardown_ms);
    return std::move(result_);
  }

  [[nodiscard]] KeptOutputs take_kept() { return std::move(kept_); }

 private:
  // Adds the time since `since` to `phase` and restarts the stopwatch.
  static void lap(Clock::time_point& since, double& phase) {
    const auto now = Clock::now();
    phase += std::chrono::duration<double, std::milli>(now - since).count();
    since = now;
  }

  // A warm-up call (no timers) skips the poisoning and the cache flush: its outputs are
  // never read (a slot is kept only when a timed call wrote it last, and each timed call
  // poisons its slot first), and the cache state it leaves is flushed before the first
  // timed call. That saves a 2x-L2 memset and a wait per warm-up.
  // eval/timing_plan.h foresees the same sets.
  [[nodiscard]] int set_for(int iteration) const {
    return static_cast<int>(input_set_of_call(iteration, config_.protocol.warmup, sets_.size()));
  }

  bool call(int iteration, IterationTimer* primary, IterationTimer* secondary) {
    const int set = set_for(iteration);
    const int slot = iteration % static_cast<int>(slots_.slots.size());
    LoopPhases& ph = result_.phases;
    auto t = Clock::now();
    if (primary) {
      std::vector<std::pair<void*, std::size_t>> regions;
      for (const DeviceTensor& out : slots_.slots[slot]) regions.emplace_back(out.data, out.bytes);
      backend_.poison_then_flush(regions, config_.poison);
      lap(t, ph.flush_ms);
    }
    close_probe();
    lap(t, ph.probe_ms);
    std::vector<kh_arg> args = make_args(sets_[set], slots_.slots[slot]);
    const std::unique_ptr<PreparedCall> prepared = kernel_.prepare(args, backend_.stream());
    if (primary) primary->start();
    if (secondary) secondary->start();
    const auto call_begin = Clock::now();
    const CallResult outcome = prepared->run();
    call_ms_.push_back(std::chrono::duration<double, std::milli>(Clock::now() - call_begin).count());
    if (secondary) secondary->stop();
    if (primary) primary->stop();
    if (!primary) backend_.synchronize();
    lap(t, primary ? ph.timed_ms : ph.warmup_ms);
    slots_.last_iteration[slot] = iteration;
    slots_.last_set[slot] = set;
    if (!outcome.ok()) {
      result_.error = "iteration " + std::to_string(iteration) + ": " + outcome.message;
      result_.error_status = outcome.status;
      return false;
    }
    return true;
  }

  bool warm_up() {
    for (int i = 0; i < config_.protocol.warmup; ++i) {
      if (!call(next_++, nullptr, nullptr)) return false;
    }
    return true;
  }

  // The timed calls are over: the slots they wrote last are kept, and the caller's
  // after_last_call runs on them.
  void end_calls() {
    keep_timed_slots();
    if (config_.after_last_call) config_.after_last_call(kept_);
  }

  bool run_batch(TimerPair& timers, int count, bool last = false) {
    std::vector<int> sets;
    std::vector<double> clocks;
    for (int i = 0; i < count; ++i) {
      sets.push_back(set_for(next_));
      if (!call(next_++, timers.primary.get(), timers.secondary.get())) return false;
      open_probe();
      auto t = Clock::now();
      clocks.push_back(backend_.sm_clock_mhz().value_or(0.0));
      lap(t, result_.phases.clock_ms);
    }
    auto t = Clock::now();
    close_probe();
    lap(t, result_.phases.probe_ms);
    if (last) {
      end_calls();
      t = Clock::now();  // the caller's work is its own, not this loop's phases
    }
    append_samples(timers, sets, clocks);
    lap(t, result_.phases.collect_ms);
    return true;
  }

  void append_samples(TimerPair& timers, const std::vector<int>& sets, const std::vector<double>& clocks) {
    // The batch's calls are the last sets.size() of those timed so far.
    const std::size_t first_call = call_ms_.size() - std::min(call_ms_.size(), sets.size());
    std::vector<IterationSample> primary = timers.primary->finish();
    std::vector<IterationSample> secondary;
    if (timers.secondary) secondary = timers.secondary->finish();
    result_.stray += timers.primary->stray_activities();
    for (std::size_t i = 0; i < primary.size() && i < sets.size(); ++i) {
      TimedSample s;
      s.ms = primary[i].span_ms;
      s.activities = primary[i].activities;
      s.valid = primary[i].valid;
      s.event_ms = i < secondary.size() ? secondary[i].span_ms : -1;
      s.call_ms = first_call + i < call_ms_.size() ? call_ms_[first_call + i] : -1;
      s.clock_mhz = clocks[i];
      s.input_set = sets[i];
      result_.samples.push_back(s);
    }
  }

  // False when a call failed.
  bool run_robust(TimerPair& timers) {
    const StopParameters& p = config_.protocol.stop;
    auto criterion = make_stop_criterion("stdrel", p);
    const auto deadline = Clock::now() + std::chrono::duration<double>(p.timeout_s);
    // Batches grow so that collecting CUPTI records (a flush per batch) stays a small
    // share of the time while the first decision still comes after 10 samples.
    int batch = 10;
    while (!criterion->is_finished()) {
      const std::size_t before = result_.samples.size();
      if (!run_batch(timers, batch)) return false;
      batch = std::min(batch * 2, 1000);
      for (std::size_t i = before; i < result_.samples.size(); ++i) {
        if (result_.samples[i].valid) criterion->add(result_.samples[i].ms);
      }
      if (Clock::now() > deadline) {
        result_.stop_reason = "timeout after " + criterion->reason();
        return true;
      }
    }
    result_.stop_reason = criterion->reason();
    return true;
  }

  // On the CPU backend, a grace period opens when a timed call returns and closes, at
  // least 2 ms later, just before the next call starts (or after the last): other
  // threads still working in it mean the call returned before its work was done. The
  // next iteration's poisoning and cache flush run inside it.
  void open_probe() {
    if (backend_.info().backend == "cpu") probe_ = ThreadActivityProbe::open();
  }
  void close_probe() {
    if (!probe_) return;
    result_.lingering.add(probe_->close(std::chrono::microseconds(2000)));
    probe_.reset();
  }

  void keep_timed_slots() {
    for (std::size_t s = 0; s < slots_.slots.size(); ++s) {
      if (slots_.last_iteration[s] < config_.protocol.warmup) continue;  // only timed iterations
      result_.slots.push_back(
          {static_cast<int>(result_.slots.size()), slots_.last_iteration[s], slots_.last_set[s], {}});
      kept_.push_back(std::move(slots_.slots[s]));
    }
  }

  Backend& backend_;
  const Kernel& kernel_;
  std::vector<std::vector<DeviceTensor>>& sets_;
  const std::vector<TensorLayout>& layouts_;
  const TimedLoopConfig& config_;
  OutputSlots slots_;
  TimedLoopResult result_;
  KeptOutputs kept_;
  std::vector<double> call_ms_;  // host time of each call, warm-ups included
  int next_ = 0;
  std::optional<ThreadActivityProbe> probe_;  // the grace period after the last timed call
};

}  // namespace

TimedLoopResult run_timed_loop(Backend& backend, const Kernel& kernel,
                               std::vector<std::vector<DeviceTensor>>& input_sets,
                               const std::vector<TensorLayout>& output_layouts, const TimedLoopConfig& config,
                               KeptOutputs& kept) {
  if (input_sets.empty()) throw Error("timed loop needs at least one input set");
  Loop loop(backend, kernel, input_sets, output_layouts, config);
  TimedLoopResult result = loop.run();
  kept = loop.take_kept();
  return result;
}

}  // namespace kh
