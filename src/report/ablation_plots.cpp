// The ablation report's plots: the best speedup against candidates spent (a step line per
// arm), fast_p of each arm's best, and each arm's candidates by status (stacked bars).
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "report/ablation_report.h"
#include "report/svg/plot_canvas.h"

namespace kh::report {
namespace {

using svg::AxisSpec;
using svg::PlotCanvas;
using svg::Point;
using svg::ScaleKind;

std::string budget_plot(const AblationReport& r) {
  std::vector<double> xs{0.0}, ys{1.0};
  for (const ArmReport& a : r.arms) {
    for (const BudgetPoint& p : a.curve) {
      xs.push_back(static_cast<double>(p.candidates));
      ys.push_back(p.best_speedup);
    }
  }
  PlotCanvas plot("Best speedup over the baseline against candidates spent",
                  AxisSpec{"candidates spent", ScaleKind::linear, xs, true},
                  AxisSpec{"best speedup (reported)", ScaleKind::log, ys});
  plot.reference_line(1.0, "baseline");
  std::size_t color = 0;
  for (const ArmReport& a : r.arms) {
    // A step line from (0, 1x): level until a round ends with a new best.
    std::vector<Point> pts{{0.0, 1.0}};
    std::vector<std::string> tips{a.name + ": start, 1.000x"};
    double so_far = 1.0;
    for (const BudgetPoint& p : a.curve) {
      const auto x = static_cast<double>(p.candidates);
      if (p.best_speedup != so_far) {
        pts.push_back({x, so_far});
        tips.push_back(a.name);
      }
      so_far = p.best_speedup;
      pts.push_back({x, so_far});
      tips.push_back(fmt::format("{}: round {}, {} candidates, {}", a.name, p.round, p.candidates,
                                 format_speedup(so_far)));
    }
    plot.line_series(pts, a.name, color++, false, tips);
  }
  if (r.arms.empty()) plot.note("no arms");
  return plot.finish();
}

std::string arms_fast_p_plot(const AblationReport& r) {
  PlotCanvas plot("fast_p of each arm's best: share of workloads faster than p x baseline",
                  AxisSpec{"p", ScaleKind::linear, r.sweep, true},
                  AxisSpec{"fast_p", ScaleKind::linear, {0.0, 1.0}});
  std::size_t color = 0;
  for (const ArmReport& a : r.arms) {
    std::vector<Point> pts;
    for (std::size_t i = 0; i < r.sweep.size() && i < a.fast_p.size(); ++i)
      pts.push_back({r.sweep[i], a.fast_p[i]});
    plot.line_series(pts, a.name, color++);
  }
  return plot.finish();
}

struct StatusPart {
  const char* name;
  const char* color;
  std::int64_t CandidateStatuses::*count;
};

constexpr std::array kParts = {
    StatusPart{"passed", "#009E73", &CandidateStatuses::passed},
    StatusPart{"incorrect", "#E69F00", &CandidateStatuses::incorrect},
    StatusPart{"reward hack", "#D55E00", &CandidateStatuses::reward_hack},
    StatusPart{"compile error", "#CC79A7", &CandidateStatuses::compile_error},
    StatusPart{"crashed or timed out", "#56B4E9", &CandidateStatuses::crashed},
    StatusPart{"refused answer", "#999999", &CandidateStatuses::refused},
};

std::string statuses_plot(const AblationReport& r) {
  std::vector<double> ys{0.0};
  for (const ArmReport& a : r.arms) ys.push_back(static_cast<double>(a.statuses.total()));
  PlotCanvas plot("Candidates by status",
                  AxisSpec{"arm",
                           ScaleKind::linear,
                           {0.0, static_cast<double>(std::max<std::size_t>(r.arms.size(), 1))},
                           true},
                  AxisSpec{"candidates", ScaleKind::linear, ys, true});
  for (const StatusPart& part : kParts) plot.add_legend({part.name, part.color, false});
  plot.writer().open_group({{"class", "bars"}});
  for (std::size_t k = 0; k < r.arms.size(); ++k) {
    const ArmReport& a = r.arms[k];
    const double x0 = plot.x()(static_cast<double>(k) + 0.2), x1 = plot.x()(static_cast<double>(k) + 0.8);
    double below = 0;
    for (const StatusPart& part : kParts) {
      const auto n = static_cast<double>(a.statuses.*part.count);
      if (n <= 0) continue;
      const double y0 = plot.y()(below), y1 = plot.y()(below + n);
      plot.writer().rect_with_title(x0, y1, x1 - x0, y0 - y1, fmt::format("{}: {} {}", a.name, n, part.name),
                                    {{"class", "mark bar"}, {"fill", part.color}});
      below += n;
    }
    plot.writer().text({(x0 + x1) / 2, plot.y()(below) - 4}, a.name,
                       {{"text-anchor", "middle"}, {"class", "arm"}});
  }
  plot.writer().close_group();
  return plot.finish();
}

}  // namespace

std::vector<NamedPlot> ablation_plots(const AblationReport& r) {
  return {{"budget", budget_plot(r)}, {"fast_p", arms_fast_p_plot(r)}, {"statuses", statuses_plot(r)}};
}

}  // namespace kh::report
