// The per-workload plots: speedup bars, fast_p curves, latency against the var axis.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "report/plots.h"
#include "report/svg/plot_canvas.h"

namespace kh::report {
namespace {

using svg::AxisSpec;
using svg::PlotCanvas;
using svg::Point;
using svg::ScaleKind;

// Workload columns ordered by the var axis, so bars and lines read left to right.
std::vector<std::size_t> by_axis(const DefinitionReport& r, const PlotInputs& in) {
  std::vector<std::size_t> order(r.workloads.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const double va = a < in.var_values.size() ? in.var_values[a].value_or(0) : 0;
    const double vb = b < in.var_values.size() ? in.var_values[b].value_or(0) : 0;
    return va < vb;
  });
  return order;
}

std::string workload_label(const DefinitionReport& r, const PlotInputs& in, std::size_t w) {
  const std::string uuid = r.workloads[w].uuid.substr(0, 8);
  if (w >= in.var_values.size() || !in.var_values[w]) return uuid;
  return fmt::format("{} {}={:g}", uuid, in.var_axis, *in.var_values[w]);
}

}  // namespace

std::vector<std::size_t> top_candidates(const DefinitionReport& r, std::size_t n) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < r.candidates.size() && out.size() < n; ++i) {
    if (!r.candidates[i].is_baseline) out.push_back(i);
  }
  return out;
}

std::optional<std::size_t> baseline_index(const DefinitionReport& r) {
  for (std::size_t i = 0; i < r.candidates.size(); ++i) {
    if (r.candidates[i].is_baseline) return i;
  }
  return std::nullopt;
}

std::string candidate_label(const CandidateRow& row) {
  return row.solution_id ? fmt::format("{} #{}", row.name, *row.solution_id) : row.name;
}

std::string speedup_plot(const DefinitionReport& r, const PlotInputs& in) {
  const auto top = top_candidates(r, 1);
  const std::vector<std::size_t> order = by_axis(r, in);
  std::vector<double> speedups{1.0};
  if (!top.empty()) {
    for (const WorkloadOutcome& o : r.candidates[top[0]].outcomes)
      speedups.push_back(o.speedup().value_or(1.0));
  }
  const std::string title =
      top.empty() ? "Speedup per workload" : "Speedup per workload: " + candidate_label(r.candidates[top[0]]);
  const std::string x_title = in.var_axis.empty() ? "workload" : "workload (ordered by " + in.var_axis + ")";
  PlotCanvas plot(title, AxisSpec{x_title, ScaleKind::linear, {0.0, static_cast<double>(order.size())}, true},
                  AxisSpec{"speedup over baseline", ScaleKind::log, speedups});
  plot.reference_line(1.0, "baseline");
  if (top.empty()) plot.note("no candidate besides the baseline");
  plot.writer().open_group({{"class", "bars"}});
  for (std::size_t k = 0; k < order.size() && !top.empty(); ++k) {
    const WorkloadOutcome& o = r.candidates[top[0]].outcomes[order[k]];
    const double x0 = plot.x()(static_cast<double>(k) + 0.1), x1 = plot.x()(static_cast<double>(k) + 0.9);
    const std::string label = workload_label(r, in, order[k]);
    if (const auto s = o.speedup()) {
      const double y0 = plot.y()(1.0), y1 = plot.y()(*s);
      plot.writer().rect_with_title(x0, std::min(y0, y1), x1 - x0, std::max(std::abs(y1 - y0), 1.0),
                                    fmt::format("{}: {:.3g}x", label, *s),
                                    {{"class", "mark bar"}, {"fill", *s >= 1 ? "#009E73" : "#D55E00"}});
    } else {
      plot.writer().text({(x0 + x1) / 2, plot.frame().bottom - 4}, "×",
                         {{"class", "failed"}, {"text-anchor", "middle"}, {"fill", "#c00"}});
    }
  }
  plot.writer().close_group();
  return plot.finish();
}

std::string fast_p_plot(const DefinitionReport& r) {
  PlotCanvas plot("fast_p: share of workloads correct and faster than p x baseline",
                  AxisSpec{"p", ScaleKind::linear, r.sweep, true},
                  AxisSpec{"fast_p", ScaleKind::linear, {0.0, 1.0}});
  std::size_t color = 0;
  for (std::size_t c : top_candidates(r, kPlotTop)) {
    std::vector<Point> pts;
    for (std::size_t i = 0; i < r.sweep.size(); ++i)
      pts.push_back({r.sweep[i], r.candidates[c].score.fast_p[i]});
    plot.line_series(pts, candidate_label(r.candidates[c]), color++);
  }
  if (r.candidates.empty()) plot.note("no traces");
  return plot.finish();
}

std::string latency_plot(const DefinitionReport& r, const PlotInputs& in) {
  std::vector<std::size_t> shown = top_candidates(r, kPlotTop);
  const auto base = baseline_index(r);
  if (base) shown.push_back(*base);
  const std::vector<std::size_t> order = by_axis(r, in);
  std::vector<double> xs, ys;
  std::vector<std::vector<Point>> series(shown.size());
  for (std::size_t s = 0; s < shown.size(); ++s) {
    for (std::size_t w : order) {
      const WorkloadOutcome& o = r.candidates[shown[s]].outcomes[w];
      const double x =
          w < in.var_values.size() && in.var_values[w] ? *in.var_values[w] : static_cast<double>(w + 1);
      if (!o.passed() || !o.latency_ms) continue;
      series[s].push_back({x, *o.latency_ms});
      xs.push_back(x);
      ys.push_back(*o.latency_ms);
    }
  }
  PlotCanvas plot("Latency against " + (in.var_axis.empty() ? std::string("workload") : in.var_axis),
                  AxisSpec{in.var_axis.empty() ? "workload" : in.var_axis, ScaleKind::log, xs},
                  AxisSpec{"latency (ms)", ScaleKind::log, ys});
  for (std::size_t s = 0; s < shown.size(); ++s) {
    const bool is_base = base && shown[s] == *base;
    plot.line_series(series[s], candidate_label(r.candidates[shown[s]]) + (is_base ? " (baseline)" : ""),
                     is_base ? 7 : s, is_base);
  }
  if (xs.empty()) plot.note("no passed workload with a latency");
  return plot.finish();
}

std::vector<NamedPlot> all_plots(const DefinitionReport& r, const PlotInputs& in) {
  return {{"speedup", speedup_plot(r, in)},
          {"fast_p", fast_p_plot(r)},
          {"latency", latency_plot(r, in)},
          {"rounds", rounds_plot(r, in)},
          {"roofline", roofline_plot(r, in.roofline)}};
}

}  // namespace kh::report
