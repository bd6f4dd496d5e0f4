#include "control/round_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>

#include "archive/canonical_json.h"
#include "archive/utc_time.h"
#include "control/candidate_outcome.h"
#include "control/hypothesis_choice.h"
#include "control/memory.h"
#include "control/promotion.h"
#include "control/reported_speedup.h"
#include "control/round_diagnosis.h"
#include "control/seed_mix.h"
#include "control/stage_bounds.h"
#include "control/steering.h"
#include "control/trajectory.h"
#include "report/decision_budget.h"
#include "trace/json_io.h"

namespace kh::control {

namespace {

// The last non-empty line of an agent's excerpt (its stderr's tail), at most 300 characters.
std::string last_line(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
    text.remove_suffix(1);
  const std::size_t start = text.find_last_of('\n');
  std::string_view line = start == std::string_view::npos ? text : text.substr(start + 1);
  return std::string(line.substr(0, 300));
}

using ordered_json = nlohmann::ordered_json;

// An ablation arm's memory: what its own loop tried, nothing of other loops.
Knowledge own_memory(const Knowledge& all, const std::string& loop_id) {
  std::vector<MemoryEntry> mine;
  for (const MemoryEntry& e : all.entries()) {
    if (e.loop_id == loop_id) mine.push_back(e);
  }
  return Knowledge(std::move(mine));
}

class Round {
 public:
  Round(archive::Archive& archive, const LoopConfig& config, const LoopState& state, StepRunner& steps,
        const profile::RegimePlan& plan, std::int64_t round, std::size_t budget)
      : archive_(archive),
        config_(config),
        state_(state),
        steps_(steps),
        plan_(plan),
        round_(round),
        budget_(budget) {}

  RoundOutcome run();

 private:
  void say(const std::string& line) const {
    if (config_.progress) config_.progress(line);
  }
  // `pairing`: the candidate sweep this one is compared with draws the same inputs
  // (StepRequest::pairing).
  Sweep measure_best(const std::string& phase, ProtocolKind protocol, const std::string& pairing);
  Sweep measure(const Retained& who, const std::string& phase, ProtocolKind protocol,
                const std::string& pairing, StepScope scope = StepScope::full);
  // The promotion's reported speedup over the loop's baseline (reported_speedup.h): the
  // confirmation sweeps of the start (measured now unless it is the retained best) and
  // the contender.
  void measure_reported_speedup(const Sweep& contender_confirm, ProtocolKind protocol);
  void choose_hypothesis_for_round();
  [[nodiscard]] std::shared_ptr<agents::Agent> agent_for_stage(std::string_view stage) const;
  void run_stage(const StageBounds& bounds, const Retained& parent);
  // Compiles the chosen candidates side by side before they are evaluated one by one.
  void prebuild(const std::vector<CandidateOutcome>& offered, const std::vector<std::size_t>& chosen);
  // The step request that evaluates candidate c, with its lineage; the caller sets the phase.
  [[nodiscard]] StepRequest candidate_step(const CandidateOutcome& c) const;
  // The chosen candidates' gates as one batch, then the survivors' full sweeps as one:
  // side by side where the executor has room (lanes of a host, nodes of a cluster).
  void evaluate_all(std::vector<CandidateOutcome>& offered, const std::vector<std::size_t>& chosen,
                    std::string_view stage);
  // The retained best's sweep that `sweeps` (of `pairing`) are compared with: the latest of that
  // pairing, or the best measured again right after them when that one ended more than the
  // rule's rebaseline_after_s before the first of them started (PromotionRule).
  Sweep paired_baseline(const std::string& pairing, const std::vector<Sweep>& sweeps, std::string_view stage,
                        StepScope scope);
  std::optional<Retained> best_survivor() const;
  void decide();
  void record();
  [[nodiscard]] std::int64_t round_tokens() const {
    return report::decision_budget({{"agent_costs", agent_costs_}}).tokens;
  }

