// TimingPlan: a candidate's timing trials, drawn before the first of them runs.
//
// Each trial's input-set seeds and the seed that draws which timed outputs are re-checked
// come from the orchestrator's stream up front. Nothing of it reaches the candidate's
// worker before its loop has ended (the drawn slots are named only in the timed_outputs
// request), so the draw is as secret as one made after the loop. Drawn early, the
// reference can compute the re-checked seeds' outputs in the request it makes for the
// correctness trials, instead of in one request a trial that each trial's re-check waits
// for. Under a fixed iteration count the slots a loop keeps are known in advance
// (kept_slot_sets); a worker that reports other slots only costs those seeds a later
// reference request.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kh {

struct TrialPlan {
  std::vector<std::uint64_t> set_seeds;  // one per input set, in set order
  std::uint64_t pick_seed = 0;           // draws the re-checked slots (drawn_slots)
};

// The input set of call `call` of a timed loop (eval/worker_side/timed_loop.cpp): the
// warm-ups call set 0 alone and the timed calls go round from set 0, so where sets come
// round again each other set's first timed call is its first call, and none is the
// loop's first timed call, which carries one-off costs of its own (eval/input_reuse_check.h).
[[nodiscard]] std::size_t input_set_of_call(int call, int warmup, std::size_t sets);

// The shape of one fixed-count timed loop: call i uses input set input_set_of_call(i, ...)
// and output slot i % slots; the first `warmup` calls are not timed.
struct LoopShape {
  int warmup = 0;
  int iterations = 0;
  int slots = 1;
  std::size_t sets = 1;
};

// The input set of each slot the loop keeps, in the order the worker reports them: a
// slot is kept when a timed call wrote it last.
[[nodiscard]] std::vector<std::size_t> kept_slot_sets(const LoopShape& shape);

// The `recheck` of `kept` slots (indices 0..kept-1) that `pick_seed` draws, in draw order.
// The one draw for both the orchestrator's pick after a loop and the plan's foresight.
[[nodiscard]] std::vector<std::size_t> drawn_slots(std::size_t kept, std::uint64_t pick_seed, int recheck);

// The input sets whose outputs the re-check of `plan`'s trial will compare: those of the
// first `recheck` kept slots in draw order, each once, in that order.
[[nodiscard]] std::vector<std::size_t> rechecked_sets(const LoopShape& shape, const TrialPlan& plan,
                                                      int recheck);

}  // namespace kh
