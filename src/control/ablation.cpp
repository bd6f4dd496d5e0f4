#include "control/ablation.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "archive/canonical_json.h"
#include "archive/controller_log.h"
#include "archive/utc_time.h"
#include "control/head_to_head_judge.h"
#include "control/step_runner.h"
#include "error/error.h"

namespace kh::control {
namespace {

using ordered_json = nlohmann::ordered_json;

bool valid_arm_name(std::string_view name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-';
  });
}

void check_arms(const AblationConfig& config) {
  const Location where{"", 0, "--arm"};
  if (config.arms.size() < 2) throw Error(where, "an ablation needs two or more arms");
  std::set<std::string> names;
  for (const AblationArm& a : config.arms) {
    if (!valid_arm_name(a.name)) {
      throw Error(where,
                  fmt::format("arm name '{}': use letters, digits, '.', '_' and '-' (at most 64)", a.name));
    }
    if (!names.insert(a.name).second) throw Error(where, fmt::format("two arms are named '{}'", a.name));
    if (a.made.empty()) throw Error(where, fmt::format("arm '{}' has no agent", a.name));
  }
}

ordered_json arms_json(const AblationConfig& config) {
  ordered_json arms = ordered_json::array();
  for (const AblationArm& a : config.arms) arms.push_back(a.json());
  return arms;
}

ordered_json budget_json(const LoopBudget& b) {
  return {{"rounds", b.rounds},
          {"max_candidates", b.max_candidates},
          {"time_s", b.time_s ? ordered_json(*b.time_s) : ordered_json()},
          {"max_tokens", b.max_tokens ? ordered_json(*b.max_tokens) : ordered_json()}};
}

// What two runs of one ablation must agree on, as the manifest keeps it.
ordered_json identity_json(const AblationConfig& config) {
  return {{"definition", config.base.target.base.definition.name},
          {"start", archive::canonical_hash(config.base.start_text)},
          {"arms", arms_json(config)},
          {"budget", budget_json(config.base.budget)},
          {"promotion", config.base.promotion.json()},
          {"final_passes", config.final_passes}};
}

// The ablation's seed: the one it was started with; a new ablation records its identity.
std::uint64_t open_manifest(archive::Archive& archive, const AblationConfig& config, const std::string& id,
                            bool& resumed) {
  const std::string scope = ablation_scope(id);
  const ordered_json identity = identity_json(config);
  const auto manifest = archive::load_manifest(archive, scope);
  if (const auto it = manifest.find("config"); it != manifest.end()) {
    resumed = true;
    for (const auto& [key, value] : identity.items()) {
      if (it->second.value(key, ordered_json()) != value) {
        throw Error(
            Location{archive.dir().string(), 0, key},
            fmt::format("ablation {} was started with another {} ({}); run the same command to resume "
                        "it, or start another with --ablation NAME",
                        id, key, it->second.value(key, ordered_json()).dump()));
      }
    }
    const auto seed = it->second.at("seed").get<std::uint64_t>();
    if (config.base.seed && *config.base.seed != seed) {
      throw Error(
          Location{archive.dir().string(), 0, "--seed"},
          fmt::format("ablation {} was started with seed {}; resume it without --seed or with that seed", id,
                      seed));
    }
    return seed;
  }
  const std::uint64_t seed = config.base.seed ? *config.base.seed : std::random_device{}() * 0x100000001ULL;
  ordered_json stored = identity;
  stored["seed"] = seed;
  ordered_json loops = ordered_json::object();
  for (const AblationArm& a : config.arms) loops[a.name] = arm_loop_id(id, a.name);
  stored["loops"] = std::move(loops);
  stored["created_at"] = archive::utc_now();
  archive::put_manifest(archive, scope, "config", stored);
  return seed;
}

LoopConfig arm_config(const AblationConfig& config, const AblationArm& arm, const std::string& id,
                      std::uint64_t seed) {
  LoopConfig c = config.base;
  c.loop_id = arm_loop_id(id, arm.name);
  c.agents = arm.made;
  c.skills = arm.skills;
  c.evidence = arm.evidence;
  c.isolated = true;
  c.seed_scope = id;
  c.seed = seed;
  c.ask = false;
  c.ask_person = nullptr;
  if (config.base.progress) {
    c.progress = [progress = config.base.progress, name = arm.name](const std::string& line) {
      progress("[" + name + "] " + line);
    };
  }
  return c;
}

// The next arm to run a round: among those with budget left, the fewest rounds done; ties
// go round-robin, the order rotating with the round so no arm always runs first.
std::optional<std::size_t> next_arm(const std::vector<std::unique_ptr<LoopRunner>>& runners) {
  std::optional<std::int64_t> fewest;
  for (const auto& r : runners) {
    if (!r->spent().empty()) continue;
    const std::int64_t done = r->state().rounds_done;
    fewest = fewest ? std::min(*fewest, done) : done;
  }
  if (!fewest) return std::nullopt;
  const std::size_t n = runners.size();
  const auto first = static_cast<std::size_t>(*fewest) % n;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = (first + k) % n;
    if (runners[i]->spent().empty() && runners[i]->state().rounds_done == *fewest) return i;
  }
  return std::nullopt;
}

