#include "report/leaderboard.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>

#include "error/error.h"

namespace kh::report {
namespace {

// The latest trace wins: ISO-8601 UTC timestamps order as text; ids break ties.
bool later(const TraceEntry& a, const TraceEntry& b) {
  return std::tie(a.timestamp, a.id) > std::tie(b.timestamp, b.id);
}

// Candidates by solution id, or by name for traces of solutions not archived; integer
// keys keep the one pass over 100 000 traces cheap.
class CandidateIndex {
 public:
  // The candidate's row, and whether it is new.
  std::pair<std::size_t, bool> find_or_add(const TraceEntry& t, std::size_t next) {
    if (t.solution_id) {
      const auto [it, fresh] = by_id_.emplace(*t.solution_id, next);
      return {it->second, fresh};
    }
    const auto [it, fresh] = by_name_.emplace(t.solution, next);
    return {it->second, fresh};
  }

 private:
  std::unordered_map<RowId, std::size_t> by_id_;
  std::unordered_map<std::string, std::size_t> by_name_;
};

// Workload columns: archived workloads first (in archive order), then uuids only traces name.
std::vector<WorkloadColumn> columns(const LeaderboardInput& in,
                                    std::unordered_map<std::string, std::size_t>& at) {
  std::unordered_map<std::string, bool> traced;
  for (const TraceEntry& t : in.traces) traced.emplace(t.workload_uuid, true);
  std::vector<WorkloadColumn> out;
  auto add = [&](const std::string& uuid, const std::string& axes) {
    if (!traced.contains(uuid) || at.contains(uuid)) return;
    at.emplace(uuid, out.size());
    out.push_back({uuid, axes, std::nullopt});
  };
  for (const WorkloadEntry& w : in.workloads) add(w.uuid, w.axes_json);
  for (const TraceEntry& t : in.traces) add(t.workload_uuid, "{}");
  return out;
}

// The baseline's latest PASSED latency per workload, for the best-covered baseline name.
std::string pick_baseline(const LeaderboardInput& in, const std::unordered_map<std::string, std::size_t>& at,
                          std::vector<WorkloadColumn>& cols) {
  std::string best;
  std::vector<const TraceEntry*> best_latest;
  std::size_t best_passed = 0;
  for (const std::string& name : in.baseline_names) {
    std::vector<const TraceEntry*> latest(cols.size(), nullptr);
    for (const TraceEntry& t : in.traces) {
      if (t.solution != name || t.status != kPassed || !t.latency_ms) continue;
      const TraceEntry*& slot = latest[at.at(t.workload_uuid)];
      if (slot == nullptr || later(t, *slot)) slot = &t;
    }
    const auto passed =
        static_cast<std::size_t>(std::count_if(latest.begin(), latest.end(), [](auto* p) { return p; }));
    if (passed > best_passed) {
      best = name;
      best_passed = passed;
      best_latest = std::move(latest);
    }
  }
  if (best.empty() && in.baseline_required && !in.baseline_names.empty()) {
    throw Error(Location{"", 0, "--baseline"}, "solution '" + in.baseline_names.front() +
                                                   "' has no PASSED trace on definition " + in.definition);
  }
  for (std::size_t i = 0; i < best_latest.size(); ++i) {
    if (best_latest[i] != nullptr) cols[i].baseline_ms = best_latest[i]->latency_ms;
  }
  return best;
}

WorkloadOutcome outcome_of(const TraceEntry& t, const WorkloadColumn& col) {
  WorkloadOutcome o;
  o.status = t.status;
  o.latency_ms = t.latency_ms;
  o.baseline_ms = col.baseline_ms ? col.baseline_ms : t.reference_latency_ms;
  o.sol_fraction = t.sol_fraction;
  return o;
}

std::vector<CandidateRow> candidates(const LeaderboardInput& in,
                                     const std::unordered_map<std::string, std::size_t>& at,
                                     const std::vector<WorkloadColumn>& cols) {
  CandidateIndex index;
  std::vector<CandidateRow> rows;
  std::vector<std::vector<const TraceEntry*>> latest;
  for (const TraceEntry& t : in.traces) {
    const auto [at_row, fresh] = index.find_or_add(t, rows.size());
    if (fresh) {
      rows.push_back(CandidateRow{t.solution, t.solution_id, false, {}, {}, t.timestamp, {}});
      latest.emplace_back(cols.size(), nullptr);
    }
    CandidateRow& row = rows[at_row];
    if (t.timestamp < row.first_timestamp) row.first_timestamp = t.timestamp;
    const TraceEntry*& slot = latest[at_row][at.at(t.workload_uuid)];
    if (slot == nullptr || later(t, *slot)) slot = &t;
  }
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (std::size_t w = 0; w < cols.size(); ++w) {
      const TraceEntry* t = latest[r][w];
      rows[r].outcomes.push_back(t != nullptr ? outcome_of(*t, cols[w]) : WorkloadOutcome{});
      rows[r].trace_ids.push_back(t != nullptr ? std::optional<RowId>(t->id) : std::nullopt);
    }
    rows[r].score = score_outcomes(rows[r].outcomes, in.sweep);
  }
  return rows;
}

}  // namespace

DefinitionReport build_leaderboard(const LeaderboardInput& in) {
  DefinitionReport r;
  r.definition = in.definition;
  r.sweep.assign(in.sweep.begin(), in.sweep.end());
  std::unordered_map<std::string, std::size_t> at;
  r.workloads = columns(in, at);
  r.baseline = pick_baseline(in, at, r.workloads);
  r.candidates = candidates(in, at, r.workloads);
  for (CandidateRow& c : r.candidates) c.is_baseline = !r.baseline.empty() && c.name == r.baseline;
  std::stable_sort(r.candidates.begin(), r.candidates.end(),
                   [](const CandidateRow& a, const CandidateRow& b) {
                     return std::tie(b.score.contest, b.score.mean_speedup, a.name) <
                            std::tie(a.score.contest, a.score.mean_speedup, b.name);
                   });
  return r;
}

}  // namespace kh::report
