// STAND-IN, TO BE DELETED AT MERGE: the smallest bodies for the ctl-super branch's
// headers (round_record.h, trajectory.h, hypothesis_choice.h, memory.h, steering.h,
// content_hash.h), whose implementations were not committed when the loop (ctl-loop)
// needed to link. They keep the loop runnable: no supervision signals, no memory, no
// directives, the hypothesis from the heaviest regime's first direction.
#include <fmt/format.h>

#include "archive/canonical_json.h"
#include "control/content_hash.h"
#include "control/hypothesis_choice.h"
#include "control/memory.h"
#include "control/round_record.h"
#include "control/steering.h"
#include "control/trajectory.h"
#include "trace/json_io.h"

namespace kh::control {

std::vector<RoundRecord> round_records(const std::vector<archive::Decision>&) { return {}; }

nlohmann::ordered_json round_record_json(const RoundRecord& r) {
  return {{"round", r.round},
          {"candidate", r.candidate.value_or("")},
          {"content_hash", r.content_hash},
          {"passed", r.passed},
          {"failure", r.failure}};
}

Verdict supervise(std::span<const RoundRecord>, const SupervisionSettings&) {
  Verdict v;
  v.reasons.emplace_back("stand-in: trajectory supervision not merged yet");
  return v;
}

nlohmann::ordered_json Verdict::json() const { return {{"action", "continue"}, {"reasons", reasons}}; }

Choice choose_hypothesis(const ChoiceInput& in) {
  Choice c;
  c.source = "diagnosis";
  const RegimeDiagnosis* heaviest = nullptr;
  for (const RegimeDiagnosis& d : in.diagnosis) {
    if (heaviest == nullptr || d.cost_share > heaviest->cost_share) heaviest = &d;
  }
  c.hypothesis.regime = heaviest != nullptr ? heaviest->regime : "all";
  if (heaviest != nullptr && !heaviest->diagnosis.directions.empty()) {
    const Direction& d = heaviest->diagnosis.directions.front();
    c.hypothesis.family = d.family;
    c.hypothesis.direction = d.title;
    c.hypothesis.rationale = d.why;
  } else {
    c.source = "catalogue";
    c.hypothesis.family = "knobs";
    c.hypothesis.direction = "tune the declared knobs";
    c.hypothesis.rationale = heaviest != nullptr ? heaviest->diagnosis.reason : "no diagnosis";
  }
  c.reason = fmt::format("stand-in choice: the heaviest regime ({})", c.hypothesis.regime);
  return c;
}

nlohmann::ordered_json Choice::json() const {
  return {{"regime", hypothesis.regime},
          {"direction", hypothesis.direction},
          {"family", hypothesis.family},
          {"rationale", hypothesis.rationale},
          {"directive", hypothesis.directive},
          {"source", source},
          {"reason", reason}};
}

Knowledge recall(archive::Archive&, std::string_view) { return Knowledge{}; }
void remember(archive::Archive&, std::string_view, const RoundRecord&) {}

std::vector<Directive> take_directives(archive::Archive&, std::string_view, std::string_view, std::int64_t) {
  return {};
}

std::string normalised_content_hash(const Solution& solution) {
  return archive::canonical_value_hash(to_json(solution));
}

}  // namespace kh::control
