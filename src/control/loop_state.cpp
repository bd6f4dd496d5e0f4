#include "control/loop_state.h"

#include <fmt/format.h>

#include <random>

#include "archive/canonical_json.h"
#include "archive/decision_check.h"
#include "archive/schema_check.h"
#include "archive/solution_lookup.h"
#include "archive/step_runs.h"
#include "archive/utc_time.h"
#include "control/step_marks.h"
#include "control/step_runner.h"
#include "error/error.h"
#include "report/decision_budget.h"
#include "trace/json_io.h"

namespace kh::control {

namespace {

Retained retained_of(archive::Archive& archive, const std::string& content_id) {
  Retained r;
  r.text = archived_solution_text(archive, content_id);
  r.solution = parse_solution(r.text, Location{"archive:" + content_id, 0, ""});
  r.content_id = content_id;
  return r;
}

std::uint64_t config_seed(archive::Archive& archive, const LoopConfig& config, const std::string& loop_id,
                          bool& resumed) {
  const auto manifest = archive::load_manifest(archive, loop_id);
  const auto it = manifest.find("config");
  if (it != manifest.end()) {
    resumed = true;
    const std::uint64_t seed = it->second.at("seed").get<std::uint64_t>();
    if (config.seed && *config.seed != seed) {
      throw Error(
          Location{archive.dir().string(), 0, "--seed"},
          fmt::format("loop {} was started with seed {}; resume it without --seed or with that seed, or "
                      "start another loop with --loop NAME",
                      loop_id, seed));
    }
    return seed;
  }
  const std::uint64_t seed = config.seed ? *config.seed : std::random_device{}() * 0x100000001ULL;
  put_manifest(archive, loop_id, "config",
               {{"definition", config.target.base.definition.name},
                {"start", archive::canonical_hash(config.start_text)},
                {"seed", seed},
                {"created_at", archive::utc_now()}});
  return seed;
}

// A loop resumes from its decisions; an index whose triggers or views are not
// kharness's, or whose decisions disagree with the runs they cite, is not one to resume
// from (archive/schema_check.h, archive/decision_check.h).
void refuse_forged_history(archive::Archive& archive, const std::string& loop_id) {
  std::vector<std::string> problems;
  for (const archive::SchemaObject& o : archive::foreign_schema_objects(archive.db())) {
    if (o.type == "trigger" || o.type == "view" || o.problem != "not made by kharness")
      problems.push_back(fmt::format("{} {} is {}", o.type, o.name, o.problem));
  }
  for (std::string& p : archive::loop_decision_problems(archive.db(), loop_id))
    problems.push_back(std::move(p));
  if (problems.empty()) return;
  throw Error(Location{archive.dir().string(), 0, "decisions"},
              fmt::format("loop {} cannot resume: its archive was edited behind kharness's back ({}{}); "
                          "`kharness archive verify --deep` lists every problem",
                          loop_id, problems.front(),
                          problems.size() > 1 ? fmt::format(", and {} more", problems.size() - 1) : ""));
}

}  // namespace

std::string loop_id_of(const LoopConfig& config) {
  if (!config.loop_id.empty()) return config.loop_id;
  return fmt::format("{}-{}", config.target.base.definition.name,
                     archive::canonical_hash(config.start_text).substr(0, 12));
}

std::string archived_solution_text(archive::Archive& archive, std::string_view content_id) {
  std::optional<std::string> json = archive::solution_json(archive, content_id);
  if (!json) {
    throw Error(Location{archive.dir().string(), 0, "solutions"},
                fmt::format("solution {} is not in the archive", content_id));
  }
  return std::move(*json);
}

std::string resolve_content_id(archive::Archive& archive, std::string_view prefix, std::string_view field) {
  const std::vector<std::string> found = archive::content_ids_starting_with(archive, prefix, 2);
  if (prefix.empty() || found.empty()) {
    throw Error(Location{archive.dir().string(), 0, std::string(field)},
                fmt::format("no archived solution's content id starts with '{}'", prefix));
  }
  if (found.size() > 1) {
    throw Error(
        Location{archive.dir().string(), 0, std::string(field)},
        fmt::format("'{}' is a prefix of more than one solution ({}, {})", prefix, found[0], found[1]));
  }
  return found.front();
}

LoopState open_loop(archive::Archive& archive, const LoopConfig& config) {
  LoopState st;
  st.loop_id = loop_id_of(config);
  st.seed = config_seed(archive, config, st.loop_id, st.resumed);
  st.start = Retained{config.start, config.start_text, archive::canonical_hash(config.start_text)};
  st.best = st.start;
  StepMarks marks(archive, st.loop_id);
  marks.settle([&](const std::string& key) { return archive::find_step_run(archive, key).has_value(); });
  st.banned = marks.banned();
  st.banned.erase(st.start.content_id);  // the person's own start is never banned (step_runner.h)
  refuse_forged_history(archive, st.loop_id);
  st.decisions = archive::load_decisions(archive, st.loop_id);
  for (const archive::Decision& d : st.decisions) {
    st.rounds_done = std::max(st.rounds_done, d.round);
    // A banned promotion is undone: the best it replaced stays the retained best.
    if (d.kind == archive::DecisionKind::promote && d.solution && !st.banned.contains(*d.solution))
      st.best = retained_of(archive, *d.solution);
    st.elapsed_s += d.evidence.value("seconds", 0.0);
    st.tokens += report::decision_budget(d.evidence).tokens;
    st.rejected_answers += d.evidence.value("rejected_answers", nlohmann::ordered_json::array()).size();
    for (const auto& c : d.evidence.value("candidates", nlohmann::ordered_json::array())) {
      if (c.contains("skipped")) continue;  // a repeat, evaluated in an earlier round
      const std::string id = c.at("content_id").get<std::string>();
      st.evaluated.push_back(id);
      st.history.push_back(retained_of(archive, id).solution);
    }
  }
  return st;
}

}  // namespace kh::control