void publish_progress(archive::Archive& archive, const std::string& id, const AblationConfig& config,
                      const std::vector<std::unique_ptr<LoopRunner>>& runners) {
  ordered_json arms = ordered_json::object();
  for (std::size_t i = 0; i < runners.size(); ++i) {
    const LoopState& st = runners[i]->state();
    arms[config.arms[i].name] = {{"loop_id", st.loop_id},
                                 {"rounds_done", st.rounds_done},
                                 {"candidates", st.evaluated.size() + st.rejected_answers},
                                 {"seconds", st.elapsed_s},
                                 {"tokens", st.tokens},
                                 {"best", st.best.content_id},
                                 {"stopped_by", runners[i]->spent()}};
  }
  archive::put_manifest(archive, ablation_scope(id), "progress",
                        {{"arms", std::move(arms)}, {"updated_at", archive::utc_now()}});
}

// The start and each arm's best, measured side by side with the robust protocol.
report::HeadToHead measure_head_to_head(archive::Archive& archive, const AblationConfig& config,
                                        const std::string& id, std::uint64_t seed,
                                        const std::vector<std::unique_ptr<LoopRunner>>& runners) {
  const LoopState& first = runners.front()->state();
  HeadToHeadInput in;
  in.start = first.start.content_id;
  in.min_noise = config.base.promotion.min_noise;
  std::vector<Retained> distinct{first.start};
  for (std::size_t i = 0; i < runners.size(); ++i) {
    const Retained& best = runners[i]->state().best;
    in.arms.emplace_back(config.arms[i].name, best.content_id);
    const bool seen = std::any_of(distinct.begin(), distinct.end(),
                                  [&](const Retained& r) { return r.content_id == best.content_id; });
    if (!seen) distinct.push_back(best);
  }
  if (distinct.size() == 1) {
    report::HeadToHead h;
    h.note = "every arm's best is the start: nothing to measure head to head";
    for (const auto& [arm, best] : in.arms) h.arms.push_back({arm, best, 1.0, {}});
    return h;
  }
  StepRunner steps(archive, id + "/final", config.base.target, seed, config.base.command_line,
                   config.base.progress);
  for (int pass = 1; pass <= config.final_passes; ++pass) {
    std::map<std::string, Sweep> sweeps;
    for (std::size_t k = 0; k < distinct.size(); ++k) {
      // Alternate the order (A B C, C B A, ...) so a drift in time falls on all alike.
      const Retained& who = distinct[pass % 2 == 1 ? k : distinct.size() - 1 - k];
      StepRequest r;
      r.round = pass;
      r.phase = "head-to-head";
      r.solution = who.solution;
      r.solution_text = who.text;
      r.role = who.content_id == in.start ? config.base.start_role : "candidate";
      r.protocol = ProtocolKind::robust;
      sweeps[who.content_id] = steps.run(r);
    }
    in.passes.push_back(std::move(sweeps));
  }
  return judge_head_to_head(in);
}

}  // namespace

nlohmann::ordered_json AblationArm::json() const {
  return {{"name", name}, {"agents", agents}, {"model", model}, {"skills", skills}, {"evidence", evidence}};
}

std::string ablation_scope(std::string_view id) { return "ablation:" + std::string(id); }

std::string arm_loop_id(std::string_view id, std::string_view arm) {
  return std::string(id) + "/" + std::string(arm);
}

std::string ablation_id_of(const AblationConfig& config) {
  if (!config.id.empty()) return config.id;
  const ordered_json named = {{"start", archive::canonical_hash(config.base.start_text)},
                              {"arms", arms_json(config)}};
  return fmt::format("{}-ablation-{}", config.base.target.base.definition.name,
                     archive::canonical_value_hash(named).substr(0, 12));
}

AblationSummary run_ablation(archive::Archive& archive, const AblationConfig& config) {
  check_arms(config);
  AblationSummary sum;
  sum.id = ablation_id_of(config);
  sum.seed = open_manifest(archive, config, sum.id, sum.resumed);
  std::vector<std::unique_ptr<LoopRunner>> runners;
  for (const AblationArm& arm : config.arms) {
    runners.push_back(std::make_unique<LoopRunner>(archive, arm_config(config, arm, sum.id, sum.seed)));
    sum.arms.push_back(arm.name);
  }
  if (config.base.progress) {
    config.base.progress(fmt::format("kharness ablate: {} ({}), {} arms, seed {}", sum.id,
                                     sum.resumed ? "resumed" : "new", runners.size(), sum.seed));
  }
  while (const auto i = next_arm(runners)) {
    runners[*i]->run_next_round();
    publish_progress(archive, sum.id, config, runners);
  }
  publish_progress(archive, sum.id, config, runners);
  for (const auto& r : runners) sum.loops.push_back(r->summary(r->spent()));
  if (config.final_passes > 0) {
    sum.head_to_head = measure_head_to_head(archive, config, sum.id, sum.seed, runners);
    archive::put_manifest(archive, ablation_scope(sum.id), "head_to_head", sum.head_to_head->json());
  }
  return sum;
}

nlohmann::ordered_json AblationSummary::json() const {
  ordered_json arms_out = ordered_json::array();
  for (std::size_t i = 0; i < loops.size(); ++i) {
    ordered_json j = loops[i].json();
    j.erase("decisions");
    arms_out.push_back({{"arm", arms[i]}, {"loop", std::move(j)}});
  }
  return {{"ablation", id},
          {"resumed", resumed},
          {"seed", seed},
          {"arms", std::move(arms_out)},
          {"head_to_head", head_to_head ? head_to_head->json() : ordered_json()}};
}

}  // namespace kh::control