  archive::Archive& archive_;
  const LoopConfig& config_;
  const LoopState& state_;
  StepRunner& steps_;
  const profile::RegimePlan& plan_;
  std::int64_t round_;
  std::size_t budget_;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
  std::string started_at_ = archive::utc_now();

  std::vector<Sweep> baseline_;  // paired repeats of the retained best
  std::optional<Sweep> baseline_confirm_;
  std::optional<Sweep> baseline_gate_;  // the retained best on the gate's workloads, before the first gate
  std::map<std::string, Sweep> latest_baseline_;  // per pairing ("1", "gate"): the best's latest sweep
  std::vector<std::pair<std::string, Sweep>> rebaselines_;  // phase, sweep: measured again (paired_baseline)
  std::vector<Sweep> judged_baseline_;                      // the best's sweeps the promotion rule weighed
  std::optional<Sweep> start_confirm_;  // the loop's baseline, when it is not the retained best
  std::optional<report::PromotedSpeedup> speedup_;
  std::vector<RegimeDiagnosis> diagnoses_;
  Choice choice_;
  Verdict verdict_;
  std::vector<CandidateOutcome> outcomes_;
  ordered_json stages_ = ordered_json::object();
  ordered_json rejected_ = ordered_json::array();
  std::vector<std::string> transcripts_;
  ordered_json agent_costs_ = ordered_json::array();  // per proposal: tokens, seconds, cost note
  std::optional<std::size_t> contender_;
  std::optional<PromotionVerdict> promotion_;
  archive::DecisionKind kind_ = archive::DecisionKind::archive_only;
  std::string reason_;
  RoundOutcome out_;
};

Sweep Round::measure_best(const std::string& phase, ProtocolKind protocol, const std::string& pairing) {
  return measure(state_.best, phase, protocol, pairing);
}

Sweep Round::measure(const Retained& who, const std::string& phase, ProtocolKind protocol,
                     const std::string& pairing, StepScope scope) {
  StepRequest r;
  r.round = round_;
  r.phase = phase;
  r.pairing = pairing;
  r.scope = scope;
  r.solution = who.solution;
  r.solution_text = who.text;
  r.role = who.content_id == state_.start.content_id ? config_.start_role : "candidate";
  r.protocol = protocol;
  r.retained_best = true;
  r.start = state_.best.content_id == state_.start.content_id;
  return steps_.run(r);
}

void Round::measure_reported_speedup(const Sweep& contender_confirm, ProtocolKind protocol) {
  const Sweep* base = &*baseline_confirm_;
  if (state_.best.content_id != state_.start.content_id) {
    start_confirm_ = measure(state_.start, "start-confirm", protocol, "confirm");
    base = &*start_confirm_;
  }
  speedup_ =
      reported_speedup(*base, contender_confirm, state_.start.content_id, *promotion_, config_.promotion);
}

void Round::choose_hypothesis_for_round() {
  const std::vector<RoundRecord> history = round_records(state_.decisions);
  SupervisionSettings settings;
  settings.noise = config_.promotion.min_noise;
  settings.ask = config_.ask;
  verdict_ = supervise(history, settings);
  ChoiceInput in;
  const std::string& definition = config_.target.base.definition.name;
  if (config_.evidence) in.diagnosis = diagnoses_;
  in.memory = config_.isolated ? own_memory(recall(archive_, definition), state_.loop_id)
                               : recall(archive_, definition);
  in.verdict = verdict_;
  in.stage = Stage::explore;
  in.history = history;
  in.directives = take_directives(archive_, state_.loop_id, config_.isolated ? "" : definition, round_);
  in.seed = mix_seed(state_.seed, fmt::format("r{}/hypothesis", round_));
  choice_ = choose_hypothesis(in);
  if (verdict_.action == Action::ask_person && config_.ask_person) {
    const std::string answer =
        config_.ask_person(fmt::format("round {}: {} What should the next round try? (empty: {})", round_,
                                       fmt::join(verdict_.reasons, " "), choice_.hypothesis.direction));
    if (!answer.empty()) choice_.hypothesis.directive = answer;
  }
  say(fmt::format("  hypothesis: {} / {} / {} ({})", choice_.hypothesis.regime, choice_.hypothesis.family,
                  choice_.hypothesis.direction, choice_.source));
}

// How many of this loop's rounds, this one included, were told to change direction
// (a stall or plateau) by trajectory supervision.
std::size_t direction_changes(const std::vector<archive::Decision>& decisions, const Verdict& now) {
  std::size_t n = now.action == Action::proceed ? 0 : 1;
  for (const archive::Decision& d : decisions) {
    const auto v = d.evidence.find("verdict");
    if (v != d.evidence.end() && v->value("action", "continue") != "continue") ++n;
  }
  return n;
}

// The first agent explores and the second (when given) exploits. Each change of direction
// rotates the roles one step along the list, so a plateau hands the next round to the next
// agent: with `--agent openai,anthropic`, another model family.
std::shared_ptr<agents::Agent> Round::agent_for_stage(std::string_view stage) const {
  const std::size_t role = stage == "explore" ? 0 : 1;
  const std::size_t shift = direction_changes(state_.decisions, verdict_);
  return config_.agents.at((role + shift) % config_.agents.size());
}

bool seen_before(const LoopState& state, const std::vector<CandidateOutcome>& now, const std::string& id) {
  if (std::find(state.evaluated.begin(), state.evaluated.end(), id) != state.evaluated.end()) return true;
  return std::any_of(now.begin(), now.end(),
                     [&](const CandidateOutcome& c) { return c.content_id == id && c.evaluated(); });
}

void Round::run_stage(const StageBounds& bounds, const Retained& parent) {
  const std::size_t spent = out_.evaluated + rejected_.size();
  const std::size_t left = spent >= budget_ ? 0 : budget_ - spent;
  if (left == 0) {
    stages_[std::string(bounds.stage)] = {{"note", "the candidate budget is spent"}};
    return;
  }
  if (config_.budget.max_tokens && state_.tokens + round_tokens() >= *config_.budget.max_tokens) {
    stages_[std::string(bounds.stage)] = {{"note", "the token budget is spent"}};
    return;
  }
  const std::shared_ptr<agents::Agent> agent = agent_for_stage(bounds.stage);
  agents::ProposalContext ctx;
  ctx.definition = config_.target.base.definition;
  ctx.parent = parent.solution;
  // The start counts as tried: a variant that compiles in its own setting is no news.
  ctx.history = {state_.start.solution};
  ctx.history.insert(ctx.history.end(), state_.history.begin(), state_.history.end());
  for (const CandidateOutcome& c : outcomes_) {
    if (c.evaluated()) ctx.history.push_back(c.candidate.solution);
  }
  ctx.hypothesis = choice_.hypothesis;
  ctx.stage = std::string(bounds.stage);
  ctx.max_candidates = std::min(bounds.max_candidates, left);
  if (config_.evidence) ctx.evidence = {{"regimes", regimes_json(plan_, diagnoses_)}};
  ctx.with_skills = config_.skills;
  ctx.seed = mix_seed(state_.seed, fmt::format("r{}/{}", round_, bounds.stage));
  ctx.timeout = config_.agent_timeout;
  if (!config_.workspace_root.empty()) {
    ctx.workspace = config_.workspace_root / state_.loop_id / fmt::format("r{}-{}", round_, bounds.stage);
  }
  // An agent's command can kill the orchestrator as a candidate can: a proposal during
  // which it died is not asked for again (step_marks.h), the stage is a rejected answer.
  const std::string guard =
      step_key(state_.loop_id, round_, std::string(bounds.stage) + "-proposal", agent->name());
  if (steps_.marks().strikes(guard) > 0) {
    const std::string why = fmt::format("{}", fmt::join(steps_.marks().strike_reasons(guard), "; "));
    rejected_.push_back({{"agent", agent->name()},
                         {"stage", bounds.stage},
                         {"reason", "not asked again: " + why},
                         {"excerpt", ""}});
    stages_[std::string(bounds.stage)] = {{"note", "the agent's proposal was not asked again: " + why}};
    say(fmt::format("  {}: agent {} not asked again: {}", bounds.stage, agent->name(), why));
    return;
  }
  agents::Proposal proposal;
  // The mark stays only when the orchestrator dies during the proposal; an exception is
  // the agent's error, not a strike.
  steps_.marks().begin(guard, "agent:" + agent->name(), false);
  try {
    proposal = agent->propose(ctx);
    steps_.marks().end(guard);
  } catch (const agents::AgentUnavailable& e) {
    steps_.marks().end(guard);
    // The service stayed down through its retries: a failed proposal, on the record and
    // on the budget; the next stage or round asks again.
    rejected_.push_back({{"agent", agent->name()},
                         {"stage", bounds.stage},
                         {"reason", std::string("the agent was unavailable: ") + e.what()},
                         {"excerpt", ""}});
    say(fmt::format("  {}: agent {} unavailable: {}", bounds.stage, agent->name(), e.what()));
    return;
  } catch (...) {
    steps_.marks().end(guard);
    throw;
  }
  transcripts_.push_back(proposal.transcript);
  auto tokens = [](const std::optional<std::int64_t>& n) {
    return n ? ordered_json(*n) : ordered_json(nullptr);
  };
  agent_costs_.push_back({{"agent", agent->name()},
                          {"stage", bounds.stage},
                          {"input_tokens", tokens(proposal.input_tokens)},
                          {"output_tokens", tokens(proposal.output_tokens)},
                          {"seconds", proposal.seconds},
                          {"cost_note", proposal.cost_note}});
  for (const agents::RejectedAnswer& r : proposal.rejected) {
    rejected_.push_back(
        {{"agent", agent->name()}, {"stage", bounds.stage}, {"reason", r.reason}, {"excerpt", r.excerpt}});
    // On the console too: a proposal that failed whole otherwise shows only as "0 offered".
    say(fmt::format("  {}: agent {}: {}{}{}", bounds.stage, agent->name(), r.reason,
                    r.excerpt.empty() ? "" : ": ", last_line(r.excerpt)));
  }
  std::vector<CandidateOutcome> offered;
  std::vector<std::string> families;
  for (const agents::Candidate& c : proposal.candidates) {
    CandidateOutcome o;
    o.candidate = c;
    o.agent = agent->name();
    o.stage = std::string(bounds.stage);
    o.text = write_solution(c.solution);
    o.content_id = archive::canonical_hash(o.text);
    o.parent = parent.content_id;
    if (o.content_id == state_.best.content_id || seen_before(state_, outcomes_, o.content_id)) {
      o.skipped = "already evaluated by this loop (same content id)";
      outcomes_.push_back(std::move(o));
      continue;
    }
    if (state_.banned.contains(o.content_id)) {
      o.skipped = "banned from this loop: the orchestrator died or was stopped twice while it ran";
      outcomes_.push_back(std::move(o));
      continue;
    }
    families.push_back(c.family);
    offered.push_back(std::move(o));
  }
  const StageSelection sel = select_for_stage(families, bounds, left);
  stages_[std::string(bounds.stage)] = sel.json();
  stages_[std::string(bounds.stage)]["agent"] = agent->name();
  if (!sel.note.empty()) say("  " + sel.note);
  prebuild(offered, sel.chosen);
  evaluate_all(offered, sel.chosen, bounds.stage);
  for (std::size_t i : sel.chosen) outcomes_.push_back(std::move(offered[i]));
}

void Round::prebuild(const std::vector<CandidateOutcome>& offered, const std::vector<std::size_t>& chosen) {
  std::vector<Solution> solutions;
  solutions.reserve(chosen.size());
  for (std::size_t i : chosen) solutions.push_back(offered[i].candidate.solution);
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t built = steps_.prebuild(solutions);
  if (built > 0) {
    say(fmt::format("  built {} candidate(s) side by side in {:.1f} s", built,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
  }
}

StepRequest Round::candidate_step(const CandidateOutcome& c) const {
  StepRequest r;
  r.round = round_;
  r.solution = c.candidate.solution;
  r.solution_text = c.text;
  r.lineage = archive::Lineage{c.parent,           c.agent,      c.candidate.hypothesis,
                               c.candidate.family, std::nullopt, std::nullopt};
  return r;
}

// The first sweep's start among `sweeps`, as archived ("" when none has one).
std::string first_start(const std::vector<Sweep>& sweeps) {
  std::string first;
  for (const Sweep& s : sweeps) {
    if (!s.started_at.empty() && (first.empty() || s.started_at < first)) first = s.started_at;
  }
  return first;
}

Sweep Round::paired_baseline(const std::string& pairing, const std::vector<Sweep>& sweeps,
                             std::string_view stage, StepScope scope) {
  Sweep& latest = latest_baseline_.at(pairing);
  const std::optional<double> gap = archive::seconds_between(latest.finished_at, first_start(sweeps));
  if (!gap || *gap < config_.promotion.rebaseline_after_s) return latest;
  const std::string phase = fmt::format("baseline-{}-{}", pairing, stage);
  say(fmt::format("  the retained best's sweep ended {:.0f} s before these: measured again ({})", *gap,
                  phase));
  latest = measure(state_.best, phase, ProtocolKind::official, pairing, scope);
  rebaselines_.emplace_back(phase, latest);
  return latest;
}

void Round::evaluate_all(std::vector<CandidateOutcome>& offered, const std::vector<std::size_t>& chosen,
                         std::string_view stage) {
  const bool gate_is_full = steps_.target().gate_workloads.size() >= steps_.target().base.workloads.size();
  // The gates' own paired baseline: baseline-1 drew other inputs than a gate may meet again.
  if (!gate_is_full && !chosen.empty() && !baseline_gate_) {
    baseline_gate_ = measure(state_.best, "baseline-gate", ProtocolKind::official, "gate", StepScope::gate);
    latest_baseline_["gate"] = *baseline_gate_;
  }
  const std::string gate_pairing = gate_is_full ? "1" : "gate";
  const StepScope gate_scope = gate_is_full ? StepScope::full : StepScope::gate;
  std::vector<StepRequest> gates;
  for (std::size_t i : chosen) {
    StepRequest r = candidate_step(offered[i]);
    r.phase = gate_is_full ? "full-1" : "gate";
    r.pairing = gate_pairing;
    r.scope = gate_scope;
    gates.push_back(std::move(r));
  }
  const std::vector<Sweep> gated = steps_.run_all(gates);
  const Sweep gate_baseline =
      gated.empty() ? Sweep{} : paired_baseline(gate_pairing, gated, stage, gate_scope);
  std::vector<StepRequest> fulls;
  std::vector<CandidateOutcome*> swept;
  for (std::size_t k = 0; k < chosen.size(); ++k) {
    CandidateOutcome& c = offered[chosen[k]];
    c.gate = gated[k];
    c.gate_baseline = gate_baseline;
    ++out_.evaluated;
    out_.candidates.push_back(c.candidate.solution);
    out_.candidate_ids.push_back(c.content_id);
    c.gate_speedup = paired_speedup(gate_baseline, *c.gate, config_.promotion.objective);
    c.survived_gate = c.gate->all_passed() && c.gate_speedup && *c.gate_speedup > 1;
    say(fmt::format("  {} {}: gate {} {}", c.stage, c.candidate.solution.name, c.gate->worst_status(),
                    c.gate_speedup ? fmt::format("{:.3f}x", *c.gate_speedup) : "-"));
    if (!c.survived_gate) continue;
    if (gate_is_full) {
      c.full = c.gate;
      c.full_baseline = gate_baseline;
    } else {
      fulls.push_back(gates[k]);
      fulls.back().phase = "full-1";
      fulls.back().pairing = "1";
      fulls.back().scope = StepScope::full;
      swept.push_back(&c);
    }
  }
  const std::vector<Sweep> full = steps_.run_all(fulls);
  if (!full.empty()) {
    const Sweep full_baseline = paired_baseline("1", full, stage, StepScope::full);
    for (std::size_t k = 0; k < swept.size(); ++k) {
      swept[k]->full = full[k];
      swept[k]->full_baseline = full_baseline;
    }
  }
  for (std::size_t i : chosen) {
    CandidateOutcome& c = offered[i];
    if (c.full) c.full_speedup = paired_speedup(*c.full_baseline, *c.full, config_.promotion.objective);
  }
}

std::optional<Retained> Round::best_survivor() const {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < outcomes_.size(); ++i) {
    const CandidateOutcome& c = outcomes_[i];
    if (!c.full || !c.full->all_passed() || !c.full_speedup || *c.full_speedup <= 1) continue;
    if (!best || *c.full_speedup > *outcomes_[*best].full_speedup) best = i;
  }
  if (!best) return std::nullopt;
  const CandidateOutcome& c = outcomes_[*best];
  return Retained{c.candidate.solution, c.text, c.content_id};
}

void Round::decide() {
  const auto survivor = best_survivor();
  for (std::size_t i = 0; survivor && i < outcomes_.size(); ++i) {
    if (outcomes_[i].content_id == survivor->content_id && outcomes_[i].evaluated()) contender_ = i;
  }
  if (!contender_) {
    kind_ = archive::DecisionKind::archive_only;
    reason_ = "no candidate passed every workload faster than the retained best; the candidates are archived";
    return;
  }
  CandidateOutcome& c = outcomes_[*contender_];
  say(fmt::format("  contender {} ({:.3f}x): paired repeat 2 and confirmation", c.candidate.solution.name,
                  *c.full_speedup));
  baseline_.push_back(measure_best("baseline-2", ProtocolKind::official, "2"));
  StepRequest r = candidate_step(c);
  r.phase = "full-2";
  r.pairing = "2";
  const Sweep c2 = steps_.run(r);
  // The gates and repeats are timed under the official protocol; the confirmation under
  // the other statistic.
  const ProtocolKind other = ProtocolKind::robust;
  baseline_confirm_ = measure_best("baseline-confirm", other, "confirm");
  r.phase = "confirm";
  r.pairing = "confirm";
  r.protocol = other;
  PromotionInput in;
  in.baseline = baseline_;
  in.baseline.front() = *c.full_baseline;  // full-1's own: baseline-1, or the best measured again
  judged_baseline_ = in.baseline;
  in.contender = {*c.full, c2};
  in.baseline_confirm = baseline_confirm_;
  in.contender_confirm = steps_.run(r);
  promotion_ = judge_promotion(in, config_.promotion);
  kind_ = promotion_->promote ? archive::DecisionKind::promote : archive::DecisionKind::reject_restore;
  if (!promotion_->promote) {
    reason_ = fmt::format("{} rejected, the retained best stays: {}", c.candidate.solution.name,
                          fmt::join(promotion_->failures, "; "));
    return;
  }
  measure_reported_speedup(*in.contender_confirm, other);
  reason_ = fmt::format(
      "{} is faster than the retained best in {} repeats beyond {:.1f}% noise, N/N, and confirmed by the "
      "{} protocol: {} over the loop's baseline{}",
      c.candidate.solution.name, promotion_->better_repeats, 100 * promotion_->noise, protocol_name(other),
      speedup_ ? report::format_speedup(speedup_->over_baseline) : std::string("(no common workload)"),
      start_confirm_ ? fmt::format(", {} over the best it replaced",
                                   report::format_speedup(promotion_->confirm_speedup.value_or(0)))
                     : std::string());
}

void Round::record() {
  out_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  ordered_json candidates = ordered_json::array();
  for (const CandidateOutcome& c : outcomes_) candidates.push_back(c.json());
  const RoundRecord rr = round_record_of(state_.loop_id, round_, choice_.hypothesis, outcomes_, contender_,
                                         kind_, reason_, config_.promotion.objective);
  ordered_json paired = {{"content_id", state_.best.content_id},
                         {"name", state_.best.solution.name},
                         {"repeats", ordered_json::array()}};
  for (const Sweep& s : judged_baseline_.empty() ? baseline_ : judged_baseline_)
    paired["repeats"].push_back(s.json());
  if (!judged_baseline_.empty() && judged_baseline_.front().run_id != baseline_.front().run_id)
    paired["baseline_1"] = baseline_.front().json();
  paired["rebaselined"] = ordered_json::array();
  for (const auto& [phase, sweep] : rebaselines_) {
    ordered_json j = sweep.json();
    j["phase"] = phase;
    paired["rebaselined"].push_back(std::move(j));
  }
  paired["confirm"] = baseline_confirm_ ? baseline_confirm_->json() : ordered_json(nullptr);
  paired["gate"] = baseline_gate_ ? baseline_gate_->json() : ordered_json(nullptr);
  if (start_confirm_) paired["start_confirm"] = start_confirm_->json();
  ordered_json evidence = {
      {"loop_id", state_.loop_id},
      {"round", round_},
      {"decision", std::string(archive::decision_kind_name(kind_))},
      {"reason", reason_},
      {"seconds", out_.seconds},
      {"choice", choice_.json()},
      {"verdict", verdict_.json()},
      {"diagnosis", regimes_json(plan_, diagnoses_)},
      {"paired_baseline", std::move(paired)},
      {"stages", stages_},
      {"candidates", std::move(candidates)},
      {"rejected_answers", rejected_},
      {"agent_transcripts", transcripts_},
      {"agent_costs", agent_costs_},
      {"contender", contender_ ? ordered_json(outcomes_[*contender_].content_id) : ordered_json(nullptr)},
      {"promotion", promotion_ ? promotion_->json() : ordered_json(nullptr)},
      {"speedup", speedup_ ? speedup_->json() : ordered_json(nullptr)},
      {"promotion_rule", config_.promotion.json()},
      {"round_record", round_record_json(rr)},
      {"banned", state_.banned},
      {"tampered_runs", steps_.take_tampered()}};
  archive::Decision d;
  d.loop_id = state_.loop_id;
  d.round = round_;
  d.kind = kind_;
  d.baseline = state_.best.content_id;
  if (contender_) d.solution = outcomes_[*contender_].content_id;
  d.evidence = std::move(evidence);
  d.started_at = started_at_;
  archive::record_decision(archive_, d);
  remember(archive_, config_.target.base.definition.name, rr);
  out_.decision = std::move(d);
  out_.rejected_answers = rejected_.size();
  out_.tokens = round_tokens();
}

RoundOutcome Round::run() {
  say(fmt::format("round {}: best {} ({})", round_, state_.best.solution.name,
                  state_.best.content_id.substr(0, 12)));
  baseline_.push_back(measure_best("baseline-1", ProtocolKind::official, "1"));
  latest_baseline_["1"] = baseline_.front();
  diagnoses_ = diagnose_regimes(steps_.target().base, plan_, baseline_.front());
  choose_hypothesis_for_round();
  if (!baseline_.front().all_passed()) {
    // The retained best must pass to be compared with; nothing can be promoted over it.
    kind_ = archive::DecisionKind::reject_restore;
    reason_ = fmt::format("the retained best no longer passes every workload ({}); no candidate is tried",
                          baseline_.front().worst_status());
    record();
    return out_;
  }
  run_stage(kExploreBounds, state_.best);
  if (const auto parent = best_survivor()) {
    run_stage(kExploitBounds, *parent);
  } else {
    stages_["exploit"] = {
        {"note", "no explore candidate passed faster than the retained best: nothing to exploit"}};
  }
  decide();
  record();
  say(fmt::format("round {}: {} - {}", round_, archive::decision_kind_name(kind_), reason_));
  return out_;
}

}  // namespace

RoundOutcome run_round(archive::Archive& archive, const LoopConfig& config, const LoopState& state,
                       StepRunner& steps, const profile::RegimePlan& plan, std::int64_t round,
                       std::size_t budget) {
  return Round(archive, config, state, steps, plan, round, budget).run();
}

}  // namespace kh::control
