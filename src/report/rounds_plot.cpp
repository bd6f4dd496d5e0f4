// The best latency over rounds: each candidate's geometric-mean latency (over the
// workloads, when it passed them all) at its round, and the best so far as a line.
// A candidate's round is its controller decision's round when there is one, else its
// place in the order candidates were first measured.
#include <algorithm>
#include <map>

#include "report/plots.h"
#include "report/svg/plot_canvas.h"

namespace kh::report {
namespace {

using svg::AxisSpec;
using svg::PlotCanvas;
using svg::Point;
using svg::ScaleKind;

std::optional<double> geomean_latency(const CandidateRow& row) {
  if (row.score.total == 0 || row.score.passed != row.score.total) return std::nullopt;
  std::vector<double> ms;
  for (const WorkloadOutcome& o : row.outcomes) {
    if (o.latency_ms) ms.push_back(*o.latency_ms);
  }
  return geometric_mean(ms);
}

struct RoundPoint {
  double round = 0;
  double latency = 0;
  std::string label;
};

std::vector<RoundPoint> round_points(const DefinitionReport& r, const PlotInputs& in) {
  std::vector<std::size_t> by_time(r.candidates.size());
  for (std::size_t i = 0; i < by_time.size(); ++i) by_time[i] = i;
  std::stable_sort(by_time.begin(), by_time.end(), [&](std::size_t a, std::size_t b) {
    return r.candidates[a].first_timestamp < r.candidates[b].first_timestamp;
  });
  std::vector<RoundPoint> out;
  for (std::size_t k = 0; k < by_time.size(); ++k) {
    const CandidateRow& row = r.candidates[by_time[k]];
    const auto g = geomean_latency(row);
    if (!g || row.is_baseline) continue;
    double round = static_cast<double>(k + 1);
    if (row.solution_id && in.rounds.contains(*row.solution_id)) {
      round = static_cast<double>(in.rounds.at(*row.solution_id));
    }
    out.push_back({round, *g, candidate_label(row)});
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.round < b.round; });
  return out;
}

// At most this many candidate dots: beyond it the SVG grows by megabytes and says no
// more; every candidate that set a new best is always kept.
constexpr std::size_t kMaxDots = 600;

struct RoundSeries {
  std::vector<Point> dots;
  std::vector<std::string> labels;
  std::vector<Point> best;  // a step line: vertices where the best changed, and one at the end
};

RoundSeries round_series(const std::vector<RoundPoint>& pts) {
  RoundSeries s;
  const std::size_t stride = pts.size() <= kMaxDots ? 1 : (pts.size() + kMaxDots - 1) / kMaxDots;
  double so_far = 0;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const bool record = s.best.empty() || pts[i].latency < so_far;
    if (record) {
      // A step: level until this round, then down to the new best.
      if (!s.best.empty()) s.best.push_back({pts[i].round, so_far});
      so_far = pts[i].latency;
      s.best.push_back({pts[i].round, so_far});
    }
    if (record || i % stride == 0) {
      s.dots.push_back({pts[i].round, pts[i].latency});
      s.labels.push_back(pts[i].label);
    }
  }
  if (!pts.empty() && s.best.back().x != pts.back().round) s.best.push_back({pts.back().round, so_far});
  return s;
}

}  // namespace

std::string rounds_plot(const DefinitionReport& r, const PlotInputs& in) {
  const std::vector<RoundPoint> pts = round_points(r, in);
  std::vector<double> xs, ys;
  for (const RoundPoint& p : pts) {
    xs.push_back(p.round);
    ys.push_back(p.latency);
  }
  const auto base = baseline_index(r);
  const auto base_ms = base ? geomean_latency(r.candidates[*base]) : std::nullopt;
  if (base_ms) ys.push_back(*base_ms);
  PlotCanvas plot(
      in.rounds.empty() ? "Best latency over candidates (in order measured)" : "Best latency over rounds",
      AxisSpec{in.rounds.empty() ? "candidate" : "round", ScaleKind::linear, xs, true},
      AxisSpec{"geomean latency (ms)", ScaleKind::log, ys});
  if (base_ms) plot.reference_line(*base_ms, "baseline");
  const RoundSeries s = round_series(pts);
  plot.point_series(s.dots,
                    s.dots.size() < pts.size() ? "candidates (a sample and every new best)" : "candidates", 1,
                    s.labels);
  if (!s.best.empty()) plot.line_series(s.best, "best so far", 0);
  if (pts.empty()) plot.note("no candidate passed every workload");
  return plot.finish();
}

}  // namespace kh::report
