#include "report/decision_budget.h"

#include "report/json_fields.h"

namespace kh::report {
namespace {

using nlohmann::ordered_json;

bool evaluated(const ordered_json& candidate) {
  return candidate.is_object() && !candidate.contains("skipped");
}

// The first status of the candidate's first sweep that is not PASSED, or PASSED.
std::string first_sweep_status(const ordered_json& candidate) {
  for (const ordered_json& w : array_at(object_at(candidate, "gate"), "workloads")) {
    std::string status = text_at(w, "status");
    if (status != "PASSED") return status;
  }
  return array_at(object_at(candidate, "gate"), "workloads").empty() ? "" : "PASSED";
}

}  // namespace

CandidateStatuses& CandidateStatuses::operator+=(const CandidateStatuses& o) {
  passed += o.passed;
  incorrect += o.incorrect;
  reward_hack += o.reward_hack;
  compile_error += o.compile_error;
  crashed += o.crashed;
  refused += o.refused;
  return *this;
}

DecisionBudget decision_budget(const ordered_json& evidence) {
  DecisionBudget b;
  for (const ordered_json& c : array_at(evidence, "candidates")) b.candidates += evaluated(c) ? 1 : 0;
  b.candidates += static_cast<std::int64_t>(array_at(evidence, "rejected_answers").size());
  for (const ordered_json& cost : array_at(evidence, "agent_costs")) {
    for (const char* key : {"input_tokens", "output_tokens"}) {
      const auto t = cost.is_object() ? cost.find(key) : cost.end();
      if (cost.is_object() && t != cost.end() && t->is_number_integer()) b.tokens += t->get<std::int64_t>();
    }
  }
  b.seconds = number_at(evidence, "seconds").value_or(0);
  return b;
}

CandidateStatuses candidate_statuses(const ordered_json& evidence) {
  CandidateStatuses s;
  for (const ordered_json& c : array_at(evidence, "candidates")) {
    if (!evaluated(c)) continue;
    const std::string status = first_sweep_status(c);
    if (status == "PASSED") {
      ++s.passed;
    } else if (status.starts_with("INCORRECT_")) {
      ++s.incorrect;
    } else if (status == "REWARD_HACK") {
      ++s.reward_hack;
    } else if (status == "COMPILE_ERROR") {
      ++s.compile_error;
    } else {
      ++s.crashed;
    }
  }
  s.refused = static_cast<std::int64_t>(array_at(evidence, "rejected_answers").size());
  return s;
}

ordered_json candidate_statuses_json(const CandidateStatuses& s) {
  return {{"passed", s.passed},
          {"incorrect", s.incorrect},
          {"reward_hack", s.reward_hack},
          {"compile_error", s.compile_error},
          {"crashed", s.crashed},
          {"refused", s.refused},
          {"total", s.total()}};
}

}  // namespace kh::report
