// Durable marks of the loop's steps in progress. Before a solution runs in a step, the
// step is marked as running, with the orchestrator's identity; once its run is recorded
// the mark goes. A mark still there when the loop starts again means the orchestrator
// died while that solution ran: a "strike" against the step and its solution. A
// continue after a stop (stop_counter.h) is a strike too. Without a sandbox a solution
// can kill or freeze the process that measures it; strikes let the loop go on instead
// of running the same step into the same death for ever (step_runner.h has the policy:
// a candidate with a strike is recorded as failed; the retained best is tried again;
// a solution with two strikes in one step is banned from the loop, the start never).
//
// Steps run side by side (a round's candidates over device lanes or Slurm nodes) are
// marked as one batch. A death during a batch cannot be pinned on one of them, so it
// leaves each a "shared strike", which counts towards nothing: the step runs again
// alone, where a death is its own.
//
// Marks live in the loop's manifest under "step/<step key>", so they survive kill -9
// like everything else of the loop.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>

#include "archive/archive.h"

namespace kh::control {

inline constexpr std::size_t kStrikesToBan = 2;

class StepMarks {
 public:
  StepMarks(archive::Archive& archive, std::string loop_id);

  // Turns every mark left running by a process that is gone into a strike, except where
  // the step's run was recorded (`recorded(key)`: it died after the run was committed).
  // Throws kh::Error when a live process holds a mark: the loop is running there.
  void settle(const std::function<bool(const std::string& key)>& recorded);

  [[nodiscard]] std::size_t strikes(std::string_view key) const;
  // Deaths and stops while the step ran in a batch with others (see above).
  [[nodiscard]] std::size_t shared_strikes(std::string_view key) const;
  // Each strike of the step, one sentence each, oldest first.
  [[nodiscard]] std::vector<std::string> strike_reasons(std::string_view key) const;
  // Content ids with kStrikesToBan strikes or more in one step: a solution that dies
  // again where it died before (random kills by a person rarely land twice in one step).
  [[nodiscard]] std::set<std::string> banned() const;

  // `batch`: how many steps run side by side with this one, itself included.
  // `contained`: the solution runs where it cannot signal the orchestrator (a jail with
  // its own PID namespace): a death or stop then is not its doing, and leaves a shared
  // strike, as in a batch (a person's kill -9 costs the step nothing but its rerun).
  void begin(const std::string& key, const std::string& content_id, bool retained_best, std::size_t batch = 1,
             bool contained = false);
  // A strike; a shared one where the step ran in a batch.
  void strike(const std::string& key, const std::string& how);
  // The step's run is recorded: the mark goes, unless it carries strikes (they count
  // towards a ban for good).
  void end(const std::string& key);

 private:
  void put(const std::string& key);

  archive::Archive& archive_;
  std::string loop_id_;
  std::map<std::string, nlohmann::ordered_json, std::less<>> marks_;  // by step key
};

}  // namespace kh::control
