// The re-check of a timing trial's outputs: drawn slots fetched from the candidate's
// worker, each checked against the reference on its input set. On the CUDA backend the
// checks run on the host while the next trial's loop runs on the device, so their cost
// hides behind device time; on the CPU backend the loop itself is host work, and they
// run before it. A wrong timed output is confirmed by untimed calls before it is called a
// reward hack: a kernel that is merely imprecise on that input set is wrong untimed too.
#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "error/error.h"
#include "eval/timing_plan.h"
#include "eval/workload_evaluation.h"
#include "tensor/chunked_hash.h"

namespace kh {

// The timed outputs to re-check: `recheck` of the slots the worker kept, drawn by the
// trial's pick seed from the orchestrator's own stream (timing_plan.h), so the solution
// cannot know which.
std::vector<const TimedOutputSlot*> WorkloadEvaluation::pick_rechecks(const TimeResult& r,
                                                                      std::uint64_t pick_seed) const {
  std::vector<const TimedOutputSlot*> picked;
  for (const std::size_t k : drawn_slots(r.slots.size(), pick_seed, ctx_.options.recheck))
    picked.push_back(&r.slots[k]);
  return picked;
}

std::optional<std::vector<WorkloadEvaluation::SlotRecheck>> WorkloadEvaluation::fetch_rechecks(
    const TimeResult& r, const TrialPlan& trial) {
  const std::vector<std::uint64_t>& seeds = trial.set_seeds;
  const std::vector<const TimedOutputSlot*> picked = pick_rechecks(r, trial.pick_seed);
  if (picked.empty()) return std::vector<SlotRecheck>{};
  const auto since = std::chrono::steady_clock::now();
  std::vector<int> wanted;
  // Seeds whose reference outputs are not computed yet: none when the plan foresaw the
  // worker's slots and the correctness request computed them.
  std::vector<std::uint64_t> missing;
  for (const TimedOutputSlot* o : picked) {
    wanted.push_back(o->slot);
    const std::uint64_t seed = seeds.at(static_cast<std::size_t>(o->input_set));
    if (!reference_cache_.contains(seed) && std::find(missing.begin(), missing.end(), seed) == missing.end())
      missing.push_back(seed);
  }
  auto reference = std::async(std::launch::async, [this, &missing] { return reference_checks(missing); });
  Outcome<std::vector<std::vector<HostTensor>>> fetched;
  try {
    fetched = candidate_.timed_outputs(ctx_.definition, ctx_.workload, wanted);
  } catch (const Error& e) {
    fail(EvalStatus::reward_hack, fmt::format("re-check: malformed reply from the worker: {}", e.what()));
    return std::nullopt;
  }
  const bool kept = keep_references(missing, reference.get());
  account("recheck", since);
  if (!kept) return std::nullopt;
  if (!fetched.value) {
    fail_call(*fetched.failure, "re-check of the timed outputs");
    return std::nullopt;
  }
  std::vector<SlotRecheck> slots;
  for (std::size_t k = 0; k < picked.size(); ++k) {
    const auto set = static_cast<std::size_t>(picked[k]->input_set);
    const std::uint64_t seed = seeds.at(set);
    slots.push_back({*picked[k], std::move(fetched.value->at(k)), seed, &reference_cache_.at(seed),
                     r.input_hashes_after.at(set)});
  }
  return slots;
}

std::optional<WorkloadEvaluation::Finding> WorkloadEvaluation::check_slots(
    const std::vector<SlotRecheck>& slots) const {
  // Beside a loop, half the cores: the other half keep the candidate's worker launching
  // undisturbed.
  const std::size_t threads =
      checks_beside_the_loop() ? std::max(1u, std::thread::hardware_concurrency() / 2) : 0;
  for (const SlotRecheck& s : slots) {
    for (std::size_t i = 0; i < s.outputs.size(); ++i) {
      const std::string hash = chunked_hash_hex(chunked_hash(s.outputs[i].bytes()));
      if (hash != s.slot.hashes.at(i)) {
        return Finding{EvalStatus::reward_hack,
                       fmt::format("timed iteration {}: output '{}' changed after the timed run ended "
                                   "(hash {} then, {} when fetched)",
                                   s.slot.iteration, ctx_.definition.outputs.items.at(i).first,
                                   s.slot.hashes.at(i), hash),
                       std::nullopt};
      }
    }
    const int set = s.slot.input_set;
    if (std::optional<std::string> why = inputs_modified(s.reference->input_hashes_before, s.inputs_after,
                                                         fmt::format("timed input set {}", set)))
      return Finding{EvalStatus::reward_hack, std::move(*why), std::nullopt};
    const CheckVerdict v = run_checker(s.outputs, *s.reference, s.seed, threads);
    if (!v.passed) {
      return Finding{EvalStatus::reward_hack,
                     fmt::format("timed iteration {} (input set {}, seed {}) produced wrong outputs although "
                                 "the checked call was right (outputs cached or computed differently while "
                                 "timed): {}",
                                 s.slot.iteration, set, s.seed, v.reason),
                     s.seed};
    }
  }
  return std::nullopt;
}

bool WorkloadEvaluation::checks_beside_the_loop() const {
  return ctx_.options.recheck_beside_loop.value_or(ctx_.options.backend == "cuda");
}

void WorkloadEvaluation::start_rechecks(std::vector<SlotRecheck> slots, PendingRechecks& pending) const {
  pending = std::async(
      checks_beside_the_loop() ? std::launch::async : std::launch::deferred, [this, s = std::move(slots)] {
        const auto since = std::chrono::steady_clock::now();
        RecheckOutcome out{check_slots(s), 0};
        out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
        return out;
      });
}

bool WorkloadEvaluation::settle(PendingRechecks& pending) {
  if (!pending.valid()) return true;
  RecheckOutcome out = pending.get();  // rethrows a harness error (kh::Error)
  account("compare", out.ms);
  if (!out.finding) return true;
  if (out.finding->wrong_seed) {
    confirm_wrong_while_timed(*out.finding->wrong_seed, out.finding->log);
  } else {
    fail(out.finding->status, std::move(out.finding->log));
  }
  return false;
}

void WorkloadEvaluation::confirm_wrong_while_timed(std::uint64_t seed, const std::string& log) {
  // The verdict of one untimed call on `seed`: nullopt after recording a failed call.
  const auto untimed = [&](std::uint64_t s, const std::string& when) -> std::optional<CheckVerdict> {
    Outcome<CheckResult> out;
    try {
      out = candidate_.check(ctx_.definition, ctx_.workload, ctx_.root, s, kPoison[0]);
    } catch (const Error& e) {
      fail(EvalStatus::reward_hack, fmt::format("{}: malformed reply from the worker: {}", when, e.what()));
      return std::nullopt;
    }
    if (!out.value) {
      fail_call(*out.failure, when);
      return std::nullopt;
    }
    const auto reference = reference_cache_.find(s);
    if (reference == reference_cache_.end())
      throw Error(fmt::format("re-check: no reference outputs kept for seed {}", s));  // a harness bug
    return compare(*out.value, reference->second, s);
  };
  const std::optional<CheckVerdict> again =
      untimed(seed, fmt::format("untimed call on the timed seed {}", seed));
  if (!again) return;
  if (again->passed) {
    fail(EvalStatus::reward_hack, log + fmt::format("; untimed, the same seed {} is right", seed));
    return;
  }
  // Right on the first correctness seed still: wrong on this input, not wrong since some call.
  if (!result_.check_seeds.empty()) {
    const std::uint64_t first = result_.check_seeds.front();
    const std::optional<CheckVerdict> before =
        untimed(first, fmt::format("untimed call on correctness seed {}", first));
    if (!before) return;
    if (!before->passed) {
      fail(
          EvalStatus::reward_hack,
          log + fmt::format("; untimed, correctness seed {} is now wrong as well, though it was right before "
                            "the timing: the outputs changed with the calls, not with the input",
                            first));
      return;
    }
  }
  result_.correctness = *again;
  fail(EvalStatus::incorrect_numerical,
       fmt::format("timed input set seed {}: {} (wrong untimed on this seed as well, and right on the "
                   "correctness seeds: imprecise on this input, not computed differently while timed)",
                   seed, again->reason));
}

}  // namespace kh
