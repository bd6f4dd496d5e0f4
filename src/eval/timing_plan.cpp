#include "eval/timing_plan.h"

#include <algorithm>
#include <numeric>
#include <random>

namespace kh {

std::size_t input_set_of_call(int call, int warmup, std::size_t sets) {
  if (call < warmup) return 0;
  return static_cast<std::size_t>(call - warmup) % std::max<std::size_t>(1, sets);
}

std::vector<std::size_t> kept_slot_sets(const LoopShape& shape) {
  const int calls = shape.warmup + shape.iterations;
  const int slots = std::max(1, shape.slots);
  std::vector<std::size_t> sets;
  for (int s = 0; s < slots && s < calls; ++s) {
    const int last = s + (calls - 1 - s) / slots * slots;  // the last call that wrote slot s
    if (last >= shape.warmup) sets.push_back(input_set_of_call(last, shape.warmup, shape.sets));
  }
  return sets;
}

std::vector<std::size_t> drawn_slots(std::size_t kept, std::uint64_t pick_seed, int recheck) {
  std::vector<std::size_t> order(kept);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::shuffle(order.begin(), order.end(), std::mt19937_64(pick_seed));
  order.resize(std::min(order.size(), static_cast<std::size_t>(std::max(0, recheck))));
  return order;
}

std::vector<std::size_t> rechecked_sets(const LoopShape& shape, const TrialPlan& plan, int recheck) {
  const std::vector<std::size_t> kept = kept_slot_sets(shape);
  std::vector<std::size_t> sets;
  for (const std::size_t k : drawn_slots(kept.size(), plan.pick_seed, recheck)) {
    if (std::find(sets.begin(), sets.end(), kept[k]) == sets.end()) sets.push_back(kept[k]);
  }
  return sets;
}

}  // namespace kh
